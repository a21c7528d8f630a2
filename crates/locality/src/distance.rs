//! Row distances: `d(i,j) = |C_i| + |C_j| - 2|C_i ∩ C_j|` and `D = Σ_{i<n-1} d(i,i+1)`.
//!
//! `d` is a merge of two sorted column lists, `O(|C_i| + |C_j|)`; `D` costs `O(nnz)`, parallel over
//! rows. SPEC section 2 (thesis 4.2, equations 4.1-4.2). Called by the variable windows
//! ([`crate::Windows::variable`]), the `info` subcommand of the CLI (through the facade) and the tests.
//! Columns use the same functions on `Aᵀ` ([`Axis::Columns`]).

use crate::par::{balanced_ranges, even_ranges, range_bounds, split_mut_at, Parallelism};
use crate::windows::check_window_order;
use crate::LocalityError;
use spmv_reorder_sparse::{short_intersection, CsrMatrix, Value};
use std::ops::Range;

/// Which side of the matrix a model describes.
///
/// The column model is the row model of `Aᵀ` (SPEC section 2, "the same definitions on `Aᵀ`"): every
/// function of this crate takes a matrix, and [`Axis::pattern`] gives the matrix whose rows are the
/// chosen side. Column windows and a column graph are then built on that pattern, and their order is
/// a column permutation of `A`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Axis {
    /// The rows of `A` (row `i` has column set `C_i`).
    Rows,
    /// The columns of `A`, i.e. the rows of `Aᵀ` (column `j` has row set `R_j`).
    Columns,
}

impl Axis {
    /// The structure whose rows are this side of `a`: `a`'s pattern for [`Axis::Rows`], the pattern
    /// of `aᵀ` for [`Axis::Columns`]. `O(nnz + nrows + ncols)`.
    pub fn pattern<T: Value>(self, a: &CsrMatrix<T>) -> CsrMatrix<()> {
        match self {
            Axis::Rows => a.pattern(),
            Axis::Columns => a.pattern_transpose(),
        }
    }
}

/// `|S xor T|` for two strictly increasing lists: `|S| + |T| - 2|S ∩ T|`, by a merge.
pub fn set_distance(s: &[u32], t: &[u32]) -> u64 {
    (s.len() + t.len()) as u64 - 2 * intersection_len(s, t) as u64
}

/// How many times longer than the other a list must be for [`intersection_len`] to search
/// instead of merging (a search costs about `2·log2 |T|` steps where a merge costs `|T| / |S|`).
const SEARCH_RATIO: usize = 32;

/// `|S ∩ T|` for two strictly increasing lists, by a merge: `O(|S| + |T|)`; short lists
/// (`|S|·|T| <= 64`) compare every pair instead, and lists of at most 16 entries each compare
/// an entry with all of the other list at once where the machine has AVX-512
/// ([`short_intersection`]: the variable windows of the shuffled 1M-row grid below, 2 threads,
/// took 6.6-7.0 ms against 13.4-15.3 ms comparing every pair, with a cheaper threshold compare
/// in [`crate::Windows::variable`] too).
///
/// The merge steps are selected without branches: which list advances is data-dependent and a
/// branch on it mispredicts about once per step (measured: the variable windows of a shuffled
/// 1M-row grid, two merges per row, took twice as long with a `match`). Each step still waits for
/// the previous one (its loads depend on the advanced positions), while the pairs of short lists
/// are compared independently of each other (a 3D 7-point grid's rows have 7 columns). Measured
/// on the 1M adjacent row pairs of a shuffled 100³ grid, one thread, best of 15: 29.3 ms merging,
/// 20.0 ms comparing all pairs, although the pairs take more instructions (cachegrind on the
/// 64k-row grid's variable windows: 94M against 51M).
///
/// When one list is 32 times longer than the other, each entry of the short one is
/// found by binary search in what remains of the long one: `O(|S| log |T|)`. On power-law
/// matrices a hub row holds thousands of columns; merging it for every pair the TSP asks about
/// took 31% of a short run's samples on an R-MAT graph of 262k rows.
pub fn intersection_len(s: &[u32], t: &[u32]) -> usize {
    let (short, long) = if s.len() <= t.len() { (s, t) } else { (t, s) };
    if long.len() >= SEARCH_RATIO.saturating_mul(short.len()).max(SEARCH_RATIO) {
        let mut rest = long;
        let mut common = 0;
        for &a in short {
            let at = rest.partition_point(|&b| b < a);
            common += usize::from(rest.get(at) == Some(&a));
            rest = &rest[at..];
        }
        return common;
    }
    if let Some(common) = short_intersection::intersection_len(s, t) {
        return common;
    }
    if s.len().saturating_mul(t.len()) <= 64 {
        return s
            .iter()
            .map(|&a| t.iter().map(|&b| (a == b) as usize).sum::<usize>())
            .sum();
    }
    let (mut i, mut j, mut common) = (0, 0, 0);
    while i < s.len() && j < t.len() {
        let (a, b) = (s[i], t[j]);
        common += (a == b) as usize;
        i += (a <= b) as usize;
        j += (b <= a) as usize;
    }
    common
}

