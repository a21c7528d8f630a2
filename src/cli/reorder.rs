//! The main job, `spmv-reorder IN -o OUT` (being written: issue 7).

/// Arguments of the main job.
#[derive(Debug, clap::Args)]
pub struct ReorderArgs {
    /// Input Matrix Market file (`.mtx` or `.mtx.gz`, `-` for stdin).
    input: Option<std::path::PathBuf>,
    /// Output file for the reordered matrix.
    #[arg(short, long)]
    output: Option<std::path::PathBuf>,
}

/// Runs the main job.
pub fn run(args: ReorderArgs) -> anyhow::Result<()> {
    anyhow::bail!("the main job is not available in this build yet ({args:?})")
}
