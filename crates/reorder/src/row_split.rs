//! Even row splits: a pass after ordering that spreads the nonzeros over the row range, so that a
//! parallel product cutting the rows into equal counts per thread gives each thread about the same
//! work.
//!
//! Why: many SpMV kernels split rows evenly between threads (Intel MKL's `mkl_sparse_d_mv` without
//! an optimisation hint, an OpenMP `static` loop, one process's rows in a distributed solver).
//! RCM gathers the heaviest rows of a power-law graph in the middle levels of its search, and a
//! banded matrix whose rows grow denser towards its centre keeps that shape in any band order: on
//! R-MAT scale 20 the first half of RCM's rows holds a sixth of the nonzeros, and MKL at 2 threads
//! runs RCM's order about 1.6 times slower than the same order with its pieces spread
//! (`docs/evaluation.md`).
//!
//! How: the order is cut into pieces, each a run of consecutive positions holding at most
//! `nnz / (16 · threads)` nonzeros and `n / (16 · threads)` rows, cut at multiples of `block` so
//! that length runs stay whole (between rows only in a block that alone holds a piece's share of
//! nonzeros: a few hub rows). Pieces denser than the matrix and pieces lighter than it keep
//! their order in two queues, and are laid down from whichever queue brings the nonzeros placed so
//! far back to the rows placed so far times the matrix's density. Every piece keeps its rows'
//! order, so the locality the ordering made is kept everywhere but at the seams (a few hundred).

use spmv_reorder_sparse::{Permutation, SparseError};

/// The most threads [`crate::Reorderer::row_split_threads`] serves; more are served as this many
/// (checking the splits costs `O(threads²)`, and no machine this tool meets splits rows finer).
pub const MAX_SPLIT_THREADS: usize = 4096;

/// Pieces per thread of [`spread_over_row_splits`]: enough that a split's nonzeros miss their
/// share by a few percent at most.
pub const PIECES_PER_THREAD: usize = 16;

/// The heaviest share of nonzeros any kernel splitting `order`'s rows evenly between `t` threads
/// gives one thread, relative to the mean `nnz / t`, over every `t` from 2 to `threads`
/// (1.0: perfectly even; 1.0 as well when there are no nonzeros or fewer than 2 threads).
/// Thread `k` of `t` holds the positions `k·n/t .. (k+1)·n/t`, rounded down. `O(n + threads²)`.
pub fn row_split_imbalance(
    order: &Permutation,
    threads: usize,
    length: impl Fn(usize) -> usize,
) -> f64 {
    let prefix = nonzeros_before(order, length);
    let n = order.len();
    let total = prefix[n] as f64;
    if total == 0.0 {
        return 1.0;
    }
    (2..=threads.min(n.max(1)))
        .map(|t| {
            let heaviest = (0..t)
                .map(|k| prefix[(k + 1) * n / t] - prefix[k * n / t])
                .max()
                .unwrap_or(0);
            heaviest as f64 * t as f64 / total
        })
        .fold(1.0, f64::max)
}

/// `order` with its pieces laid down so that the nonzeros follow the rows evenly (the module's
/// description): balanced for every thread count up to about `threads`. `block` is the run length
/// pieces are cut at multiples of (the length runs' block, or 1). An order none of whose pieces is
/// denser than the whole comes back unchanged.
///
/// # Errors
/// None in practice: the result is a permutation by construction, and the error of
/// [`Permutation::from_new_to_old`] is passed on rather than unwrapped.
///
/// # Panics
/// When `block` is 0.
pub fn spread_over_row_splits(
    order: &Permutation,
    threads: usize,
    block: usize,
    length: impl Fn(usize) -> usize,
) -> Result<Permutation, SparseError> {
    assert!(block > 0, "a piece holds at least one row");
    let prefix = nonzeros_before(order, length);
    let pieces = cut_pieces(
        &prefix,
        PIECES_PER_THREAD.saturating_mul(threads.max(1)),
        block,
    );
    let (n, total) = (order.len() as u128, prefix[order.len()] as u128);
    let dense =
        |&(s, e): &(usize, usize)| (prefix[e] - prefix[s]) as u128 * n > total * (e - s) as u128;
    let (heavy, light): (Vec<_>, Vec<_>) = pieces.into_iter().partition(dense);
    let (mut heavy, mut light) = (heavy.into_iter().peekable(), light.into_iter().peekable());
    let old = order.new_to_old();
    let mut new_to_old = Vec::with_capacity(old.len());
    let (mut placed_nnz, mut placed_rows) = (0u128, 0u128);
    loop {
        // Behind the even line, or out of light pieces: a dense piece catches up.
        let behind = placed_nnz * n <= total * placed_rows;
        let next = match heavy.peek().is_some() && (behind || light.peek().is_none()) {
            true => heavy.next(),
            false => light.next(),
        };
        let Some((s, e)) = next else { break };
        placed_nnz += (prefix[e] - prefix[s]) as u128;
        placed_rows += (e - s) as u128;
        new_to_old.extend_from_slice(&old[s..e]);
    }
    Permutation::from_new_to_old(new_to_old)
}

/// `prefix[i]`: the nonzeros of the rows at positions `0..i` of `order`.
fn nonzeros_before(order: &Permutation, length: impl Fn(usize) -> usize) -> Vec<u64> {
    let mut prefix = Vec::with_capacity(order.len() + 1);
    prefix.push(0u64);
    let mut sum = 0u64;
    for &row in order.new_to_old() {
        sum += length(row) as u64;
        prefix.push(sum);
    }
    prefix
}

