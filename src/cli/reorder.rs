//! The main job, `spmv-reorder IN -o OUT`: read, reorder, write the reordered matrix (and on
//! request the permutation, a JSON report, spy plots and a before/after SpMV benchmark).

use super::progress::{Progress, StageRecord, Unit};
use super::values;
use anyhow::{bail, Context};
use spmv_reorder::locality::{CacheModel, ModelledCost};
use spmv_reorder::mtx::{self, MatrixMarket, OutputPlan, ReadOptions, Symmetry, WriteOptions};
use spmv_reorder::plot::{spy_png, SpyOptions};
use spmv_reorder::reorder::{
    Kept, Method, PermuteMode, ReorderReport, Reorderer, Reordering, RunBlocks, SamplerChoice,
    Stage, StartOrder, Tuning, WindowSpec, DEFAULT_LENGTH_CHANGE_COST,
};
use spmv_reorder::sparse::AnyCsr;
use spmv_reorder::spmv::bench::{self, BenchConfig, Comparison};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Arguments of the main job.
#[derive(Debug, clap::Args)]
#[command(next_help_heading = "Reordering")]
pub struct ReorderArgs {
    /// Input Matrix Market file (`.mtx` or `.mtx.gz`, `-` for stdin).
    input: Option<PathBuf>,
    /// Where to write the reordered matrix (`.gz` compresses, `-` is stdout). Without it, only
    /// the summary is printed.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Ordering method: tsp (windows of locality + Lin-Kernighan path), rcm, gorder, degree,
    /// identity, random.
    #[arg(long, default_value = "tsp", value_name = "METHOD")]
    method: Method,
    /// Nonzeros the ordering sees: all, random:P (e.g. random:0.02), dast-sim[:opt=val,...],
    /// dast-perf (hardware sampling), trace:perf-script=FILE,layout=FILE or
    /// trace:lackey=FILE,layout=FILE.
    #[arg(long, default_value = "all", value_name = "SAMPLER")]
    sampler: SamplerChoice,
    /// Windows of locality: 1 (rows), N (fixed size), var (thesis 4.2), or
    /// latency[:avg|CYCLES][,zeros] (needs a DAST sampler).
    #[arg(long, default_value = "1", value_name = "SPEC")]
    window: WindowSpec,
    /// Sides to permute: symmetric (P·A·Pᵀ, default for square matrices), rows, cols, both.
    #[arg(long, value_name = "MODE")]
    permute: Option<PermuteMode>,
    /// Write the permutation here: line i holds the 1-based original index of new row i. With
    /// independent column orders, the columns go to the same name with `.cols` appended.
    #[arg(long, value_name = "FILE")]
    perm_out: Option<PathBuf>,
    /// Write a JSON report (method, D and D_w before/after, TSP cost, bound and gap, timings).
    #[arg(long, value_name = "FILE.json")]
    report: Option<PathBuf>,
    /// Benchmark SpMV before and after, side by side, and report the speedup and break-even.
    #[arg(long)]
    bench: bool,
    /// Draw the sparsity patterns before and after as PNG: `--spy before.png,after.png`.
    #[arg(long, value_name = "BEFORE,AFTER", value_parser = parse_spy)]
    spy: Option<(PathBuf, PathBuf)>,
    /// Time budget of the TSP solve, in seconds (per side): it stops the local search and the
    /// kicks early.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0, value_parser = values::seconds)]
    time_limit: f64,
    /// Chained Lin-Kernighan kicks after the local search (random double bridges, each repaired
    /// and kept when the path gets no longer). Each kick lowers `D` a little at a cost: on the
    /// bundled matrices one kick per window gave 2.2% lower `D` for about 10x the reordering
    /// time and no measurable SpMV gain, hence the default 0. With the cache check on, the kicks
    /// (like Lin-Kernighan) run only on a path that may pass it.
    #[arg(long, value_name = "N", default_value_t = 0)]
    kicks: u64,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Threads, from 1 to the CPUs this process may use (default: all of them).
    #[arg(long, value_name = "T", value_parser = values::threads)]
    threads: Option<usize>,
    /// Where the TSP path starts: greedy (matching of candidate edges), given (the order as
    /// read), rcm (reverse Cuthill-McKee of the full pattern, then windows and path refine it).
    /// Default: rcm.
    #[arg(long, value_name = "START")]
    start: Option<StartOrder>,
    /// Return the TSP path as found. By default a cache model (L1 32 KiB 8-way, L2 1 MiB 16-way,
    /// with the matrix streams) prices SpMV's `x` reads in the input, the RCM start and the path
    /// orders, and the path is returned only when priced at least 15% below both others (the
    /// model has no prefetcher and favours the path); otherwise the cheaper of the two, or the
    /// one with the lower D when they are priced within 5%. The path is priced after 2-opt and
    /// Or-opt, and refined (Lin-Kernighan, kicks) only if, priced 15% lower, it would pass; the
    /// 2-opt descent is set aside partway when the path is already priced 40% above the cheaper
    /// order there; no path is computed at all when even the model's floor (every line of `x`
    /// missed once) would not pass.
    #[arg(long)]
    no_cache_check: bool,
    /// Candidate neighbours per window in the window graph.
    #[arg(long, default_value_t = 8, value_name = "K")]
    neighbours: usize,
    /// A column held by more windows than this (a hub, as in power-law graphs) is bounded in
    /// the window graph: each of its windows pairs only with the N nearest, so that a hub costs
    /// O(windows · N) instead of O(windows²). The summary says how many columns were bounded.
    #[arg(long, default_value_t = 256, value_name = "N")]
    hub_limit: usize,
    /// After ordering, sort the rows of every block of B consecutive rows by their number of
    /// nonzeros (0: off). Runs of equal lengths let the CPU predict where each row's loop ends,
    /// and every row stays within B - 1 places of where the ordering put it. `auto`: all rows
    /// when the matrix has at most 32768 columns (x then stays in cache whatever the order),
    /// else blocks of 128. Default: auto for tsp over one-row windows with the cache check (see
    /// the README's "Length runs"); off for the other methods and windows, and with
    /// --no-cache-check (the path as found).
    #[arg(long, value_name = "B|auto")]
    length_runs: Option<RunBlocks>,
    /// What the TSP path pays, on top of the columns that change, for each change of row
    /// length between consecutive rows (0: it minimises D alone, as the thesis does). A CSR
    /// product mispredicts where the length changes, at about the cost of one x read that
    /// misses L1. With 2, the path kept the lowest D on 28 of the 30 bundled matrices (see the
    /// README's "Length runs" for its speed). Not charged for windows of several rows nor on the
    /// column side.
    #[arg(long, value_name = "W", default_value_t = DEFAULT_LENGTH_CHANGE_COST)]
    length_change_cost: u32,
    /// No progress bars and no summary (errors are still printed).
    #[arg(short, long)]
    quiet: bool,
}

