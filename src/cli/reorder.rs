//! The main job, `spmv-reorder IN -o OUT`: read, reorder, write the reordered matrix (and on
//! request the permutation, a JSON report, spy plots and a before/after SpMV benchmark).

use super::progress::{Progress, StageRecord, Unit};
use super::summary::{BenchFigures, JobReport, MatrixShape, Summary};
use super::values;
use anyhow::Context;
use spmv_reorder::locality::CacheModel;
use spmv_reorder::mtx::{
    self, IndexBase, MatrixMarket, OutputPlan, PermutationFormat, ReadOptions, WriteOptions,
};
use spmv_reorder::peers::DEFAULT_PART_ROWS;
use spmv_reorder::plot::{spy_png, SpyOptions};
use spmv_reorder::reorder::row_split::MAX_SPLIT_THREADS;
use spmv_reorder::reorder::{
    parse_rcm_start, rcm_start_name, Method, PermuteMode, RcmStart, Reorderer, Reordering,
    RunBlocks, SamplerChoice, Stage, StartOrder, Tuning, WindowSpec, DEFAULT_LENGTH_CHANGE_COST,
    DEFAULT_RCM_START,
};
use spmv_reorder::sparse::AnyCsr;
use spmv_reorder::spmv::bench::{self, BenchConfig, Comparison};
use spmv_reorder::spmv::Topology;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Arguments of the main job.
#[derive(Debug, clap::Args)]
#[command(next_help_heading = "Reordering")]
pub struct ReorderArgs {
    /// Input matrix (Matrix Market `.mtx`/`.mtx.gz`, scipy `.npz`, PETSc `.petsc`; `-`: Matrix Market on stdin).
    input: Option<PathBuf>,
    /// Where to write the reordered matrix.
    ///
    /// The format follows the extension (`.mtx`, `.mtx.gz` compressed, `.npz`, `.petsc`; `-` is
    /// stdout, in Matrix Market). Without it, only the summary is printed. The file is
    /// written to a temporary name and renamed; it may not name the input or another output.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Ordering method: auto, tsp, rcm, gp, nd, gorder, degree, identity, random.
    ///
    /// auto (the default): RCM's order or the order as read, whichever a cache model prices
    /// lower, then length runs; tsp: windows of locality ordered along a Lin-Kernighan path,
    /// started from RCM's order and checked against it by the cache model (docs/tuning.md); rcm:
    /// reverse Cuthill-McKee; gp: METIS k-way partition, parts of --part-rows rows numbered one
    /// after another; nd: METIS nested dissection; gorder: Gorder's greedy window ordering;
    /// degree: rows by decreasing number of nonzeros; identity: the order as read; random: a
    /// seeded shuffle.
    #[arg(long, default_value = "auto", value_name = "METHOD")]
    method: Method,
    /// Write the permutation here (line i: the original index of the row placed at i).
    ///
    /// After `%` comment lines stating the convention, line i holds the original index of the
    /// row placed at position i (new -> old), in the base of --perm-base. With independent column
    /// orders (--permute cols|both) the columns go to the same name with `.cols` appended.
    #[arg(long, value_name = "FILE")]
    perm_out: Option<PathBuf>,
    /// First index of --perm-out: 1 (Matrix Market, MATLAB) or 0 (numpy, scipy).
    #[arg(long, value_name = "0|1", default_value = "1")]
    perm_base: IndexBase,
    /// Write the figures of the run as JSON.
    ///
    /// The method and its choices, D and D_w before and after, the TSP path's cost and bound,
    /// the cache check, the sample's coverage, each stage's time and memory, and with --bench
    /// the SpMV figures (in full with --report-details).
    #[arg(long, value_name = "FILE.json")]
    report: Option<PathBuf>,
    /// Put every SpMV figure of --bench in --report (threads, triad, pages of each array).
    #[arg(long, hide_short_help = true, requires = "report")]
    report_details: bool,
    /// Time SpMV before and after, side by side, and say when the reordering pays off.
    #[arg(long)]
    bench: bool,
    /// Draw the sparsity patterns before and after as PNG: `--spy before.png,after.png`.
    #[arg(long, value_name = "BEFORE,AFTER", value_parser = parse_spy, hide_short_help = true)]
    spy: Option<(PathBuf, PathBuf)>,
    /// Threads, from 1 to the CPUs this process may use (default: all of them).
    #[arg(long, value_name = "T", value_parser = values::threads)]
    threads: Option<usize>,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 0, hide_short_help = true)]
    seed: u64,
    /// No progress bars and no summary (errors are still printed). Without --report, the modelled
    /// x misses before and after, which only the summary and the report show, are not measured:
    /// two replays of the matrix fewer.
    #[arg(short, long)]
    quiet: bool,
    /// Sides to permute: symmetric (P·A·Pᵀ), rows, cols, both.
    ///
    /// Default: symmetric for square matrices (solvers need it to keep symmetry, and symmetric
    /// storage is kept on output), rows for rectangular ones. cols orders the columns from Aᵀ;
    /// both gives rows and columns each their own order.
    #[arg(long, value_name = "MODE", hide_short_help = true)]
    permute: Option<PermuteMode>,
    /// Nonzeros the ordering sees: all, random:P, dast-sim[:k=v,...], dast-perf, trace:...
    ///
    /// random:P keeps each nonzero with probability P (e.g. random:0.02); dast-sim samples a
    /// simulated memory trace of SpMV (dual-array sampling); dast-perf samples the hardware's
    /// (Intel PEBS load latency or AMD IBS, where the machine exposes them);
    /// trace:lackey=FILE,layout=FILE and trace:perf-script=FILE,layout=FILE read a recorded trace
    /// (see `spmv-reorder trace-kernel`). The permutation is applied to the full matrix.
    #[arg(
        long,
        default_value = "all",
        value_name = "SAMPLER",
        hide_short_help = true
    )]
    sampler: SamplerChoice,
    /// Windows of locality: 1 (rows), N (fixed size), var, latency[:avg|CYCLES][,zeros], cache[:BYTES].
    ///
    /// var: rows i and i+1 share a window when d(i, i+1) < D/n; latency: row j joins row j-1's
    /// window when its largest sampled latency is at most the threshold (needs a DAST sampler);
    /// cache: METIS parts whose x footprint fits BYTES (e.g. 256K; default this machine's L2),
    /// rows in RCM order inside, the parts ordered by the path.
    #[arg(long, default_value = "1", value_name = "SPEC", hide_short_help = true)]
    window: WindowSpec,
    /// Where the TSP path starts: rcm, given (the order as read) or greedy.
    ///
    /// Default rcm: the rows are put in reverse Cuthill-McKee order, windows are cut in that
    /// order and the path refines it; greedy builds the path from candidate edges alone.
    #[arg(long, value_name = "START", hide_short_help = true)]
    start: Option<StartOrder>,
    /// Return the TSP path as found (the default method: RCM's order), without the cache check.
    #[arg(long = "no-cache-check", hide_short_help = true, long_help = no_cache_check_help())]
    no_cache_check: bool,
    /// Time budget of the TSP solve, in seconds, per side.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = DEFAULT_TIME_LIMIT,
        value_parser = values::seconds,
        hide_short_help = true
    )]
    time_limit: f64,
    /// Chained Lin-Kernighan kicks after the local search.
    ///
    /// Each kick (a random double bridge, repaired and kept when the path gets no longer) lowers
    /// D a little at a cost; with the cache check on, kicks run only on a path that may pass it.
    #[arg(long, value_name = "N", default_value_t = 0, hide_short_help = true)]
    kicks: u64,
    /// Candidate neighbours per window in the window graph.
    #[arg(long, default_value_t = DEFAULT_NEIGHBOURS, value_name = "K", hide_short_help = true)]
    neighbours: usize,
    /// Windows a column may be shared by before the window graph bounds it.
    ///
    /// Each window of a column shared by more (a hub, as in power-law graphs) pairs only with the
    /// N nearest, so that a hub costs O(windows · N) instead of O(windows²).
    #[arg(long, default_value_t = DEFAULT_HUB_LIMIT, value_name = "N", hide_short_help = true)]
    hub_limit: usize,
    /// Sort the rows of every block of B positions by length after ordering (0: off).
    #[arg(
        long,
        value_name = "B|auto",
        hide_short_help = true,
        long_help = length_runs_help()
    )]
    length_runs: Option<RunBlocks>,
    /// Spread the nonzeros evenly over the rows for kernels splitting rows evenly between up to N
    /// threads (0: off).
    ///
    /// Kernels such as MKL's and OpenMP `static` loops give each thread an equal count of rows;
    /// an order that gathers the heavy rows (RCM on a power-law graph) then gives one thread most
    /// of the work. The order's pieces are laid down anew, each keeping its rows' order, when one
    /// of 2 to N threads would get more than 5% above its share. Default: 16 for the auto method,
    /// off otherwise.
    #[arg(long, value_name = "N", hide_short_help = true,
          value_parser = clap::value_parser!(u16).range(0..=MAX_SPLIT_THREADS as i64))]
    row_split_threads: Option<u16>,
    /// What the TSP path pays for each change of row length between consecutive rows.
    ///
    /// In changed columns, on top of the columns that change (0: the path minimises D alone).
    /// Charged for one-row windows on the row side only.
    #[arg(
        long,
        value_name = "W",
        default_value_t = DEFAULT_LENGTH_CHANGE_COST,
        hide_short_help = true
    )]
    length_change_cost: u32,
    /// Rows per part of the METIS partition order (--method gp).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_PART_ROWS as u32,
          value_parser = clap::value_parser!(u32).range(1..), hide_short_help = true)]
    part_rows: u32,
    /// Where reverse Cuthill-McKee starts in each connected component: peripheral or min-degree.
    ///
    /// min-degree (the default): the component's node of least degree, where scipy's
    /// reverse_cuthill_mckee starts; peripheral: a pseudo-peripheral node (George and Liu), found
    /// by a few breadth-first searches from that node, for a smaller bandwidth at about twice
    /// RCM's cost. Applies to --method rcm, to auto and to the TSP path's RCM start.
    #[arg(long, value_name = "START", default_value = rcm_start_name(DEFAULT_RCM_START),
          hide_short_help = true, value_parser = parse_rcm_start)]
    rcm_start: RcmStart,
}

