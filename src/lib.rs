//! spmv-reorder: reorder sparse matrices for the cache locality of `y = A·x`.
//!
//! This crate is a facade over the workspace crates; each owns one concern.
#![forbid(unsafe_code)]

pub use spmv_reorder_sparse as sparse;
