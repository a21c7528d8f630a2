//! Benchmark `locality`: the cost of building windows and the window graph, and of the cache
//! check's replays, in SpMV-equivalents.
//!
//! Matrix: a 3D 7-point Poisson grid (default 100³ = 1M rows, about 7M nonzeros), symmetrically
//! shuffled. Unit: a plain parallel CSR SpMV `y[i] = Σ a[k]·x[col[k]]` (rayon over row chunks) on
//! the same matrix, timed in the same run, median of `--reps`. Cases: full information and a 2%
//! random sample (each nonzero kept with probability `p`, a seeded sampler local to this bench),
//! each with one row per window (`w=1`) and with variable windows; and `cache-check`, the
//! [`CacheModel`] replays of the input order and RCM's that every default `tsp` run makes (side by
//! side on the pool's threads, as the pipeline prices them). Targets: full information
//! within 20 SpMV-equivalents, 2% sample within 3; the cache check within 15.
//!
//! The target is checked on the side-by-side ratio: each build is timed right after its own unit
//! (the median of five products), and the median of these ratios is taken, because the speed of
//! a shared host drifts within seconds and moves a build and the unit timed just before it alike.
//!
//! Each case also prints its first build in the process and the page faults of the builds: the
//! median is of repeated builds, which reuse memory the allocator kept from the ones before, where
//! a user's single build takes every page fresh from the kernel (microseconds a page on a
//! virtual machine). The first build is that single build for the first case of a process: run a case
//! alone (`--cases`) for its figure.
//!
//! ```text
//! cargo bench --bench locality -- [--n 100] [--threads 2] [--reps 5] [--p 0.02] [--seed 1]
//!     [--cases full-w1,full-variable,sample-w1,sample-variable,cache-check] [--natural]
//! ```

use rayon::prelude::*;
use spmv_reorder_gen::{poisson3d, shuffle_symmetric};
use spmv_reorder_locality::{
    CacheModel, Footprints, GraphOptions, Parallelism, WindowGraph, Windows,
};
use spmv_reorder_peers::reverse_cuthill_mckee;
use spmv_reorder_reorder::DEFAULT_RCM_START;
use spmv_reorder_sparse::{CsrMatrix, Permutation};
use std::time::{Duration, Instant};

/// Large arrays on transparent huge pages, as the `spmv-reorder` binary has them.
#[global_allocator]
static ALLOC: spmv_reorder_sparse::HugePageAlloc = spmv_reorder_sparse::HugePageAlloc;

/// The cache check's replays, in SpMV-equivalents side by side, on the shuffled 100³ grid
/// (figures in docs/results.md).
const CHECK_TARGET: f64 = 15.0;

mod common;

/// Command-line settings.
struct Args {
    n: usize,
    threads: usize,
    reps: usize,
    p: f64,
    seed: u64,
    /// Case names to run (all when empty): full-w1, full-variable, sample-w1, sample-variable,
    /// cache-check.
    cases: Vec<String>,
    /// Keep the grid in its natural order (to see what locality of the input is worth).
    natural: bool,
}

/// The cases, in the order they run.
const CASES: [&str; 5] = [
    "full-w1",
    "full-variable",
    "sample-w1",
    "sample-variable",
    "cache-check",
];

fn parse_args() -> Args {
    let mut args = Args {
        n: 100,
        threads: 2,
        reps: 5,
        p: 0.02,
        seed: 1,
        cases: Vec::new(),
        natural: false,
    };
    let mut line = common::CommandLine::new(include_str!("locality.rs"));
    while let Some(flag) = line.next() {
        match flag.as_str() {
            "--n" => args.n = line.number("--n", 1),
            "--threads" => {
                args.threads = line.number("--threads", 1);
                let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
                if args.threads > cpus {
                    common::fail(format!(
                        "--threads {}: this machine has {cpus} CPUs",
                        args.threads
                    ));
                }
            }
            "--reps" => args.reps = line.number("--reps", 1),
            "--p" => {
                args.p = line.number("--p", f64::MIN_POSITIVE);
                if args.p > 1.0 {
                    common::fail(format!("--p {}: a probability, at most 1", args.p));
                }
            }
            "--seed" => args.seed = line.number("--seed", 0),
            "--cases" => args.cases = cases(&line.value("--cases")),
            "--natural" => args.natural = true,
            other => common::unknown(other),
        }
    }
    // The grid and its shuffle: 7 nonzeros a row of 12 bytes, offsets, and the bench's copies.
    let rows = (args.n as u128).pow(3);
    common::check_memory(rows * 7 * 12 * 4, format_args!("--n {}", args.n));
    args
}

