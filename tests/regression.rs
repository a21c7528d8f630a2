//! Integration tests: regression.
