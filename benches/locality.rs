//! Benchmark `locality` (being written by the issue that owns it).
fn main() {}
