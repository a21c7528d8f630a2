//! spmv-reorder: reorder a sparse matrix so that `y = A·x` runs faster. By default RCM's order or
//! the input's, whichever a cache model of the `x` reads prices lower, with rows then sorted by
//! length; on request METIS orders, Gorder, or rows that touch the same columns of `x`
//! (windows of locality) laid out along a Lin-Kernighan TSP path.
//!
//! This crate is a facade: each concern lives in its own crate, re-exported here.
//!
//! | module | crate | concern |
//! |---|---|---|
//! | [`sparse`] | `spmv-reorder-sparse` | `CsrMatrix`, `Permutation`, value fields |
//! | [`mtx`] | `spmv-reorder-mtx` | Matrix Market, scipy `.npz`, PETSc binary and permutation files |
//! | [`gen`] | `spmv-reorder-gen` | Poisson grids, banded, geometric and R-MAT generators |
//! | [`sampling`] | `spmv-reorder-sampling` | random sampling, DAST, memory-trace sources |
//! | [`locality`] | `spmv-reorder-locality` | `D`, `D_w`, windows, the window graph |
//! | [`tsp`] | `spmv-reorder-tsp` | Chained Lin-Kernighan for Hamiltonian paths |
//! | [`peers`] | `spmv-reorder-peers` | RCM, Gorder, degree, random orderings; METIS partition and nested dissection |
//! | [`spmv`] | `spmv-reorder-spmv` | parallel SpMV kernels, pinning, placement, STREAM, benchmarks |
//! | [`plot`] | `spmv-reorder-plot` | spy plots and charts |
//! | [`reorder`] | `spmv-reorder-reorder` | the pipeline (`Reorderer`), reports |
//! | [`evaluate`] | `spmv-reorder-evaluate` | matrix descriptions, orderings timed side by side |
//!
//! The whole main job in library calls (what `spmv-reorder IN -o OUT` does):
//!
//! ```
//! use spmv_reorder::mtx::{read_bytes, ReadOptions};
//! use spmv_reorder::reorder::{Method, Reorderer};
//!
//! let text = b"%%MatrixMarket matrix coordinate real symmetric
//! 4 4 6
//! 1 1 4.0
//! 3 1 -1.0
//! 2 2 4.0
//! 4 2 -1.0
//! 3 3 4.0
//! 4 4 4.0
//! ";
//! let file = read_bytes(text, &ReadOptions::default())?;
//! let a = file.matrix.to_real();
//!
//! let r = Reorderer::new().method(Method::Tsp).run(&a)?; // P·A·Pᵀ for a square matrix
//! let b = r.apply(&a)?;
//! assert!(r.report.d_after <= r.report.d_before);
//!
//! // Solve in the new order, then map the result back: B·(P·x) = P·(A·x).
//! let x = [1.0, 2.0, 3.0, 4.0];
//! let (mut ax, mut bx) = (vec![0.0; 4], vec![0.0; 4]);
//! a.mul_vec_reference(&x, &mut ax);
//! b.mul_vec_reference(&r.permute_input(&x), &mut bx);
//! assert_eq!(r.unpermute_output(&bx), ax);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use spmv_reorder_evaluate as evaluate;
pub use spmv_reorder_gen as gen;
pub use spmv_reorder_locality as locality;
pub use spmv_reorder_mtx as mtx;
pub use spmv_reorder_peers as peers;
pub use spmv_reorder_plot as plot;
pub use spmv_reorder_reorder as reorder;
pub use spmv_reorder_sampling as sampling;
pub use spmv_reorder_sparse as sparse;
pub use spmv_reorder_spmv as spmv;
pub use spmv_reorder_tsp as tsp;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
