//! `spmv-reorder sample`: samples a matrix (random, or DAST on a simulated, live or recorded memory
//! trace) and writes the sampled pattern. The sampler specification is parsed by the library
//! ([`SamplerSpec`]); this module only reads, calls [`sample`] and writes.

use anyhow::Context;
use spmv_reorder_mtx::{MatrixMarket, OutputPlan, ReadOptions, WriteOptions};
use spmv_reorder_sampling::{sample, Coverage, SampleOptions, SamplerSpec};
use spmv_reorder_sparse::AnyCsr;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Arguments of `spmv-reorder sample`.
#[derive(Debug, clap::Args)]
pub struct SampleArgs {
    /// The matrix (Matrix Market `.mtx`/`.mtx.gz`, scipy `.npz`, PETSc `.petsc`; `-`: Matrix Market on stdin).
    file: PathBuf,
    /// The sampler: random:P | dast-sim[:period=N,threshold=C,threads=T,kernel=K,...] |
    /// dast-perf[:period=N,ldlat=C,...] | trace:perf-script=FILE,layout=FILE[,...] |
    /// trace:lackey=FILE,layout=FILE[,...]
    #[arg(long, value_name = "SPEC")]
    sampler: String,
    /// Output: the sampled entries as a general pattern matrix (DAST: the univocal entries).
    #[arg(short, long, value_name = "SAMPLED.mtx")]
    output: PathBuf,
    /// Print the coverage statistics as JSON (on stderr when `-o -` writes the sample to stdout).
    #[arg(long)]
    json: bool,
    /// Seed of the random choices.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Threads of the sampled SpMV (simulated or live), unless the sampler sets its own: 1 to
    /// 1024 (simulated threads need not exist on this machine).
    #[arg(long, default_value_t = 1, value_parser = super::values::count(1, 1024))]
    threads: usize,
}

/// Runs `spmv-reorder sample`.
pub fn run(args: SampleArgs) -> anyhow::Result<()> {
    let spec: SamplerSpec = args.sampler.parse().map_err(|e| {
        super::usage_error(
            "sample",
            format!("invalid value '{}' for '--sampler': {e}", args.sampler),
        )
    })?;
    // The statistics go to stderr when the sample itself goes to stdout.
    let stats_on_stdout = args.output != Path::new("-");
    let mut plan = OutputPlan::new();
    plan.input("input", &args.file);
    for f in spec.input_files() {
        plan.input("--sampler file", f);
    }
    plan.output("-o", &args.output)?;
    if stats_on_stdout {
        plan.output("standard output (the statistics)", Path::new("-"))?;
    }
    let read_opts = ReadOptions {
        footprint: Some(super::memory::KERNEL),
        ..Default::default()
    };
    let file = spmv_reorder_mtx::read_path(&args.file, &read_opts)
        .with_context(|| format!("reading {}", args.file.display()))?;
    super::memory::reserve_for(
        "sampling",
        super::memory::KERNEL,
        file.nrows(),
        file.ncols(),
        file.nnz(),
    )?;
    let matrix = file.matrix.to_real();
    let opts = SampleOptions {
        seed: args.seed,
        threads: args.threads,
    };
    let s = sample(&matrix, &spec, &opts)
        .with_context(|| format!("sampling {} with {}", args.file.display(), args.sampler))?;
    let out = MatrixMarket::general(AnyCsr::Pattern(s.pattern));
    spmv_reorder_mtx::write_path(&args.output, &out, &WriteOptions::default())
        .with_context(|| format!("writing {}", args.output.display()))?;
    if stats_on_stdout {
        print_coverage(&mut std::io::stdout().lock(), &s.coverage, args.json)
    } else {
        print_coverage(&mut std::io::stderr().lock(), &s.coverage, args.json)
    }
}

/// The sample's statistics, as a line of text or as JSON.
fn print_coverage(out: &mut impl Write, c: &Coverage, json: bool) -> anyhow::Result<()> {
    if json {
        serde_json::to_writer_pretty(&mut *out, c)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "sampled {} of {} nonzeros ({:.2}%), {:.2} per row, {} rows without sample ({:.1}%), \
             {} rejected candidates",
            c.sampled_nnz,
            c.nnz,
            100.0 * c.sampled_fraction,
            c.mean_per_row,
            c.rows_without_sample,
            100.0 * c.rows_without_sample_fraction,
            c.rejected
        )?;
    }
    Ok(())
}
