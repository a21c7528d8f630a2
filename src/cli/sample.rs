//! `spmv-reorder sample`: samples a matrix (random, or DAST on a simulated, live or recorded memory
//! trace) and writes the sampled pattern. The sampler specification is parsed by the library
//! ([`SamplerSpec`]); this module only reads, calls [`sample`] and writes.

use anyhow::Context;
use spmv_reorder_mtx::{MatrixMarket, ReadOptions, WriteOptions};
use spmv_reorder_sampling::{sample, SampleOptions, SamplerSpec};
use spmv_reorder_sparse::AnyCsr;
use std::path::PathBuf;

/// Arguments of `spmv-reorder sample`.
#[derive(Debug, clap::Args)]
pub struct SampleArgs {
    /// The matrix (Matrix Market, optionally gzipped).
    file: PathBuf,
    /// The sampler: random:P | dast-sim[:period=N,threshold=C,threads=T,kernel=K,...] |
    /// dast-perf[:period=N,ldlat=C,...] | trace:perf-script=FILE,layout=FILE[,...] |
    /// trace:lackey=FILE,layout=FILE[,...]
    #[arg(long, value_name = "SPEC")]
    sampler: String,
    /// Output: the sampled entries as a general pattern matrix (DAST: the univocal entries).
    #[arg(short, long, value_name = "SAMPLED.mtx")]
    output: PathBuf,
    /// Print the coverage statistics as JSON.
    #[arg(long)]
    json: bool,
    /// Seed of the random choices.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Threads of the sampled SpMV (simulated or live), unless the sampler sets its own.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1024))]
    threads: u64,
}

/// Runs `spmv-reorder sample`.
pub fn run(args: SampleArgs) -> anyhow::Result<()> {
    let spec: SamplerSpec = args.sampler.parse()?;
    let file = spmv_reorder_mtx::read_path(&args.file, &ReadOptions::default())
        .with_context(|| format!("reading {}", args.file.display()))?;
    let matrix = file.matrix.to_real();
    let opts = SampleOptions {
        seed: args.seed,
        threads: args.threads as usize,
    };
    let s = sample(&matrix, &spec, &opts)
        .with_context(|| format!("sampling {} with {}", args.file.display(), args.sampler))?;
    let out = MatrixMarket::general(AnyCsr::Pattern(s.pattern));
    spmv_reorder_mtx::write_path(&args.output, &out, &WriteOptions::default())
        .with_context(|| format!("writing {}", args.output.display()))?;
    let c = &s.coverage;
    if args.json {
        println!("{}", serde_json::to_string_pretty(c)?);
    } else {
        println!(
            "sampled {} of {} nonzeros ({:.2}%), {:.2} per row, {} rows without sample ({:.1}%), \
             {} rejected candidates",
            c.sampled_nnz,
            c.nnz,
            100.0 * c.sampled_fraction,
            c.mean_per_row,
            c.rows_without_sample,
            100.0 * c.rows_without_sample_fraction,
            c.rejected
        );
    }
    Ok(())
}
