//! Integration tests: locality.
