//! `spmv-reorder info` (being written: replaced by the issue that owns it).

/// Arguments of `spmv-reorder info`.
#[derive(Debug, clap::Args)]
pub struct InfoArgs {
    /// Arguments (not yet defined).
    rest: Vec<String>,
}

/// Runs `spmv-reorder info`.
pub fn run(args: InfoArgs) -> anyhow::Result<()> {
    anyhow::bail!("'info' is not available in this build (args: {:?})", args.rest)
}
