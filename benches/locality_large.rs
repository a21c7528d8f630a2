//! Benchmark `locality_large`: the orderings where locality matters, matrices whose `x` exceeds
//! L2 (about 1M rows), shuffled and as generated, timed side by side with this project's kernel
//! (1 and 2 threads) and with a plain serial CSR loop, against the peers a user would pick
//! instead (RCM and METIS partition order, each as is and with the default's length runs) and
//! against the matrix's ideal-locality twin (the floor).
//!
//!     cargo bench --bench locality_large                      # every case below
//!     cargo bench --bench locality_large -- --only geometric --reps 9
//!     cargo bench --bench locality_large -- --dir DIR         # .mtx files, shuffled and as read
//!     cargo bench --bench locality_large -- --skip 'tsp cache' # leave out an ordering (repeatable:
//!                                                              # gp L2, nd runs, tsp cache)
//!     cargo bench --bench locality_large -- --copies 3         # each matrix in 3 copies, pooled
//!
//! Cases: a 3D 7-point Poisson grid 100³ (1M rows), a random geometric graph of 1M points
//! (degree 10), a banded matrix of 1M rows and 10M nonzeros (the thesis's Gaussian band), R-MAT
//! scale 20 (Graph500 parameters), and R-MAT 21 when the machine has 24 GiB free.
//!
//! Per matrix it prints each ordering's median time (ms) for each judge, and:
//! - `best peer`: the fastest of `rcm`, `rcm runs`, `gp`, `gp runs`;
//! - `floor`: the best peer's order with each row's `k` nonzeros moved to columns `i..i+k-1` (the
//!   same row lengths, `x` read in sequence): no order can beat it by much;
//! - `target`: the larger of 0.91 x the best peer's time and 1.05 x the floor's; `auto/target`
//!   at most 1 means the default meets it;
//! - the default's reordering cost in products of the input at 2 threads, with full information
//!   and with `--sampler random:0.02` (`auto 2%`): the report's `reorder_seconds` (sampling and
//!   ordering, what a user waits for the permutation), then the whole `Reorderer::run` with the
//!   report's measurements (its two replays of every nonzero through the cache model, the same
//!   with or without a sample); and the sampled order's time over the default's.
//!
//! Repetitions alternate between orderings (round robin), so that a machine's drift touches all of
//! them alike; each time is the median of `--reps` rounds of 5 products. Where a matrix's arrays
//! land in memory moves its time too (by up to a tenth on R-MAT), which no number of rounds
//! averages out: `--copies N` times every matrix in N copies, each in memory of its own and with
//! its own vectors, in the same rounds, and takes the median over all their samples (N times the
//! matrices' memory).

use spmv_reorder_gen::{
    banded_gaussian, poisson3d, random_geometric, rmat, shuffle_symmetric, BandedGaussian, Rmat,
};
use spmv_reorder_reorder::{Method, Reorderer, RunBlocks, SamplerChoice, WindowSpec};
use spmv_reorder_sparse::CsrMatrix;
use spmv_reorder_spmv::{Kernel, Par, Pinning, SpmvPlan, ThreadTeam, Topology};
use std::path::PathBuf;
use std::time::Instant;

/// Large arrays on transparent huge pages, as the `spmv-reorder` binary has them.
#[global_allocator]
static ALLOC: spmv_reorder_sparse::HugePageAlloc = spmv_reorder_sparse::HugePageAlloc;

/// The block of the length runs the peers get, the default's block where `x` exceeds L2.
const RUN_BLOCK: usize = 128;

mod common;

struct Args {
    dir: Option<PathBuf>,
    only: Option<String>,
    skip: Vec<String>,
    reps: usize,
    copies: usize,
}

fn args() -> Args {
    let mut a = Args {
        dir: None,
        only: None,
        skip: Vec::new(),
        reps: 7,
        copies: 1,
    };
    let mut line = common::CommandLine::new(include_str!("locality_large.rs"));
    while let Some(arg) = line.next() {
        match arg.as_str() {
            "--dir" => a.dir = Some(PathBuf::from(line.value("--dir"))),
            "--only" => a.only = Some(line.value("--only")),
            "--skip" => a.skip.push(skippable(&line.value("--skip"))),
            "--reps" => a.reps = line.number("--reps", 1),
            "--copies" => a.copies = line.number("--copies", 1),
            other => common::unknown(other),
        }
    }
    a
}