/// The long help of `--no-cache-check`, with the check's constants.
fn no_cache_check_help() -> String {
    let t = Tuning::default();
    format!(
        "Return the TSP path as found (the default method: RCM's order), without the cache \
         check.\n\nBy default a cache model (L1 32 KiB 8-way, L2 1 MiB 16-way, with the matrix \
         streams) prices SpMV's x reads in the order as read, RCM's order and the path (the \
         default method computes no path), and returns the path only when it is priced at least \
         {}% below both others; otherwise the cheaper of the two, or the one with the lower D \
         when they are priced within {}% of each other.",
        t.path_margin_percent, t.model_tie_percent
    )
}

/// Defaults of the TSP method's options.
const DEFAULT_TIME_LIMIT: f64 = 30.0;
const DEFAULT_NEIGHBOURS: usize = 8;
const DEFAULT_HUB_LIMIT: usize = 256;

/// The options of the TSP path given (away from their defaults) with a method that computes no
/// path, which they cannot change; `--no-cache-check` with a method that prices no order; and
/// `--part-rows` away from `gp`.
fn ignored_options(args: &ReorderArgs) -> Vec<&'static str> {
    let path = args.method == Method::Tsp;
    let priced = path || args.method == Method::Auto;
    // (given away from its default, used by the method, name)
    [
        (args.start.is_some(), path, "--start"),
        (args.no_cache_check, priced, "--no-cache-check"),
        (args.time_limit != DEFAULT_TIME_LIMIT, path, "--time-limit"),
        (args.kicks != 0, path, "--kicks"),
        (args.neighbours != DEFAULT_NEIGHBOURS, path, "--neighbours"),
        (args.hub_limit != DEFAULT_HUB_LIMIT, path, "--hub-limit"),
        (
            args.length_change_cost != DEFAULT_LENGTH_CHANGE_COST,
            path,
            "--length-change-cost",
        ),
        (
            args.part_rows as usize != DEFAULT_PART_ROWS,
            args.method == Method::Gp,
            "--part-rows",
        ),
    ]
    .into_iter()
    .filter_map(|(given, used, name)| (given && !used).then_some(name))
    .collect()
}

