//! `|S ∩ T|` for two short lists of distinct column numbers in one AVX-512 register: the longer
//! list (at most [`MAX_LEN`] entries) is loaded once, and each entry of the shorter one is
//! compared with all of it at once, so a pair of 7-entry rows (a 3D 7-point grid's) takes 7
//! compares instead of the 49 of comparing every pair or the 14 dependent steps of a merge.
//!
//! The locality model asks this for every pair of adjacent rows (the variable windows) and for
//! every pair of windows its TSP cost oracle prices: measured on the 1M adjacent row pairs of a
//! shuffled 100³ grid, see `spmv-reorder-locality`'s `intersection_len`. It lives here, with the
//! crate's other `unsafe` helpers, so that the locality crate stays free of `unsafe`; machines
//! without AVX-512F get `None` and the caller's scalar path.
//!
//! ```
//! use spmv_reorder_sparse::short_intersection::intersection_len;
//!
//! if let Some(common) = intersection_len(&[1, 4, 9], &[0, 4, 5, 9, 12]) {
//!     assert_eq!(common, 2);
//! }
//! ```

/// Longest list the kernel takes: one register of 16 lanes.
pub const MAX_LEN: usize = 16;

/// `|S ∩ T|` for lists of distinct entries each (sorted or not) of at most [`MAX_LEN`] entries each,
/// or `None` when the kernel does not apply: a longer list, or no AVX-512F on this machine.
#[inline]
pub fn intersection_len(s: &[u32], t: &[u32]) -> Option<usize> {
    if s.len() > MAX_LEN || t.len() > MAX_LEN || !crate::overlap_kernel::available() {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: AVX-512F is present (checked above) and both lists hold at most 16 entries,
        // which is what `avx512::intersection_len` reads.
        Some(unsafe { avx512::intersection_len(s, t) })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        unreachable!("available() is false off x86-64")
    }
}

/// Longest row [`adjacent_xor_lens`] compares: half a register.
pub const ADJACENT_MAX_LEN: usize = 8;

/// What [`adjacent_xor_lens`] writes for a pair it does not count.
pub const NOT_COUNTED: u32 = u32::MAX;

/// Writes `|C_i xor C_{i+1}| = |C_i| + |C_{i+1}| - 2|C_i ∩ C_{i+1}|` of rows `i = first + k` and
/// `i + 1` of `a` to `out[k]`, for every `k`, when both rows have at most [`ADJACENT_MAX_LEN`]
/// entries, and [`NOT_COUNTED`] otherwise (the caller counts those another way). Every pair is
/// [`NOT_COUNTED`] on machines without AVX-512F and AVX-512CD, and for a matrix of more than
/// `u32::MAX - 16` columns (the kernel pads with the top 16 values).
///
/// Both rows go in one register, row `i` in the low 8 lanes and row `i + 1` in the high ones, and
/// the conflict detection instruction finds the entries of the second equal to one of the first;
/// each row is loaded once and kept for the next pair. On the 1M adjacent row pairs of a shuffled
/// 100³ grid, one thread: 2.7 ms, against 7.4 ms for [`intersection_len`] a pair (best of 15).
/// The counts are written to a buffer rather than handed to a closure: a closure called from
/// the kernel was not inlined into it, and the call cost more than the count. They are the
/// symmetric differences, not the intersections, because the kernel has the rows' lengths at
/// hand: a caller reading them again took a fifth longer.
///
/// # Panics
/// If `out` is not empty and `first + out.len() >= a.nrows()` (row `i + 1` must exist).
///
/// ```
/// use spmv_reorder_sparse::short_intersection::{adjacent_xor_lens, NOT_COUNTED};
/// use spmv_reorder_sparse::CsrMatrix;
///
/// let a = CsrMatrix::from_triplets(3, 4, vec![(0, 1, 1.0), (0, 3, 1.0), (1, 3, 1.0), (2, 0, 1.0)])
///     .unwrap();
/// // Rows {1, 3}, {3} and {0}: one column apart, then two.
/// let mut xor = [0; 2];
/// adjacent_xor_lens(&a, 0, &mut xor);
/// assert!(xor == [1, 2] || xor == [NOT_COUNTED; 2]);
/// ```
pub fn adjacent_xor_lens<T: crate::Value>(a: &crate::CsrMatrix<T>, first: usize, out: &mut [u32]) {
    if out.is_empty() {
        return;
    }
    let last = first + out.len() - 1;
    assert!(last + 1 < a.nrows(), "row {last} has no next row");
    xor_lens(a, |k| first + k, out);
}

