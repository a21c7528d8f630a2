//! spmv-reorder-sampling (being written)
