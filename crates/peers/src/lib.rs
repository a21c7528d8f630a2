//! spmv-reorder-peers (being written)
