//! `spmv-reorder trace-kernel` (being written: replaced by the issue that owns it).

/// Arguments of `spmv-reorder trace-kernel`.
#[derive(Debug, clap::Args)]
pub struct TraceKernelArgs {
    /// Arguments (not yet defined).
    rest: Vec<String>,
}

/// Runs `spmv-reorder trace-kernel`.
pub fn run(args: TraceKernelArgs) -> anyhow::Result<()> {
    anyhow::bail!(
        "'trace-kernel' is not available in this build (args: {:?})",
        args.rest
    )
}
