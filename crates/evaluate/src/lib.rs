//! Evaluation of spmv-reorder's orderings: what a matrix looks like to the locality model, and how
//! fast SpMV runs after each ordering, timed side by side (SPEC sections 2 and 6).
//!
//! - [`MatrixInfo`]: what `spmv-reorder info` reports: shape, row lengths, bandwidth, symmetry,
//!   `D` and `D_w`.
//! - [`evaluate`]: every ordering of a folder of matrices, with `D`, SpMV GFLOP/s, speedups over
//!   the original order and over RCM, reordering time in SpMV-equivalents and break-even
//!   iterations; [`evaluate::markdown_table`] and [`evaluate::summarize`] present them.
//!
//! ```
//! use spmv_reorder_evaluate::evaluate::{evaluate_matrix, Candidate, EvaluateOptions};
//! use spmv_reorder_reorder::Reorderer;
//! use spmv_reorder_sparse::CsrMatrix;
//!
//! // A 1D Laplacian of 200 rows, shuffled, then ordered by RCM and timed against the shuffle.
//! let n = 200;
//! let a = CsrMatrix::from_triplets(n, n, (0..n).flat_map(|i| {
//!     [(i, i, 2.0), (i, i.saturating_sub(1), -1.0), (i, (i + 1).min(n - 1), -1.0)]
//! }))?;
//! let rcm = Candidate::parse("rcm", &Reorderer::new())?;
//! let mut opts = EvaluateOptions::with_candidates(vec![rcm]);
//! (opts.shuffle, opts.threads, opts.reps) = (Some(1), vec![1], 2);
//! let e = evaluate_matrix("laplacian", &a, true, &opts)?;
//! let (identity, rcm) = (&e.results[0], &e.results[1]);
//! assert!(rcm.d < identity.d);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Crate features
//! None.
//!
//! # Design decisions
//! - **Apart from the ordering crate**: timing SpMV needs the benchmark harness of
//!   `spmv-reorder-spmv`, which pins threads through the hwloc system library. A program that only
//!   wants a permutation depends on `spmv-reorder-reorder` and builds none of it.
//! - **Side by side**: the SpMV times of one matrix's orderings are measured alternating
//!   repetitions, so that their ratios survive a machine shared with other work.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod error;
pub mod evaluate;
pub mod info;
mod summary;

pub use error::EvaluateError;
pub use info::MatrixInfo;