/// The names of `list` (comma-separated), each one of [`CASES`].
fn cases(list: &str) -> Vec<String> {
    list.split(',')
        .map(|c| match CASES.contains(&c) {
            true => c.to_owned(),
            false => common::fail(format!(
                "--cases: no case `{c}` (the cases: {})",
                CASES.join(", ")
            )),
        })
        .collect()
}

/// Field `n` of `/proc/self/stat` counted from 3 (the state, after the command name, which is
/// in parentheses and may hold spaces) as a number; `None` where that file is unavailable.
fn process_stat(n: usize) -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    rest.split_whitespace().nth(n - 3)?.parse().ok()
}

/// Minor page faults of the process so far: first writes to fresh pages, microseconds each on a
/// virtual machine, which is why the graph keeps its arrays small.
fn page_faults() -> u64 {
    process_stat(10).unwrap_or(0)
}

/// Median wall time of `reps` runs of `f` (after one warm-up run), and the mean CPU time per run
/// (all threads), which is less sensitive to other processes sharing the machine.
fn median_time<R>(reps: usize, mut f: impl FnMut() -> R) -> (Duration, R) {
    let (wall, _, last) = timed(reps, &mut f);
    (wall, last)
}

fn timed<R>(reps: usize, mut f: impl FnMut() -> R) -> (Duration, Duration, R) {
    let mut last = f();
    let reps = reps.max(1);
    let mut times = Vec::with_capacity(reps);
    let cpu_start = common::process_cpu_time();
    for _ in 0..reps {
        let t = Instant::now();
        let result = f();
        times.push(t.elapsed());
        // The previous result is freed outside the timed region: its drop is not this run's work.
        last = result;
    }
    let cpu = common::process_cpu_time().saturating_sub(cpu_start) / reps as u32;
    times.sort();
    (times[times.len() / 2], cpu, last)
}

/// The unit: `y = A·x`, rayon over chunks of rows.
fn spmv(a: &CsrMatrix<f64>, x: &[f64], y: &mut [f64]) {
    const ROWS_PER_CHUNK: usize = 4096;
    let (ptr, col, val) = (a.row_ptr(), a.col_idx(), a.values());
    y.par_chunks_mut(ROWS_PER_CHUNK)
        .enumerate()
        .for_each(|(chunk, ys)| {
            let first = chunk * ROWS_PER_CHUNK;
            for (r, yi) in ys.iter_mut().enumerate() {
                let i = first + r;
                let mut sum = 0.0;
                for k in ptr[i]..ptr[i + 1] {
                    sum += val[k] * x[col[k] as usize];
                }
                *yi = sum;
            }
        });
}

/// Keeps each nonzero with probability `p` (xorshift64*, seeded): the bench's own sampler.
fn random_sample(a: &CsrMatrix<f64>, p: f64, seed: u64) -> CsrMatrix<()> {
    let threshold = (p.clamp(0.0, 1.0) * u64::MAX as f64) as u64;
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut keep = || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D) < threshold
    };
    let mut row_ptr = Vec::with_capacity(a.nrows() + 1);
    row_ptr.push(0);
    let mut col_idx = Vec::new();
    for i in 0..a.nrows() {
        col_idx.extend(a.row(i).0.iter().copied().filter(|_| keep()));
        row_ptr.push(col_idx.len());
    }
    let nnz = col_idx.len();
    CsrMatrix::new(a.nrows(), a.ncols(), row_ptr, col_idx, vec![(); nnz])
        .expect("a subset of a valid matrix")
}

/// The ratios of a case to the SpMV unit.
struct Ratios {
    /// Median build over the median unit measured before the case.
    wall: f64,
    /// Median over builds of each build over the unit measured right before it.
    paired: f64,
    /// Mean CPU time of a build over that of a product.
    cpu: f64,
}

