//! spmv-reorder-reorder (being written)
