//! spmv-reorder-spmv (being written)