/// The long help of `--length-runs`, with the automatic block's constants.
fn length_runs_help() -> String {
    let t = Tuning::default();
    format!(
        "Sort the rows of every block of B positions by length after ordering (0: off).\n\nRuns \
         of equal lengths let the CPU predict where each row's loop ends; every row stays within \
         B - 1 places of where the ordering put it. auto: all rows when the matrix has at most {} \
         columns (x then stays in cache whatever the order), else blocks of {}. Default: auto for \
         the auto method, and for tsp with the cache check, over one-row windows (--window 1, \
         the default); off otherwise.",
        t.sort_all_max_columns, t.run_block
    )
}

/// Runs the main job.
pub fn run(args: ReorderArgs) -> anyhow::Result<()> {
    let Some(input) = args.input.clone() else {
        return Err(super::usage_error(
            "",
            "no input matrix: try `spmv-reorder INPUT.mtx -o OUTPUT.mtx`, or `spmv-reorder --help`",
        ));
    };
    let reorderer = reorderer(&args)?;
    let mut plan = output_plan(&args, &input)?;
    warn_of_ignored_options(&args);
    let progress = Progress::new(args.quiet);
    let t = Instant::now();
    let mut file = read_input(&input, args.threads, &progress)?;
    let read_seconds = t.elapsed().as_secs_f64();
    // A file stored as symmetric, skew-symmetric or Hermitian was expanded from one triangle:
    // its pattern is symmetric, and RCM need not check it.
    let reorderer = reorderer.symmetric_pattern(file.header.symmetry.is_triangular());
    // The modelled misses appear only in the summary and the report: a quiet run without a
    // report skips their two replays of the matrix.
    let reorderer = reorderer.model_misses(!args.quiet || args.report.is_some());
    super::memory::reserve_for(
        "reordering",
        super::memory::REORDER,
        file.nrows(),
        file.ncols(),
        file.nnz(),
    )?;
    let reordering = super::on_threads(args.threads, || {
        reorder(&reorderer, &mut file.matrix, &progress)
    })?
    .with_context(|| format!("reordering {}", input.display()))?;
    let cols_file = columns_permutation_file(&args, &reordering);
    if let Some(cols) = &cols_file {
        plan.output("--perm-out (columns)", cols)?;
    }
    // The reordered matrix, built only when something reads it (a summary alone does not).
    let needed = args.output.is_some() || args.spy.is_some() || args.bench;
    let rows = file.matrix.nrows() as u64;
    progress.stage("permuting the matrix", Unit::Count, rows);
    let reordered = needed
        .then(|| reordered_file(&file, &reordering, &progress))
        .transpose()?;
    // Every output or none: the matrix, its permutation, the plots and the report are renamed
    // into place together once the last is written (and the benchmark has run).
    let staged = mtx::StagedOutputs::open();
    if let Some((out, reordered)) = args.output.as_ref().zip(reordered.as_ref()) {
        write_output(out, reordered, args.threads, &progress)?;
    }
    let perm_files = write_permutations(&args, &reordering, cols_file)?;
    if let Some((spy, reordered)) = args.spy.as_ref().zip(reordered.as_ref()) {
        draw_spy_plots(spy, &file, reordered, &progress)?;
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
    let done = Done {
        input: &input,
        file: &file,
        read_seconds,
        reordering: &reordering,
        perm_files: &perm_files,
        comparison: comparison.as_ref(),
    };
    if let Some(path) = &args.report {
        write_report(path, &args, &done, progress.stages())?;
    }
    staged.commit()?;
    if !args.quiet {
        print_summary(&args, &done)?;
    }
    Ok(())
}

/// Warns of the options given that the method does not use ([`ignored_options`]).
fn warn_of_ignored_options(args: &ReorderArgs) {
    let ignored = ignored_options(args);
    if ignored.is_empty() {
        return;
    }
    let verb = if ignored.len() == 1 {
        "changes"
    } else {
        "change"
    };
    super::messages::report(
        "warning",
        &format!(
            "{} {verb} nothing with --method {}",
            ignored.join(", "),
            args.method
        ),
    );
}

/// `--spy BEFORE,AFTER`: the patterns of the input and of the reordered matrix.
fn draw_spy_plots(
    (before, after): &(PathBuf, PathBuf),
    file: &MatrixMarket,
    reordered: &MatrixMarket,
    progress: &Progress,
) -> anyhow::Result<()> {
    progress.stage("drawing the spy plots", Unit::Share, 0);
    spy_png(&file.matrix.pattern(), before, &SpyOptions::default())?;
    spy_png(&reordered.matrix.pattern(), after, &SpyOptions::default())?;
    Ok(())
}

/// What the job did, for its report and summary.
struct Done<'a> {
    input: &'a Path,
    file: &'a MatrixMarket,
    read_seconds: f64,
    reordering: &'a Reordering,
    perm_files: &'a [PathBuf],
    comparison: Option<&'a Comparison>,
}

