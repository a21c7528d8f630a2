//! Integration tests: mtx.
