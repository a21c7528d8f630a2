//! Integration tests: one binary, one module per concern.

mod common;

mod binary;
mod cli;
mod locality;
mod mtx;
mod regression;
mod reliability;
mod sampling;
mod spmv;
mod workflows;
