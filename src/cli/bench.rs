//! `spmv-reorder bench`: time the parallel SpMV kernels on a matrix file, next to a STREAM
//! triad measured in the same run, optionally before and after a reordering.

use anyhow::Context;
use spmv_reorder_mtx::{IndexBase, OutputPlan, PermutationFormat, ReadOptions};
use spmv_reorder_sparse::CsrMatrix;
use spmv_reorder_spmv::bench::{self, BenchConfig, BenchReport, Comparison};
use spmv_reorder_spmv::stream::StreamConfig;
use spmv_reorder_spmv::{Kernel, Pinning, ThreadBinding};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Arguments of `spmv-reorder bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// The matrix (Matrix Market `.mtx`/`.mtx.gz`, scipy `.npz`, PETSc `.petsc`; `-`: Matrix Market on stdin).
    file: PathBuf,
    #[command(flatten)]
    team: super::team::TeamArgs,
    /// Kernel: static-rows, nnz-balanced, merge-path, dynamic, or all.
    #[arg(long, value_name = "K", default_value = "all", value_parser = kernels)]
    kernel: Kernels,
    /// Timed samples per kernel (per matrix when comparing), 1 to 100000.
    #[arg(long, value_name = "R", default_value_t = 20, value_parser = super::values::count(1, 100_000))]
    reps: usize,
    /// Untimed products before timing, 0 to 100000.
    #[arg(long, value_name = "W", default_value_t = 3, value_parser = super::values::count(0, 100_000))]
    warmup: usize,
    /// Megabytes per STREAM triad array (three arrays), at most 1000000; 0 skips the triad.
    #[arg(long, value_name = "MB", default_value_t = 80, value_parser = super::values::count(0, 1_000_000))]
    stream_mb: usize,
    /// Triad repetitions, 1 to 1000.
    #[arg(long, value_name = "R", default_value_t = 10, value_parser = super::values::count(1, 1000))]
    stream_reps: usize,
    /// A permutation file: benchmark FILE before and after the symmetric permutation P·A·Pᵀ.
    #[arg(long, value_name = "PERM", conflicts_with = "after")]
    perm: Option<PathBuf>,
    /// First index of --perm: 1 (spmv-reorder, MATLAB) or 0 (scipy, numpy, METIS).
    #[arg(long, value_name = "0|1", default_value = "1", requires = "perm")]
    perm_base: IndexBase,
    /// A second matrix (the reordered one): benchmark both side by side.
    #[arg(long, value_name = "SECOND")]
    after: Option<PathBuf>,
    /// Seconds the reordering took, for the break-even iterations.
    #[arg(long, value_name = "S", value_parser = super::values::elapsed_seconds)]
    reorder_seconds: Option<f64>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// The kernels `--kernel` names: one, or every one for `all`.
#[derive(Debug, Clone)]
struct Kernels(Vec<Kernel>);

/// Parses `--kernel`: a kernel's name, or `all`.
fn kernels(text: &str) -> Result<Kernels, String> {
    if text.trim().eq_ignore_ascii_case("all") {
        return Ok(Kernels(Kernel::ALL.to_vec()));
    }
    text.parse().map(|k| Kernels(vec![k])).map_err(|_| {
        let names: Vec<&str> = Kernel::ALL.iter().map(|k| k.name()).collect();
        format!("expected {} or all (every kernel)", names.join(", "))
    })
}

/// The validated configuration of a run (raw arguments → library settings).
fn config(args: &BenchArgs) -> anyhow::Result<BenchConfig> {
    let team = args.team.resolve()?;
    super::memory::reserve(
        "the STREAM triad's three arrays",
        3 * args.stream_mb as u64 * 1_000_000,
    )?;
    Ok(BenchConfig {
        threads: team.threads,
        pinning: team.pinning,
        placement: team.placement,
        kernels: args.kernel.0.clone(),
        warmup: args.warmup,
        reps: args.reps,
        stream: (args.stream_mb > 0).then(|| StreamConfig {
            elements: args.stream_mb * 1_000_000 / 8,
            reps: args.stream_reps,
        }),
        reorder_seconds: args.reorder_seconds,
        ..BenchConfig::default()
    })
}

fn read_matrix(path: &Path) -> anyhow::Result<CsrMatrix<f64>> {
    let opts = ReadOptions {
        footprint: Some(super::memory::KERNEL),
        ..Default::default()
    };
    let m = spmv_reorder_mtx::read_path(path, &opts)
        .with_context(|| format!("reading {}", path.display()))?;
    super::memory::reserve_for(
        "benchmarking",
        super::memory::KERNEL,
        m.nrows(),
        m.ncols(),
        m.nnz(),
    )?;
    Ok(m.matrix.to_real())
}

/// Runs `spmv-reorder bench`.
pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    // `bench m.mtx >> m.mtx` would append the figures to a matrix it reads.
    let mut plan = OutputPlan::new();
    plan.input("input", &args.file);
    for (what, path) in [("--perm", &args.perm), ("--after", &args.after)] {
        if let Some(p) = path {
            plan.input(what, p);
        }
    }
    plan.output("standard output", Path::new("-"))?;
    let config = config(&args)?;
    let before = read_matrix(&args.file)?;
    let after = match (&args.perm, &args.after) {
        (Some(perm_path), _) => {
            let format = PermutationFormat {
                base: args.perm_base,
                old_to_new: false,
            };
            let p = super::apply::read_perm(perm_path, before.nrows(), format, "rows")?;
            let b = before.permute_symmetric(&p).with_context(|| {
                format!(
                    "applying permutation {} to {}",
                    perm_path.display(),
                    args.file.display()
                )
            })?;
            Some(b)
        }
        (None, Some(path)) => Some(read_matrix(path)?),
        (None, None) => None,
    };
    let mut out = std::io::stdout().lock();
    match after {
        None => {
            let report = bench::run(&before, &config)?;
            if args.json {
                serde_json::to_writer_pretty(&mut out, &report)?;
                writeln!(out)?;
            } else {
                write_report(&mut out, &args.file.display().to_string(), &config, &report)?;
            }
        }
        Some(after) => {
            let cmp = bench::compare(&before, &after, &config).with_context(|| {
                format!(
                    "benchmarking {} before, {} after",
                    args.file.display(),
                    second(&args)
                )
            })?;
            if args.json {
                serde_json::to_writer_pretty(&mut out, &cmp)?;
                writeln!(out)?;
            } else {
                write_comparison(&mut out, &args, &config, &cmp)?;
            }
        }
    }
    Ok(())
}

/// Prints where each thread was asked to run and where it runs.
pub fn write_bindings(
    out: &mut impl Write,
    pinning: &Pinning,
    bindings: &[ThreadBinding],
) -> std::io::Result<()> {
    writeln!(out, "threads: {} (pinning {pinning})", bindings.len())?;
    for b in bindings {
        let show = |v: Option<usize>| v.map_or("-".to_owned(), |c| c.to_string());
        writeln!(
            out,
            "  thread {}: requested CPU {}, bound to {:?}, running on CPU {} (NUMA node {})",
            b.thread,
            show(b.requested_cpu),
            b.bound_cpus,
            show(b.observed_cpu),
            show(b.numa_node)
        )?;
    }
    Ok(())
}

fn write_header(
    out: &mut impl Write,
    config: &BenchConfig,
    report: &BenchReport,
) -> std::io::Result<()> {
    write_bindings(out, &config.pinning, &report.bindings)?;
    writeln!(out, "placement: {}", report.placement)?;
    match &report.triad {
        Some(t) => writeln!(
            out,
            "triad: {:.2} GB/s (best of {}, 3 x {:.0} MB, write-allocate not counted)",
            t.triad_gbytes_per_s,
            t.reps,
            t.array_bytes as f64 / 1e6
        ),
        None => writeln!(out, "triad: skipped"),
    }
}

fn write_report(
    out: &mut impl Write,
    name: &str,
    config: &BenchConfig,
    r: &BenchReport,
) -> std::io::Result<()> {
    let m = &r.matrix;
    writeln!(
        out,
        "matrix: {name} ({} x {}, {} nonzeros)",
        m.nrows, m.ncols, m.nnz
    )?;
    write_header(out, config, r)?;
    writeln!(
        out,
        "{:<13} {:>10} {:>10} {:>10} {:>8} {:>8} {:>8} {:>7} {:>8} {:>7} {:>9} {:>7} {:>8}",
        "kernel",
        "min_ms",
        "median_ms",
        "max_ms",
        "GFLOP/s",
        "GB/s",
        "%triad_m",
        "%triad",
        "balance",
        "OI",
        "roof_GF/s",
        "%roof",
        "prefetch"
    )?;
    let pct = |v: Option<f64>| v.map_or("-".to_owned(), |s| format!("{:.1}", 100.0 * s));
    for k in &r.kernels {
        writeln!(
            out,
            "{:<13} {:>10.4} {:>10.4} {:>10.4} {:>8.3} {:>8.2} {:>8} {:>7} {:>8.3} {:>7.4} {:>9} {:>7} {:>8}",
            k.kernel.name(),
            k.min_s * 1e3,
            k.median_s * 1e3,
            k.max_s * 1e3,
            k.gflops,
            k.gbytes_per_s,
            pct(k.median_triad_share),
            pct(k.triad_share),
            k.load_balance,
            k.roofline.operational_intensity,
            k.roofline
                .bandwidth_roof_gflops
                .map_or("-".to_owned(), |g| format!("{g:.3}")),
            pct(k.roofline.roof_share),
            if k.prefetch { "yes" } else { "no" },
        )?;
    }
    writeln!(
        out,
        "GFLOP/s, GB/s and %triad_m from medians (triad repetitions interleaved with the samples); \
         %triad and %roof from the fastest sample against the triad's best; prefetch: whether \
         the kernel prefetched values and col_idx (on matrices of 16 MiB and more, the faster of \
         the two, timed before the samples)"
    )?;
    if let Some(k) = r.kernels.iter().find(|k| k.kernel == r.best_kernel) {
        let pages: Vec<String> = k
            .pages
            .iter()
            .map(|p| format!("{} {:.0}%", p.array, 100.0 * p.local_share))
            .collect();
        writeln!(
            out,
            "pages on their owner thread's NUMA node ({}): {}",
            k.kernel,
            pages.join(", ")
        )?;
    }
    writeln!(
        out,
        "best: {} (median {:.4} ms)",
        r.best_kernel,
        r.median_s * 1e3
    )
}

/// One line per kernel: medians before and after, speedup, effective bandwidths.
fn write_kernel_speedups(out: &mut impl Write, c: &Comparison) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<13} {:>14} {:>14} {:>8} {:>12} {:>12}",
        "kernel", "before_med_ms", "after_med_ms", "speedup", "before_GB/s", "after_GB/s"
    )?;
    for ((s, b), a) in c
        .kernels
        .iter()
        .zip(&c.before.kernels)
        .zip(&c.after.kernels)
    {
        writeln!(
            out,
            "{:<13} {:>14.4} {:>14.4} {:>8.3} {:>12.2} {:>12.2}",
            s.kernel.name(),
            s.before_median_s * 1e3,
            s.after_median_s * 1e3,
            s.speedup,
            b.gbytes_per_s,
            a.gbytes_per_s
        )?;
    }
    Ok(())
}

/// What the benchmark compares the matrix with: the matrix permuted by `--perm`, or `--after`.
fn second(args: &BenchArgs) -> String {
    match (&args.perm, &args.after) {
        (Some(p), _) => format!("permuted by {}", p.display()),
        (_, Some(a)) => a.display().to_string(),
        _ => String::new(),
    }
}

fn write_comparison(
    out: &mut impl Write,
    args: &BenchArgs,
    config: &BenchConfig,
    c: &Comparison,
) -> std::io::Result<()> {
    let m = &c.before.matrix;
    writeln!(
        out,
        "before: {} ({} x {}, {} nonzeros)",
        args.file.display(),
        m.nrows,
        m.ncols,
        m.nnz
    )?;
    writeln!(out, "after:  {}", second(args))?;
    write_header(out, config, &c.before)?;
    let prefetch = |r: &BenchReport| {
        let best = r.kernels.iter().find(|k| k.kernel == r.best_kernel);
        if best.is_some_and(|k| k.prefetch) {
            "yes"
        } else {
            "no"
        }
    };
    writeln!(
        out,
        "prefetch of values and col_idx by the best kernels (the faster choice on matrices of \
         16 MiB and more): before {}, after {}",
        prefetch(&c.before),
        prefetch(&c.after)
    )?;
    write_kernel_speedups(out, c)?;
    writeln!(
        out,
        "speedup (best kernel before {} / after {}): {:.3}",
        c.before.best_kernel, c.after.best_kernel, c.speedup
    )?;
    match (c.reorder_seconds, c.break_even_iterations) {
        (Some(r), Some(b)) => writeln!(
            out,
            "reordering {r:.3} s = {:.1} products; pays off after {:.0} iterations",
            c.reorder_cost_in_spmvs.unwrap_or(f64::NAN),
            b.ceil()
        ),
        (Some(r), None) => writeln!(
            out,
            "reordering {r:.3} s never pays off: the reordered matrix is not faster"
        ),
        _ => writeln!(
            out,
            "(give --reorder-seconds S for the break-even iterations)"
        ),
    }
}