/// One case: windows + graph on `m`, timed; prints and returns its ratios to the SpMV unit:
/// `unit` is measured before the case, and `unit_now` times the unit again (the median of a few
/// products) before each build of the side-by-side ratio.
fn case(
    name: &str,
    m: &CsrMatrix<()>,
    variable: bool,
    args: &Args,
    unit: Unit,
    unit_now: &mut dyn FnMut() -> Duration,
) -> Ratios {
    let opts = GraphOptions::default();
    let windows = || {
        if variable {
            Windows::variable(m, Parallelism::Rayon)
        } else {
            Windows::single_rows(m.nrows())
        }
    };
    let build = || WindowGraph::build(m, &windows(), &opts).expect("windows match the matrix");
    // The first build of a process takes fresh pages from the kernel for all its memory; later
    // ones reuse some the allocator kept from the ones before (so run a case alone, `--cases`,
    // for a user's single build).
    let (faults, t) = (page_faults(), Instant::now());
    let first = build();
    let t_first = t.elapsed();
    let first_faults = page_faults() - faults;
    drop(first);
    let faults = page_faults();
    let (t_total, cpu_total, graph) = timed(args.reps, build);
    let rep_faults = (page_faults() - faults) / (args.reps as u64 + 1);
    // Stage breakdown (separate runs).
    let (t_windows, w) = median_time(args.reps, windows);
    let (t_footprints, _) = median_time(args.reps, || {
        Footprints::new(m, &w, Parallelism::Rayon).expect("windows match the matrix")
    });
    // The graph on given windows, less their footprints: the build finds its index from the
    // matrix's rows, which `WindowGraph::from_footprints` cannot.
    let (t_graph, _) = median_time(args.reps, || {
        WindowGraph::build(m, &w, &opts).expect("windows match the matrix")
    });
    let paired = side_by_side(args.reps, unit_now, build);
    let edges: usize = (0..graph.len()).map(|g| graph.candidates(g).len()).sum();
    let ratio = t_total.as_secs_f64() / unit.wall.as_secs_f64();
    let cpu_ratio = cpu_total.as_secs_f64() / unit.cpu.as_secs_f64().max(1e-9);
    println!(
        "{name:<24} {:>9} windows {:>10} candidate edges  D_w {:>10}  bound {:>10}  bounded cols {}",
        graph.len(),
        edges,
        graph.windowed_distance(Parallelism::Rayon),
        graph.path_lower_bound(),
        graph.bounded_columns(),
    );
    println!(
        "{:<24} total {:>8.1} ms = {ratio:>5.2} SpMV (CPU time: {cpu_ratio:.2} SpMV)  (windows {:.1} ms, footprints {:.1} ms, index+search {:.1} ms)",
        "",
        ms(t_total),
        ms(t_windows),
        ms(t_footprints),
        ms(t_graph.saturating_sub(t_footprints)),
    );
    println!(
        "{:<24} first build {:>8.1} ms = {:>5.2} SpMV; page faults: {first_faults} in the first build, {rep_faults} a build after it",
        "",
        ms(t_first),
        t_first.as_secs_f64() / unit.wall.as_secs_f64(),
    );
    println!(
        "{:<24} side by side: {paired:.2} SpMV (median over {} builds of each build over the unit timed just before it)",
        "",
        args.reps.max(1),
    );
    Ratios {
        wall: ratio,
        paired,
        cpu: cpu_ratio,
    }
}

/// The median over `reps` runs of `f` of each run's time over the unit timed just before it:
/// the machine's speed drifts within seconds on a shared host (the unit measured 6.3-23 ms in one
/// run), and moves a run and the unit timed just before it alike.
fn side_by_side<R>(
    reps: usize,
    unit_now: &mut dyn FnMut() -> Duration,
    mut f: impl FnMut() -> R,
) -> f64 {
    let mut paired: Vec<f64> = (0..reps.max(1))
        .map(|_| {
            let unit = unit_now();
            let t = Instant::now();
            let result = f();
            let took = t.elapsed();
            drop(result);
            took.as_secs_f64() / unit.as_secs_f64()
        })
        .collect();
    paired.sort_by(f64::total_cmp);
    paired[paired.len() / 2]
}

