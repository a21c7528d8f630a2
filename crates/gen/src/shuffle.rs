//! Random symmetric permutations `B = P·A·Pᵀ`: destroy the locality of a matrix while keeping its
//! spectrum and symmetry, the starting point a reordering must recover from. `O(n + nnz log)`.

use crate::{rng, GenError};
use rand::Rng;
use spmv_reorder_sparse::{CsrMatrix, Permutation, Value};

/// A uniformly random permutation of `0..n` (Fisher-Yates), deterministic for a seed.
pub fn random_permutation(n: usize, seed: u64) -> Permutation {
    let mut order: Vec<usize> = (0..n).collect();
    let mut r = rng(seed);
    for i in (1..n).rev() {
        order.swap(i, r.random_range(0..=i));
    }
    Permutation::from_new_to_old(order).expect("a shuffle of 0..n is a permutation")
}

/// `(P·A·Pᵀ, P)` for a random `P` drawn from `seed`.
///
/// # Errors
/// [`GenError::Sparse`] when the matrix is not square.
pub fn shuffle_symmetric<T: Value>(
    a: &CsrMatrix<T>,
    seed: u64,
) -> Result<(CsrMatrix<T>, Permutation), GenError> {
    let p = random_permutation(a.nrows(), seed);
    Ok((a.permute_symmetric(&p)?, p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_and_uniform_enough() {
        assert_eq!(random_permutation(100, 3), random_permutation(100, 3));
        assert_ne!(random_permutation(100, 3), random_permutation(100, 4));
        // Each position of a 4-element shuffle sees each value about a quarter of the time.
        let mut counts = [[0u32; 4]; 4];
        for s in 0..4000 {
            for (pos, &v) in random_permutation(4, s).new_to_old().iter().enumerate() {
                counts[pos][v] += 1;
            }
        }
        assert!(
            counts.iter().flatten().all(|&c| (800..1200).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn rectangular_is_an_error() {
        let a = CsrMatrix::from_triplets(2, 3, vec![(0, 2, 1.0)]).unwrap();
        assert!(shuffle_symmetric(&a, 1).is_err());
    }
}
