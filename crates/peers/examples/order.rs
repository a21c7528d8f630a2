//! Orders one Matrix Market file with one method and prints the result's quality as one JSON line.
//!
//! ```text
//! cargo run --release -p spmv-reorder-peers --example order -- METHOD FILE [--repeat R] [--perm]
//! ```
//!
//! `METHOD` is `identity`, `random`, `degree-asc`, `degree-desc`, `rcm`, `gorder` (the window of 5),
//! `rcm-min-degree` (RCM started like scipy's) or `sprs-rcm` (sprs 0.11's `reverse_cuthill_mckee` on
//! the same symmetrised pattern). Prints `bandwidth` and `profile` of `P·(A + Aᵀ)·Pᵀ`, SPEC section 2's
//! `D = Σ_i |C_i xor C_{i+1}|` of `P·A·Pᵀ`, and the best of `R` (default 3) timings of the ordering in
//! seconds: for ours everything, symmetrisation included; for sprs the call alone, on an already
//! symmetrised matrix, with the best time of sprs's own symmetrisation (`&A + &Aᵀ`, which a user of
//! sprs needs for an unsymmetric matrix) as `prep_seconds`. `--perm` adds the permutation
//! (`new_to_old`, 0-based). Used by `scripts/compare_rcm.py`.

use spmv_reorder_peers::{
    bandwidth, default_hub_threshold, gorder, profile, reverse_cuthill_mckee, rows_by_degree,
    DegreeOrder, PeersError, RcmStart,
};
use spmv_reorder_sparse::{CsrMatrix, Permutation};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Parsed command line.
struct Args {
    method: String,
    file: PathBuf,
    repeat: usize,
    print_perm: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: order METHOD FILE [--repeat R] [--perm]";
    let method = args.next().ok_or(usage)?;
    let file = PathBuf::from(args.next().ok_or(usage)?);
    let (mut repeat, mut print_perm) = (3, false);
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--perm" => print_perm = true,
            "--repeat" => {
                let r = args.next().ok_or("--repeat needs a value")?;
                repeat = r.parse().map_err(|e| format!("--repeat {r}: {e}"))?;
            }
            other => return Err(format!("unknown argument {other:?}; {usage}")),
        }
    }
    Ok(Args {
        method,
        file,
        repeat: repeat.max(1),
        print_perm,
    })
}

/// The ordering as a closure, so that it can be timed alone.
type Orderer = Box<dyn Fn() -> Result<Permutation, String>>;

fn orderer(method: &str, a: CsrMatrix<()>) -> Result<Orderer, String> {
    match method {
        "sprs-rcm" => {
            let s = symmetrised_sprs(&a);
            Ok(Box::new(move || {
                let ordering = sprs::linalg::reverse_cuthill_mckee(s.view());
                let new_to_old = ordering.perm.vec().into_iter().map(|v| v as usize);
                Permutation::from_new_to_old(new_to_old.collect()).map_err(|e| e.to_string())
            }))
        }
        "rcm-min-degree" => Ok(Box::new(move || {
            reverse_cuthill_mckee(&a, RcmStart::MinimumDegree).map_err(|e| e.to_string())
        })),
        name => {
            let order = peer(name)?;
            Ok(Box::new(move || order(&a).map_err(|e| e.to_string())))
        }
    }
}

/// A peer ordering of a pattern.
type PeerOrder = fn(&CsrMatrix<()>) -> Result<Permutation, PeersError>;

/// The peer ordering called `name`.
fn peer(name: &str) -> Result<PeerOrder, String> {
    Ok(match name {
        "identity" => |a| Ok(Permutation::identity(a.nrows())),
        "random" => |a| Ok(Permutation::random(a.nrows(), 0)),
        "degree-asc" => |a| by_degree(a, DegreeOrder::Increasing),
        "degree-desc" => |a| by_degree(a, DegreeOrder::Decreasing),
        "rcm" => |a| reverse_cuthill_mckee(a, RcmStart::PseudoPeripheral),
        "gorder" => |a| gorder(a, 5, default_hub_threshold(a.nrows())),
        _ => return Err(format!("unknown method {name:?}; expected identity, random, degree-asc, degree-desc, rcm, gorder, rcm-min-degree or sprs-rcm")),
    })
}

