//! `spmv-reorder trace-kernel`: runs a traced SpMV kernel so a profiler or valgrind can record its
//! memory accesses, and writes the layout that maps the recorded addresses back to the matrix.
//!
//! ```text
//! valgrind --tool=lackey --trace-mem=yes --log-file=A.lackey.txt -- \
//!     spmv-reorder trace-kernel A.mtx --emit-layout A.layout.json
//! spmv-reorder sample A.mtx --sampler trace:lackey=A.lackey.txt,layout=A.layout.json -o S.mtx
//! ```

use anyhow::Context;
use spmv_reorder_sampling::{Kernel, TracedSpmv};
use std::path::PathBuf;

/// Arguments of `spmv-reorder trace-kernel`.
#[derive(Debug, clap::Args)]
pub struct TraceKernelArgs {
    /// The matrix (Matrix Market, optionally gzipped).
    file: PathBuf,
    /// Where to write the layout (JSON): written before the first iteration, rewritten after the
    /// last with each iteration's CLOCK_MONOTONIC time window.
    #[arg(long, value_name = "LAYOUT")]
    emit_layout: PathBuf,
    /// SpMV iterations (the samplers use the second by default).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
    iterations: u32,
    /// The traced kernel: per-nonzero (y[i] in memory in the inner loop) or per-row (y[i] stored
    /// once per row).
    #[arg(long, default_value = "per-nonzero")]
    kernel: Kernel,
    /// Threads (keep 1 under valgrind: lackey does not tell threads apart).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1024))]
    threads: u64,
}

/// Runs `spmv-reorder trace-kernel`.
pub fn run(args: TraceKernelArgs) -> anyhow::Result<()> {
    let read_opts = spmv_reorder_mtx::ReadOptions {
        threads: Some(1),
        ..Default::default()
    };
    let file = spmv_reorder_mtx::read_path(&args.file, &read_opts)
        .with_context(|| format!("reading {}", args.file.display()))?;
    let matrix = file.matrix.to_real();
    let mut run = TracedSpmv::new(&matrix, args.kernel, args.threads as usize, args.iterations);
    run.run_recorded(&args.emit_layout)
        .with_context(|| format!("writing the layout {}", args.emit_layout.display()))?;
    let checksum: f64 = run.y().iter().sum();
    println!(
        "traced {} iteration(s) of the {} kernel on {} thread(s): {} x {}, {} nonzeros, sum(y) = {checksum}",
        args.iterations,
        args.kernel,
        args.threads,
        matrix.nrows(),
        matrix.ncols(),
        matrix.nnz()
    );
    Ok(())
}