/// Runs the main job.
pub fn run(args: ReorderArgs) -> anyhow::Result<()> {
    let Some(input) = args.input.clone() else {
        bail!(
            "no input matrix: try `spmv-reorder INPUT.mtx -o OUTPUT.mtx`, or `spmv-reorder --help`"
        );
    };
    let reorderer = reorderer(&args)?;
    let mut plan = output_plan(&args, &input)?;
    let progress = Progress::new(args.quiet);
    let t = Instant::now();
    let file = read_input(&input, args.threads, &progress)?;
    let read_seconds = t.elapsed().as_secs_f64();
    super::memory::reserve_for(
        "reordering",
        super::memory::REORDER,
        file.nrows(),
        file.ncols(),
        file.nnz(),
    )?;
    let reordering = super::on_threads(args.threads, || {
        reorder(&reorderer, &file.matrix, &progress)
    })?
    .with_context(|| format!("reordering {}", input.display()))?;
    let cols_file = columns_permutation_file(&args, &reordering);
    if let Some(cols) = &cols_file {
        plan.output("--perm-out (columns)", cols)?;
    }
    // The reordered matrix, built only when something reads it (a summary alone does not).
    let needed = args.output.is_some() || args.spy.is_some() || args.bench;
    progress.stage("permuting the matrix", Unit::Share, 0);
    let reordered = needed
        .then(|| reordered_file(&file, &reordering))
        .transpose()?;
    if let Some((out, reordered)) = args.output.as_ref().zip(reordered.as_ref()) {
        write_output(out, reordered, args.threads, &progress)?;
    }
    let perm_files = write_permutations(&args, &reordering, cols_file)?;
    if let Some(((before, after), reordered)) = args.spy.as_ref().zip(reordered.as_ref()) {
        progress.stage("drawing the spy plots", Unit::Share, 0);
        spy_png(&file.matrix.pattern(), before, &SpyOptions::default())?;
        spy_png(&reordered.matrix.pattern(), after, &SpyOptions::default())?;
    }
    let comparison = match reordered.as_ref().filter(|_| args.bench) {
        Some(reordered) => Some(benchmark(
            &file,
            reordered,
            &args,
            reordering.report.reorder_seconds,
            &progress,
        )?),
        None => None,
    };
    progress.finish();
    if let Some(path) = &args.report {
        let json = JobReport {
            input: &input,
            output: args.output.as_deref(),
            matrix: MatrixShape {
                nrows: file.nrows(),
                ncols: file.ncols(),
                nnz: file.nnz(),
            },
            read_seconds,
            stages: progress.stages(),
            reorder: &reordering.report,
            bench: comparison.as_ref(),
        };
        mtx::write_atomically(path, |w| {
            serde_json::to_writer_pretty(&mut *w, &json)?;
            writeln!(w)
        })?;
    }
    if !args.quiet {
        let summary = Summary {
            input: &input,
            file: &file,
            args: &args,
            reordering: &reordering,
            perm_files: &perm_files,
            comparison: comparison.as_ref(),
        };
        if args.output.as_deref() == Some(Path::new("-")) {
            summary.print(&mut std::io::stderr().lock())?;
        } else {
            summary.print(&mut std::io::stdout().lock())?;
        }
    }
    Ok(())
}

