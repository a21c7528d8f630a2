//! spmv-reorder-locality (being written)
