//! Random symmetric permutations `B = P·A·Pᵀ`: destroy the locality of a matrix while keeping its
//! spectrum and symmetry, the starting point a reordering must recover from. `O(n + nnz log)`.

use crate::GenError;
use spmv_reorder_sparse::{CsrMatrix, Permutation, Value};

/// `(P·A·Pᵀ, P)` for a random `P` drawn from `seed`.
///
/// # Errors
/// [`GenError::Sparse`] when the matrix is not square.
pub fn shuffle_symmetric<T: Value>(
    a: &CsrMatrix<T>,
    seed: u64,
) -> Result<(CsrMatrix<T>, Permutation), GenError> {
    let p = Permutation::random(a.nrows(), seed);
    Ok((a.permute_symmetric(&p)?, p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shuffle_is_the_seeds_random_permutation() {
        let a = CsrMatrix::from_triplets(3, 3, vec![(0, 1, 1.0), (2, 0, 2.0)]).unwrap();
        let (b, p) = shuffle_symmetric(&a, 7).unwrap();
        assert_eq!(p, Permutation::random(3, 7));
        assert_eq!(b, a.permute_symmetric(&p).unwrap());
    }

    #[test]
    fn rectangular_is_an_error() {
        let a = CsrMatrix::from_triplets(2, 3, vec![(0, 2, 1.0)]).unwrap();
        assert!(shuffle_symmetric(&a, 1).is_err());
    }
}