/// Reads the input matrix, with a bar of the bytes read.
fn read_input(
    input: &Path,
    threads: Option<usize>,
    progress: &Progress,
) -> anyhow::Result<MatrixMarket> {
    progress.stage(format!("reading {}", input.display()), Unit::Bytes, 0);
    let opts = ReadOptions {
        threads,
        ..Default::default()
    };
    Ok(mtx::read_path_with_progress(
        input,
        &opts,
        &|done, total| progress.set(done, total),
    )?)
}

/// Runs the reordering on the matrix as read (no copy of it), with a bar per stage.
fn reorder(
    reorderer: &Reorderer,
    matrix: &AnyCsr,
    progress: &Progress,
) -> Result<Reordering, spmv_reorder::reorder::ReorderError> {
    let bar = progress.clone();
    let mut show = move |stage: &Stage| show(&bar, stage);
    match matrix {
        AnyCsr::Real(a) => reorderer.run_with_progress(a, &mut show),
        AnyCsr::Integer(a) => reorderer.run_with_progress(a, &mut show),
        AnyCsr::Complex(a) => reorderer.run_with_progress(a, &mut show),
        AnyCsr::Pattern(a) => reorderer.run_with_progress(a, &mut show),
    }
}

/// Writes the reordered matrix, with a bar of the rows (or bytes) written.
fn write_output(
    out: &Path,
    reordered: &MatrixMarket,
    threads: Option<usize>,
    progress: &Progress,
) -> anyhow::Result<()> {
    let unit = if mtx::binary_format_of(out).is_some() {
        Unit::Bytes
    } else {
        Unit::Count
    };
    let what = if unit == Unit::Bytes { "" } else { " (rows)" };
    progress.stage(format!("writing {}{what}", out.display()), unit, 0);
    let opts = WriteOptions {
        threads,
        ..Default::default()
    };
    mtx::write_path_with_progress(out, reordered, &opts, &|done, total| {
        progress.set(done, total)
    })?;
    Ok(())
}

use std::io::Write;

/// `BEFORE.png,AFTER.png` into two paths.
fn parse_spy(s: &str) -> Result<(PathBuf, PathBuf), String> {
    match s.split_once(',') {
        Some((a, b)) if !a.is_empty() && !b.is_empty() && !b.contains(',') => {
            Ok((PathBuf::from(a), PathBuf::from(b)))
        }
        _ => Err("expected two PNG paths separated by a comma: before.png,after.png".into()),
    }
}