/// `d(i,j) = |C_i| + |C_j| - 2|C_i ∩ C_j|`, the distance of rows `i` and `j` of `a`.
///
/// # Panics
/// If `i` or `j` is not a row of `a` (a caller bug).
pub fn row_distance<T: Value>(a: &CsrMatrix<T>, i: usize, j: usize) -> u64 {
    set_distance(a.row(i).0, a.row(j).0)
}

/// Calls `each(i, d(i, i+1))` for every `i` of `pairs`, in order. Pairs of rows of at most 8
/// entries are counted in registers, a block at a time
/// ([`short_intersection::adjacent_xor_lens`]: `D` of the shuffled 1M-row grid took 9.8 ms on
/// one thread with [`row_distance`] a pair, and takes 3.1 ms), others by [`row_distance`].
///
/// # Panics
/// If `pairs` is not empty and `pairs.end >= a.nrows()` (a caller bug).
pub(crate) fn for_adjacent_distances<T: Value>(
    a: &CsrMatrix<T>,
    pairs: Range<usize>,
    each: impl FnMut(usize, u64),
) {
    for_pair_distances(a, pairs, RowSequence::Consecutive, each);
}

/// The rows whose consecutive pairs [`for_pair_distances`] measures.
#[derive(Clone, Copy)]
enum RowSequence<'a> {
    /// Rows `0, 1, 2, ...` as stored.
    Consecutive,
    /// Rows in this order.
    Ordered(&'a [usize]),
}

impl RowSequence<'_> {
    fn row(self, k: usize) -> usize {
        match self {
            RowSequence::Consecutive => k,
            RowSequence::Ordered(rows) => rows[k],
        }
    }
}

/// Calls `each(k, d(row(k), row(k + 1)))` for every `k` of `pairs`, in order: short rows through
/// the register kernel a block at a time, others by [`row_distance`].
fn for_pair_distances<T: Value>(
    a: &CsrMatrix<T>,
    pairs: Range<usize>,
    rows: RowSequence<'_>,
    mut each: impl FnMut(usize, u64),
) {
    const BLOCK: usize = 256;
    let mut xor = [0u32; BLOCK];
    for first in pairs.clone().step_by(BLOCK) {
        let block = &mut xor[..BLOCK.min(pairs.end - first)];
        match rows {
            RowSequence::Consecutive => short_intersection::adjacent_xor_lens(a, first, block),
            RowSequence::Ordered(order) => {
                short_intersection::ordered_xor_lens(a, &order[first..=first + block.len()], block)
            }
        }
        for (k, &d) in (first..).zip(block.iter()) {
            match d {
                short_intersection::NOT_COUNTED => {
                    each(k, row_distance(a, rows.row(k), rows.row(k + 1)))
                }
                d => each(k, d as u64),
            }
        }
    }
}

