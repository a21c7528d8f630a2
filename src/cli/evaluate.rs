//! `spmv-reorder evaluate` (being written: replaced by the issue that owns it).

/// Arguments of `spmv-reorder evaluate`.
#[derive(Debug, clap::Args)]
pub struct EvaluateArgs {
    /// Arguments (not yet defined).
    rest: Vec<String>,
}

/// Runs `spmv-reorder evaluate`.
pub fn run(args: EvaluateArgs) -> anyhow::Result<()> {
    anyhow::bail!(
        "'evaluate' is not available in this build (args: {:?})",
        args.rest
    )
}
