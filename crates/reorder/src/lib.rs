//! The spmv-reorder pipeline: sample → windows of locality → window graph → Lin-Kernighan TSP path
//! → permutation (SPEC sections 2-5), the peer orderings beside it, and the default route that
//! picks the best order for its cost.
//!
//! - [`reorder`]: the default ordering of a matrix, in one call.
//! - [`Reorderer`]: the choices (method, sampler, windows, permutation mode, seed, time limit,
//!   [`Tuning`]) and [`Reorderer::run`], which returns a [`Reordering`]: the row and column
//!   [`Permutation`](spmv_reorder_sparse::Permutation)s and a [`ReorderReport`] (`D`, `D_w`
//!   before/after, TSP cost, bound and gap, the cache check, sample coverage, timings).
//! - [`Method`], [`SamplerChoice`], [`WindowSpec`], [`PermuteMode`], [`StartOrder`],
//!   [`RunBlocks`]: the choices, parsed from the spellings the command line uses.
//! - `sprs_interop` (feature `sprs`): conversions to and from sprs matrices and permutations.
//!
//! Describing matrices and timing orderings against each other (SpMV benchmarks) live in
//! `spmv-reorder-evaluate`, so that this crate builds no system library.
//!
//! ```
//! use spmv_reorder_reorder::{reorder, Method, PermuteMode, Reorderer};
//! use spmv_reorder_sparse::CsrMatrix;
//!
//! // Rows 0 and 2 share columns, as do rows 1 and 3: a good order pairs them.
//! let a = CsrMatrix::from_triplets(4, 6, vec![
//!     (0, 0, 1.0), (0, 1, 1.0), (1, 4, 1.0), (1, 5, 1.0),
//!     (2, 0, 1.0), (2, 1, 1.0), (3, 4, 1.0), (3, 5, 1.0),
//! ])?;
//! let r = reorder(&a)?; // the defaults: Reorderer::new().run(&a)
//! assert!(r.report.d_after <= r.report.d_before);
//! assert_eq!(r.report.permute, PermuteMode::Rows); // rectangular: rows only by default
//! let b = r.apply(&a)?; // P·A·Qᵀ
//! assert_eq!(b.nnz(), a.nnz());
//!
//! // The TSP path itself, without the cache check that may prefer another order.
//! let path = Reorderer::new().method(Method::Tsp).cache_check(None).run(&a)?;
//! assert_eq!((path.report.d_before, path.report.d_after), (12, 4));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Crate features
//! - `sprs` (off by default): the `sprs_interop` module.
//! - `live-sampling` (off by default): live hardware sampling (`dast-perf`) through
//!   `perf_event_open`; without it that sampler returns an error saying so.
//!
//! # Design decisions
//! `docs/tuning.md` gives the measurements behind each default.
//! - **The default is [`Method::Auto`]**: RCM's order or the order as read, whichever the cache
//!   model prices lower, then length runs; the report's `method` says which came back and `order`
//!   says it in words. Where `x` exceeds L2 nothing else the crate computes (the TSP path, windows
//!   sized to the caches, METIS orders, Gorder) ran faster (`docs/evaluation.md`), so the default
//!   does not pay for a window graph. [`Method::Tsp`] runs the thesis's pipeline.
//! - **One pipeline for every method.** The sampler applies to every method (a peer ordering can
//!   run on a sample as well), so comparisons hold the information constant.
//! - **Symmetric by default for square matrices**: solvers need `P·A·Pᵀ` to keep symmetry (and
//!   symmetric storage is kept on output). Rectangular matrices get rows only unless asked.
//! - **Rows keep their order inside a window**; windows and graph are built on the sample; the
//!   permutation is applied to the full matrix.
//! - **The latency threshold "average"** is the mean latency of all sampled accesses (thesis
//!   equation 4.6), not the mean of the per-row maxima.
//! - **The TSP starts from reverse Cuthill-McKee** ([`StartOrder::Rcm`]): `D` only counts columns
//!   shared by consecutive rows and is blind to the reuse of `x` across the next hundreds of rows
//!   that a bandwidth-reducing order gives, so the path refines RCM's order instead of building
//!   one from pair distances alone.
//! - **A cache check guards the path** ([`Reorderer::cache_check`]): a cache model prices SpMV's
//!   `x` reads in the input order, RCM's order and the path, and the path is returned only when
//!   clearly cheaper. Work the check could not use (the graph, the path, its refinement) is
//!   skipped.
//! - **Length runs after the `tsp` order** ([`length_runs`], [`RunBlocks`]): rows sorted by
//!   length let the branch ending each row's loop be predicted; `D` does not see that gain.
//! - **Even row splits after the default's order** ([`row_split`],
//!   [`Reorderer::row_split_threads`]): RCM gathers a power-law graph's hub rows, and kernels that
//!   split rows evenly between threads (MKL, OpenMP `static`) then give one thread most of the
//!   work; the order's pieces are laid down so that every thread count up to 16 gets an even share.
//! - **The path pays for changes of row length** ([`Reorderer::length_change_cost`]), at about
//!   the price of the `x` miss a changed column may bring.
//! - **No Chained LK kicks by default**: they lowered `D` a little for about ten times the
//!   reordering time.
//! - **Sampled runs keep their start order** and make only strictly improving moves (no kicks):
//!   windows without sampled nonzeros carry no information and would otherwise drift.
//! - **The caller's threads**: the pipeline runs on the current rayon pool.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod auto;
mod cache_windows;
mod choice;
mod error;
pub mod length_runs;
mod measure;
mod path;
mod pipeline;
mod progress;
mod reorderer;
mod report;
pub mod row_split;
mod sampler;
mod side;
mod spec;
#[cfg(feature = "sprs")]
pub mod sprs_interop;
mod start;
#[cfg(test)]
mod testutil;
mod tuning;
pub mod windows;

pub use error::ReorderError;
pub use pipeline::{reorder, OrderingStep, Reordering, Stage};
pub use reorderer::Reorderer;
pub use report::{
    CacheCheck, Kept, LengthRuns, ReorderReport, RowSplits, Side, SideReport, StartNearBound,
    TspReport,
};
pub use sampler::SamplerChoice;
pub use spec::{
    parse_rcm_start, rcm_start_name, Method, PermuteMode, RunBlocks, StartOrder, WindowSpec,
    DEFAULT_CACHE_WINDOW_BYTES,
};
pub use spmv_reorder_peers::RcmStart;
pub use tuning::{
    Tuning, DEFAULT_LENGTH_CHANGE_COST, DEFAULT_RCM_START, DEFAULT_ROW_SPLIT_THREADS,
};
