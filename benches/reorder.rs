//! Benchmark `reorder`: the whole pipeline against its peers on matrices whose `x` does not fit
//! in L2, where the order of rows decides the SpMV time. Every ordering of one matrix is timed
//! side by side (alternating repetitions, [`evaluate_matrix`]), and the bench prints one table
//! and the ratios that matter: the default over RCM, 2% sample over full information, and the reordering
//! cost in SpMV-equivalents.
//!
//!     cargo bench --bench reorder                       # generated grids, shuffled
//!     cargo bench --bench reorder -- --dir matrices     # a folder of .mtx/.mtx.gz, shuffled
//!     cargo bench --bench reorder -- --time 20 --reps 11 --ordering 'tsp start=greedy'
//!
//! Generated cases (about 0.2-0.5M rows each): a 3D 7-point Poisson grid 60³, a 2D 5-point grid
//! 700², a random geometric graph of 400k points; each shuffled by a random symmetric permutation.

use spmv_reorder_evaluate::evaluate::{
    evaluate_matrix, markdown_table, matrix_files, summarize, Candidate, EvaluateOptions,
    MatrixEvaluation,
};
use spmv_reorder_gen::{poisson2d, poisson3d, random_geometric};
use spmv_reorder_mtx::{read_path, ReadOptions};
use spmv_reorder_reorder::Reorderer;
use spmv_reorder_sparse::CsrMatrix;
use std::path::PathBuf;
use std::time::Duration;

/// Large arrays on transparent huge pages, as the `spmv-reorder` binary has them.
#[global_allocator]
static ALLOC: spmv_reorder_sparse::HugePageAlloc = spmv_reorder_sparse::HugePageAlloc;

struct Args {
    dir: Option<PathBuf>,
    time_limit: f64,
    reps: usize,
    orderings: Vec<String>,
}

fn args() -> Args {
    let mut a = Args {
        dir: None,
        time_limit: 20.0,
        reps: 11,
        orderings: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .unwrap_or_else(|| panic!("{name} needs a value (see benches/reorder.rs)"))
        };
        match arg.as_str() {
            "--dir" => a.dir = Some(PathBuf::from(value("--dir"))),
            "--time" => a.time_limit = value("--time").parse().expect("--time SECONDS"),
            "--reps" => a.reps = value("--reps").parse().expect("--reps N"),
            "--ordering" => a.orderings.push(value("--ordering")),
            // cargo bench passes --bench; criterion-style filters are not used here.
            _ => {}
        }
    }
    if a.orderings.is_empty() {
        a.orderings = [
            "rcm",
            "gp",
            "nd",
            "gorder",
            "auto",
            "tsp",
            "auto random:0.02",
        ]
        .map(String::from)
        .to_vec();
    }
    a
}

/// The matrices, each with whether its pattern is known to be symmetric (a file stored
/// symmetric; the generated ones all are).
fn cases(dir: &Option<PathBuf>) -> Vec<(String, CsrMatrix<f64>, bool)> {
    match dir {
        Some(d) => matrix_files(d)
            .expect("readable folder")
            .into_iter()
            .map(|f| {
                let name = f.file_name().unwrap().to_string_lossy().into_owned();
                let m = read_path(&f, &ReadOptions::default()).expect("a valid matrix");
                let symmetric = m.header.symmetry.is_triangular();
                (name, m.matrix.to_real(), symmetric)
            })
            .collect(),
        None => vec![
            (
                "poisson3d-60".into(),
                poisson3d(60, 60, 60).expect("grid"),
                true,
            ),
            (
                "poisson2d-700".into(),
                poisson2d(700, 700).expect("grid"),
                true,
            ),
            (
                "geometric-400k".into(),
                random_geometric(400_000, 12.0, 1).expect("graph"),
                true,
            ),
        ],
    }
}

fn main() {
    let args = args();
    let base = Reorderer::new().time_limit(Some(Duration::from_secs_f64(args.time_limit)));
    let candidates = args
        .orderings
        .iter()
        .map(|o| Candidate::parse(o, &base).expect("a valid --ordering"))
        .collect();
    let mut opts = EvaluateOptions::with_candidates(candidates);
    opts.shuffle = Some(1);
    opts.reps = args.reps;
    let evals: Vec<MatrixEvaluation> = cases(&args.dir)
        .into_iter()
        .map(|(name, a, symmetric)| {
            eprintln!("{name}: {} rows, {} nonzeros", a.nrows(), a.nnz());
            evaluate_matrix(&name, &a, symmetric, &opts).expect("evaluation")
        })
        .collect();
    print!("{}", markdown_table(&evals));
    let s = summarize(&evals);
    let show = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.3}"))
            .collect::<Vec<_>>()
            .join(" / ")
    };
    println!(
        "\nthreads {}: geomean t(rcm)/t(auto) = {}; geomean t(auto)/t(auto random:0.02) = {}",
        show(&opts.threads.iter().map(|&t| t as f64).collect::<Vec<_>>()),
        show(&s.geomean_speedup_default_over_rcm),
        show(&s.geomean_sampled_speed_ratio)
    );
    for (label, cost) in &s.median_reorder_spmv_equivalents {
        println!("median reordering cost, {label}: {cost:.0} SpMVs");
    }
}