/// The library configuration the arguments describe (validated).
fn reorderer(args: &ReorderArgs) -> anyhow::Result<Reorderer> {
    let time_limit = Some(Duration::from_secs_f64(args.time_limit));
    Ok(Reorderer::new()
        .method(args.method)
        .sampler(args.sampler.clone())
        .windows(args.window)
        .permute(args.permute)
        .seed(args.seed)
        .time_limit(time_limit)
        .neighbours(args.neighbours)
        .hub_limit(args.hub_limit)
        .max_kicks(Some(args.kicks))
        .start(args.start)
        .cache_check((!args.no_cache_check).then(CacheModel::default))
        .length_runs(args.length_runs)
        .length_change_cost(args.length_change_cost))
}

/// Every file the job reads and writes, checked before anything is read: no output is an input
/// or another output. The columns' permutation file is added once the permutation is known.
fn output_plan(args: &ReorderArgs, input: &Path) -> anyhow::Result<OutputPlan> {
    let mut plan = OutputPlan::new();
    plan.input("input", input);
    for f in args.sampler.input_files() {
        plan.input("--sampler file", f);
    }
    if let Some(out) = &args.output {
        plan.output("-o", out)?;
    }
    if !args.quiet && args.output.as_deref() != Some(Path::new("-")) {
        plan.output("standard output (the summary)", Path::new("-"))?;
    }
    if let Some(p) = &args.perm_out {
        plan.output("--perm-out", p)?;
    }
    if let Some(p) = &args.report {
        plan.output("--report", p)?;
    }
    if let Some((before, after)) = &args.spy {
        plan.output("--spy (before)", before)?;
        plan.output("--spy (after)", after)?;
    }
    Ok(plan)
}

/// The reordered matrix in the input's field; symmetric storage is kept under a symmetric
/// permutation (which preserves symmetry), general storage otherwise.
fn reordered_file(file: &MatrixMarket, r: &Reordering) -> anyhow::Result<MatrixMarket> {
    let matrix = file.matrix.permute(&r.rows, &r.cols)?;
    let symmetric_permutation = r.report.permute == PermuteMode::Symmetric;
    let symmetry = if symmetric_permutation {
        file.header.symmetry
    } else {
        Symmetry::General
    };
    let mut out = MatrixMarket::with_storage(matrix, file.header.format, symmetry)?;
    out.comments = file.comments.clone();
    let rep = &r.report;
    out.comments.push(format!(
        " reordered by spmv-reorder {}: method {}, sampler {}, window {}, permutation {}, seed {}",
        env!("CARGO_PKG_VERSION"),
        rep.method,
        rep.sampler,
        rep.window,
        rep.permute,
        rep.seed
    ));
    Ok(out)
}

/// The file of the columns' permutation: `--perm-out` with `.cols` appended, when the columns
/// have an order of their own.
fn columns_permutation_file(args: &ReorderArgs, r: &Reordering) -> Option<PathBuf> {
    let path = args.perm_out.as_ref()?;
    (r.report.permute != PermuteMode::Symmetric).then(|| {
        let mut cols = path.clone().into_os_string();
        cols.push(".cols");
        PathBuf::from(cols)
    })
}

/// Writes `--perm-out` (and the columns' file); returns the files written.
fn write_permutations(
    args: &ReorderArgs,
    r: &Reordering,
    cols_file: Option<PathBuf>,
) -> anyhow::Result<Vec<PathBuf>> {
    let Some(path) = &args.perm_out else {
        return Ok(Vec::new());
    };
    let what = |side: &str| {
        format!(
            " {side} permutation of {} by spmv-reorder (method {}): line i holds the 1-based index, \
             in the original matrix, of the {side} placed at position i (new -> old)",
            args.input.as_deref().unwrap_or(Path::new("-")).display(),
            r.report.method
        )
    };
    mtx::write_permutation(path, &r.rows, &what("row"))?;
    let mut written = vec![path.clone()];
    if let Some(cols) = cols_file {
        mtx::write_permutation(&cols, &r.cols, &what("column"))?;
        written.push(cols);
    }
    Ok(written)
}

