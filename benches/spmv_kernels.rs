//! Benchmark `spmv_kernels`: the parallel SpMV kernels of `spmv-reorder-spmv` against sprs's
//! serial product and a plain serial loop, on the bundled matrices and a 3D 7-point Poisson grid.
//!
//! Criterion mode (case ids `spmv/MATRIX/KERNEL/THREADS`, throughput per nonzero):
//!     cargo bench --bench spmv_kernels -- --quick [FILTER]
//! Ratio mode (a plain table of best-of-N times and ratios, measured side by side, plus the
//! triad-derived bound on the Poisson grid):
//!     cargo bench --bench spmv_kernels -- --ratios
//! Its `chk/unchk` column is the safe twin (bounds checks, no prefetch) over the unchecked
//! nnz-balanced kernel, both on 1 thread: what the unsafe hot loop gains.
//! Environment: `SPMV_BENCH_MATRICES` (directory of `*.mtx`/`*.mtx.gz`, default `matrices/`;
//! `none` to skip), `SPMV_BENCH_POISSON` (grid side, default 100, i.e. 1M rows; 0 to skip),
//! `SPMV_BENCH_THREADS` (parallel thread count, default all CPUs), `SPMV_BENCH_REPS` (ratio
//! mode's rounds, default 40). A folder without matrices, or a value that is not a number, is an
//! error; a matrix that does not read is reported and left out (exit status 1 at the end).

use criterion::{BenchmarkId, Criterion, Throughput};
use spmv_reorder_sparse::CsrMatrix;
use spmv_reorder_spmv::bench::BenchConfig;
use spmv_reorder_spmv::stream::StreamConfig;
use spmv_reorder_spmv::{Dispatch, Kernel, Par, Pinning, SpmvPlan, ThreadTeam, Topology};
use std::path::Path;
use std::time::Instant;

mod common;

/// Large arrays on transparent huge pages, as the `spmv-reorder` binary has them.
#[global_allocator]
static ALLOC: spmv_reorder_sparse::HugePageAlloc = spmv_reorder_sparse::HugePageAlloc;

/// sprs's product with the same index types (`u32` columns, `usize` offsets): `y = 0; y += A·x`.
fn sprs_matrix(a: &CsrMatrix<f64>) -> sprs::CsMatI<f64, u32, usize> {
    sprs::CsMatI::new(
        (a.nrows(), a.ncols()),
        a.row_ptr().to_vec(),
        a.col_idx().to_vec(),
        a.values().to_vec(),
    )
}

fn sprs_product(m: &sprs::CsMatI<f64, u32, usize>, x: &[f64], y: &mut [f64]) {
    y.fill(0.0);
    sprs::prod::mul_acc_mat_vec_csr(m.view(), x, &mut *y);
}

fn matrices() -> Vec<(String, CsrMatrix<f64>)> {
    let mut out = Vec::new();
    let dir = std::env::var("SPMV_BENCH_MATRICES")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/matrices").to_owned());
    if dir != "none" {
        for p in common::matrix_files(Path::new(&dir), None) {
            let name = common::file_name(&p)
                .replace(".mtx.gz", "")
                .replace(".mtx", "");
            if let Some((a, _)) = common::read_matrix_or_skip(&p) {
                out.push((name, a));
            }
        }
    }
    if let Some((side, a)) = poisson_grid() {
        out.push((format!("poisson3d-{side}"), a));
    }
    out
}

/// The 3D Poisson grid of side `SPMV_BENCH_POISSON` (none for 0), its size checked first, with
/// its side.
fn poisson_grid() -> Option<(usize, CsrMatrix<f64>)> {
    let side = env_number("SPMV_BENCH_POISSON", 100, 0);
    if side == 0 {
        return None;
    }
    // 7 nonzeros a row of 12 bytes, offsets, vectors and the sprs copy.
    common::check_memory(
        (side as u128).pow(3) * 7 * 12 * 3,
        format_args!("SPMV_BENCH_POISSON={side}"),
    );
    Some((
        side,
        common::or_fail(spmv_reorder_gen::poisson3d(side, side, side)),
    ))
}

/// The variable `name` as a number of at least `min`, `default` when unset.
fn env_number(name: &str, default: usize, min: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => common::number(name, &v, min),
        Err(_) => default,
    }
}

fn parallel_threads(topology: &Topology) -> usize {
    env_number("SPMV_BENCH_THREADS", topology.pus.len(), 1).min(topology.pus.len())
}

