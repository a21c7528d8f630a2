//! `spmv-reorder topology` (being written: replaced by the issue that owns it).

/// Arguments of `spmv-reorder topology`.
#[derive(Debug, clap::Args)]
pub struct TopologyArgs {
    /// Arguments (not yet defined).
    rest: Vec<String>,
}

/// Runs `spmv-reorder topology`.
pub fn run(args: TopologyArgs) -> anyhow::Result<()> {
    anyhow::bail!(
        "'topology' is not available in this build (args: {:?})",
        args.rest
    )
}
