//! The one error type of this crate.

/// Errors from building or combining sparse matrices and permutations.
///
/// Every variant carries the numbers that make it reproducible; callers add file or line context by
/// wrapping it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SparseError {
    /// A permutation's entries are not each of `0..len` exactly once.
    #[error("not a permutation of 0..{len}: entry {position} is {value} ({reason})")]
    NotAPermutation {
        /// Length of the would-be permutation.
        len: usize,
        /// Position of the first offending entry.
        position: usize,
        /// The offending value.
        value: usize,
        /// `"out of range"` or `"repeated"`.
        reason: &'static str,
    },
    /// Two objects that must agree in size do not.
    #[error("{what}: expected length {expected}, found {found}")]
    LengthMismatch {
        /// What was being checked, e.g. `"row permutation"`.
        what: &'static str,
        /// The length required.
        expected: usize,
        /// The length given.
        found: usize,
    },
    /// A row or column index is outside the matrix.
    #[error("entry ({row}, {col}) is outside a {nrows} x {ncols} matrix")]
    IndexOutOfBounds {
        /// 0-based row.
        row: usize,
        /// 0-based column.
        col: usize,
        /// Rows of the matrix.
        nrows: usize,
        /// Columns of the matrix.
        ncols: usize,
    },
    /// A dimension does not fit the index type (column indices are `u32`).
    #[error("{what} = {value} exceeds the supported maximum {max}")]
    TooLarge {
        /// Which quantity.
        what: &'static str,
        /// Its value.
        value: u64,
        /// The maximum supported.
        max: u64,
    },
    /// CSR arrays violate an invariant of [`crate::CsrMatrix`].
    #[error("invalid CSR structure: {0}")]
    InvalidCsr(&'static str),
    /// An operation that needs a square matrix got a rectangular one.
    #[error("a square matrix is required, got {nrows} x {ncols}")]
    NotSquare {
        /// Rows.
        nrows: usize,
        /// Columns.
        ncols: usize,
    },
    /// An array could not be allocated: the matrix needs more memory than this process may have.
    #[error("{what}: cannot allocate {bytes} bytes")]
    OutOfMemory {
        /// What was being allocated, e.g. `"row offsets"`.
        what: &'static str,
        /// Bytes asked for.
        bytes: u64,
    },
}
