//! Bandwidth and profile of `P·(A + Aᵀ)·Pᵀ`: the quantities reverse Cuthill-McKee minimises.
//!
//! Bandwidth `max |p(i) − p(j)|` over the entries `(i, j)`; profile (envelope size)
//! `Σ_r (r − f_r)` with `f_r` the first column of new row `r` in the lower triangle of the symmetrised
//! pattern (`f_r = r` for a row with nothing left of the diagonal), as in George and Liu, *Computer
//! Solution of Large Sparse Positive Definite Systems* (1981), section 4.1. Cost: `O(nnz + n)`,
//! without building the permuted matrix. Called by tests and tools that
//! report on RCM.

use crate::PeersError;
use spmv_reorder_sparse::{CsrMatrix, Permutation, SparseError, Value};

/// The bandwidth of `P·A·Pᵀ` (equal to that of `P·(A + Aᵀ)·Pᵀ`).
///
/// # Errors
/// [`PeersError::Sparse`] with [`SparseError::NotSquare`] or [`SparseError::LengthMismatch`].
pub fn bandwidth<T: Value>(a: &CsrMatrix<T>, p: &Permutation) -> Result<usize, PeersError> {
    let mut widest = 0;
    for_each_new_entry(a, p, |r, c| widest = widest.max(r.abs_diff(c)))?;
    Ok(widest)
}

/// The profile of `P·(A + Aᵀ)·Pᵀ`: `Σ_r (r − f_r)` (see the module documentation).
///
/// # Errors
/// [`PeersError::Sparse`] with [`SparseError::NotSquare`] or [`SparseError::LengthMismatch`].
pub fn profile<T: Value>(a: &CsrMatrix<T>, p: &Permutation) -> Result<u64, PeersError> {
    let mut first: Vec<usize> = (0..a.nrows()).collect();
    for_each_new_entry(a, p, |r, c| {
        let (hi, lo) = (r.max(c), r.min(c));
        first[hi] = first[hi].min(lo);
    })?;
    Ok(first.iter().enumerate().map(|(r, &f)| (r - f) as u64).sum())
}

/// Calls `f(new_row, new_col)` for every entry of `P·A·Pᵀ`.
fn for_each_new_entry<T: Value>(
    a: &CsrMatrix<T>,
    p: &Permutation,
    mut f: impl FnMut(usize, usize),
) -> Result<(), PeersError> {
    if a.nrows() != a.ncols() {
        return Err(SparseError::NotSquare {
            nrows: a.nrows(),
            ncols: a.ncols(),
        }
        .into());
    }
    if p.len() != a.nrows() {
        return Err(SparseError::LengthMismatch {
            what: "symmetric permutation",
            expected: a.nrows(),
            found: p.len(),
        }
        .into());
    }
    let new = p.old_to_new();
    for i in 0..a.nrows() {
        for &j in a.row(i).0 {
            f(new[i], new[j as usize]);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrow_matrix_both_ways() {
        // Arrow: row 0 and column 0 full, plus the diagonal. Profile = 1 + 2 + 3 = 6 with the hub
        // first, 3 with the hub last (rows 0..2 start on their diagonal, row 3 at column 0).
        let n = 4;
        let t = (0..n).flat_map(|i| [(0, i, ()), (i, 0, ()), (i, i, ())]);
        let a = CsrMatrix::from_triplets(n, n, t).unwrap();
        let id = Permutation::identity(n);
        assert_eq!(bandwidth(&a, &id).unwrap(), 3);
        assert_eq!(profile(&a, &id).unwrap(), 6);
        let hub_last = Permutation::from_new_to_old(vec![1, 2, 3, 0]).unwrap();
        assert_eq!(bandwidth(&a, &hub_last).unwrap(), 3);
        assert_eq!(profile(&a, &hub_last).unwrap(), 3);
    }

    #[test]
    fn wrong_shapes_are_errors() {
        let a: CsrMatrix<()> = CsrMatrix::from_triplets(2, 3, vec![]).unwrap();
        let e = bandwidth(&a, &Permutation::identity(2)).unwrap_err();
        assert!(matches!(
            e,
            PeersError::Sparse(SparseError::NotSquare { .. })
        ));
        let b: CsrMatrix<()> = CsrMatrix::from_triplets(2, 2, vec![]).unwrap();
        let e = profile(&b, &Permutation::identity(3)).unwrap_err();
        assert!(matches!(
            e,
            PeersError::Sparse(SparseError::LengthMismatch { .. })
        ));
    }
}
