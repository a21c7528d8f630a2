//! Conversions between [`CsrMatrix`]/[`Permutation`] and sprs's `CsMat`/`PermOwned`, so solver
//! authors who hold sprs matrices can call the pipeline directly. `O(nnz)` copies.

use crate::ReorderError;
use spmv_reorder_sparse::{CsrMatrix, Permutation, Value};

/// Copies a sprs matrix (CSR or CSC) into a [`CsrMatrix`]; duplicates, if sprs holds any, are summed.
///
/// # Errors
/// [`ReorderError::Sparse`] when a dimension exceeds `u32::MAX`.
pub fn from_sprs<T: Value + Default>(m: &sprs::CsMat<T>) -> Result<CsrMatrix<T>, ReorderError> {
    let (nrows, ncols) = m.shape();
    let triplets = m.iter().map(|(&v, (i, j))| (i, j, v));
    Ok(CsrMatrix::from_triplets(nrows, ncols, triplets)?)
}

/// Copies a [`CsrMatrix`] into a sprs CSR matrix.
pub fn to_sprs<T: Value + Default>(m: &CsrMatrix<T>) -> sprs::CsMat<T> {
    let indices = m.col_idx().iter().map(|&c| c as usize).collect();
    sprs::CsMat::new(
        (m.nrows(), m.ncols()),
        m.row_ptr().to_vec(),
        indices,
        m.values().to_vec(),
    )
}

/// The sprs permutation with the same meaning: `perm.apply(x)` equals `&sprs_perm * x`.
pub fn to_sprs_perm(p: &Permutation) -> sprs::PermOwned {
    sprs::PermOwned::new(p.new_to_old().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_through_sprs() {
        let a =
            CsrMatrix::from_triplets(3, 4, vec![(0, 3, 1.5), (2, 0, -2.0), (1, 1, 4.0)]).unwrap();
        let s = to_sprs(&a);
        assert_eq!(s.nnz(), 3);
        assert_eq!(s.get(2, 0), Some(&-2.0));
        assert_eq!(from_sprs(&s).unwrap(), a);
        assert_eq!(from_sprs(&s.to_csc()).unwrap(), a);
    }

    #[test]
    fn permutation_means_the_same() {
        let p = Permutation::from_new_to_old(vec![2, 0, 1]).unwrap();
        let sp = to_sprs_perm(&p);
        let x = [10.0, 20.0, 30.0];
        let ours = p.apply(&x);
        let theirs: Vec<f64> = &sp * &x[..];
        assert_eq!(ours, theirs);
    }
}
