//! The one error type of the pipeline: its own checks, and the errors of the stages it calls.

use spmv_reorder_sparse::SparseError;

/// Errors from configuring or running a reordering.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReorderError {
    /// An option's text could not be understood.
    #[error("invalid {what} '{value}': expected {expected}")]
    InvalidSpec {
        /// Which option (`window`, `method`, `permute`, ...).
        what: &'static str,
        /// The text given.
        value: String,
        /// What is accepted.
        expected: &'static str,
    },
    /// Two options that cannot be used together.
    #[error("{0}")]
    Incompatible(String),
    /// The locality model rejected its input.
    #[error(transparent)]
    Locality(#[from] spmv_reorder_locality::LocalityError),
    /// Sampling failed (bad spec, unreadable trace, no sampling PMU on this machine, ...).
    #[error(transparent)]
    Sampling(#[from] spmv_reorder_sampling::SamplingError),
    /// The TSP solver rejected its input.
    #[error(transparent)]
    Tsp(#[from] spmv_reorder_tsp::TspError),
    /// A peer ordering failed.
    #[error(transparent)]
    Peers(#[from] spmv_reorder_peers::PeersError),
    /// A matrix or permutation operation failed.
    #[error(transparent)]
    Sparse(#[from] SparseError),
}