fn criterion_mode(c: &mut Criterion) {
    let topology = Topology::this_system().expect("topology");
    let threads = parallel_threads(&topology);
    {
        let a = tiny();
        let x = vec![1.0; a.ncols()];
        let mut y = vec![0.0; a.nrows()];
        let mut group = c.benchmark_group("spmv/tiny64");
        group.throughput(Throughput::Elements(a.nnz() as u64));
        for (name, dispatch) in [
            ("dispatch-spin", Dispatch::Spin),
            ("dispatch-rayon", Dispatch::Rayon),
        ] {
            let team = ThreadTeam::with_dispatch(&topology, threads, &Pinning::Scatter, dispatch)
                .expect("team");
            let plan = SpmvPlan::new(&a, Kernel::NnzBalanced, threads);
            group.bench_function(BenchmarkId::new(name, threads), |b| {
                b.iter(|| plan.mul_vec(&x, &mut y, Par::Team(&team)))
            });
        }
        group.finish();
    }
    let team1 = ThreadTeam::new(&topology, 1, &Pinning::Compact).expect("team");
    let team_n = ThreadTeam::new(&topology, threads, &Pinning::Scatter).expect("team");
    for (name, a) in matrices() {
        let mut group = c.benchmark_group(format!("spmv/{name}"));
        group.throughput(Throughput::Elements(a.nnz() as u64));
        let x: Vec<f64> = (0..a.ncols()).map(|j| 1.0 + (j % 17) as f64).collect();
        let mut y = vec![0.0; a.nrows()];
        let s = sprs_matrix(&a);
        group.bench_function(BenchmarkId::new("sprs", 1), |b| {
            b.iter(|| sprs_product(&s, &x, &mut y))
        });
        group.bench_function(BenchmarkId::new("serial-loop", 1), |b| {
            b.iter(|| a.mul_vec_reference(&x, &mut y))
        });
        for kernel in Kernel::ALL {
            for team in [&team1, &team_n] {
                let plan = SpmvPlan::new(&a, kernel, team.threads());
                group.bench_function(BenchmarkId::new(kernel.name(), team.threads()), |b| {
                    b.iter(|| plan.mul_vec(&x, &mut y, Par::Team(team)))
                });
            }
        }
        let plan = SpmvPlan::new(&a, Kernel::NnzBalanced, 1);
        group.bench_function(BenchmarkId::new("nnz-balanced-checked", 1), |b| {
            b.iter(|| plan.mul_vec_checked(&x, &mut y, Par::Sequential))
        });
        group.finish();
    }
}

/// Best-of-`reps` seconds per call of each function, the functions alternating rep by rep.
fn best_times(fs: &mut [&mut dyn FnMut()], reps: usize) -> Vec<f64> {
    let mut inner = Vec::new();
    for f in fs.iter_mut() {
        let start = Instant::now();
        f();
        let one = start.elapsed().as_secs_f64().max(1e-8);
        inner.push(((3e-4 / one).ceil() as usize).clamp(1, 100_000));
    }
    let mut best = vec![f64::INFINITY; fs.len()];
    for _ in 0..reps {
        for (i, f) in fs.iter_mut().enumerate() {
            let start = Instant::now();
            for _ in 0..inner[i] {
                f();
            }
            best[i] = best[i].min(start.elapsed().as_secs_f64() / inner[i] as f64);
        }
    }
    best
}

/// A 64-row tridiagonal matrix: a product takes well under a microsecond, so its parallel time is
/// the dispatch overhead of the team.
fn tiny() -> CsrMatrix<f64> {
    let n = 64;
    let t = (0..n).flat_map(|i| {
        [
            (i, i, 2.0),
            (i, (i + 1) % n, -1.0),
            (i, (i + n - 1) % n, -1.0),
        ]
    });
    CsrMatrix::from_triplets(n, n, t).expect("tiny matrix")
}

/// Seconds per product on the tiny matrix: one thread, and `threads` threads with each dispatch.
fn dispatch_overhead(topology: &Topology, threads: usize, reps: usize) -> Vec<(String, f64)> {
    let a = tiny();
    let x = vec![1.0; a.ncols()];
    let mut y = vec![0.0; a.nrows()];
    let mut out = Vec::new();
    for (name, n, dispatch) in [
        ("1 thread", 1, Dispatch::Spin),
        ("spin pool", threads, Dispatch::Spin),
        ("rayon", threads, Dispatch::Rayon),
    ] {
        let team =
            ThreadTeam::with_dispatch(topology, n, &Pinning::Scatter, dispatch).expect("team");
        let plan = SpmvPlan::new(&a, Kernel::NnzBalanced, n);
        let t = best_times(
            &mut [&mut || plan.mul_vec(&x, &mut y, Par::Team(&team))],
            reps,
        )[0];
        out.push((format!("{name} ({n})"), t));
    }
    out
}

