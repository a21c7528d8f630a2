//! The locality model of spmv-reorder (SPEC sections 2-4, thesis chapter 4.2 and 4.5): how far
//! apart rows are in the columns they touch, windows of consecutive rows, and the window distance
//! graph whose best Hamiltonian path is the reordering.
//!
//! - [`row_distance`], [`total_distance`]: `d(i,j) = |C_i xor C_j|` and `D = Σ d(i,i+1)`.
//! - [`Windows`]: a partition of the rows into runs ([`Windows::fixed`], [`Windows::variable`],
//!   [`Windows::latency`], [`Windows::from_starts`], [`Windows::from_lengths`]), and
//!   [`Windows::row_order`], which expands a window order into a row [`Permutation`].
//! - [`Footprints`], [`windowed_distance`]: `F_g`, `n(g)`, `d_w(g,h)` and `D_w`.
//! - [`WindowGraph`]: footprints plus each window's best `K` candidate neighbours by overlap, exact
//!   `d_w` for any pair ([`WindowGraph::distance`]), [`path_cost`] along a window order, and a path
//!   lower bound.
//! - [`Axis`]: the column model is the row model of `Aᵀ`.
//! - [`x_misses`]: the misses of SpMV's `x` reads under a modelled LRU cache ([`CacheShape`]),
//!   alone or ([`spmv_x_misses`]) with the matrix streams competing for a hierarchy of caches;
//!   [`CacheModel`] prices them in cycles. The model sees the reuse across many rows that `D`
//!   does not.
//!
//! The SPEC worked example: rows `{0,1}, {1,2}, {5}, {0,1,2}`.
//!
//! ```
//! use spmv_reorder_locality::{
//!     check_symmetric_model, path_cost, total_distance, windowed_distance, GraphOptions,
//!     Parallelism, Permutation, WindowGraph, Windows,
//! };
//! use spmv_reorder_sparse::CsrMatrix;
//!
//! let a = CsrMatrix::from_triplets(4, 6, vec![
//!     (0, 0, ()), (0, 1, ()), (1, 1, ()), (1, 2, ()), (2, 5, ()), (3, 0, ()), (3, 1, ()), (3, 2, ()),
//! ])?;
//! let par = Parallelism::Rayon;
//! assert_eq!(total_distance(&a, par), 9); // 2 + 3 + 4
//! assert_eq!(windowed_distance(&a, &Windows::fixed(4, 2)?, par)?, 1); // {0,1,2} vs {0,1,2,5}
//!
//! // One row per window: the graph of rows. Rows 0 and 3 share two columns.
//! let rows = Windows::single_rows(a.nrows());
//! let graph = WindowGraph::build(&a, &rows, &GraphOptions::default())?;
//! assert_eq!(graph.candidates(0).collect::<Vec<_>>(), [(3, 2), (1, 1)]); // (row, overlap)
//! let order = [0, 3, 1, 2];
//! assert_eq!(path_cost(&graph, &order)?, 5); // 1 + 1 + 3
//!
//! // The row permutation of that order, applied to the (full) matrix's rows. The matrix is not
//! // square, so it has no symmetric model `P·A·Pᵀ`.
//! assert!(check_symmetric_model(&a).is_err());
//! let p = rows.row_order(&order)?;
//! let b = a.permute(&p, &Permutation::identity(a.ncols()))?;
//! assert_eq!(total_distance(&b, par), 5);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Crate features
//! - `serde`: `Serialize` for [`ModelledCost`], the figures a report prints (off by default).
//!
//! # Design decisions
//! - **Everything takes a pattern, any value type.** Functions are generic over
//!   [`spmv_reorder_sparse::Value`] and ignore values, so a sampled matrix (a `CsrMatrix<()>` of
//!   the full matrix's shape) is used exactly like the full matrix: windows and graph are built on
//!   the sample, and [`Windows::row_order`] gives the permutation to apply to the full matrix.
//! - **Columns are rows of `Aᵀ`** ([`Axis::Columns`]): no second code path to keep in sync.
//! - **Footprints as sorted column lists**, distances by merging them: exact `d_w` for any pair
//!   costs `O(n(g) + n(h))` with no hashing. A one-row window's footprint *is* the matrix's row,
//!   so [`Footprints`] and [`WindowGraph`] borrow the matrix (lifetime `'a`) and store only the
//!   windows of two rows or more (memory `O(windows)` plus their entries).
//! - **Candidates by an inverted index and reusable accumulators** (SpGEMM-style, `F·Fᵀ` row by
//!   row): nothing is allocated per window. Each thread owns a small open-addressing table, sized
//!   to the window's work and cleared through its list of used slots, which stays in L1 where a
//!   dense counter over all windows takes a cache miss per touched window (on a shuffled grid the
//!   profile of the dense version was dominated by those misses); windows with more than 8192 index entries use a dense
//!   `O(windows)` counter with a touched list instead. The index is read at random, so it is
//!   compact: `u32` offsets whenever they fit, and one `u32` per entry packing the window with
//!   `n(h)` (looked up only when it does not fit), so costs need no extra lookup. Candidate
//!   storage is `K` slots per window (`O(K·windows)`).
//! - **Hubs are bounded, not dropped silently**: a column held by more than `hub_limit` windows
//!   only pairs each window with its `hub_limit` nearest windows (in window order), and the graph
//!   reports how many columns and windows that touched. Overlaps reported for candidates are
//!   always exact.
//! - **Sums are `u64`** (`u128` where a product or a sum over windows of sums could overflow), and
//!   the variable and latency thresholds are compared exactly in integers, never in floating point.
//! - **Parallelism is an argument** ([`Parallelism`]); results never depend on it (tested).
//! - **Degenerate input has defined results**: 0 rows give 0 windows and distance 0; 1 row gives
//!   one window; empty rows give empty footprints that overlap nothing; a window size of 0, windows
//!   of the wrong size and invalid window orders are typed errors ([`LocalityError`]).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod accumulate;
mod cache_model;
mod distance;
mod error;
mod footprint;
mod graph;
mod index;
mod line_sample;
mod par;
mod row_sample;
mod windows;

pub use cache_model::{spmv_x_misses, x_misses, CacheModel, CacheShape, ModelledCost};
pub use distance::{
    adjacent_row_distances, distance_in_order, intersection_len, row_distance, set_distance,
    total_distance, Axis,
};
pub use error::LocalityError;
pub use footprint::{windowed_distance, Footprints};
pub use graph::{path_cost, CandidateRank, Candidates, GraphOptions, WindowGraph};
pub use line_sample::LineSample;
pub use par::Parallelism;
pub use row_sample::{ReplaySample, RowSample};
pub use spmv_reorder_sparse::Permutation;
pub use windows::{LatencyThreshold, UnsampledRows, Windows};

use spmv_reorder_sparse::{CsrMatrix, Value};

/// Checks that `a` admits a symmetric model `P·A·Pᵀ` (one permutation for rows and columns): the
/// pipeline calls it before building a row model whose order it will also apply to the columns.
///
/// # Errors
/// [`LocalityError::NotSquare`] for a rectangular matrix.
pub fn check_symmetric_model<T: Value>(a: &CsrMatrix<T>) -> Result<(), LocalityError> {
    if a.nrows() != a.ncols() {
        return Err(LocalityError::NotSquare {
            nrows: a.nrows(),
            ncols: a.ncols(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests;