/// Writes the `--report` JSON.
fn write_report(
    path: &Path,
    args: &ReorderArgs,
    done: &Done<'_>,
    stages: Vec<StageRecord>,
) -> anyhow::Result<()> {
    let json = JobReport {
        input: done.input,
        output: args.output.as_deref(),
        matrix: MatrixShape {
            nrows: done.file.nrows(),
            ncols: done.file.ncols(),
            nnz: done.file.nnz(),
        },
        read_seconds: done.read_seconds,
        stages,
        reorder: &done.reordering.report,
        bench: done
            .comparison
            .map(|c| BenchFigures::of(c, args.report_details)),
    };
    mtx::write_atomically(path, |w| {
        serde_json::to_writer_pretty(&mut *w, &json)?;
        writeln!(w)
    })?;
    Ok(())
}

/// Prints the summary: on stderr when the matrix goes to stdout.
fn print_summary(args: &ReorderArgs, done: &Done<'_>) -> anyhow::Result<()> {
    let to_stdout = args.output.as_deref() == Some(Path::new("-"));
    let summary = Summary {
        input: done.input,
        file: done.file,
        reordering: done.reordering,
        output: args.output.as_deref(),
        perm_files: done.perm_files,
        other_files: args
            .spy
            .iter()
            .flat_map(|(before, after)| [before.as_path(), after.as_path()])
            .chain(args.report.as_deref())
            .collect(),
        comparison: done.comparison,
    };
    match to_stdout {
        true => summary.print(&mut std::io::stderr().lock())?,
        false => summary.print(&mut std::io::stdout().lock())?,
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
        footprint: Some(super::memory::REORDER),
        ..Default::default()
    };
    Ok(mtx::read_path_with_progress(
        input,
        &opts,
        &|done, total| progress.set(done, total),
    )?)
}