fn benchmark(
    before: &MatrixMarket,
    after: &MatrixMarket,
    args: &ReorderArgs,
    reorder_seconds: f64,
    progress: &Progress,
) -> anyhow::Result<Comparison> {
    let mut config = BenchConfig {
        reorder_seconds: Some(reorder_seconds),
        ..BenchConfig::default()
    };
    if let Some(t) = args.threads {
        config.threads = t;
    }
    progress.stage(
        "benchmarking SpMV before and after (rounds of samples)",
        Unit::Count,
        (config.kernels.len() * config.reps) as u64,
    );
    Ok(bench::compare_with_progress(
        &before.matrix.as_real(),
        &after.matrix.as_real(),
        &config,
        &mut |done, total| progress.set(done as u64, total as u64),
    )?)
}

/// Shows a stage of the reordering: the TSP path's share of its time budget, the others as
/// steps of the stage.
fn show(bar: &Progress, stage: &Stage) {
    match stage {
        Stage::Sampling => bar.stage("sampling nonzeros", Unit::Share, 0),
        Stage::Graph { side } => {
            bar.stage(format!("{side}: windows and window graph"), Unit::Share, 0)
        }
        Stage::Solving {
            side,
            fraction,
            cost: _,
        } => {
            let name = format!("{side}: TSP path (share of its time budget)");
            if bar.current().as_deref() != Some(name.as_str()) {
                bar.stage(name, Unit::Share, 0);
            }
            bar.set_share(*fraction);
        }
        Stage::Ordering { side } => bar.stage(format!("{side}: ordering"), Unit::Share, 0),
        Stage::Measuring => bar.stage("measuring locality", Unit::Share, 0),
    }
}

/// The JSON of `--report`.
#[derive(serde::Serialize)]
struct JobReport<'a> {
    input: &'a Path,
    output: Option<&'a Path>,
    matrix: MatrixShape,
    read_seconds: f64,
    /// Every stage of the job with its time and peak memory.
    stages: Vec<StageRecord>,
    #[serde(flatten)]
    reorder: &'a ReorderReport,
    bench: Option<&'a Comparison>,
}

/// Size of the input, in the report.
#[derive(serde::Serialize)]
struct MatrixShape {
    nrows: usize,
    ncols: usize,
    nnz: usize,
}

/// The few lines a user reads after the job.
struct Summary<'a> {
    input: &'a Path,
    file: &'a MatrixMarket,
    args: &'a ReorderArgs,
    reordering: &'a Reordering,
    perm_files: &'a [PathBuf],
    comparison: Option<&'a Comparison>,
}

