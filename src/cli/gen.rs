//! `spmv-reorder gen` (being written: replaced by the issue that owns it).

/// Arguments of `spmv-reorder gen`.
#[derive(Debug, clap::Args)]
pub struct GenArgs {
    /// Arguments (not yet defined).
    rest: Vec<String>,
}

/// Runs `spmv-reorder gen`.
pub fn run(args: GenArgs) -> anyhow::Result<()> {
    anyhow::bail!("'gen' is not available in this build (args: {:?})", args.rest)
}