/// `d(i, i+1)` for every `i < nrows - 1` (empty for fewer than two rows). `O(nnz)`.
pub fn adjacent_row_distances<T: Value>(a: &CsrMatrix<T>, par: Parallelism) -> Vec<u64> {
    let pairs = a.nrows().saturating_sub(1);
    let ranges = balanced_ranges(&a.row_ptr()[..=pairs], 4 * par.threads());
    let mut distances = vec![0u64; pairs];
    let pieces = split_mut_at(&mut distances, &range_bounds(&ranges, 1));
    par.map(
        ranges.into_iter().zip(pieces).collect(),
        |(range, piece)| {
            let first = range.start;
            for_adjacent_distances(a, range, |i, d| piece[i - first] = d);
        },
    );
    distances
}

/// `D = Σ_{i=0}^{n-2} d(i, i+1)` (0 for fewer than two rows). `O(nnz)`, parallel over rows.
pub fn total_distance<T: Value>(a: &CsrMatrix<T>, par: Parallelism) -> u64 {
    let pairs = a.nrows().saturating_sub(1);
    let ranges = balanced_ranges(&a.row_ptr()[..=pairs], 4 * par.threads());
    par.map(ranges, |range| {
        let mut sum = 0;
        for_adjacent_distances(a, range, |_, d| sum += d);
        sum
    })
    .into_iter()
    .sum()
}

