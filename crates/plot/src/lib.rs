//! spmv-reorder-plot (being written)