/// [`adjacent_xor_lens`] for rows taken in the order `rows`: writes `|C_r xor C_s|` of rows
/// `r = rows[k]` and `s = rows[k + 1]` to `out[k]`, or [`NOT_COUNTED`], for every `k`. It measures
/// an order's `D` without building the permuted matrix: see `spmv-reorder-locality`'s
/// `distance_in_order`.
///
/// # Panics
/// If `rows.len() != out.len() + 1` (for a non-empty `out`) or a row is not a row of `a`.
///
/// ```
/// use spmv_reorder_sparse::short_intersection::{ordered_xor_lens, NOT_COUNTED};
/// use spmv_reorder_sparse::CsrMatrix;
///
/// let a = CsrMatrix::from_triplets(3, 4, vec![(0, 1, 1.0), (0, 3, 1.0), (1, 3, 1.0), (2, 0, 1.0)])
///     .unwrap();
/// // Rows {0}, {1, 3} and {3}: three columns apart, then one.
/// let mut xor = [0; 2];
/// ordered_xor_lens(&a, &[2, 0, 1], &mut xor);
/// assert!(xor == [3, 1] || xor == [NOT_COUNTED; 2]);
/// ```
pub fn ordered_xor_lens<T: crate::Value>(a: &crate::CsrMatrix<T>, rows: &[usize], out: &mut [u32]) {
    if out.is_empty() {
        return;
    }
    assert_eq!(rows.len(), out.len() + 1, "one row more than pairs");
    let n = a.nrows();
    assert!(rows.iter().all(|&r| r < n), "a row beyond the matrix's {n}");
    xor_lens(a, |k| rows[k], out);
}

