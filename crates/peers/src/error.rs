//! The one error type of this crate.

use spmv_reorder_sparse::SparseError;

/// Errors from computing a peer ordering.
///
/// Every variant carries the values that make it reproducible.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PeersError {
    /// The Gorder window must hold at least one row.
    #[error("Gorder window must be at least 1, got {window}")]
    InvalidWindow {
        /// The window given.
        window: usize,
    },
    /// The METIS partition order needs at least one row per part.
    #[error("METIS parts must hold at least 1 row, got {part_rows}")]
    InvalidPartRows {
        /// The rows per part given.
        part_rows: usize,
    },
    /// METIS returned an error.
    #[error("{call} failed: {message}")]
    Metis {
        /// The METIS function.
        call: &'static str,
        /// What it reported.
        message: String,
    },
    /// The graph an ordering needs has more nodes than its `u32` node ids can name
    /// (the bipartite graph of a rectangular matrix has `nrows + ncols` nodes).
    #[error("the {what} graph would have {nodes} nodes, more than the supported {max}")]
    TooLarge {
        /// Which graph.
        what: &'static str,
        /// Its node count.
        nodes: u64,
        /// The maximum supported.
        max: u64,
    },
    /// A row has more nonzeros than Gorder's per-row score changes can count (`i32`).
    #[error("row {row} has {nnz} nonzeros, more than Gorder supports ({max})")]
    RowTooLong {
        /// The row.
        row: usize,
        /// Its nonzeros.
        nnz: usize,
        /// The most a row may have.
        max: usize,
    },
    /// Building the permutation failed (a broken internal invariant, reported rather than panicking).
    #[error(transparent)]
    Sparse(#[from] SparseError),
}
