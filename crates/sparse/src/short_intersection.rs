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

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::{
        _mm512_mask_cmpeq_epi32_mask, _mm512_maskz_loadu_epi32, _mm512_set1_epi32,
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