impl Summary<'_> {
    fn print(&self, out: &mut impl Write) -> std::io::Result<()> {
        let r = &self.reordering.report;
        let h = &self.file.header;
        writeln!(
            out,
            "{}: {} x {}, {} nonzeros ({} {})",
            self.input.display(),
            self.file.nrows(),
            self.file.ncols(),
            self.file.nnz(),
            h.field,
            h.symmetry.as_str()
        )?;
        writeln!(
            out,
            "  ordering   {} ({}sampler {}, window {}, {} permutation) in {:.3} s",
            r.method,
            r.start
                .as_ref()
                .map_or(String::new(), |s| format!("start {s}, ")),
            r.sampler,
            r.window,
            r.permute,
            r.reorder_seconds
        )?;
        writeln!(
            out,
            "  locality   D {} -> {} ({}); D counts the columns that change between consecutive rows: lower is better",
            r.d_before,
            r.d_after,
            percent_change(r.d_before, r.d_after)
        )?;
        if let Some((side, t)) = r.rows.as_ref().and_then(|s| Some((s, s.tsp.as_ref()?))) {
            let hubs = match side.bounded_columns {
                0 => String::new(),
                n => format!("; {n} hub columns bounded (--hub-limit)"),
            };
            writeln!(
                out,
                "  TSP path   cost {}{} over {} windows, lower bound {} (gap {:.1}%){hubs}",
                t.cost,
                match t.length_change_cost {
                    0 => String::new(),
                    w => format!(" (D_w and {w} per change of row length)"),
                },
                side.windows,
                t.lower_bound,
                100.0 * t.gap
            )?;
        }
        if let Some(c) = r.rows.as_ref().and_then(|s| s.cache_check.as_ref()) {
            let t = Tuning::default();
            let (margin, tie) = (t.path_margin_percent, t.model_tie_percent);
            let (near_bound, abandon) = (t.start_near_bound_percent, t.draft_abandon_percent);
            let path = match (&c.path, c.refined) {
                (None, _) if let Some(near) = c.start_near_bound => {
                    format!(
                        "start order's D_w {} within {near_bound}% of the lower \
                         bound {}, so no TSP path was computed",
                        near.start_cost, near.lower_bound
                    )
                }
                (None, _) => format!(
                    "floor {}: no order can be priced {margin}% below these, so no \
                     TSP path was computed",
                    misses(&c.floor)
                ),
                (Some(path), true) => format!("TSP path {}", misses(path)),
                (Some(path), false) if c.draft_abandoned => format!(
                    "TSP path {} partway through 2-opt (set aside there: priced at least \
                     {abandon}% of the cheaper order)",
                    misses(path)
                ),
                (Some(path), false) => format!(
                    "TSP path {} after 2-opt (not refined: too far behind)",
                    misses(path)
                ),
            };
            let why = if c.tied {
                format!("input and RCM priced within {tie}%: the lower D")
            } else {
                "priced lowest".to_string()
            };
            let returned = match (c.kept, &c.path) {
                (Kept::Path, _) => "the TSP path".to_string(),
                (kept, path) => format!(
                    "{} ({why}{})",
                    if kept == Kept::Start {
                        "RCM's order"
                    } else {
                        "the input order"
                    },
                    if path.is_some() {
                        format!("; the path needs a {margin}% margin")
                    } else {
                        String::new()
                    }
                ),
            };
            writeln!(
                out,
                "  cache      modelled x misses (L1/L2): input {}{}, {path}: returned {returned}",
                misses(&c.input),
                c.start
                    .map_or(String::new(), |m| format!(", RCM start {}", misses(&m))),
            )?;
        }
        if let Some(runs) = r.length_runs {
            let which = if runs.block >= self.reordering.rows.len() {
                "all rows then sorted by length together".to_string()
            } else {
                format!("rows then sorted by length in blocks of {}", runs.block)
            };
            writeln!(
                out,
                "  runs       {which} (--length-runs), so that the CPU predicts where each row \
                 ends; D before the runs {}",
                runs.d_without
            )?;
        }
        if let Some(c) = &r.coverage {
            writeln!(
                out,
                "  sample     {} of {} nonzeros ({:.2}%), {} rows without a sample",
                c.sampled_nnz,
                c.nnz,
                100.0 * c.sampled_fraction,
                c.rows_without_sample
            )?;
        }
        if let Some(c) = self.comparison {
            let be = c
                .break_even_iterations
                .map_or("never (not faster)".to_string(), |n| {
                    format!("after {n:.0} products")
                });
            let threads = match c.before.threads {
                1 => "1 thread".to_string(),
                t => format!("{t} threads"),
            };
            writeln!(
                out,
                "  SpMV       {:.4} ms -> {:.4} ms on {threads}: speedup {:.2}x, the reordering pays off {be}",
                1e3 * c.before.median_s,
                1e3 * c.after.median_s,
                c.speedup
            )?;
        }
        match &self.args.output {
            Some(o) if o != Path::new("-") => writeln!(out, "  wrote      {}", o.display())?,
            Some(_) => {}
            None => writeln!(out, "  (no -o given: nothing written)")?,
        }
        for p in self.perm_files {
            writeln!(out, "  wrote      {}", p.display())?;
        }
        Ok(())
    }
}

/// `L1/L2` modelled misses of one order, as the summary prints them.
fn misses(c: &ModelledCost) -> String {
    format!("{}/{}", c.l1_misses, c.l2_misses)
}

fn percent_change(before: u64, after: u64) -> String {
    if before == 0 {
        return "unchanged".into();
    }
    format!(
        "{:+.1}%",
        100.0 * (after as f64 - before as f64) / before as f64
    )
}
