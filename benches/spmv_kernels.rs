//! Benchmark `spmv_kernels`: the parallel SpMV kernels of `spmv-reorder-spmv` against sprs's
//! serial product and a plain serial loop, on the bundled matrices and a 3D 7-point Poisson grid.
//!
//! Criterion mode (case ids `spmv/MATRIX/KERNEL/THREADS`, throughput per nonzero):
//!     cargo bench --bench spmv_kernels -- --quick [FILTER]
//! Ratio mode (a plain table of best-of-N times and ratios, measured side by side, plus the
//! triad-derived bound on the Poisson grid):
//!     cargo bench --bench spmv_kernels -- --ratios
//! Environment: `SPMV_BENCH_MATRICES` (directory of `*.mtx`/`*.mtx.gz`, default `matrices/`;
//! `none` to skip), `SPMV_BENCH_POISSON` (grid side, default 100, i.e. 1M rows; 0 to skip),
//! `SPMV_BENCH_THREADS` (parallel thread count, default all CPUs).

use criterion::{BenchmarkId, Criterion, Throughput};
use spmv_reorder_sparse::CsrMatrix;
use spmv_reorder_spmv::bench::BenchConfig;
use spmv_reorder_spmv::stream::StreamConfig;
use spmv_reorder_spmv::{Kernel, Par, Pinning, SpmvPlan, ThreadTeam, Topology};
use std::path::PathBuf;
use std::time::Instant;

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
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        paths.retain(|p| {
            p.to_string_lossy().ends_with(".mtx") || p.to_string_lossy().ends_with(".mtx.gz")
        });
        paths.sort();
        for p in paths {
            let name = p
                .file_name()
                .unwrap()
                .to_string_lossy()
                .replace(".mtx.gz", "")
                .replace(".mtx", "");
            match spmv_reorder_mtx::read_path(&p, &Default::default()) {
                Ok(m) => out.push((name, m.matrix.to_real())),
                Err(e) => eprintln!("skipping {}: {e}", p.display()),
            }
        }
    }
    let side: usize = env_number("SPMV_BENCH_POISSON", 100);
    if side > 0 {
        let a = spmv_reorder_gen::poisson3d(side, side, side).expect("Poisson grid");
        out.push((format!("poisson3d-{side}"), a));
    }
    out
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn parallel_threads(topology: &Topology) -> usize {
    env_number("SPMV_BENCH_THREADS", topology.pus.len()).clamp(1, topology.pus.len())
}

fn criterion_mode(c: &mut Criterion) {
    let topology = Topology::this_system().expect("topology");
    let threads = parallel_threads(&topology);
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
        inner.push(((2e-3 / one).ceil() as usize).clamp(1, 100_000));
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

fn ratio_mode() {
    let topology = Topology::this_system().expect("topology");
    let threads = parallel_threads(&topology);
    let team1 = ThreadTeam::new(&topology, 1, &Pinning::Compact).expect("team");
    let team_n = ThreadTeam::new(&topology, threads, &Pinning::Scatter).expect("team");
    let reps = env_number("SPMV_BENCH_REPS", 15);
    println!(
        "{:<16} {:>9} {:>10} {:>10} {:>10} {:>13} {:>10} {:>10} {:>9} {:>9}",
        "matrix",
        "nnz",
        "sprs_us",
        "loop_us",
        "best1_us",
        "best1_kernel",
        "sprs/b1",
        "bestN_us",
        "sprs/bN",
        "chk/unchk"
    );
    for (name, a) in matrices() {
        let x: Vec<f64> = (0..a.ncols()).map(|j| 1.0 + (j % 17) as f64).collect();
        let mut ys: Vec<Vec<f64>> = vec![vec![0.0; a.nrows()]; 9];
        let s = sprs_matrix(&a);
        let plans1: Vec<SpmvPlan<'_>> = Kernel::ALL
            .iter()
            .map(|&k| SpmvPlan::new(&a, k, 1))
            .collect();
        let plans_n: Vec<SpmvPlan<'_>> = Kernel::ALL
            .iter()
            .map(|&k| SpmvPlan::new(&a, k, threads))
            .collect();
        let [y0, y1, y2, y3, y4, y5, y6, y7, y8] = &mut ys[..] else {
            unreachable!()
        };
        let mut f0 = || sprs_product(&s, &x, y0);
        let mut f1 = || a.mul_vec_reference(&x, y1);
        let mut f2 = || plans1[0].mul_vec(&x, y2, Par::Team(&team1));
        let mut f3 = || plans1[1].mul_vec(&x, y3, Par::Team(&team1));
        let mut f4 = || plans1[2].mul_vec(&x, y4, Par::Team(&team1));
        let mut f5 = || plans_n[0].mul_vec(&x, y5, Par::Team(&team_n));
        let mut f6 = || plans_n[1].mul_vec(&x, y6, Par::Team(&team_n));
        let mut f7 = || plans_n[2].mul_vec(&x, y7, Par::Team(&team_n));
        let mut f8 = || plans1[1].mul_vec_checked(&x, y8, Par::Team(&team1));
        let t = best_times(
            &mut [
                &mut f0, &mut f1, &mut f2, &mut f3, &mut f4, &mut f5, &mut f6, &mut f7, &mut f8,
            ],
            reps,
        );
        let (k1, b1) = (2..5)
            .map(|i| (i, t[i]))
            .min_by(|p, q| p.1.total_cmp(&q.1))
            .unwrap();
        let bn = t[5..8].iter().copied().fold(f64::INFINITY, f64::min);
        println!(
            "{:<16} {:>9} {:>10.2} {:>10.2} {:>10.2} {:>13} {:>10.3} {:>10.2} {:>9.3} {:>9.3}",
            name,
            a.nnz(),
            t[0] * 1e6,
            t[1] * 1e6,
            b1 * 1e6,
            Kernel::ALL[k1 - 2].name(),
            t[0] / b1,
            bn * 1e6,
            t[0] / bn,
            t[8] / t[3]
        );
    }
    let side: usize = env_number("SPMV_BENCH_POISSON", 100);
    if side > 0 {
        let a = spmv_reorder_gen::poisson3d(side, side, side).expect("Poisson grid");
        let cfg = BenchConfig {
            threads,
            stream: Some(StreamConfig::default()),
            ..BenchConfig::default()
        };
        let r = spmv_reorder_spmv::bench::run(&a, &cfg).expect("bench");
        println!(
            "\npoisson3d-{side} ({} rows, {} nnz), {threads} threads scatter, first touch; triad {:.2} GB/s (best of {})",
            a.nrows(),
            a.nnz(),
            r.triad_gbytes_per_s.unwrap_or(f64::NAN),
            r.triad.as_ref().map_or(0, |t| t.reps)
        );
        for k in &r.kernels {
            println!(
                "  {:<13} min {:>8.3} ms  median {:>8.3} ms  best {:>6.2} GB/s  = {:>5.1}% of triad  ({:.2} GFLOP/s, roof {:.2})",
                k.kernel.name(),
                k.min_s * 1e3,
                k.median_s * 1e3,
                k.best_gbytes_per_s,
                100.0 * k.triad_share.unwrap_or(f64::NAN),
                k.roofline.attained_gflops,
                k.roofline.bandwidth_roof_gflops.unwrap_or(f64::NAN)
            );
        }
    }
}

fn main() {
    if std::env::args().any(|a| a == "--ratios") {
        ratio_mode();
        return;
    }
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_secs(1))
        .configure_from_args();
    criterion_mode(&mut c);
    c.final_summary();
}
