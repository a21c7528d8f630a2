//! Integration tests: spmv.