/// The cache check's replays of the input order and RCM's (RCM itself not counted), priced side
/// by side as the pipeline does; prints and returns its ratios to the SpMV unit.
fn check_case(
    m: &CsrMatrix<()>,
    args: &Args,
    unit: Unit,
    unit_now: &mut dyn FnMut() -> Duration,
) -> Ratios {
    let model = CacheModel::default();
    let rcm = reverse_cuthill_mckee(m, DEFAULT_RCM_START).expect("square");
    let input = Permutation::identity(m.nrows());
    let price = || {
        rayon::join(
            || model.cost(m, &input, &input),
            || model.cost(m, &rcm, &rcm),
        )
    };
    let (t_total, cpu_total, (input_cost, rcm_cost)) = timed(args.reps, price);
    let paired = side_by_side(args.reps, unit_now, price);
    let ratio = t_total.as_secs_f64() / unit.wall.as_secs_f64();
    let cpu_ratio = cpu_total.as_secs_f64() / unit.cpu.as_secs_f64().max(1e-9);
    println!(
        "{:<24} modelled L1/L2 x misses: input {}/{}, RCM {}/{}",
        "cache-check",
        input_cost.l1_misses,
        input_cost.l2_misses,
        rcm_cost.l1_misses,
        rcm_cost.l2_misses
    );
    println!(
        "{:<24} total {:>8.1} ms = {ratio:>5.2} SpMV (CPU time: {cpu_ratio:.2} SpMV); side by side: {paired:.2} SpMV",
        "",
        ms(t_total),
    );
    Ratios {
        wall: ratio,
        paired,
        cpu: cpu_ratio,
    }
}

/// The SpMV unit: median wall time and mean CPU time per product.
#[derive(Clone, Copy)]
struct Unit {
    wall: Duration,
    cpu: Duration,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let args = parse_args();
    let n = args.n;
    let t = Instant::now();
    let grid = poisson3d(n, n, n).expect("grid dimensions");
    let a = if args.natural {
        grid
    } else {
        shuffle_symmetric(&grid, args.seed).expect("square").0
    };
    println!(
        "poisson3d {n}^3 {}: {} rows, {} nonzeros (generated in {:.0} ms); {} threads",
        if args.natural { "natural" } else { "shuffled" },
        a.nrows(),
        a.nnz(),
        ms(t.elapsed()),
        args.threads
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()
        .expect("thread pool");
    pool.install(|| {
        let x: Vec<f64> = (0..a.ncols()).map(|j| 1.0 + (j % 7) as f64).collect();
        let mut y = vec![0.0; a.nrows()];
        let spmv_reps = 4 * args.reps + 1;
        // The unit is measured right before each case: on a shared machine it drifts within a run.
        let mut measure_unit = || {
            let (wall, cpu, ()) = timed(spmv_reps, || spmv(&a, &x, &mut y));
            println!(
                "unit: SpMV median {:.2} ms over {spmv_reps} runs (CPU time {:.2} ms per run)",
                ms(wall),
                ms(cpu)
            );
            Unit { wall, cpu }
        };

        let full = a.pattern();
        let t = Instant::now();
        let sample = random_sample(&a, args.p, args.seed);
        println!(
            "sample p={}: {} nonzeros ({:.2}%), sampled in {:.0} ms (not counted)",
            args.p,
            sample.nnz(),
            100.0 * sample.nnz() as f64 / a.nnz().max(1) as f64,
            ms(t.elapsed())
        );
        let all = [
            ("full-w1", &full, false, 20.0),
            ("full-variable", &full, true, 20.0),
            ("sample-w1", &sample, false, 3.0),
            ("sample-variable", &sample, true, 3.0),
        ];
        let mut y_now = vec![0.0; a.nrows()];
        let mut results: Vec<(&str, Ratios, f64)> = Vec::new();
        let wanted = |name: &str| args.cases.is_empty() || args.cases.iter().any(|c| c == name);
        for (name, m, variable, target) in all {
            if wanted(name) {
                let unit = measure_unit();
                let mut unit_now = || timed(5, || spmv(&a, &x, &mut y_now)).0;
                let ratios = case(name, m, variable, &args, unit, &mut unit_now);
                results.push((name, ratios, target));
            }
        }
        if wanted("cache-check") {
            let unit = measure_unit();
            let mut unit_now = || timed(5, || spmv(&a, &x, &mut y_now)).0;
            let ratios = check_case(&full, &args, unit, &mut unit_now);
            results.push(("cache-check", ratios, CHECK_TARGET));
        }
        println!(
            "\nratio (SpMV-equivalents: wall, side by side, CPU time; target on side by side):"
        );
        for (name, r, target) in results {
            let verdict = if r.paired <= target { "ok" } else { "OVER" };
            println!(
                "  {name:<18} {:>6.2}  {:>6.2}  {:>6.2}  <= {target:>4}  {verdict}",
                r.wall, r.paired, r.cpu
            );
        }
    });
}
