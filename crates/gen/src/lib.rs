//! spmv-reorder-gen (being written)
