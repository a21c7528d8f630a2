//! spmv-reorder-tsp (being written)
