//! Benchmark `mtx_io` (being written by the issue that owns it).
fn main() {}
