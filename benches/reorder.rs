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
//! A file of `--dir` that does not read, or an ordering that fails on a matrix, is reported and
//! left out, and the bench ends with exit status 1; `--time` (seconds, default 20) bounds each
//! ordering, `--reps` (default 11) sets the rounds, `--ordering` (repeatable) is spelt as for
//! `spmv-reorder evaluate`.

use spmv_reorder_evaluate::evaluate::{
    evaluate_matrix, markdown_table, summarize, Candidate, EvaluateOptions, MatrixEvaluation,
};
use spmv_reorder_gen::{poisson2d, poisson3d, random_geometric};
use spmv_reorder_reorder::Reorderer;
use spmv_reorder_sparse::CsrMatrix;
use std::path::PathBuf;
use std::time::Duration;

/// Large arrays on transparent huge pages, as the `spmv-reorder` binary has them.
#[global_allocator]
static ALLOC: spmv_reorder_sparse::HugePageAlloc = spmv_reorder_sparse::HugePageAlloc;

mod common;

struct Args {
    dir: Option<PathBuf>,
    time_limit: Duration,
    reps: usize,
    orderings: Vec<String>,
}

fn args() -> Args {
    let mut a = Args {
        dir: None,
        time_limit: Duration::from_secs(20),
        reps: 11,
        orderings: Vec::new(),
    };
    let mut line = common::CommandLine::new(include_str!("reorder.rs"));
    while let Some(arg) = line.next() {
        match arg.as_str() {
            "--dir" => a.dir = Some(PathBuf::from(line.value("--dir"))),
            "--time" => a.time_limit = common::seconds("--time", &line.value("--time")),
            "--reps" => a.reps = line.number("--reps", 1),
            "--ordering" => a.orderings.push(line.value("--ordering")),
            other => common::unknown(other),
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
/// symmetric; the generated ones all are). Files that do not read are reported and left out, as
/// `spmv-reorder evaluate` does.
fn cases(dir: &Option<PathBuf>) -> Vec<(String, CsrMatrix<f64>, bool)> {
    match dir {
        Some(d) => common::matrix_files(d, None)
            .into_iter()
            .filter_map(|f| {
                let (a, symmetric) = common::read_matrix_or_skip(&f)?;
                Some((common::file_name(&f), a, symmetric))
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
    let base = Reorderer::new().time_limit(Some(args.time_limit));
    let candidates = args
        .orderings
        .iter()
        .map(|o| {
            Candidate::parse(o, &base)
                .unwrap_or_else(|e| common::fail(format!("--ordering '{o}': {e}")))
        })
        .collect();
    let mut opts = EvaluateOptions::with_candidates(candidates);
    opts.shuffle = Some(1);
    opts.reps = args.reps;
    // Settings refused before any matrix is read or generated.
    common::or_fail(opts.check());
    let mut evals: Vec<MatrixEvaluation> = Vec::new();
    for (name, a, symmetric) in cases(&args.dir) {
        eprintln!("{name}: {} rows, {} nonzeros", a.nrows(), a.nnz());
        match evaluate_matrix(&name, &a, symmetric, &opts) {
            Ok(e) => evals.push(e),
            Err(e) => common::report(format!("skipping {name}: {e}")),
        }
    }
    if evals.is_empty() {
        common::fail("no matrix could be evaluated");
    }
    print!("{}", markdown_table(&evals));
    let s = summarize(&evals);
    // A ratio whose two orderings were not both evaluated is `-`, not NaN.
    let show = |v: &[f64]| {
        v.iter()
            .map(|x| match x.is_finite() {
                true => format!("{x:.3}"),
                false => "-".into(),
            })
            .collect::<Vec<_>>()
            .join(" / ")
    };
    let threads: Vec<String> = opts.threads.iter().map(usize::to_string).collect();
    println!(
        "\nthreads {}: geomean t(rcm)/t(auto) = {}; geomean t(auto)/t(auto random:0.02) = {}",
        threads.join(" / "),
        show(&s.geomean_speedup_default_over_rcm),
        show(&s.geomean_sampled_speed_ratio)
    );
    for (label, cost) in &s.median_reorder_spmv_equivalents {
        println!("median reordering cost, {label}: {cost:.0} SpMVs");
    }
    common::finish();
}
