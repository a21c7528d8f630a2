//! Integration tests: one binary, one module per concern.

mod common;
// The binary inputs of the fuzz target, for the tests of huge declared sizes.
#[allow(dead_code)]
#[path = "fuzz/binary.rs"]
mod binary_inputs;

mod bench_command_line;
mod binary;
mod cli;
mod locality;
mod mtx;
mod regression;
mod reliability;
mod sampling;
mod spmv;
mod workflows;
