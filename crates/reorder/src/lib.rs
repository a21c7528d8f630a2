//! The spmv-reorder pipeline: sample → windows of locality → window graph → Lin-Kernighan TSP path
//! → permutation (SPEC sections 2-5), and the peer orderings beside it.
//!
//! - [`Reorderer`]: the choices (method, sampler, windows, permutation mode, seed, threads, time
//!   limit) and [`Reorderer::run`], which returns a [`Reordering`]: the row and column
//!   [`Permutation`](spmv_reorder_sparse::Permutation)s and a [`ReorderReport`] (`D`, `D_w`
//!   before/after, TSP cost, bound and gap, sample coverage, timings).
//! - [`Method`], [`SamplerChoice`], [`WindowSpec`], [`PermuteMode`]: the choices, parsed from the
//!   spellings the CLI uses.
//! - `sprs_interop` (feature `sprs`): conversions to and from sprs matrices and permutations.
//!
//! Describing matrices and timing orderings against each other (SpMV benchmarks) live in
//! `spmv-reorder-evaluate`, so that this crate builds no system library.
//!
//! ```
//! use spmv_reorder_reorder::{Method, PermuteMode, Reorderer, WindowSpec};
//! use spmv_reorder_sparse::CsrMatrix;
//!
//! // Rows 0 and 2 share columns, as do rows 1 and 3: the best order pairs them.
//! let a = CsrMatrix::from_triplets(4, 6, vec![
//!     (0, 0, 1.0), (0, 1, 1.0), (1, 4, 1.0), (1, 5, 1.0),
//!     (2, 0, 1.0), (2, 1, 1.0), (3, 4, 1.0), (3, 5, 1.0),
//! ])?;
//! // On a matrix this small every order fits in cache, so the cache check would only choose between
//! // the order as read and RCM's, by `D`, without computing a path: switched off, the TSP path is
//! // returned.
//! let r = Reorderer::new()
//!     .method(Method::Tsp)
//!     .windows(WindowSpec::Fixed(1))
//!     .cache_check(None)
//!     .run(&a)?;
//! assert_eq!((r.report.d_before, r.report.d_after), (12, 4));
//! assert_eq!(r.report.permute, PermuteMode::Rows); // rectangular: rows only by default
//! let b = r.apply(&a)?;
//! assert_eq!(b.nnz(), a.nnz());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Crate features
//! - `sprs` (off by default): the `sprs_interop` module.
//! - `live-sampling` (off by default): live hardware sampling (`dast-perf`) through
//!   `perf_event_open`; without it that sampler returns an error saying so.
//!
//! # Design decisions
//! - **One pipeline for every method.** The sampler applies to every method (a peer ordering can
//!   run on a sample as well), so comparisons hold the information constant.
//! - **Symmetric by default for square matrices**: solvers need `P·A·Pᵀ` to keep symmetry (and
//!   symmetric storage is kept on output). Rectangular matrices get rows only unless asked.
//! - **Rows keep their order inside a window**; windows and graph are built on the sample; the
//!   permutation is applied to the full matrix.
//! - **The latency threshold "average"** is the mean latency of all sampled accesses (thesis
//!   equation 4.6), not the mean of the per-row maxima.
//! - **No Chained LK kicks by default**: after Lin-Kernighan's local search, one kick per window
//!   lowered `D` by only 2.2% (geometric mean, 30 bundled matrices shuffled) for about 10x the
//!   median reordering time and no SpMV gain above the noise. `max_kicks` / `--kicks` ask for
//!   them; the time limit cuts them.
//! - **The TSP starts from reverse Cuthill-McKee** ([`StartOrder::Rcm`], by default): rows are put
//!   in RCM order of the full pattern, windows are cut in that order and Lin-Kernighan improves the
//!   path from there. `D` only counts columns shared by consecutive rows and is blind to the reuse
//!   of `x` across the next hundreds of rows that a bandwidth-reducing order gives; a path built
//!   from pair distances alone (greedy start) lost up to 2x against RCM on grids whose `x` exceeds
//!   L2 (docs/RESULTS.md). `--start greedy|given` keep the other starts.
//! - **Length runs after the `tsp` order** ([`length_runs`], [`Reorderer::length_runs`],
//!   [`RunBlocks`]): the rows are sorted by length, all together when the matrix has at most
//!   [`SORT_ALL_MAX_COLUMNS`] columns, else in blocks of [`DEFAULT_RUN_BLOCK`] positions, so that
//!   the branch ending each row's loop is predicted. RCM's order with them ran 1.23-1.24x as fast
//!   at one thread on the bundled matrices and 1.24-1.31x on a 400k-row geometric graph (an Intel
//!   Xeon); they raise `D`, which does not see that gain. Off for the peers, for windows of
//!   several rows and without the cache check (which returns the path as found).
//! - **The path pays for changes of row length** ([`Reorderer::length_change_cost`],
//!   [`DEFAULT_LENGTH_CHANGE_COST`] = 2 changed columns each): with it the path kept the lowest `D`
//!   on 28 of the 30 bundled matrices and ran 1.04-1.06x as fast as RCM at one and two threads on
//!   an Intel Xeon (0.97x / 1.02x without; 1.01-1.04x / 0.98-1.00x with it on an AMD EPYC). Where
//!   `x` exceeds L2 it did not help; there the cache check returns RCM's order.
//! - **Sampled runs keep their start order** and make only strictly improving moves (no kicks):
//!   windows without sampled nonzeros carry no information and would otherwise drift.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod choice;
mod error;
pub mod length_runs;
mod measure;
mod path;
mod pipeline;
mod reorderer;
mod report;
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
pub use pipeline::{Reordering, Stage};
pub use reorderer::Reorderer;
pub use report::{
    CacheCheck, Kept, LengthRuns, ReorderReport, Side, SideReport, StartNearBound, TspReport,
};
pub use sampler::SamplerChoice;
pub use spec::{Method, PermuteMode, RunBlocks, StartOrder, WindowSpec};
pub use tuning::{
    DEFAULT_LENGTH_CHANGE_COST, DEFAULT_RUN_BLOCK, DRAFT_ABANDON_PERCENT, DRAFT_CHECKPOINT_DIVISOR,
    MODEL_TIE_PERCENT, PATH_MARGIN_PERCENT, REFINE_HEADROOM_PERCENT, SORT_ALL_MAX_COLUMNS,
    START_NEAR_BOUND_PERCENT,
};
