//! Integration tests: tsp.
