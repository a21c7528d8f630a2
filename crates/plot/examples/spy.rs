//! Writes the spy plot of a Matrix Market file, optionally after a peer reordering `P·A·Pᵀ`.
//!
//! ```text
//! cargo run --release -p spmv-reorder-plot --example spy -- FILE OUT.png [METHOD] [SIZE_PX]
//! ```
//!
//! `METHOD` is a peer ordering of `spmv_reorder_reorder::Method` (`rcm`, `gorder`, `degree`, `random`;
//! default `identity`).

use spmv_reorder_plot::{spy_png, SpyOptions};
use spmv_reorder_reorder::{Method, Reorderer};
use std::path::PathBuf;
use std::process::ExitCode;

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, out, rest @ ..] = args.as_slice() else {
        return Err("usage: spy FILE OUT.png [METHOD] [SIZE_PX]".into());
    };
    let method: Method = match rest.first() {
        Some(m) => m.parse().map_err(|e| format!("{e}"))?,
        None => Method::Identity,
    };
    let size_px = match rest.get(1) {
        Some(s) => s.parse().map_err(|e| format!("size {s:?}: {e}"))?,
        None => SpyOptions::default().size_px,
    };
    let m = spmv_reorder_mtx::read_path(&PathBuf::from(file), &Default::default())
        .map_err(|e| e.to_string())?;
    let mut a = m.matrix.pattern();
    let r = Reorderer::new().method(method).run(&a);
    a = r.and_then(|r| r.apply(&a)).map_err(|e| e.to_string())?;
    let options = SpyOptions {
        size_px,
        ..SpyOptions::default()
    };
    spy_png(&a, &PathBuf::from(out), &options).map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("spy: {e}");
            ExitCode::FAILURE
        }
    }
}
