//! Benchmark `spmv_kernels` (being written by the issue that owns it).
fn main() {}
