//! Degree sort: rows ordered by their number of nonzeros, stably (ties keep their original order).
//!
//! The classic cheap baseline (e.g. Balaji, Lucia, "When is graph reordering an optimization?",
//! IISWC 2018). Cost: `O(n log n)`, parallel stable merge sort. Called by the pipeline's `degree`
//! ordering, and by [`crate::gorder`] for its fallback sequence.

use rayon::prelude::*;
use spmv_reorder_sparse::{CsrMatrix, Value};
use std::cmp::Reverse;

/// The direction of a degree sort.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DegreeOrder {
    /// Fewest nonzeros first.
    Increasing,
    /// Most nonzeros first.
    Decreasing,
}

/// The row indices of `a` sorted by nonzero count in the direction `dir`; ties keep increasing index.
pub fn rows_by_degree<T: Value>(a: &CsrMatrix<T>, dir: DegreeOrder) -> Vec<usize> {
    let mut rows: Vec<usize> = (0..a.nrows()).collect();
    match dir {
        DegreeOrder::Increasing => rows.par_sort_by_key(|&i| a.row_nnz(i)),
        DegreeOrder::Decreasing => rows.par_sort_by_key(|&i| Reverse(a.row_nnz(i))),
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_stably_both_ways() {
        // Row lengths 2, 0, 2, 1.
        let t = vec![(0, 0, ()), (0, 1, ()), (2, 0, ()), (2, 2, ()), (3, 1, ())];
        let a = CsrMatrix::from_triplets(4, 3, t).unwrap();
        assert_eq!(
            rows_by_degree(&a, DegreeOrder::Increasing),
            vec![1, 3, 0, 2]
        );
        assert_eq!(
            rows_by_degree(&a, DegreeOrder::Decreasing),
            vec![0, 2, 3, 1]
        );
    }
}
