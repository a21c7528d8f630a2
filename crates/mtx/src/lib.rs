//! spmv-reorder-mtx (being written)
