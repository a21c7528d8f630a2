//! `S₁ ∪ … ∪ Sₖ` of up to [`MAX_LISTS`] short sorted lists (at most [`MAX_LEN`] entries each) in
//! two AVX-512 registers: each list takes a block of 8 lanes, the blocks are merged by the last
//! stages of a bitonic network (the overlap kernel's), and equal neighbours are dropped by a
//! compress. The locality model's footprint of a window of three rows of a 3D 7-point grid (the
//! variable windows around its boundary rows) took about 150 ns copied and insertion-sorted.
//!
//! It lives here, with the crate's other `unsafe` helpers, so that the locality crate stays free
//! of `unsafe`; machines without AVX-512F, and lists it does not take, get `None` and the caller's
//! scalar path.
//!
//! ```
//! use spmv_reorder_sparse::short_union::union_into;
//!
//! let mut out = [0; 32];
//! if let Some(len) = union_into(&[&[1, 4, 9], &[0, 4, 5], &[9, 12]], &mut out) {
//!     assert_eq!(&out[..len], &[0, 1, 4, 5, 9, 12]);
//! }
//! ```

/// Most lists the kernel takes: four blocks of 8 lanes.
pub const MAX_LISTS: usize = 4;

/// Longest list the kernel takes: a block of 8 lanes.
pub const MAX_LEN: usize = 8;

/// Writes the sorted distinct entries of `lists` (each strictly increasing) at the front of
/// `out` and returns how many; `None` when the kernel does not apply: more than [`MAX_LISTS`]
/// lists, a list longer than [`MAX_LEN`] or holding `u32::MAX` (the kernel's padding), or no
/// AVX-512F on this machine.
pub fn union_into(lists: &[&[u32]], out: &mut [u32; 32]) -> Option<usize> {
    let fits = lists.len() <= MAX_LISTS
        && lists
            .iter()
            .all(|l| l.len() <= MAX_LEN && l.last() != Some(&u32::MAX));
    if !fits || !crate::overlap_kernel::available() {
        return None;
    }
    debug_assert!(lists.iter().all(|l| l.windows(2).all(|p| p[0] < p[1])));
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: AVX-512F is present (checked above), there are at most 4 lists of at most 8
        // entries, which is what `avx512::union_into` reads, and `out` holds 32 entries.
        Some(unsafe { avx512::union_into(lists, out) })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        unreachable!("available() is false off x86-64")
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use crate::overlap_kernel::avx512::sort32_of_sorted_blocks;
    use std::arch::x86_64::*;

    /// See [`super::union_into`].
    ///
    /// # Safety
    /// AVX-512F must be available, and `lists` hold at most 4 lists of at most 8 entries.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn union_into(lists: &[&[u32]], out: &mut [u32; 32]) -> usize {
        let padding = _mm512_set1_epi32(-1);
        let mut v = [padding; 2];
        for (b, list) in lists.iter().enumerate() {
            let lanes = ((1u32 << list.len()) - 1) as u16;
            // SAFETY: the mask reads the list's `len() <= 8` entries and no other lane.
            let loaded = unsafe { _mm512_mask_loadu_epi32(padding, lanes, list.as_ptr().cast()) };
            let block = _mm512_castsi512_si256(loaded);
            let (r, half) = (b / 2, b % 2);
            v[r] = if half == 0 {
                _mm512_inserti64x4(v[r], block, 0)
            } else {
                _mm512_inserti64x4(v[r], block, 1)
            };
        }
        sort32_of_sorted_blocks(&mut v);
        // Keep an entry unless it equals the one before it or is padding.
        let mut before = _mm512_set1_epi32(!_mm512_cvtsi512_si32(v[0]));
        let mut at = 0;
        for reg in v {
            let previous = _mm512_alignr_epi32(reg, before, 15);
            let keep =
                _mm512_cmpneq_epu32_mask(reg, previous) & _mm512_cmpneq_epu32_mask(reg, padding);
            // SAFETY: `at <= 16` before each store (16 lanes at most in the first register), so
            // the 16 lanes stored fit `out`'s 32.
            unsafe {
                _mm512_storeu_si512(
                    out.as_mut_ptr().add(at).cast(),
                    _mm512_maskz_compress_epi32(keep, reg),
                )
            };
            at += keep.count_ones() as usize;
            before = reg;
        }
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn union_is_the_sorted_distinct_entries(
            lists in proptest::collection::vec(
                proptest::collection::btree_set(0u32..40, 0..10), 0..6),
            big in any::<bool>(),
        ) {
            // Entries near `u32::MAX` too (but not it), so that no order assumption hides.
            let lists: Vec<Vec<u32>> = lists
                .into_iter()
                .map(|l| l.into_iter().map(|x| if big { u32::MAX - 1 - x } else { x }).collect())
                .map(|mut l: Vec<u32>| { l.sort_unstable(); l })
                .collect();
            let refs: Vec<&[u32]> = lists.iter().map(|l| &l[..]).collect();
            let mut expect: Vec<u32> = lists.iter().flatten().copied().collect();
            expect.sort_unstable();
            expect.dedup();
            let mut out = [0; 32];
            match union_into(&refs, &mut out) {
                Some(len) => prop_assert_eq!(&out[..len], &expect[..]),
                None => prop_assert!(
                    lists.len() > MAX_LISTS
                        || lists.iter().any(|l| l.len() > MAX_LEN)
                        || !crate::overlap_kernel::available()
                ),
            }
        }
    }

    #[test]
    fn declines_padding_and_long_lists() {
        let mut out = [0; 32];
        assert_eq!(union_into(&[&[1, u32::MAX]], &mut out), None);
        assert_eq!(union_into(&[&[0, 1, 2, 3, 4, 5, 6, 7, 8]], &mut out), None);
        assert_eq!(union_into(&[&[1], &[2], &[3], &[4], &[5]], &mut out), None);
        if crate::overlap_kernel::available() {
            assert_eq!(union_into(&[], &mut out), Some(0));
            assert_eq!(union_into(&[&[3, 7], &[7, 9]], &mut out), Some(3));
            assert_eq!(&out[..3], &[3, 7, 9]);
        }
    }
}
