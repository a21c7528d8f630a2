//! spmv-reorder: reorder sparse matrices for the cache locality of `y = A·x`.
//!
//! This crate is a facade over the workspace crates; each owns one concern.
#![forbid(unsafe_code)]

pub use spmv_reorder_gen as gen;
pub use spmv_reorder_locality as locality;
pub use spmv_reorder_mtx as mtx;
pub use spmv_reorder_reorder as reorder;
pub use spmv_reorder_sparse as sparse;
