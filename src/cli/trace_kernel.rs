//! `spmv-reorder trace-kernel`: runs a traced SpMV kernel so a profiler or valgrind can record its
//! memory accesses, and writes the layout that maps the recorded addresses back to the matrix.
//!
//! ```text
//! valgrind --tool=lackey --trace-mem=yes --log-file=A.lackey.txt -- \
//!     spmv-reorder trace-kernel A.mtx --emit-layout A.layout.json
//! spmv-reorder sample A.mtx --sampler trace:lackey=A.lackey.txt,layout=A.layout.json -o S.mtx
//! ```

use anyhow::Context;
use spmv_reorder_mtx::OutputPlan;
use spmv_reorder_sampling::{TracedKernel, TracedSpmv};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Arguments of `spmv-reorder trace-kernel`.
#[derive(Debug, clap::Args)]
pub struct TraceKernelArgs {
    /// The matrix (Matrix Market `.mtx`/`.mtx.gz`, scipy `.npz`, PETSc `.petsc`; `-`: Matrix Market on stdin).
    file: PathBuf,
    /// Where to write the layout (JSON): written before the first iteration, rewritten after the
    /// last with each iteration's CLOCK_MONOTONIC time window.
    #[arg(long, value_name = "LAYOUT")]
    emit_layout: PathBuf,
    /// SpMV iterations (the samplers use the second by default).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=1000))]
    iterations: u32,
    /// The traced kernel: per-nonzero (y[i] in memory in the inner loop) or per-row (y[i] stored
    /// once per row).
    #[arg(long, default_value = "per-nonzero")]
    kernel: TracedKernel,
    /// Threads (keep 1 under valgrind: lackey does not tell threads apart).
    #[arg(long, default_value_t = 1, value_parser = super::values::threads)]
    threads: usize,
}

/// Runs `spmv-reorder trace-kernel`.
pub fn run(args: TraceKernelArgs) -> anyhow::Result<()> {
    let mut plan = OutputPlan::new();
    plan.input("input", &args.file);
    plan.output("--emit-layout", &args.emit_layout)?;
    plan.output("standard output (the summary)", Path::new("-"))?;
    let read_opts = spmv_reorder_mtx::ReadOptions {
        threads: Some(1),
        footprint: Some(super::memory::KERNEL),
        ..Default::default()
    };
    let file = spmv_reorder_mtx::read_path(&args.file, &read_opts)
        .with_context(|| format!("reading {}", args.file.display()))?;
    super::memory::reserve_for(
        "the traced kernel",
        super::memory::KERNEL,
        file.nrows(),
        file.ncols(),
        file.nnz(),
    )?;
    let matrix = file.matrix.to_real();
    let mut run = TracedSpmv::new(&matrix, args.kernel, args.threads, args.iterations);
    run.run_recorded(|layout| {
        spmv_reorder_mtx::write_atomically(&args.emit_layout, |w| {
            w.write_all(layout.to_json().as_bytes())
        })
    })
    .with_context(|| format!("writing the layout {}", args.emit_layout.display()))?;
    // `+ 0.0`: the sum of no values is -0.0, which would print as "-0".
    let checksum: f64 = run.y().iter().sum::<f64>() + 0.0;
    writeln!(
        std::io::stdout().lock(),
        "traced {} iteration(s) of the {} kernel on {} thread(s): {} x {}, {} nonzeros, sum(y) = {checksum}",
        args.iterations,
        args.kernel,
        args.threads,
        matrix.nrows(),
        matrix.ncols(),
        matrix.nnz()
    )?;
    Ok(())
}
