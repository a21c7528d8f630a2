//! Benchmark `sampling`: what sampling costs against one SpMV, and how much of a matrix DAST covers.
//!
//! `cargo bench --bench sampling` prints three tables (add `-- --quick` for a smaller run, or
//! `-- --cost` for the first table only):
//! 1. the cost of random sampling at 2% on a 3D Poisson 100³ grid (7M nonzeros), as a ratio to a
//!    plain serial CSR SpMV timed in the same run;
//! 2. the cost of the DAST simulator (2 iterations through the cache model plus DAST) on a ~1M
//!    nonzero grid, also in SpMVs;
//! 3. thesis table 4.2 for the bundled matrices under the simulator: sampled nonzeros and their
//!    share, sampled nonzeros per row, rows without a sample, for sampling periods 1, 10, 100, 1000
//!    (kernel A, 2 threads, threshold 0), plus the rejected candidates (always 0: 100% precision).

use spmv_reorder_sampling::{dast, random_sample, simulate, DastOptions, SimOptions, TracedKernel};
use spmv_reorder_sparse::CsrMatrix;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

/// Large arrays on transparent huge pages, as the `spmv-reorder` binary has them.
#[global_allocator]
static ALLOC: spmv_reorder_sparse::HugePageAlloc = spmv_reorder_sparse::HugePageAlloc;

/// The fastest of `runs` timings of `f`.
fn best_of<R>(runs: usize, mut f: impl FnMut() -> R) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            black_box(f());
            t.elapsed()
        })
        .min()
        .expect("at least one run")
}

/// `y = A·x`, the plainest serial CSR loop.
fn spmv(a: &CsrMatrix<f64>, x: &[f64], y: &mut [f64]) {
    let (ptr, col, val) = (a.row_ptr(), a.col_idx(), a.values());
    for (i, yi) in y.iter_mut().enumerate() {
        let mut s = 0.0;
        for k in ptr[i]..ptr[i + 1] {
            s += val[k] * x[col[k] as usize];
        }
        *yi = s;
    }
}

fn spmv_time(a: &CsrMatrix<f64>, runs: usize) -> Duration {
    let x = vec![1.0; a.ncols()];
    let mut y = vec![0.0; a.nrows()];
    spmv(a, &x, &mut y); // warm-up
    best_of(runs, || spmv(a, &x, &mut y))
}

fn random_cost(side: usize, runs: usize) {
    let a = spmv_reorder_gen::poisson3d(side, side, side).expect("grid");
    let t_spmv = spmv_time(&a, runs);
    let t_sample = best_of(runs, || random_sample(&a, 0.02, 42).expect("p is valid"));
    let s = random_sample(&a, 0.02, 42).expect("p is valid");
    println!("## Random sampling at 2% (poisson3d {side}^3, serial, best of {runs})");
    println!("| nnz | sampled | SpMV (ms) | sampling (ms) | sampling / SpMV |");
    println!("|---:|---:|---:|---:|---:|");
    println!(
        "| {} | {} | {:.2} | {:.2} | {:.3} |\n",
        a.nnz(),
        s.pattern.nnz(),
        t_spmv.as_secs_f64() * 1e3,
        t_sample.as_secs_f64() * 1e3,
        t_sample.as_secs_f64() / t_spmv.as_secs_f64()
    );
}

fn simulator_cost(side: usize) {
    let a = spmv_reorder_gen::poisson3d(side, side, side).expect("grid");
    let t_spmv = spmv_time(&a, 5);
    let opts = SimOptions {
        threads: Some(2),
        ..SimOptions::default()
    };
    let t = Instant::now();
    let (_, records) = simulate(&a, &opts).expect("valid options");
    let s = dast(&a, &records, &DastOptions::default());
    let t = t.elapsed();
    println!("## DAST simulator (poisson3d {side}^3, 2 threads, period 10, 2 iterations)");
    println!("| nnz | records | sampled | time (s) | in SpMVs |");
    println!("|---:|---:|---:|---:|---:|");
    println!(
        "| {} | {} | {} | {:.2} | {:.0} |\n",
        a.nnz(),
        records.len(),
        s.pattern.nnz(),
        t.as_secs_f64(),
        t.as_secs_f64() / t_spmv.as_secs_f64()
    );
}

fn coverage_table(names: &[&str], periods: &[u64]) {
    println!(
        "## DAST coverage under the simulator (thesis table 4.2; kernel A, 2 threads, threshold 0)"
    );
    println!("| matrix | n | nnz | nnz/n | period | snnz (% of nnz) | snnz/n | rows without sample (% of n) | rejected |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("matrices");
    for name in names {
        let path = dir.join(format!("{name}.mtx.gz"));
        let a = match spmv_reorder_mtx::read_path(&path, &Default::default()) {
            Ok(m) => m.matrix.to_real(),
            Err(e) => {
                println!("| {name} | skipped: {e} |");
                continue;
            }
        };
        for &period in periods {
            let opts = SimOptions {
                threads: Some(2),
                kernel: TracedKernel::PerNonzero,
                period,
                seed: 1,
                ..SimOptions::default()
            };
            let (layout, records) = simulate(&a, &opts).expect("valid options");
            let d = DastOptions {
                partition: Some(layout.partition),
                ..DastOptions::default()
            };
            let c = dast(&a, &records, &d).coverage;
            println!(
                "| {name} | {} | {} | {:.1} | {period} | {} ({:.1}%) | {:.2} | {} ({:.1}%) | {} |",
                c.nrows,
                c.nnz,
                c.nnz as f64 / c.nrows as f64,
                c.sampled_nnz,
                100.0 * c.sampled_fraction,
                c.mean_per_row,
                c.rows_without_sample,
                100.0 * c.rows_without_sample_fraction,
                c.rejected
            );
        }
    }
    println!();
}

mod common;

fn main() {
    let (mut quick, mut cost) = (false, false);
    for word in common::CommandLine::new(include_str!("sampling.rs")) {
        match word.as_str() {
            "--quick" => quick = true,
            "--cost" => cost = true,
            other => common::unknown(other),
        }
    }
    if cost {
        random_cost(100, 7);
    } else if quick {
        random_cost(50, 3);
        simulator_cost(30);
        coverage_table(&["west2021", "bcsstk13"], &[1, 10, 100]);
    } else {
        random_cost(100, 7);
        simulator_cost(50);
        coverage_table(
            &[
                "af23560", "bcsstk13", "bcsstk28", "e40r0100", "memplus", "mhd4800b", "west2021",
                "cage8", "crack", "astro-ph",
            ],
            &[1, 10, 100, 1000],
        );
    }
}
