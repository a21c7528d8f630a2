//! The one error type of this crate.

use spmv_reorder_sparse::SparseError;

/// Errors from generating a matrix: parameters out of range or a matrix too large.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GenError {
    /// A parameter is outside its valid range.
    #[error("invalid parameter {name} = {value}: {expected}")]
    InvalidParameter {
        /// Parameter name as the CLI spells it.
        name: &'static str,
        /// The value given.
        value: String,
        /// What is allowed.
        expected: &'static str,
    },
    /// The matrix would be too large for the index types.
    #[error(transparent)]
    Sparse(#[from] SparseError),
}

impl GenError {
    pub(crate) fn invalid(
        name: &'static str,
        value: impl ToString,
        expected: &'static str,
    ) -> Self {
        GenError::InvalidParameter {
            name,
            value: value.to_string(),
            expected,
        }
    }
}
