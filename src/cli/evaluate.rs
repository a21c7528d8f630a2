//! `spmv-reorder evaluate DIR`: every matrix of a folder through every ordering, one table.

use super::{memory, messages, usage_error, values};
use anyhow::{bail, Context};
use spmv_reorder::evaluate::evaluate::{
    chosen_matrix_files, evaluate_matrix, largest_threads, markdown_table, summarize,
    summary_table, Candidate, EvaluateOptions, MatrixEvaluation,
};
use spmv_reorder::evaluate::EvaluateError;
use spmv_reorder::mtx::{self, OutputPlan, ReadOptions};
use spmv_reorder::plot::{bar_chart_svg, BarChartOptions};
use spmv_reorder::reorder::{Reorderer, SamplerChoice};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Arguments of `spmv-reorder evaluate`.
#[derive(Debug, clap::Args)]
pub struct EvaluateArgs {
    /// Folder of Matrix Market files (`.mtx`, `.mtx.gz`).
    dir: PathBuf,
    /// Shuffle each square matrix with a random symmetric permutation first (seed, default 1).
    #[arg(long, value_name = "SEED", num_args = 0..=1, default_missing_value = "1")]
    shuffle: Option<u64>,
    /// Thread counts to time SpMV with, each once.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1,2",
        value_name = "T,...",
        value_parser = values::threads
    )]
    threads: Vec<usize>,
    /// Timed samples per matrix and thread count (1 to 1000).
    #[arg(long, default_value_t = 7, value_parser = values::count(1, 1000))]
    reps: usize,
    /// Time budget of each TSP solve, in seconds.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS", value_parser = values::seconds)]
    time_limit: f64,
    /// An ordering to evaluate instead of the standard set (repeat the option for several): the
    /// method, then optional changes separated by spaces: a sampler, `start=greedy|given|rcm`,
    /// `window=SPEC`, `check=off` (return the TSP path without the cache check), `kicks=N` (at
    /// most N Chained Lin-Kernighan kicks; `kicks=n`: one per window), `runs=B` (rows sorted by
    /// length in blocks of B after ordering, `runs=0` for none: see `--length-runs`), `splits=N`
    /// (even row splits, `splits=0` for none: see `--row-split-threads`), `length-cost=W` (see
    /// `--length-change-cost`), `parts=N` (see `--part-rows`), `rcm-start=S` (see
    /// `--rcm-start`). E.g.
    /// `--ordering rcm --ordering 'tsp start=rcm'`. The identity (the baseline) is always
    /// included; an ordering may not be given twice.
    #[arg(long = "ordering", value_name = "SPEC")]
    orderings: Vec<String>,
    /// Only matrices whose file name contains this text.
    #[arg(long, value_name = "TEXT")]
    only: Option<String>,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print JSON (every figure of every matrix, and the summary) instead of the tables.
    #[arg(long)]
    json: bool,
    /// Also write the tables as Markdown to this file.
    #[arg(long, value_name = "FILE.md")]
    markdown: Option<PathBuf>,
    /// Also draw the speedups over the original (largest thread count) as an SVG bar chart.
    #[arg(long, value_name = "FILE.svg")]
    chart: Option<PathBuf>,
}