/// Rows by their number of nonzeros, in the direction `dir`.
fn by_degree(a: &CsrMatrix<()>, dir: DegreeOrder) -> Result<Permutation, PeersError> {
    Ok(Permutation::from_new_to_old(rows_by_degree(a, dir))?)
}

/// `pattern(A + Aᵀ)` (diagonal kept) as an sprs matrix, the symmetric input sprs's RCM requires.
fn symmetrised_sprs(a: &CsrMatrix<()>) -> sprs::CsMatI<u8, u32, usize> {
    let at = a.transpose();
    let t = (0..a.nrows()).flat_map(|i| {
        let own = a.row(i).0.iter().map(move |&j| (i, j as usize, ()));
        own.chain(at.row(i).0.iter().map(move |&j| (i, j as usize, ())))
    });
    let s = CsrMatrix::from_triplets(a.nrows(), a.ncols(), t).expect("indices come from a");
    let (n, _, row_ptr, col_idx, values) = s.into_parts();
    sprs::CsMatI::new((n, n), row_ptr, col_idx, vec![1u8; values.len()])
}

/// SPEC section 2's `D` of `P·A` (equal to that of `P·A·Pᵀ`: relabelling columns keeps `|C_i xor C_j|`).
fn distance_sum(a: &CsrMatrix<()>, p: &Permutation) -> u64 {
    p.new_to_old()
        .windows(2)
        .map(|w| {
            let (r, s) = (a.row(w[0]).0, a.row(w[1]).0);
            let shared = r.iter().filter(|c| s.binary_search(c).is_ok()).count();
            (r.len() + s.len() - 2 * shared) as u64
        })
        .sum()
}

/// Best time of sprs's own `A + Aᵀ` on the pattern of `a`, over `repeat` runs.
fn sprs_symmetrise_seconds(a: &CsrMatrix<()>, repeat: usize) -> f64 {
    let (n, _, row_ptr, col_idx, values) = a.clone().into_parts();
    let m = sprs::CsMatI::<f64, u32, usize>::new((n, n), row_ptr, col_idx, vec![1.0; values.len()]);
    (0..repeat)
        .map(|_| {
            let start = Instant::now();
            let s = &m + &m.transpose_view().to_csr();
            std::hint::black_box(s);
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn run(args: &Args) -> Result<serde_json::Value, String> {
    let m = spmv_reorder_mtx::read_path(&args.file, &spmv_reorder_mtx::ReadOptions::default())
        .map_err(|e| e.to_string())?;
    let a = m.matrix.pattern();
    let ordering = orderer(&args.method, a.clone())?;
    let mut best = f64::INFINITY;
    let mut p = Permutation::identity(0);
    for _ in 0..args.repeat {
        let start = Instant::now();
        p = ordering()?;
        best = best.min(start.elapsed().as_secs_f64());
    }
    let square = a.nrows() == a.ncols();
    let mut out = serde_json::json!({
        "file": args.file.display().to_string(),
        "method": args.method,
        "nrows": a.nrows(),
        "ncols": a.ncols(),
        "nnz": a.nnz(),
        "seconds": best,
        "bandwidth": if square { bandwidth(&a, &p).ok() } else { None },
        "profile": if square { profile(&a, &p).ok() } else { None },
        "d": distance_sum(&a, &p),
    });
    if args.method == "sprs-rcm" {
        out["prep_seconds"] = serde_json::json!(sprs_symmetrise_seconds(&a, args.repeat));
    }
    if args.print_perm {
        out["perm"] = serde_json::json!(p.new_to_old());
    }
    Ok(out)
}

fn main() -> ExitCode {
    match parse_args().and_then(|args| run(&args)) {
        Ok(json) => {
            println!("{json}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("order: {e}");
            ExitCode::FAILURE
        }
    }
}