/// The pairs `(row(k), row(k + 1))` for `k < out.len()`, through the kernel when the machine and
/// the matrix allow, else [`NOT_COUNTED`]. `row` must give rows of `a` (it is indexed with them).
fn xor_lens<T: crate::Value>(
    a: &crate::CsrMatrix<T>,
    row: impl Fn(usize) -> usize,
    out: &mut [u32],
) {
    #[cfg(target_arch = "x86_64")]
    if a.ncols() <= (u32::MAX - 16) as usize
        && crate::overlap_kernel::available()
        && std::arch::is_x86_feature_detected!("avx512cd")
    {
        // SAFETY: AVX-512F and AVX-512CD are present (checked above), `a` is a valid CSR
        // structure (its invariant) and its columns are below `u32::MAX - 16` (checked), as
        // `avx512::xor_lens` requires; a row out of range panics on indexing `row_ptr`.
        unsafe { avx512::xor_lens(a.row_ptr(), a.col_idx(), row, out) };
        return;
    }
    // Off x86-64 neither is read.
    let _ = (a, &row);
    out.fill(NOT_COUNTED);
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::{
        _mm512_castsi512_si256, _mm512_conflict_epi32, _mm512_inserti64x4,
        _mm512_mask_cmpeq_epi32_mask, _mm512_mask_loadu_epi32, _mm512_mask_mov_epi32,
        _mm512_maskz_loadu_epi32, _mm512_set1_epi32, _mm512_setr_epi32, _mm512_test_epi32_mask,
    };

    /// # Safety
    /// The CPU must have AVX-512F, and `s` and `t` at most 16 entries each.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn intersection_len(s: &[u32], t: &[u32]) -> usize {
        debug_assert!(s.len() <= 16 && t.len() <= 16);
        let (short, long) = if s.len() <= t.len() { (s, t) } else { (t, s) };
        let lanes: u16 = ((1u32 << long.len()) - 1) as u16;
        // SAFETY: the masked load reads only the first `long.len()` lanes, all inside `long`
        // (masked-off lanes are neither read nor faulted on), and AVX-512F is present (the
        // caller's contract).
        let all = unsafe { _mm512_maskz_loadu_epi32(lanes, long.as_ptr().cast()) };
        // Entries are distinct, so a lane of `long` equals at most one entry of `short`: the
        // lanes matched, or-ed, are counted once (a count per compare, without the POPCNT
        // instruction this function does not ask for, took half the time of the variable
        // windows' distances).
        let matched = short.iter().fold(0u16, |matched, &a| {
            matched | _mm512_mask_cmpeq_epi32_mask(lanes, all, _mm512_set1_epi32(a as i32))
        });
        matched.count_ones() as usize
    }

    /// See [`super::adjacent_xor_lens`] and [`super::ordered_xor_lens`]: the pairs are
    /// `(row(k), row(k + 1))`.
    ///
    /// # Safety
    /// The CPU must have AVX-512F and AVX-512CD; `row_ptr` and `col_idx` must be a valid CSR
    /// structure (offsets non-decreasing and within `col_idx`) with every column below
    /// `u32::MAX - 16`. (A row out of range panics on indexing `row_ptr`.)
    #[target_feature(enable = "avx512f,avx512cd")]
    pub(super) unsafe fn xor_lens(
        row_ptr: &[usize],
        col_idx: &[u32],
        row: impl Fn(usize) -> usize,
        out: &mut [u32],
    ) {
        // Padding lanes hold distinct values no column takes (the top 16 `u32`s), so that padding
        // matches neither a column nor other padding.
        let padding = _mm512_setr_epi32(
            -1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12, -13, -14, -15, -16,
        );
        let low_half = |i: usize| {
            let start = row_ptr[i];
            let len = row_ptr[i + 1] - start;
            let lanes = ((1u32 << len.min(super::ADJACENT_MAX_LEN)) - 1) as u16;
            // SAFETY: the mask reads at most the row's first 8 entries, all inside `col_idx`
            // (a valid CSR structure); masked-off lanes are neither read nor faulted on.
            let cols = unsafe {
                _mm512_mask_loadu_epi32(padding, lanes, col_idx.as_ptr().add(start).cast())
            };
            (len, lanes, cols)
        };
        let (mut len, _, mut cols) = low_half(row(0));
        for (k, xor) in out.iter_mut().enumerate() {
            let (next_len, next_lanes, next) = low_half(row(k + 1));
            *xor = if len <= super::ADJACENT_MAX_LEN && next_len <= super::ADJACENT_MAX_LEN {
                // The pair's first row in lanes 0-7, its second in lanes 8-15 with its own padding
                // values.
                let both = _mm512_inserti64x4(cols, _mm512_castsi512_si256(next), 1);
                let both = _mm512_mask_mov_epi32(both, !(next_lanes << 8) & 0xFF00, padding);
                // A lane's conflict bits mark the earlier lanes equal to it: within a row entries
                // are distinct, so a high lane has some exactly when the first row holds its
                // column.
                let conflicts = _mm512_conflict_epi32(both);
                let common = (_mm512_test_epi32_mask(conflicts, conflicts) & 0xFF00).count_ones();
                (len + next_len) as u32 - 2 * common
            } else {
                super::NOT_COUNTED
            };
            (len, cols) = (next_len, next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]

        #[test]
        fn kernel_counts_the_common_entries(
            s in proptest::collection::btree_set(any::<u32>(), 0..=MAX_LEN),
            t in proptest::collection::btree_set(any::<u32>(), 0..=MAX_LEN),
            shared in proptest::collection::btree_set(0u32..40, 0..=8),
        ) {
            // Random lists plus a few common entries (random `u32`s alone seldom meet), each at
            // most 16 long; `u32::MAX` and values with the top bit set are covered by `any`.
            let mut s: Vec<u32> = s.into_iter().take(MAX_LEN - shared.len()).collect();
            let mut t: Vec<u32> = t.into_iter().take(MAX_LEN - shared.len()).collect();
            s.extend(&shared);
            t.extend(&shared);
            s.sort_unstable();
            s.dedup();
            t.sort_unstable();
            t.dedup();
            let expect = s.iter().filter(|c| t.contains(c)).count();
            match intersection_len(&s, &t) {
                Some(common) => {
                    prop_assert_eq!(common, expect);
                    prop_assert_eq!(intersection_len(&t, &s), Some(expect));
                }
                None => prop_assert!(!crate::overlap_kernel::available()),
            }
        }
    }

    /// A matrix whose rows are `rows`, with `ncols` columns.
    fn matrix_of(rows: &[Vec<u32>], ncols: usize) -> crate::CsrMatrix<()> {
        let triplets: Vec<_> = rows
            .iter()
            .enumerate()
            .flat_map(|(i, row)| row.iter().map(move |&c| (i, c as usize, ())))
            .collect();
        crate::CsrMatrix::from_triplets(rows.len(), ncols, triplets).unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn adjacent_rows_count_their_differences(
            rows in proptest::collection::vec(proptest::collection::btree_set(0u32..24, 0..=11), 2..40),
            top in any::<bool>(),
        ) {
            // Columns from a narrow range meet often; rows of 9 or more entries are declined.
            // With `top`, the columns are the largest the kernel takes, next to its padding.
            let ncols = if top { (u32::MAX - 16) as usize } else { 24 };
            let shift = (ncols - 24) as u32;
            let rows: Vec<Vec<u32>> =
                rows.into_iter().map(|r| r.into_iter().map(|c| c + shift).collect()).collect();
            let a = matrix_of(&rows, ncols);
            let start = rows.len() / 3;
            let mut xor = vec![0; rows.len() - 1 - start];
            adjacent_xor_lens(&a, start, &mut xor);
            let kernel = crate::overlap_kernel::available()
                && std::arch::is_x86_feature_detected!("avx512cd");
            for (k, xor) in xor.into_iter().enumerate() {
                let (s, t) = (&rows[start + k], &rows[start + k + 1]);
                let short = s.len() <= ADJACENT_MAX_LEN && t.len() <= ADJACENT_MAX_LEN;
                let common = s.iter().filter(|c| t.contains(c)).count();
                let expect = (s.len() + t.len() - 2 * common) as u32;
                prop_assert_eq!(xor, if kernel && short { expect } else { NOT_COUNTED });
            }
        }

        #[test]
        fn rows_in_any_order_count_their_differences(
            (rows, order) in proptest::collection::vec(
                proptest::collection::btree_set(0u32..24, 0..=11), 2..40,
            )
                .prop_flat_map(|rows| {
                    let n = rows.len();
                    (Just(rows), proptest::collection::vec(0..n, 2 * n))
                }),
        ) {
            // A row may follow itself or any other, in any order (rows repeat here).
            let rows: Vec<Vec<u32>> = rows.into_iter().map(|r| r.into_iter().collect()).collect();
            let a = matrix_of(&rows, 24);
            let mut xor = vec![0; order.len() - 1];
            ordered_xor_lens(&a, &order, &mut xor);
            let kernel = crate::overlap_kernel::available()
                && std::arch::is_x86_feature_detected!("avx512cd");
            for (k, xor) in xor.into_iter().enumerate() {
                let (s, t) = (&rows[order[k]], &rows[order[k + 1]]);
                let short = s.len() <= ADJACENT_MAX_LEN && t.len() <= ADJACENT_MAX_LEN;
                let common = s.iter().filter(|c| t.contains(c)).count();
                let expect = (s.len() + t.len() - 2 * common) as u32;
                prop_assert_eq!(xor, if kernel && short { expect } else { NOT_COUNTED });
            }
        }
    }

    #[test]
    #[should_panic(expected = "one row more than pairs")]
    fn ordered_rows_need_one_row_more_than_pairs() {
        let a = matrix_of(&[vec![0], vec![1]], 2);
        ordered_xor_lens(&a, &[0, 1], &mut [0; 2]);
    }

    #[test]
    #[should_panic(expected = "a row beyond the matrix's 2")]
    fn ordered_rows_must_be_rows() {
        let a = matrix_of(&[vec![0], vec![1]], 2);
        ordered_xor_lens(&a, &[0, 2], &mut [0; 1]);
    }

    #[test]
    fn adjacent_rows_beyond_the_padding_are_declined() {
        // Columns up to `u32::MAX`: padding could equal a column, so no pair is counted.
        let rows = vec![vec![u32::MAX - 1], vec![u32::MAX - 1]];
        let a = matrix_of(&rows, u32::MAX as usize);
        let mut xor = [0];
        adjacent_xor_lens(&a, 0, &mut xor);
        assert_eq!(xor, [NOT_COUNTED]);
        adjacent_xor_lens(&a, 1, &mut []);
    }

    #[test]
    #[should_panic(expected = "row 1 has no next row")]
    fn adjacent_rows_need_a_next_row() {
        let a = matrix_of(&[vec![0], vec![1]], 2);
        adjacent_xor_lens(&a, 0, &mut [0; 2]);
    }

    #[test]
    fn kernel_declines_long_lists() {
        let long: Vec<u32> = (0..MAX_LEN as u32 + 1).collect();
        assert_eq!(intersection_len(&long, &[1, 2]), None);
        assert_eq!(intersection_len(&[1, 2], &long), None);
        if crate::overlap_kernel::available() {
            assert_eq!(intersection_len(&[], &[]), Some(0));
            assert_eq!(intersection_len(&long[..16], &long[8..16]), Some(8));
            // A list ending at the end of its allocation: the masked load reads nothing beyond.
            let tail = vec![5u32; 1];
            assert_eq!(intersection_len(&tail, &[5]), Some(1));
        }
    }
}