/// Runs `spmv-reorder evaluate`.
pub fn run(args: EvaluateArgs) -> anyhow::Result<()> {
    let time_limit = Some(Duration::from_secs_f64(args.time_limit));
    let mut opts = if args.orderings.is_empty() {
        EvaluateOptions::standard(args.seed, time_limit)
    } else {
        let base = Reorderer::new().seed(args.seed).time_limit(time_limit);
        let candidates = args
            .orderings
            .iter()
            .map(|o| {
                Candidate::parse(o, &base)
                    .map_err(|e| usage_error("evaluate", format!("--ordering `{o}`: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        EvaluateOptions::with_candidates(candidates)
    };
    opts.shuffle = args.shuffle;
    opts.threads = args.threads.clone();
    opts.reps = args.reps;
    opts.check().map_err(|e| {
        let hint = match e {
            EvaluateError::RepeatedOrdering { .. } => ": give each --ordering once",
            EvaluateError::RepeatedThreads { .. } => ": give each count of --threads once",
            _ => "",
        };
        usage_error("evaluate", format!("{e}{hint}"))
    })?;
    let files = chosen_files(&args)?;
    output_plan(&args, &files)?;
    let mut evals = Vec::with_capacity(files.len());
    let mut failed = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let name = f
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        messages::progress(&format!("[{}/{}] {name}", i + 1, files.len()));
        let evaluated = mtx::read_path(f, &ReadOptions::default())
            .map_err(anyhow::Error::from)
            .and_then(|m| {
                memory::reserve_for("evaluating", memory::REORDER, m.nrows(), m.ncols(), m.nnz())?;
                // A file stored symmetric vouches for its pattern, as in the main job.
                let symmetric = m.header.symmetry.is_triangular();
                evaluate_matrix(&name, &m.matrix.to_real(), symmetric, &opts)
                    .with_context(|| format!("evaluating {}", f.display()))
            });
        match evaluated {
            Ok(e) => evals.push(e),
            Err(e) => {
                messages::report("error", &format!("{e:#} (skipped)"));
                failed.push(name);
            }
        }
    }
    if !evals.is_empty() {
        write_results(&args, &evals)?;
    }
    if !failed.is_empty() {
        bail!(
            "{} of {} matrices could not be evaluated: {}",
            failed.len(),
            files.len(),
            failed.join(", ")
        );
    }
    Ok(())
}

/// The matrices of the folder that `--only` keeps.
fn chosen_files(args: &EvaluateArgs) -> anyhow::Result<Vec<PathBuf>> {
    chosen_matrix_files(&args.dir, args.only.as_deref()).map_err(|e| match e {
        EvaluateError::NoMatrixNamed { .. } => anyhow::anyhow!("{e} (--only)"),
        e => e.into(),
    })
}

/// Every file the run reads and writes: no output may be one of the matrices, a sampler's file,
/// or another output.
fn output_plan(args: &EvaluateArgs, files: &[PathBuf]) -> anyhow::Result<()> {
    let mut plan = OutputPlan::new();
    for f in files {
        plan.input("matrix", f);
    }
    for token in args.orderings.iter().flat_map(|o| o.split_whitespace()) {
        if let Ok(sampler) = token.parse::<SamplerChoice>() {
            for f in sampler.input_files() {
                plan.input("sampler file", f);
            }
        }
    }
    plan.output("standard output (the table)", Path::new("-"))?;
    if let Some(p) = &args.markdown {
        plan.output("--markdown", p)?;
    }
    if let Some(p) = &args.chart {
        plan.output("--chart", p)?;
    }
    Ok(())
}

/// The table (or JSON) on stdout, and the Markdown and chart files asked for.
fn write_results(args: &EvaluateArgs, evals: &[MatrixEvaluation]) -> anyhow::Result<()> {
    let summary = summarize(evals);
    let mut out = std::io::stdout().lock();
    let tables = format!(
        "{}\nGeometric means over the {} matrices:\n\n{}",
        markdown_table(evals),
        evals.len(),
        summary_table(evals)
    );
    if args.json {
        serde_json::to_writer_pretty(
            &mut out,
            &serde_json::json!({ "matrices": evals, "summary": summary }),
        )?;
        writeln!(out)?;
    } else {
        write!(out, "{tables}")?;
    }
    // Both files or neither.
    let staged = mtx::StagedOutputs::open();
    if let Some(path) = &args.markdown {
        mtx::write_atomically(path, |w| w.write_all(tables.as_bytes()))?;
    }
    if let Some(path) = &args.chart {
        chart(evals, path)?;
    }
    staged.commit()?;
    Ok(())
}

/// Speedup over the original at the largest thread count, one group per matrix.
fn chart(evals: &[MatrixEvaluation], path: &std::path::Path) -> anyhow::Result<()> {
    let categories: Vec<String> = evals
        .iter()
        .map(|e| {
            e.name
                .trim_end_matches(".gz")
                .trim_end_matches(".mtx")
                .to_string()
        })
        .collect();
    let labels: Vec<String> = evals.first().map_or(Vec::new(), |e| {
        e.results.iter().skip(1).map(|r| r.label.clone()).collect()
    });
    let series: Vec<(String, Vec<f64>)> = labels
        .iter()
        .map(|l| {
            let v = evals
                .iter()
                .map(|e| {
                    e.results
                        .iter()
                        .find(|r| &r.label == l)
                        .zip(largest_threads(&e.threads))
                        .and_then(|(r, k)| r.speedup.get(k).copied())
                        .unwrap_or(0.0)
                })
                .collect();
            (l.clone(), v)
        })
        .collect();
    let threads = evals
        .first()
        .and_then(|e| Some(e.threads[largest_threads(&e.threads)?]))
        .unwrap_or(1);
    let opts = BarChartOptions {
        width_px: 1400,
        height_px: 500,
        reference_line: Some(1.0),
    };
    bar_chart_svg(
        &format!("SpMV speedup over the original order ({threads} threads)"),
        &categories,
        &series,
        "speedup",
        path,
        &opts,
    )?;
    Ok(())
}