/// Runs the reordering on the structure of the matrix as read, lent without a copy (orderings
/// and samplers read only the structure; live sampling times its products on ones), with a bar
/// per stage.
fn reorder(
    reorderer: &Reorderer,
    matrix: &mut AnyCsr,
    progress: &Progress,
) -> Result<Reordering, spmv_reorder::reorder::ReorderError> {
    let bar = progress.clone();
    let mut show = move |stage: &Stage| show(&bar, stage);
    matrix.with_pattern_lent(|a| reorderer.run_with_progress(a, &mut show))
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
        .windows(with_machine_cache(args.window))
        .permute(args.permute)
        .seed(args.seed)
        .time_limit(time_limit)
        .neighbours(args.neighbours)
        .hub_limit(args.hub_limit)
        .max_kicks(Some(args.kicks))
        .start(args.start)
        .cache_check((!args.no_cache_check).then(CacheModel::default))
        .length_runs(args.length_runs)
        .row_split_threads(args.row_split_threads.map(usize::from))
        .length_change_cost(args.length_change_cost)
        .part_rows(args.part_rows as usize)
        .rcm_start(args.rcm_start))
}

/// `--window cache` without a size: this machine's L2 as hwloc reports it (the library's fixed
/// default, 1 MiB, when hwloc cannot tell).
fn with_machine_cache(window: WindowSpec) -> WindowSpec {
    match window {
        WindowSpec::Cache { bytes: None } => WindowSpec::Cache {
            bytes: Topology::this_system()
                .ok()
                .and_then(|t| t.cache_size(2))
                .and_then(|b| usize::try_from(b).ok()),
        },
        other => other,
    }
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

/// The reordered matrix in the input's field, its comments saying how it was made; `progress`
/// counts the rows written.
fn reordered_file(
    file: &MatrixMarket,
    r: &Reordering,
    progress: &Progress,
) -> anyhow::Result<MatrixMarket> {
    let rep = &r.report;
    // The passes after the order move rows too: "method identity" alone would say nothing moved.
    let mut method = rep.method.to_string();
    if let Some(runs) = rep.length_runs {
        method += &format!(" + length runs in blocks of {}", runs.block);
    }
    if rep.row_splits.is_some_and(|s| s.spread) {
        method += " + even row splits";
    }
    let note = format!(
        " reordered by spmv-reorder {}: method {method}, sampler {}, window {}, permutation {}, seed {}",
        env!("CARGO_PKG_VERSION"),
        rep.sampler,
        rep.window,
        rep.permute,
        rep.seed
    );
    super::apply::permuted_file(file, (&r.rows, &r.cols), note, progress)
}

/// The file of the columns' permutation: `--perm-out` with `.cols` appended, when the columns
/// have an order of their own.
fn columns_permutation_file(args: &ReorderArgs, r: &Reordering) -> Option<PathBuf> {
    let path = args.perm_out.as_ref()?;
    // Rows alone leave the columns as they are: no file for an identity.
    matches!(r.report.permute, PermuteMode::Cols | PermuteMode::Both).then(|| {
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
            "{side} permutation of {} by spmv-reorder (method {})",
            args.input.as_deref().unwrap_or(Path::new("-")).display(),
            r.report.method
        )
    };
    let format = PermutationFormat {
        base: args.perm_base,
        old_to_new: false,
    };
    mtx::write_permutation_as(path, &r.rows, &what("row"), format)?;
    let mut written = vec![path.clone()];
    if let Some(cols) = cols_file {
        let what = what("column") + "\nits lines number columns where the line above says rows";
        mtx::write_permutation_as(&cols, &r.cols, &what, format)?;
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

/// Shows a stage of the reordering with its share done: the TSP path's share of its time
/// budget, the others' share of their work (the graph's candidate search, the ordering's steps,
/// the measuring's replays).
fn show(bar: &Progress, stage: &Stage) {
    match stage {
        Stage::Sampling => bar.stage("sampling nonzeros", Unit::Share, 0),
        Stage::Graph { side, fraction } => show_share(
            bar,
            format!("{side}: windows and window graph"),
            None,
            *fraction,
        ),
        Stage::Solving {
            side,
            fraction,
            cost: _,
        } => {
            let name = format!("{side}: TSP path (share of its time budget)");
            show_share(bar, name, None, *fraction);
        }
        Stage::Ordering {
            side,
            step,
            fraction,
        } => show_share(bar, format!("{side}: ordering"), step.detail(), *fraction),
        Stage::Measuring { fraction } => {
            show_share(bar, "measuring locality".to_string(), None, *fraction)
        }
    }
}

/// Shows a share of the stage `name` done, with what it is doing (`detail`) beside its name;
/// opens the stage unless it is the one running, so that its steps are timed as one stage.
fn show_share(bar: &Progress, name: String, detail: Option<String>, share: f64) {
    if bar.current().as_deref() != Some(name.as_str()) {
        bar.stage(name, Unit::Share, 0);
    }
    bar.set_detail(detail.as_deref());
    bar.set_share(share);
}
