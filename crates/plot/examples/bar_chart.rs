//! Draws a grouped bar chart of SPEC section 2's `D` after each peer ordering, relative to the
//! original order (below 1 = better locality), for the given Matrix Market files.
//!
//! ```text
//! cargo run --release -p spmv-reorder-plot --example bar_chart -- OUT.svg FILE...
//! ```

use spmv_reorder_plot::{bar_chart_svg, BarChartOptions};
use spmv_reorder_reorder::{Method, Reorderer};
use spmv_reorder_sparse::{CsrMatrix, Permutation};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The methods drawn, one series each.
const METHODS: [Method; 4] = [Method::Random, Method::Degree, Method::Rcm, Method::Gorder];

/// `D = Σ_i |C_i xor C_{i+1}|` of `P·A` (a column permutation leaves it unchanged).
fn distance_sum(a: &CsrMatrix<()>, p: &Permutation) -> f64 {
    let pairs = p.new_to_old().windows(2).map(|w| {
        let (r, s) = (a.row(w[0]).0, a.row(w[1]).0);
        let shared = r.iter().filter(|c| s.binary_search(c).is_ok()).count();
        (r.len() + s.len() - 2 * shared) as f64
    });
    pairs.sum()
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [out, files @ ..] = args.as_slice() else {
        return Err("usage: bar_chart OUT.svg FILE...".into());
    };
    let mut categories = Vec::new();
    let mut series: Vec<(String, Vec<f64>)> = METHODS
        .iter()
        .map(|m| (m.to_string(), Vec::new()))
        .collect();
    for file in files {
        let m = spmv_reorder_mtx::read_path(Path::new(file), &Default::default())
            .map_err(|e| e.to_string())?;
        let a = m.matrix.pattern();
        let original = distance_sum(&a, &Permutation::identity(a.nrows())).max(1.0);
        for (method, (_, values)) in METHODS.iter().zip(&mut series) {
            let r = Reorderer::new().method(*method).run(&a);
            let p = r.map_err(|e| e.to_string())?.rows;
            values.push(distance_sum(&a, &p) / original);
        }
        let name = Path::new(file).file_name().map(|n| n.to_string_lossy());
        let name = name.unwrap_or_default();
        categories.push(
            name.trim_end_matches(".gz")
                .trim_end_matches(".mtx")
                .to_owned(),
        );
    }
    let options = BarChartOptions {
        reference_line: Some(1.0),
        ..BarChartOptions::default()
    };
    bar_chart_svg(
        "D after reordering / D of the original order",
        &categories,
        &series,
        "relative D (lower is better)",
        &PathBuf::from(out),
        &options,
    )
    .map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bar_chart: {e}");
            ExitCode::FAILURE
        }
    }
}
