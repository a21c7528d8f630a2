//! `spmv-reorder sample` (being written: replaced by the issue that owns it).

/// Arguments of `spmv-reorder sample`.
#[derive(Debug, clap::Args)]
pub struct SampleArgs {
    /// Arguments (not yet defined).
    rest: Vec<String>,
}

/// Runs `spmv-reorder sample`.
pub fn run(args: SampleArgs) -> anyhow::Result<()> {
    anyhow::bail!(
        "'sample' is not available in this build (args: {:?})",
        args.rest
    )
}