fn ratio_mode() {
    let topology = Topology::this_system().expect("topology");
    let threads = parallel_threads(&topology);
    let team1 = ThreadTeam::new(&topology, 1, &Pinning::Compact).expect("team");
    let team_n = ThreadTeam::new(&topology, threads, &Pinning::Scatter).expect("team");
    let reps = env_number("SPMV_BENCH_REPS", 40, 1);
    println!(
        "{:<16} {:>9} {:>10} {:>10} {:>10} {:>13} {:>8} {:>10} {:>13} {:>8} {:>9}",
        "matrix",
        "nnz",
        "sprs_us",
        "loop_us",
        "best1_us",
        "best1_kernel",
        "sprs/b1",
        "bestN_us",
        "bestN_kernel",
        "sprs/bN",
        "chk/unchk"
    );
    let kernels = Kernel::ALL.len();
    for (name, a) in matrices() {
        let x: Vec<f64> = (0..a.ncols()).map(|j| 1.0 + (j % 17) as f64).collect();
        let s = sprs_matrix(&a);
        let (a, x, s) = (&a, &x, &s);
        let y = || vec![0.0; a.nrows()];
        // Order: sprs, plain loop, checked twin, every kernel on 1 thread, every kernel on N.
        let mut fs: Vec<Box<dyn FnMut() + '_>> = Vec::new();
        let mut y0 = y();
        fs.push(Box::new(move || sprs_product(s, x, &mut y0)));
        let mut y1 = y();
        fs.push(Box::new(move || a.mul_vec_reference(x, &mut y1)));
        let checked = SpmvPlan::new(a, Kernel::NnzBalanced, 1);
        let mut y2 = y();
        fs.push(Box::new(move || {
            checked.mul_vec_checked(x, &mut y2, Par::Sequential)
        }));
        for team in [&team1, &team_n] {
            for &k in &Kernel::ALL {
                let plan = SpmvPlan::new(a, k, team.threads());
                let mut yk = y();
                fs.push(Box::new(move || plan.mul_vec(x, &mut yk, Par::Team(team))));
            }
        }
        let mut refs: Vec<&mut dyn FnMut()> = fs
            .iter_mut()
            .map(|f| &mut **f as &mut dyn FnMut())
            .collect();
        let t = best_times(&mut refs, reps);
        let best = |from: usize| {
            (from..from + kernels)
                .map(|i| (Kernel::ALL[i - from], t[i]))
                .min_by(|p, q| p.1.total_cmp(&q.1))
                .unwrap()
        };
        let ((k1, b1), (kn, bn)) = (best(3), best(3 + kernels));
        println!(
            "{:<16} {:>9} {:>10.2} {:>10.2} {:>10.2} {:>13} {:>8.3} {:>10.2} {:>13} {:>8.3} {:>9.3}",
            name,
            a.nnz(),
            t[0] * 1e6,
            t[1] * 1e6,
            b1 * 1e6,
            k1.name(),
            t[0] / b1,
            bn * 1e6,
            kn.name(),
            t[0] / bn,
            t[2] / t[3 + 1]
        );
    }
    let overhead = dispatch_overhead(&topology, threads, reps);
    let shown: Vec<String> = overhead
        .iter()
        .map(|(n, t)| format!("{n}: {:.2} us", t * 1e6))
        .collect();
    println!(
        "\ndispatch overhead, 64-row tridiagonal product: {}",
        shown.join(", ")
    );
    if let Some((side, a)) = poisson_grid() {
        let cfg = BenchConfig {
            threads,
            stream: Some(StreamConfig::default()),
            ..BenchConfig::default()
        };
        let r = spmv_reorder_spmv::bench::run(&a, &cfg).expect("bench");
        println!(
            "\npoisson3d-{side} ({} rows, {} nnz), {threads} threads scatter, first touch; triad {:.2} GB/s best, {:.2} median (of {})",
            a.nrows(),
            a.nnz(),
            r.triad_gbytes_per_s.unwrap_or(f64::NAN),
            r.triad.as_ref().map_or(f64::NAN, |t| t.median_gbytes_per_s),
            r.triad.as_ref().map_or(0, |t| t.reps)
        );
        for k in &r.kernels {
            println!(
                "  {:<13} min {:>8.3} ms  median {:>8.3} ms  best {:>6.2} GB/s = {:>5.1}% of triad best, median {:>5.1}% of triad median  ({:.2} GFLOP/s, roof {:.2})",
                k.kernel.name(),
                k.min_s * 1e3,
                k.median_s * 1e3,
                k.best_gbytes_per_s,
                100.0 * k.triad_share.unwrap_or(f64::NAN),
                100.0 * k.median_triad_share.unwrap_or(f64::NAN),
                k.roofline.attained_gflops,
                k.roofline.bandwidth_roof_gflops.unwrap_or(f64::NAN)
            );
        }
    }
}

fn main() {
    if std::env::args().any(|a| a == "--help" || a == "-h") {
        println!("{}", common::usage(include_str!("spmv_kernels.rs")));
        return;
    }
    if std::env::args().any(|a| a == "--ratios") {
        ratio_mode();
        common::finish();
        return;
    }
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_secs(1))
        .configure_from_args();
    criterion_mode(&mut c);
    c.final_summary();
    common::finish();
}
