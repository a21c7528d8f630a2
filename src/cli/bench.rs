//! `spmv-reorder bench` (being written: replaced by the issue that owns it).

/// Arguments of `spmv-reorder bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// Arguments (not yet defined).
    rest: Vec<String>,
}

/// Runs `spmv-reorder bench`.
pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    anyhow::bail!(
        "'bench' is not available in this build (args: {:?})",
        args.rest
    )
}
