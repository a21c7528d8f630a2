//! What the pipeline's tests share.

use crate::tuning::DEFAULT_LENGTH_CHANGE_COST;
use crate::{Method, Reorderer, Reordering, RunBlocks};
use spmv_reorder_sparse::CsrMatrix;

/// The TSP method with the default cache check and without length runs, so that the tests of
/// the check and the path see the orders they chose; `length_runs_follow_the_ordering` tests the
/// runs.
pub(crate) fn quick() -> Reorderer {
    Reorderer::new()
        .method(Method::Tsp)
        .max_kicks(Some(200))
        .length_runs(Some(RunBlocks::Off))
}

/// Whether every block of `block` consecutive lengths is in increasing order.
pub(crate) fn sorted_in_blocks(lengths: &[usize], block: usize) -> bool {
    lengths
        .chunks(block)
        .all(|b| b.windows(2).all(|w| w[0] <= w[1]))
}

/// Pairs of consecutive rows of different lengths in `r`'s row order.
pub(crate) fn length_changes(r: &Reordering, a: &CsrMatrix<f64>) -> usize {
    r.rows
        .new_to_old()
        .windows(2)
        .filter(|w| a.row_nnz(w[0]) != a.row_nnz(w[1]))
        .count()
}

/// The TSP objective of the rows in `r`'s order: `D`, plus the default length change cost for
/// each pair of consecutive rows of different lengths.
pub(crate) fn path_cost(r: &Reordering, a: &CsrMatrix<f64>) -> u64 {
    let changes = length_changes(r, a) as u64;
    let tsp = r.report.rows.as_ref().unwrap().tsp.as_ref().unwrap();
    assert_eq!(tsp.length_change_cost, DEFAULT_LENGTH_CHANGE_COST);
    r.report.d_after + u64::from(DEFAULT_LENGTH_CHANGE_COST) * changes
}