/// Consecutive position ranges covering `0..n`, cut at multiples of `block` (and at `n`) as soon
/// as a range holds `1/pieces` of the nonzeros or of the rows. A block holding that share alone
/// (a few hub rows) is cut between its rows instead, so that no piece is much heavier than a share.
fn cut_pieces(prefix: &[u64], pieces: usize, block: usize) -> Vec<(usize, usize)> {
    let n = prefix.len() - 1;
    let total = prefix[n] as u128;
    let full = |s: usize, e: usize| (prefix[e] - prefix[s]) as u128 * pieces as u128 >= total;
    let rows_max = (n / pieces).max(block);
    let mut cuts = Vec::with_capacity(2 * pieces + 1);
    let mut start = 0;
    while start < n {
        let block_end = (start + block).min(n);
        if full(start, block_end) {
            cut_between_rows(start, block_end, &full, &mut cuts);
            start = block_end;
            continue;
        }
        let mut end = block_end;
        while end < n && end - start < rows_max && !full(start, end) {
            let next = (end + block).min(n);
            if full(end, next) {
                break;
            }
            end = next;
        }
        cuts.push((start, end));
        start = end;
    }
    cuts
}

/// Cuts `start..end` into ranges that each end as soon as they are `full`.
fn cut_between_rows(
    start: usize,
    end: usize,
    full: &impl Fn(usize, usize) -> bool,
    cuts: &mut Vec<(usize, usize)>,
) {
    let mut s = start;
    while s < end {
        let mut e = s + 1;
        while e < end && !full(s, e) {
            e += 1;
        }
        cuts.push((s, e));
        s = e;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// 4,096 rows: the middle 512 hold 100 nonzeros each, the others 2 (RCM's order of a
    /// power-law graph has its hubs in the middle like this).
    fn hubs_in_the_middle() -> Vec<usize> {
        (0..4096)
            .map(|r| if (1792..2304).contains(&r) { 100 } else { 2 })
            .collect()
    }

    #[test]
    fn imbalance_is_the_heaviest_split_over_the_mean() {
        // Two rows of 3 and 1 nonzeros: at 2 threads the first holds 3 of a mean of 2.
        let order = Permutation::identity(2);
        let lengths = [3, 1];
        assert_eq!(row_split_imbalance(&order, 2, |r| lengths[r]), 1.5);
        assert_eq!(row_split_imbalance(&order, 1, |r| lengths[r]), 1.0);
        assert_eq!(row_split_imbalance(&order, 4, |_| 0), 1.0);
    }

    #[test]
    fn hubs_in_the_middle_are_spread_over_every_split() {
        let lengths = hubs_in_the_middle();
        let order = Permutation::identity(lengths.len());
        let before = row_split_imbalance(&order, 16, |r| lengths[r]);
        assert!(before > 6.0, "{before}");
        let spread = spread_over_row_splits(&order, 16, 8, |r| lengths[r]).unwrap();
        let after = row_split_imbalance(&spread, 16, |r| lengths[r]);
        assert!(after < 1.15, "{after}");
        assert!(row_split_imbalance(&spread, 2, |r| lengths[r]) < 1.02);
    }

    #[test]
    fn an_even_order_comes_back_unchanged() {
        let order = Permutation::random(5000, 3);
        let spread = spread_over_row_splits(&order, 16, 128, |_| 7).unwrap();
        assert_eq!(spread.new_to_old(), order.new_to_old());
    }

    /// The positions of `spread` that follow each other in `order`, as a share of all pairs.
    fn kept_neighbours(order: &Permutation, spread: &Permutation) -> f64 {
        let at = order.old_to_new();
        let pairs = spread.new_to_old().windows(2);
        let kept = pairs.clone().filter(|w| at[w[1]] == at[w[0]] + 1).count();
        kept as f64 / pairs.count().max(1) as f64
    }

    #[test]
    fn pieces_keep_the_order_inside_them() {
        let lengths = hubs_in_the_middle();
        let order = Permutation::random(lengths.len(), 5);
        let spread = spread_over_row_splits(&order, 2, 8, |r| lengths[r]).unwrap();
        assert!(kept_neighbours(&order, &spread) > 0.9);
    }

    proptest! {
        /// A permutation whose seams fall between whole blocks of the order given, but in a block
        /// holding a piece's share of the nonzeros alone: every row still follows the one it
        /// followed, but where a piece ends.
        #[test]
        fn pieces_are_whole_blocks_of_the_order(
            lengths in proptest::collection::vec(0usize..60, 1..600),
            threads in 1usize..9,
            block in 1usize..9,
            seed in any::<u64>(),
        ) {
            let n = lengths.len();
            let order = Permutation::random(n, seed);
            let spread = spread_over_row_splits(&order, threads, block, |r| lengths[r]).unwrap();
            prop_assert_eq!(spread.len(), n);
            let total: usize = lengths.iter().sum();
            let pieces = PIECES_PER_THREAD * threads;
            let at = order.old_to_new();
            // Whether the block of the order holding position `p` holds a piece's share alone.
            let heavy = |p: usize| {
                let first = p / block * block;
                let rows = &order.new_to_old()[first..(first + block).min(n)];
                rows.iter().map(|&r| lengths[r]).sum::<usize>() * pieces >= total
            };
            for w in spread.new_to_old().windows(2) {
                let (end, start) = (at[w[0]] + 1, at[w[1]]);
                if start != end {
                    prop_assert!(start.is_multiple_of(block) || heavy(start), "cut in a block");
                    prop_assert!(end.is_multiple_of(block) || end == n || heavy(end - 1), "cut in a block");
                }
            }
        }
    }
}
