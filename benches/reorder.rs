//! Benchmark `reorder` (being written by the issue that owns it).
fn main() {}
