//! Runs of equal row lengths: a pass after any ordering that sorts the rows of each block of
//! `block` consecutive positions by their number of nonzeros, stably.
//!
//! Why: a CSR product ends every row's inner loop on a branch whose trip count is the row's
//! length. When consecutive rows change length the branch predictor misses at most row ends, at
//! about 15 cycles each. On rows of a few nonzeros that is most of the product (docs/tuning.md,
//! "Length runs", measures it with `x` held in one cached value). Sorting
//! inside blocks keeps each row within `block - 1` places of where the ordering put it, so the
//! `x` locality the ordering made is kept where `x` exceeds the caches.

use spmv_reorder_sparse::{Permutation, SparseError};

/// `order` with the rows of every block of `block` consecutive new positions sorted by `length`
/// (ties keep their order). `length(old_row)` gives a row's number of nonzeros.
///
/// # Errors
/// None in practice: the result is a permutation by construction, and the error of
/// [`Permutation::from_new_to_old`] is passed on rather than unwrapped.
///
/// # Panics
/// When `block` is 0.
pub fn sort_lengths_in_blocks(
    order: &Permutation,
    block: usize,
    length: impl Fn(usize) -> usize,
) -> Result<Permutation, SparseError> {
    assert!(block > 0, "a block holds at least one row");
    let mut new_to_old = order.new_to_old().to_vec();
    for rows in new_to_old.chunks_mut(block) {
        rows.sort_by_key(|&r| length(r));
    }
    Permutation::from_new_to_old(new_to_old)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn blocks_are_sorted_by_length_and_ties_keep_their_order() {
        // Rows 0..8 with lengths 3,1,2,1 | 5,0,0,4 placed in the order 7,6,...,0.
        let lengths = [3, 1, 2, 1, 5, 0, 0, 4];
        let order = Permutation::from_new_to_old((0..8).rev().collect()).unwrap();
        let runs = sort_lengths_in_blocks(&order, 4, |r| lengths[r]).unwrap();
        // First block holds rows 7,6,5,4 (lengths 4,0,0,5): 6 and 5 tie and keep their order.
        // Second block holds rows 3,2,1,0 (lengths 1,2,1,3).
        assert_eq!(runs.new_to_old(), &[6, 5, 7, 4, 3, 1, 2, 0]);
    }

    #[test]
    fn a_block_of_one_changes_nothing() {
        let order = Permutation::from_new_to_old(vec![2, 0, 1]).unwrap();
        let runs = sort_lengths_in_blocks(&order, 1, |r| 10 - r).unwrap();
        assert_eq!(runs.new_to_old(), order.new_to_old());
    }

    proptest! {
        /// Every row stays in its block, and each block's lengths do not decrease.
        #[test]
        fn rows_stay_in_their_block(
            lengths in proptest::collection::vec(0usize..6, 0..200),
            block in 1usize..40,
            seed in any::<u64>(),
        ) {
            let n = lengths.len();
            let order = Permutation::random(n, seed);
            let runs = sort_lengths_in_blocks(&order, block, |r| lengths[r]).unwrap();
            for (i, &old) in runs.new_to_old().iter().enumerate() {
                prop_assert_eq!(order.old_to_new()[old] / block, i / block);
            }
            for rows in runs.new_to_old().chunks(block) {
                prop_assert!(rows.windows(2).all(|w| lengths[w[0]] <= lengths[w[1]]));
            }
        }
    }
}
