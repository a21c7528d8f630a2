//! The one error type of this crate.

use spmv_reorder_sparse::SparseError;

/// Errors from building windows, the window graph, or evaluating an order.
///
/// Every variant carries the numbers that make it reproducible.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LocalityError {
    /// A fixed window size of 0 was asked for.
    #[error("window size must be at least 1, got 0")]
    ZeroWindowSize,
    /// A list of window lengths contains a 0.
    #[error("window {window} has length 0; every window needs at least one row")]
    EmptyWindow {
        /// Index of the first empty window.
        window: usize,
    },
    /// A list of window starts does not describe a partition of `0..nrows`.
    #[error("invalid window starts for {nrows} rows: entry {position} is {value} ({reason})")]
    InvalidWindowStarts {
        /// Number of rows the windows must cover.
        nrows: usize,
        /// Position of the offending entry in the list.
        position: usize,
        /// The offending entry.
        value: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// Windows (or per-row data) were given for a different number of rows than the matrix has.
    #[error("{what}: covers {found} rows, the matrix has {expected}")]
    RowCountMismatch {
        /// What was being checked, e.g. `"windows"` or `"row latencies"`.
        what: &'static str,
        /// Rows of the matrix.
        expected: usize,
        /// Rows covered by the argument.
        found: usize,
    },
    /// A window order is not a permutation of `0..windows`.
    #[error(
        "window order is not a permutation of 0..{windows}: entry {position} is {value} ({reason})"
    )]
    InvalidWindowOrder {
        /// Number of windows.
        windows: usize,
        /// Position of the first offending entry (the length, when the length is wrong).
        position: usize,
        /// The offending entry (the given length, when the length is wrong).
        value: usize,
        /// `"out of range"`, `"repeated"` or `"wrong length"`.
        reason: &'static str,
    },
    /// A symmetric model (`P·A·Pᵀ`) was asked for a rectangular matrix.
    #[error("a symmetric permutation needs a square matrix, got {nrows} x {ncols}")]
    NotSquare {
        /// Rows.
        nrows: usize,
        /// Columns.
        ncols: usize,
    },
    /// The matrix has more windows or columns than the `u32` indices of the graph can hold.
    #[error("{what} = {value} exceeds the supported maximum {max}")]
    TooLarge {
        /// Which quantity.
        what: &'static str,
        /// Its value.
        value: u64,
        /// The maximum supported.
        max: u64,
    },
    /// An error of the sparse types (building a permutation).
    #[error(transparent)]
    Sparse(#[from] SparseError),
}