/// `name` when `--skip` may leave it out: an ordering of the bench that the verdict does not need.
fn skippable(name: &str) -> String {
    let all: Vec<&str> = orderings(&[]).into_iter().map(|(n, _)| n).collect();
    if !all.contains(&name) {
        common::fail(format!(
            "--skip '{name}': no such ordering (the orderings: {})",
            all.join(", ")
        ));
    }
    if KEPT.contains(&name) || PEERS.contains(&name) {
        common::fail(format!(
            "--skip '{name}': the verdict needs it (always kept: {}, {})",
            KEPT.join(", "),
            PEERS.join(", ")
        ));
    }
    name.to_string()
}

/// Free memory in bytes (`MemAvailable`), 0 when unknown.
fn available_memory() -> u64 {
    let text = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// A generated case: its name and how to make it (made only when selected).
type Case = (&'static str, Box<dyn Fn() -> CsrMatrix<f64>>);

fn generated(only: &Option<String>) -> Vec<(String, CsrMatrix<f64>)> {
    let wanted = |name: &str| only.as_ref().is_none_or(|o| name.contains(o.as_str()));
    let mut cases: Vec<Case> = vec![
        (
            "poisson3d-100",
            Box::new(|| poisson3d(100, 100, 100).unwrap()),
        ),
        (
            "geometric-1M",
            Box::new(|| random_geometric(1_000_000, 10.0, 1).unwrap()),
        ),
        (
            "banded-1M",
            Box::new(|| {
                let p = BandedGaussian {
                    n: 1_000_000,
                    nnz: 10_000_000,
                    ..BandedGaussian::default()
                };
                banded_gaussian(&p).unwrap()
            }),
        ),
        (
            "rmat-20",
            Box::new(|| {
                rmat(&Rmat {
                    scale: 20,
                    ..Rmat::default()
                })
                .unwrap()
            }),
        ),
    ];
    // R-MAT 21: about 64M nonzeros, ten orderings of it held at once.
    if available_memory() >= 24 << 30 {
        cases.push((
            "rmat-21",
            Box::new(|| {
                rmat(&Rmat {
                    scale: 21,
                    ..Rmat::default()
                })
                .unwrap()
            }),
        ));
    }
    cases
        .into_iter()
        .filter(|(name, _)| wanted(name))
        .map(|(name, make)| (name.to_string(), make()))
        .collect()
}

/// The square matrices of `dir` (shuffled by a symmetric permutation, they need a square one).
fn from_dir(dir: &std::path::Path, only: &Option<String>) -> Vec<(String, CsrMatrix<f64>)> {
    common::matrix_files(dir, only.as_deref())
        .into_iter()
        .map(|f| {
            let (a, _) = common::read_matrix(&f);
            if a.nrows() != a.ncols() {
                common::fail(format!(
                    "{}: {} x {}: the bench shuffles by a symmetric permutation, which needs a \
                     square matrix",
                    f.display(),
                    a.nrows(),
                    a.ncols()
                ));
            }
            (common::file_name(&f), a)
        })
        .collect()
}

/// The orderings: (label, configuration); `identity` first. The peers, `identity` and the two
/// defaults are always kept: the verdict needs them.
fn orderings(skip: &[String]) -> Vec<(&'static str, Reorderer)> {
    let runs = Some(RunBlocks::Fixed(RUN_BLOCK));
    let peer = |m: Method| Reorderer::new().method(m);
    vec![
        ("identity", peer(Method::Identity)),
        ("rcm", peer(Method::Rcm)),
        ("rcm runs", peer(Method::Rcm).length_runs(runs)),
        ("gp", peer(Method::Gp)),
        ("gp runs", peer(Method::Gp).length_runs(runs)),
        (
            "gp L2",
            peer(Method::Gp).part_rows(65_536).length_runs(runs),
        ),
        ("nd runs", peer(Method::Nd).length_runs(runs)),
        (
            "tsp cache",
            peer(Method::Tsp)
                .windows(WindowSpec::Cache { bytes: None })
                .cache_check(None)
                .length_runs(runs),
        ),
        ("auto", Reorderer::new()),
        (
            "auto 2%",
            Reorderer::new().sampler("random:0.02".parse::<SamplerChoice>().expect("a sampler")),
        ),
    ]
    .into_iter()
    .filter(|(name, _)| {
        KEPT.contains(name) || PEERS.contains(name) || !skip.iter().any(|s| s == name)
    })
    .collect()
}

const PEERS: [&str; 4] = ["rcm", "rcm runs", "gp", "gp runs"];
/// The orderings besides the peers that every verdict needs.
const KEPT: [&str; 3] = ["identity", "auto", "auto 2%"];

/// `y = A·x`, row by row, as anyone would write it: the independent judge.
fn plain_loop(a: &CsrMatrix<f64>, x: &[f64], y: &mut [f64]) {
    let (ptr, col, val) = (a.row_ptr(), a.col_idx(), a.values());
    for (i, yi) in y.iter_mut().enumerate() {
        let mut s = 0.0;
        for k in ptr[i]..ptr[i + 1] {
            s += val[k] * x[col[k] as usize];
        }
        *yi = s;
    }
}

/// The matrix with each row's `k` nonzeros moved to columns `i..i+k-1` (shifted left where they
/// would pass the last column): same row lengths and values, `x` read in sequence.
fn floor_twin(a: &CsrMatrix<f64>) -> CsrMatrix<f64> {
    let n = a.ncols();
    let mut col = Vec::with_capacity(a.nnz());
    for i in 0..a.nrows() {
        let k = a.row_nnz(i);
        let first = i.min(n.saturating_sub(k));
        col.extend((first..first + k).map(|c| c as u32));
    }
    CsrMatrix::new(a.nrows(), n, a.row_ptr().to_vec(), col, a.values().to_vec())
        .expect("a valid twin")
}

/// A judge: times one product of a matrix.
trait Judge {
    fn name(&self) -> String;
    fn prepare<'a>(&'a self, a: &'a CsrMatrix<f64>) -> Box<dyn FnMut() + 'a>;
}

struct OurKernel {
    team: ThreadTeam,
}

impl Judge for OurKernel {
    fn name(&self) -> String {
        format!("ours {}t", self.team.threads())
    }
    fn prepare<'a>(&'a self, a: &'a CsrMatrix<f64>) -> Box<dyn FnMut() + 'a> {
        let x = vec![1.0; a.ncols()];
        let mut y = vec![0.0; a.nrows()];
        let mut plan = SpmvPlan::new(a, Kernel::NnzBalanced, self.team.threads());
        plan.tune_prefetch(&x, &mut y, Par::Team(&self.team), 3);
        Box::new(move || plan.mul_vec(&x, &mut y, Par::Team(&self.team)))
    }
}

struct PlainLoop;

impl Judge for PlainLoop {
    fn name(&self) -> String {
        "plain 1t".into()
    }
    fn prepare<'a>(&'a self, a: &'a CsrMatrix<f64>) -> Box<dyn FnMut() + 'a> {
        let x = vec![1.0; a.ncols()];
        let mut y = vec![0.0; a.nrows()];
        Box::new(move || {
            plain_loop(a, std::hint::black_box(&x), &mut y);
            std::hint::black_box(&y);
        })
    }
}

/// Median seconds of one product of each matrix, round robin over `reps` rounds of 5, each
/// matrix timed in `copies` (at least 1) copies, the first `mats[i]` itself, whose samples are
/// pooled.
fn time_side_by_side(
    judge: &dyn Judge,
    mats: &[&CsrMatrix<f64>],
    reps: usize,
    copies: usize,
) -> Vec<f64> {
    let clones: Vec<(usize, CsrMatrix<f64>)> = (1..copies)
        .flat_map(|_| mats.iter().enumerate().map(|(i, &a)| (i, a.clone())))
        .collect();
    let placed = mats.iter().copied().enumerate();
    let mut runs: Vec<(usize, Box<dyn FnMut() + '_>)> = placed
        .chain(clones.iter().map(|(i, a)| (*i, a)))
        .map(|(i, a)| (i, judge.prepare(a)))
        .collect();
    for (_, r) in runs.iter_mut() {
        r();
    }
    let mut samples = vec![Vec::with_capacity(reps * copies); mats.len()];
    for _ in 0..reps {
        for (i, r) in runs.iter_mut() {
            let t = Instant::now();
            for _ in 0..5 {
                r();
            }
            samples[*i].push(t.elapsed().as_secs_f64() / 5.0);
        }
    }
    samples
        .into_iter()
        .map(|mut s| {
            s.sort_by(f64::total_cmp);
            s[s.len() / 2]
        })
        .collect()
}

fn main() {
    let args = args();
    let cases = match &args.dir {
        Some(d) => from_dir(d, &args.only),
        None => generated(&args.only),
    };
    if cases.is_empty() {
        // A geometric mean over no matrix would print 1.000, which reads as a result.
        let only = args.only.as_deref().unwrap_or_default();
        common::fail(format!("no generated matrix's name holds --only '{only}'"));
    }
    let topo = common::or_fail(Topology::this_system());
    let judges: Vec<Box<dyn Judge>> = vec![
        Box::new(OurKernel {
            team: common::or_fail(ThreadTeam::new(&topo, 1, &Pinning::None)),
        }),
        Box::new(OurKernel {
            team: common::or_fail(ThreadTeam::new(&topo, 2, &Pinning::None)),
        }),
        Box::new(PlainLoop),
    ];
    let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); judges.len()];
    for (name, natural) in cases {
        for shuffled in [true, false] {
            let a = if shuffled {
                // As `spmv-reorder gen ... --shuffle 1` shuffles.
                shuffle_symmetric(&natural, 1).unwrap().0
            } else {
                natural.clone()
            };
            let label = format!("{name}{}", if shuffled { " shuffled" } else { "" });
            let r = evaluate(&label, &a, &judges, &args);
            if shuffled {
                for (k, v) in r.into_iter().enumerate() {
                    ratios[k].push(v);
                }
            }
        }
    }
    println!("\nauto / target over the shuffled matrices (at most 1: met), geometric mean:");
    for (j, r) in judges.iter().zip(&ratios) {
        let g = (r.iter().map(|v| v.ln()).sum::<f64>() / r.len().max(1) as f64).exp();
        println!("  {:9} {g:.3}  ({})", j.name(), fmt_list(r));
    }
}

/// Seconds as milliseconds, with four decimals below one (small matrices in cache).
fn ms(seconds: f64) -> String {
    match seconds * 1e3 {
        m if m < 1.0 => format!("{m:.4}"),
        m => format!("{m:.2}"),
    }
}

fn fmt_list(v: &[f64]) -> String {
    v.iter()
        .map(|x| format!("{x:.3}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Orders, times and prints one matrix; returns `t(auto) / target` per judge.
fn evaluate(label: &str, a: &CsrMatrix<f64>, judges: &[Box<dyn Judge>], args: &Args) -> Vec<f64> {
    let reps = args.reps;
    println!("\n## {label}: {} rows, {} nonzeros", a.nrows(), a.nnz());
    let mut names = Vec::new();
    let mut mats = Vec::new();
    let mut seconds = Vec::new();
    let mut ordering_seconds = Vec::new();
    for (name, reorderer) in orderings(&args.skip) {
        let t = Instant::now();
        let r = common::or_fail(reorderer.run(a));
        seconds.push(t.elapsed().as_secs_f64());
        ordering_seconds.push(r.report.reorder_seconds);
        mats.push(common::or_fail(r.apply(a)));
        names.push(name);
    }
    let refs: Vec<&CsrMatrix<f64>> = mats.iter().collect();
    let times: Vec<Vec<f64>> = judges
        .iter()
        .map(|j| time_side_by_side(j.as_ref(), &refs, reps, args.copies))
        .collect();
    let at = |n: &str| names.iter().position(|&x| x == n).unwrap();
    let mut out = Vec::new();
    println!(
        "{:10} {}",
        "ordering",
        judges
            .iter()
            .map(|j| format!("{:>10}", j.name()))
            .collect::<String>()
    );
    for (i, n) in names.iter().enumerate() {
        let row: String = times.iter().map(|t| format!("{:>10}", ms(t[i]))).collect();
        println!("{n:10} {row}   (ordered in {:.2} s)", seconds[i]);
    }
    for (j, t) in judges.iter().zip(&times) {
        let best = PEERS
            .iter()
            .map(|p| at(p))
            .min_by(|&x, &y| t[x].total_cmp(&t[y]))
            .unwrap();
        let twin = floor_twin(&mats[best]);
        let pair = time_side_by_side(j.as_ref(), &[&mats[best], &twin], reps, args.copies);
        // The floor relative to the best peer timed beside it, applied to the peer's time above.
        let floor = t[best] * pair[1] / pair[0];
        let target = (0.91 * t[best]).max(1.05 * floor);
        let auto = t[at("auto")];
        println!(
            "{:9}: best peer {} {} ms, floor {} ms (best peer / floor {:.2}), auto {} ms = {:.3}x \
             the best peer, {:.3}x the target; auto / input {:.3}",
            j.name(),
            names[best],
            ms(t[best]),
            ms(floor),
            t[best] / floor,
            ms(auto),
            auto / t[best],
            auto / target,
            auto / t[at("identity")],
        );
        out.push(auto / target);
    }
    let input_2t = times[1][at("identity")];
    for n in ["auto", "auto 2%"] {
        let (ordering, whole) = (ordering_seconds[at(n)], seconds[at(n)]);
        println!(
            "{n} cost: {ordering:.2} s = {:.0} products of the input at 2 threads (with the \
             report's measurements {whole:.2} s = {:.0})",
            ordering / input_2t,
            whole / input_2t
        );
    }
    let sampled: Vec<String> = times
        .iter()
        .map(|t| format!("{:.3}", t[at("auto 2%")] / t[at("auto")]))
        .collect();
    println!("auto 2% / auto time per judge: {}", sampled.join(" "));
    out
}
