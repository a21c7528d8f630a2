//! `spmv-reorder stream` (being written: replaced by the issue that owns it).

/// Arguments of `spmv-reorder stream`.
#[derive(Debug, clap::Args)]
pub struct StreamArgs {
    /// Arguments (not yet defined).
    rest: Vec<String>,
}

/// Runs `spmv-reorder stream`.
pub fn run(args: StreamArgs) -> anyhow::Result<()> {
    anyhow::bail!(
        "'stream' is not available in this build (args: {:?})",
        args.rest
    )
}