/// `D` of the rows of `a` taken in `order` (`order[k]` is the row placed at position `k`): the
/// `D` of the matrix with its rows permuted so, which is not built. Short rows are counted in
/// registers ([`short_intersection::ordered_xor_lens`]): the shuffled 1M-row grid's rows in RCM's
/// order took 54 ms on one thread and 25 ms on two, against 144 ms and 66 ms for
/// [`crate::Footprints::path_cost`] over one-row windows, a pair at a time (best of 15).
///
/// # Errors
/// [`LocalityError::InvalidWindowOrder`] when `order` is not a permutation of `a`'s rows.
pub fn distance_in_order<T: Value>(
    a: &CsrMatrix<T>,
    order: &[usize],
    par: Parallelism,
) -> Result<u64, LocalityError> {
    check_window_order(a.nrows(), order)?;
    let ranges = even_ranges(order.len().saturating_sub(1), 4 * par.threads());
    Ok(par
        .map(ranges, |range| {
            let mut sum = 0;
            for_pair_distances(a, range, RowSequence::Ordered(order), |_, d| sum += d);
            sum
        })
        .into_iter()
        .sum())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::spec_example;

    #[test]
    fn spec_worked_example_row_distances() {
        let a = spec_example();
        assert_eq!(row_distance(&a, 0, 1), 2);
        assert_eq!(row_distance(&a, 1, 2), 3);
        assert_eq!(row_distance(&a, 2, 3), 4);
        assert_eq!(row_distance(&a, 0, 3), 1);
        assert_eq!(row_distance(&a, 3, 1), 1);
        for par in [Parallelism::Sequential, Parallelism::Rayon] {
            assert_eq!(total_distance(&a, par), 9);
            assert_eq!(adjacent_row_distances(&a, par), vec![2, 3, 4]);
        }
    }

    use proptest::prelude::{Just, Strategy};

    proptest::proptest! {
        /// `D` in an order is `D` of the matrix with its rows permuted so; rows up to 12 long, so
        /// that both the register kernel and the fallback count.
        #[test]
        fn distance_in_order_is_that_of_the_permuted_rows(
            (rows, order) in proptest::collection::vec(
                proptest::collection::btree_set(0u32..30, 0..12), 0..300,
            )
                .prop_flat_map(|rows| {
                    let n = rows.len();
                    (Just(rows), Just((0..n).collect::<Vec<usize>>()).prop_shuffle())
                }),
        ) {
            let triplets = rows
                .iter()
                .enumerate()
                .flat_map(|(i, r)| r.iter().map(move |&c| (i, c as usize, 1.0)));
            let a = CsrMatrix::from_triplets(rows.len(), 30, triplets).unwrap();
            let p = spmv_reorder_sparse::Permutation::from_new_to_old(order).unwrap();
            let permuted = a.permute_rows(&p).unwrap();
            for par in [Parallelism::Sequential, Parallelism::Rayon] {
                proptest::prop_assert_eq!(
                    distance_in_order(&a, p.new_to_old(), par).unwrap(),
                    total_distance(&permuted, par)
                );
            }
        }

        #[test]
        fn intersection_matches_brute_force(
            s in proptest::collection::btree_set(0u32..200, 0..40),
            t in proptest::collection::btree_set(0u32..200, 0..40),
        ) {
            // Short pairs compare every pair, longer ones merge.
            let (s, t): (Vec<u32>, Vec<u32>) = (s.into_iter().collect(), t.into_iter().collect());
            let expect = s.iter().filter(|c| t.contains(c)).count();
            proptest::prop_assert_eq!(intersection_len(&s, &t), expect);
            proptest::prop_assert_eq!(intersection_len(&t, &s), expect);
            proptest::prop_assert_eq!(set_distance(&s, &t), (s.len() + t.len() - 2 * expect) as u64);
        }

        #[test]
        fn unequal_lists_are_searched_exactly(
            s in proptest::collection::btree_set(0u32..3000, 0..12),
            t in proptest::collection::btree_set(0u32..3000, 0..2000),
        ) {
            // One list 32 times longer than the other (or more): binary searches.
            let (s, t): (Vec<u32>, Vec<u32>) = (s.into_iter().collect(), t.into_iter().collect());
            let expect = s.iter().filter(|c| t.binary_search(c).is_ok()).count();
            proptest::prop_assert_eq!(intersection_len(&s, &t), expect);
            proptest::prop_assert_eq!(intersection_len(&t, &s), expect);
        }
    }

    #[test]
    fn distance_in_order_refuses_what_is_not_an_order() {
        let a = spec_example();
        for order in [vec![0, 1, 2], vec![0, 1, 2, 2], vec![0, 1, 2, 4]] {
            assert!(matches!(
                distance_in_order(&a, &order, Parallelism::Sequential),
                Err(LocalityError::InvalidWindowOrder { .. })
            ));
        }
        assert_eq!(
            distance_in_order(&a, &[0, 3, 1, 2], Parallelism::Sequential).unwrap(),
            1 + 1 + 3
        );
    }

    #[test]
    fn degenerate_matrices_have_zero_distance() {
        let empty: CsrMatrix<()> = CsrMatrix::from_triplets(0, 0, vec![]).unwrap();
        let one = CsrMatrix::from_triplets(1, 3, vec![(0, 1, 1.0)]).unwrap();
        let blank: CsrMatrix<f64> = CsrMatrix::from_triplets(5, 5, vec![]).unwrap();
        for par in [Parallelism::Sequential, Parallelism::Rayon] {
            assert_eq!(total_distance(&empty, par), 0);
            assert_eq!(total_distance(&one, par), 0);
            assert_eq!(total_distance(&blank, par), 0);
            assert!(adjacent_row_distances(&empty, par).is_empty());
            assert!(adjacent_row_distances(&one, par).is_empty());
        }
    }

    #[test]
    fn column_axis_is_the_transpose() {
        let a = spec_example();
        let c = Axis::Columns.pattern(&a);
        assert_eq!(c.nrows(), 6);
        // Columns: c0={0,3}, c1={0,1,3}, c2={1,3}, c3={}, c4={}, c5={2}.
        assert_eq!(row_distance(&c, 0, 1), 1);
        // d = 1, 1, 2, 0, 1.
        assert_eq!(total_distance(&c, Parallelism::Rayon), 5);
        assert_eq!(Axis::Rows.pattern(&a), a.pattern());
    }
}
