//! The candidate search of one small window of the locality model (`spmv-reorder-locality`'s
//! window graph) without a hash table: the window's index lists (at most [`MAX_WORK`] entries in
//! all), rotated so that they order like the rank's ties (`n(h)`, then `h`), are sorted in
//! AVX-512 registers by a bitonic network (from its 7th stage when every list is sorted already;
//! a window of more than [`SORTED_WORK`] entries leaves out its padding and its own entry first),
//! equal entries are counted as runs, and the best `K` (at most [`MAX_KEEP`]) are the runs of the
//! largest count, then of the next, in run order. The hash accumulator and the top-K insertion
//! took about 4,000 instructions and 25 mispredicts per window of the shuffled 3D Poisson grid
//! (w=1: 49 entries, 25 distinct windows); here the sort is branch-free and the selection loops
//! over one or two count levels. The result is the scalar path's (same keys, same order, same two
//! cheapest costs), which a test checks on random inputs.
//!
//! It lives here, with the crate's other `unsafe` helper, so that the locality crate stays free
//! of `unsafe`. Called by the locality crate's candidate search for its default rank (largest
//! overlap, packed footprint lengths) on x86-64 machines with AVX-512F, checked at
//! run time; other machines and other windows take the scalar path. SPEC section 4.
//!
//! ```
//! use spmv_reorder_sparse::overlap_kernel::{rank, OverlapLists};
//!
//! // Window 0 (entry `0 << 4 | 2`: window 0, 2 columns) shares its two columns with window 1
//! // and one with window 2; entries pack `window << len_bits | n(window)`.
//! let entry = |h: u32, n: u32| h << 4 | n;
//! let entries = [entry(0, 2), entry(1, 3), entry(2, 1), entry(0, 2), entry(1, 3)];
//! let lists = OverlapLists {
//!     entries: &entries,
//!     spans: &[0..3, 3..5],
//!     own: entry(0, 2),
//!     n_g: 2,
//!     len_bits: 4,
//!     bounds: [3, 3],
//!     keep: 2,
//! };
//! if let Some(ranked) = rank(&lists) {
//!     // Window 1 first (overlap 2), then window 2 (overlap 1).
//!     assert_eq!(ranked.kept, 2);
//!     assert_eq!(ranked.keys[0] >> 32, u64::from(u32::MAX - 2));
//!     assert_eq!(ranked.own_overlap, 2);
//!     assert_eq!(ranked.cheapest, [1, 1]); // n(g) + n(h) - 2a: 2 + 3 - 4 and 2 + 1 - 2
//! }
//! ```

use std::ops::Range;

/// Most index entries (the window's work, padding included) the kernel takes. Windows of at most
/// 64 entries (a shuffled 3D grid's one-row windows: 7 lists of 8 with padding) are sorted in four
/// registers, of at most [`SORTED_WORK`] (its two-row windows: about 13 lists) in eight. Larger
/// ones (its three-row windows: about 20 lists, 160 entries) are sorted in eight registers too
/// when their entries other than padding and the window's own fit them (about 113 there), and
/// declined otherwise.
pub const MAX_WORK: usize = 256;

/// Most entries the kernel sorts: eight registers of 16.
pub const SORTED_WORK: usize = 128;

/// Most index entries sorted in four registers, the kernel's narrow form.
const NARROW_WORK: usize = 64;

/// Fewest index entries for which the kernel is worth its fixed cost (the caller's choice: a hash
/// table is faster for a few entries). On the shuffled 1M-row grid with a 2% sample (most windows
/// have 1-3 entries), the kernel for every window made the candidate search slower.
pub const MIN_WORK: usize = 16;

/// Most candidates the kernel keeps: one register of 8 keys.
pub const MAX_KEEP: usize = 8;

/// An entry that stands for no window (never a window's entry: see [`OverlapLists::entries`]):
/// lists of an index laid out with a fixed stride end with it, and it is skipped.
pub const PADDING: u32 = u32::MAX;

/// What the scalar path computes for a window, from its index entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverlapRanking {
    /// The best keys, increasing; `kept` of them are candidates, the rest `u64::MAX`.
    pub keys: [u64; MAX_KEEP],
    /// Number of candidate keys in `keys` (at most the `keep` asked for).
    pub kept: usize,
    /// The two smallest of `bounds` and every candidate's cost `n(g) + n(h) - 2a(g,h)`.
    pub cheapest: [u64; 2],
    /// How many times the window's own entry occurs (`a(g,g)`).
    pub own_overlap: u32,
}

/// The inputs of [`rank`].
#[derive(Debug, Clone, Copy)]
pub struct OverlapLists<'e> {
    /// The whole index: entries `h << len_bits | n(h)`, none of them [`PADDING`] except the
    /// padding at the end of a list, which is skipped.
    pub entries: &'e [u32],
    /// The window's lists in `entries`, at most [`MAX_WORK`] entries in all (padding
    /// included).
    pub spans: &'e [Range<usize>],
    /// The window's own entry (counted, not a candidate).
    pub own: u32,
    /// `n(g)`.
    pub n_g: u64,
    /// Bits of an entry holding `n(h)`, at most 31 (every `n(h)` is held: the default rank's
    /// narrow keys).
    pub len_bits: u32,
    /// `n(g) + ` the two smallest `n(h)`: the costs of windows not seen.
    pub bounds: [u64; 2],
    /// Candidates to keep, `1..=MAX_KEEP`.
    pub keep: usize,
}

/// Whether this machine runs the kernel (AVX-512F; checked once per search, the macro caches).
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Ranks the candidates of `window` as the scalar path does (keys `(u32::MAX - a) << 32 |
/// entry.rotate_right(len_bits)`), or `None` when the kernel does not apply: no AVX-512F, more
/// than [`MAX_WORK`] entries (padding included), more than [`SORTED_WORK`] of them other than
/// padding and the window's own, `keep` outside `1..=MAX_KEEP`, `len_bits` above 31, or `n_g`
/// above [`MAX_WORK`] (then the lists cannot hold the window's own entry once per column: the
/// index is not the footprints' transpose, which the scalar path reports).
///
/// # Panics
/// If a span is outside `entries` (a caller bug).
pub fn rank(window: &OverlapLists<'_>) -> Option<OverlapRanking> {
    let work: usize = window.spans.iter().map(|s| s.len()).sum();
    if work > MAX_WORK
        || !(1..=MAX_KEEP).contains(&window.keep)
        || window.len_bits > 31
        || window.n_g > MAX_WORK as u64
        || !available()
    {
        return None;
    }
    for span in window.spans {
        assert!(
            span.start <= span.end && span.end <= window.entries.len(),
            "span outside the index"
        );
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: AVX-512F is present (checked above), the spans are inside `entries` (asserted)
        // and hold at most `MAX_WORK` entries in all (padding included), which is what
        // `avx512::rank` reads.
        unsafe { avx512::rank(window, work) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        unreachable!("available() is false off x86-64")
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512 {
    use super::{OverlapLists, OverlapRanking, MAX_KEEP, NARROW_WORK, PADDING, SORTED_WORK};
    use std::arch::x86_64::*;
    use std::ops::{BitAnd, BitOr, BitOrAssign, Not};

    /// Lanes of a register of `u32`.
    const LANES: usize = 16;
    /// Lanes of a sorted block the network merges first (and of a list's own slot).
    const BLOCK: usize = 8;

    /// One bit per lane of the kernel's `R` registers: `u64` for four, `u128` for eight.
    trait LaneMask:
        Copy + Eq + BitAnd<Output = Self> + BitOr<Output = Self> + BitOrAssign + Not<Output = Self>
    {
        /// No lane.
        const ZERO: Self;
        /// One mask per possible count of a run (`R · 16 + 1`), all `ZERO`.
        type Levels: AsRef<[Self]> + AsMut<[Self]>;
        /// A fresh [`Self::Levels`].
        fn levels() -> Self::Levels;
        /// The 16 lanes of register `r` set as in `lanes`.
        fn at(lanes: u16, r: usize) -> Self;
        /// The 16 lanes of register `r`.
        fn lanes(self, r: usize) -> u16;
        /// The lowest `n` lanes (all of them for `n` at least the width).
        fn low(n: usize) -> Self;
        /// Lanes set.
        fn count(self) -> u32;
    }

    macro_rules! lane_mask {
        ($t:ty) => {
            impl LaneMask for $t {
                const ZERO: Self = 0;
                type Levels = [$t; <$t>::BITS as usize + 1];

                #[inline(always)]
                fn levels() -> Self::Levels {
                    [0; <$t>::BITS as usize + 1]
                }

                #[inline(always)]
                fn at(lanes: u16, r: usize) -> Self {
                    (lanes as $t) << (r * LANES)
                }

                #[inline(always)]
                fn lanes(self, r: usize) -> u16 {
                    (self >> (r * LANES)) as u16
                }

                #[inline(always)]
                fn low(n: usize) -> Self {
                    if n < <$t>::BITS as usize {
                        (1 << n) - 1
                    } else {
                        <$t>::MAX
                    }
                }

                #[inline(always)]
                fn count(self) -> u32 {
                    self.count_ones()
                }
            }
        };
    }
    lane_mask!(u64);
    lane_mask!(u128);

    /// Lanes of the bitonic sort's compare-exchange at distance `j` in stage `k` (over `R · 16`
    /// elements, register `r`) that take the larger value.
    const fn take_max_u32(k: usize, j: usize, r: usize) -> u16 {
        let mut mask = 0u16;
        let mut lane = 0;
        while lane < LANES {
            let ascending = (r * LANES + lane) & k == 0;
            let upper = lane & j != 0;
            if ascending == upper {
                mask |= 1 << lane;
            }
            lane += 1;
        }
        mask
    }

    #[target_feature(enable = "avx512f")]
    fn iota32() -> __m512i {
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
    }

    /// One compare-exchange of every lane with lane `lane ^ j` (`u32`), the lanes of `take_max`
    /// keeping the larger value.
    #[target_feature(enable = "avx512f")]
    fn exchange32(v: __m512i, j: i32, take_max: u16) -> __m512i {
        let partner = _mm512_permutexvar_epi32(_mm512_xor_si512(iota32(), _mm512_set1_epi32(j)), v);
        let lo = _mm512_min_epu32(v, partner);
        let hi = _mm512_max_epu32(v, partner);
        _mm512_mask_blend_epi32(take_max, lo, hi)
    }

    /// [`exchange32`] on register `I` of `v`, if there is one: a constant index and mask each.
    #[target_feature(enable = "avx512f")]
    fn exchange_reg<const K: usize, const J: usize, const R: usize, const I: usize>(
        v: &mut [__m512i; R],
    ) {
        if I < R {
            v[I] = exchange32(v[I], J as i32, const { take_max_u32(K, J, I) });
        }
    }

    /// One stage of the bitonic sort of `R · 16` values: compare-exchange at distance `J` in the
    /// merge of blocks of `K`. Const parameters make every mask and permutation a constant.
    #[target_feature(enable = "avx512f")]
    fn stage32<const K: usize, const J: usize, const R: usize>(v: &mut [__m512i; R]) {
        const { assert!(R <= 8) };
        if J >= LANES {
            let step = J / LANES;
            for r in 0..R {
                let p = r ^ step;
                if r < p {
                    let lo = _mm512_min_epu32(v[r], v[p]);
                    let hi = _mm512_max_epu32(v[r], v[p]);
                    let ascending = (r * LANES) & K == 0;
                    (v[r], v[p]) = if ascending { (lo, hi) } else { (hi, lo) };
                }
            }
        } else {
            exchange_reg::<K, J, R, 0>(v);
            exchange_reg::<K, J, R, 1>(v);
            exchange_reg::<K, J, R, 2>(v);
            exchange_reg::<K, J, R, 3>(v);
            exchange_reg::<K, J, R, 4>(v);
            exchange_reg::<K, J, R, 5>(v);
            exchange_reg::<K, J, R, 6>(v);
            exchange_reg::<K, J, R, 7>(v);
        }
    }

    /// The first 6 stages of the bitonic sort of the `R · 16` values of `v`: blocks of 8,
    /// alternately increasing and decreasing.
    #[target_feature(enable = "avx512f")]
    fn sort_blocks8<const R: usize>(v: &mut [__m512i; R]) {
        stage32::<2, 1, R>(v);
        stage32::<4, 2, R>(v);
        stage32::<4, 1, R>(v);
        stage32::<8, 4, R>(v);
        stage32::<8, 2, R>(v);
        stage32::<8, 1, R>(v);
    }

    /// The other stages: sorts `v` (2, 4 or 8 registers) increasing from blocks of 8 alternately
    /// increasing and decreasing.
    #[target_feature(enable = "avx512f")]
    fn sort_tail<const R: usize>(v: &mut [__m512i; R]) {
        const { assert!((R == 2 || R == 4 || R == 8) && BLOCK == 8) };
        stage32::<16, 8, R>(v);
        stage32::<16, 4, R>(v);
        stage32::<16, 2, R>(v);
        stage32::<16, 1, R>(v);
        stage32::<32, 16, R>(v);
        stage32::<32, 8, R>(v);
        stage32::<32, 4, R>(v);
        stage32::<32, 2, R>(v);
        stage32::<32, 1, R>(v);
        if R >= 4 {
            stage32::<64, 32, R>(v);
            stage32::<64, 16, R>(v);
            stage32::<64, 8, R>(v);
            stage32::<64, 4, R>(v);
            stage32::<64, 2, R>(v);
            stage32::<64, 1, R>(v);
        }
        if R == 8 {
            // Registers 0-3 increase and 4-7 decrease: one more merge.
            stage32::<128, 64, R>(v);
            stage32::<128, 32, R>(v);
            stage32::<128, 16, R>(v);
            stage32::<128, 8, R>(v);
            stage32::<128, 4, R>(v);
            stage32::<128, 2, R>(v);
            stage32::<128, 1, R>(v);
        }
    }

    /// Reverses the upper block of 8 lanes of every register: increasing blocks then alternate
    /// increasing and decreasing, as the network's 7th stage takes them.
    #[target_feature(enable = "avx512f")]
    fn alternate_blocks<const R: usize>(v: &mut [__m512i; R]) {
        let reverse_upper = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 15, 14, 13, 12, 11, 10, 9, 8);
        for reg in v.iter_mut() {
            *reg = _mm512_permutexvar_epi32(reverse_upper, *reg);
        }
    }

    /// Sorts the 32 lanes of `v` increasing, each of whose blocks of 8 lanes is increasing
    /// already (the short lists of [`crate::short_union`]).
    #[target_feature(enable = "avx512f")]
    pub(crate) fn sort32_of_sorted_blocks(v: &mut [__m512i; 2]) {
        alternate_blocks(v);
        sort_tail(v);
    }

    /// Whether every block of 8 lanes of `v` is non-decreasing.
    #[target_feature(enable = "avx512f")]
    fn blocks_sorted<const R: usize>(v: &[__m512i; R]) -> bool {
        let mut descents = 0u16;
        for &reg in v {
            // Lane `l` against lane `l - 1`; lanes 0 and 8 start a block.
            let previous = _mm512_alignr_epi32(reg, reg, 15);
            descents |= _mm512_cmplt_epu32_mask(reg, previous);
        }
        descents & !0x0101 == 0
    }

    /// `(smallest, second smallest)` lane-wise, updated with the lanes of `x`.
    #[target_feature(enable = "avx512f")]
    fn two_smallest(pair: (__m512i, __m512i), x: __m512i) -> (__m512i, __m512i) {
        let (first, second) = pair;
        (
            _mm512_min_epu32(first, x),
            _mm512_min_epu32(second, _mm512_max_epu32(first, x)),
        )
    }

    /// See [`super::rank`]; `spanned` is the number of entries of the spans, padding included.
    /// At most [`NARROW_WORK`] are sorted in four registers, more in eight.
    ///
    /// # Safety
    /// AVX-512F must be available, the spans inside `window.entries` and `spanned <= MAX_WORK`.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn rank(window: &OverlapLists<'_>, spanned: usize) -> Option<OverlapRanking> {
        // One call in tail position each, so that the result is written where the caller wants
        // it: a choice between the two calls in the caller copied it through the stack, about
        // 5% of a one-row window's time in the kernel bench.
        if spanned <= NARROW_WORK {
            // SAFETY: as this function's contract, with `spanned <= 4 · 16`.
            Some(unsafe { rank_in::<4, u64>(window, spanned) })
        } else if spanned <= SORTED_WORK {
            // SAFETY: as this function's contract, with `spanned <= 8 · 16`.
            Some(unsafe { rank_in::<8, u128>(window, spanned) })
        } else {
            // SAFETY: as this function's contract.
            unsafe { rank_without_own(window) }
        }
    }

    /// [`rank`] for a window of more than [`SORTED_WORK`] entries: its lists without padding and
    /// without its own entry (which every list holds once, and which is counted, not ranked)
    /// are packed in a buffer and sorted in eight registers if they fit, else `None`.
    ///
    /// # Safety
    /// AVX-512F must be available and the spans inside `window.entries`.
    #[target_feature(enable = "avx512f")]
    unsafe fn rank_without_own(window: &OverlapLists<'_>) -> Option<OverlapRanking> {
        let padding = _mm512_set1_epi32(PADDING as i32);
        let own = _mm512_set1_epi32(window.own as i32);
        // Room for a store of 16 lanes at any packed length up to `SORTED_WORK`.
        let mut buf = [PADDING; SORTED_WORK + LANES];
        let (mut at, mut own_count) = (0, 0);
        let base = window.entries.as_ptr();
        for span in window.spans {
            let mut start = span.start;
            while start < span.end {
                let n = (span.end - start).min(LANES);
                let lanes = (u32::MAX >> (32 - n)) as u16;
                // SAFETY: lanes `start .. start + n` are inside the span, inside `entries` (the
                // caller's contract); the masked load reads no other lane. A strided index's
                // lists of 8 take a plain load of 8 (masked loads measured slow on this guest).
                let list = unsafe {
                    if n == BLOCK {
                        _mm512_castsi256_si512(_mm256_loadu_si256(base.add(start).cast()))
                    } else {
                        _mm512_maskz_loadu_epi32(lanes, base.add(start).cast())
                    }
                };
                let own_lanes = _mm512_mask_cmpeq_epu32_mask(lanes, list, own);
                let kept = _mm512_mask_cmpneq_epu32_mask(lanes, list, padding) & !own_lanes;
                own_count += own_lanes.count_ones();
                if at + kept.count_ones() as usize > SORTED_WORK {
                    return None;
                }
                // SAFETY: `at <= SORTED_WORK`, so the 16 lanes stored are inside `buf`; the
                // lanes past the kept ones are padding, overwritten by the next store or left.
                unsafe {
                    _mm512_storeu_si512(
                        buf.as_mut_ptr().add(at).cast(),
                        _mm512_mask_compress_epi32(padding, kept, list),
                    )
                };
                at += kept.count_ones() as usize;
                start += n;
            }
        }
        let mut v = [padding; 8];
        for (r, reg) in v.iter_mut().enumerate() {
            // SAFETY: `buf` holds `SORTED_WORK + 16` values; this reads 16 of the first 128.
            *reg = unsafe { _mm512_loadu_si512(buf.as_ptr().add(r * LANES).cast()) };
        }
        // SAFETY: AVX-512F is available (this function's contract).
        Some(unsafe { rank_loaded::<8, u128, false>(window, v, false, own_count) })
    }

    /// [`rank`] with the entries in `R` registers (4 or 8) whose lanes `M` has one bit each.
    ///
    /// # Safety
    /// AVX-512F must be available, the spans inside `window.entries` and `spanned <= R · 16`.
    #[target_feature(enable = "avx512f")]
    unsafe fn rank_in<const R: usize, M: LaneMask>(
        window: &OverlapLists<'_>,
        spanned: usize,
    ) -> OverlapRanking {
        const { assert!(R * LANES <= SORTED_WORK) };
        let width = R * LANES;
        debug_assert!(spanned <= width && (1..=MAX_KEEP).contains(&window.keep));
        debug_assert!(window.spans.iter().all(|s| s.end <= window.entries.len()));
        // The entries, then padding up to `R · 16`. Lists of at most 8 entries each (the usual
        // case: a shuffled 3D grid's window has 7 lists of 7) get 8 lanes of their own: each is
        // sorted already, so every block of 8 is sorted and the network starts at its 7th stage.
        let paired =
            window.spans.len() <= width / BLOCK && window.spans.iter().all(|s| s.len() <= BLOCK);
        let padding = _mm512_set1_epi32(PADDING as i32);
        let mut v = [padding; R];
        if paired && window.spans.iter().all(|s| s.len() == BLOCK) {
            // Lists of exactly 8 (a strided index's), two a register, each by a load of 8
            // lanes: copying them into a buffer first (a copy of a list's run-time length) was
            // a call to `memmove` per list, 6% of the locality bench's samples (w=1). (Masked
            // loads of shorter lists took twice as long as the buffer on this Zen 4 guest.)
            for (r, pair) in window.spans.chunks(2).enumerate() {
                // SAFETY: each load reads the 8 entries of a span, inside `entries` (the
                // caller's contract); `r < R` as `paired` allows at most `R · 16 / BLOCK`
                // lists.
                unsafe {
                    let low = _mm256_loadu_si256(window.entries.as_ptr().add(pair[0].start).cast());
                    let high = match pair.get(1) {
                        Some(span) => {
                            _mm256_loadu_si256(window.entries.as_ptr().add(span.start).cast())
                        }
                        None => _mm512_castsi512_si256(padding),
                    };
                    v[r] = _mm512_inserti64x4(_mm512_castsi256_si512(low), high, 1);
                }
            }
        } else {
            // At most `R · 16 <= SORTED_WORK` entries (`spanned`, or 8 lanes a list when
            // `paired`), not `MAX_WORK`: the buffer is filled with padding at every call.
            let mut buf = [PADDING; SORTED_WORK];
            let mut at = 0;
            for span in window.spans {
                let list = &window.entries[span.clone()];
                buf[at..at + list.len()].copy_from_slice(list);
                at += if paired { BLOCK } else { list.len() };
            }
            for (r, reg) in v.iter_mut().enumerate() {
                // SAFETY: `buf` holds `SORTED_WORK >= R · 16` values; this reads 16 of them.
                *reg = unsafe { _mm512_loadu_si512(buf.as_ptr().add(r * LANES).cast()) };
            }
        }
        // SAFETY: AVX-512F is available (this function's contract).
        unsafe { rank_loaded::<R, M, true>(window, v, paired, 0) }
    }

    /// [`rank`] from the window's entries loaded in `v` (padding after them), each block of 8
    /// lanes of one list of at most 8 if `paired`; `own_removed` of the window's own entries
    /// were left out of `v` (they are counted, not ranked), all of them unless `OWN_KEPT`. (Each
    /// caller has its own instance, which it inlines: shared, the function took its registers
    /// through the stack, 4% of a two-row window's time. Its phases are functions of their own
    /// that inline into it: the instructions are those of one function.)
    ///
    /// # Safety
    /// AVX-512F must be available.
    #[target_feature(enable = "avx512f")]
    unsafe fn rank_loaded<const R: usize, M: LaneMask, const OWN_KEPT: bool>(
        window: &OverlapLists<'_>,
        mut v: [__m512i; R],
        paired: bool,
        own_removed: u32,
    ) -> OverlapRanking {
        let width = R * LANES;
        debug_assert_eq!(M::low(width).count() as usize, width);
        // SAFETY (each call): AVX-512F is available (this function's contract).
        let work = unsafe { sort_rotated(&mut v, paired, window.len_bits) };
        let own = window.own.rotate_right(window.len_bits);
        let (starts, own_lanes) = unsafe { run_starts::<R, M, OWN_KEPT>(&v, own) };
        let entries = M::low(work);
        // The own window's run is counted (`a(g,g)`), not a candidate.
        let own_overlap = own_lanes.count() + own_removed;
        let candidates = starts & entries & !own_lanes;
        let mut levels = M::levels();
        let levels = levels.as_mut();
        let (costs, largest) = unsafe { count_levels(window, &v, candidates, levels) };
        let (c1, c2) = unsafe { two_cheapest(&costs, candidates) };
        let (keys, kept) = unsafe { best_keys(&v, levels, largest, window.keep) };
        let mut all = [c1 as u64, c2 as u64, window.bounds[0], window.bounds[1]];
        all.sort_unstable();
        OverlapRanking {
            keys,
            kept,
            cheapest: [all[0], all[1]],
            own_overlap,
        }
    }

    /// Sorts the entries of `v` rotated to `n(h) << window_bits | h` (`len_bits` the bits of
    /// `n`), the order of the rank's ties, so that the runs come out in rank order; returns how
    /// many are not padding, which sorts last (`u32::MAX` stays `u32::MAX` rotated): those are
    /// the first lanes after the sort.
    ///
    /// # Safety
    /// AVX-512F must be available. (Not a `target_feature` function, which could not be
    /// `inline(always)`: it inlines into its caller, which has the feature.)
    #[inline(always)]
    unsafe fn sort_rotated<const R: usize>(
        v: &mut [__m512i; R],
        paired: bool,
        len_bits: u32,
    ) -> usize {
        // SAFETY: AVX-512F is available (this function's contract).
        unsafe {
            let rotate = _mm512_set1_epi32(len_bits as i32);
            let padding = _mm512_set1_epi32(PADDING as i32);
            let mut work = 0;
            for reg in v.iter_mut() {
                work += _mm512_cmpneq_epu32_mask(*reg, padding).count_ones() as usize;
                *reg = _mm512_rorv_epi32(*reg, rotate);
            }
            if paired && blocks_sorted(v) {
                alternate_blocks(v);
            } else {
                sort_blocks8(v);
            }
            sort_tail(v);
            work
        }
    }

    /// The runs of equal entries of the sorted `v`: the lanes where one starts (an entry that
    /// differs from the one before it) and, if `OWN_KEPT`, the lanes equal to `own` (rotated).
    ///
    /// # Safety
    /// AVX-512F must be available. (Not a `target_feature` function, which could not be
    /// `inline(always)`: it inlines into its caller, which has the feature.)
    #[inline(always)]
    unsafe fn run_starts<const R: usize, M: LaneMask, const OWN_KEPT: bool>(
        v: &[__m512i; R],
        own: u32,
    ) -> (M, M) {
        // SAFETY: AVX-512F is available (this function's contract).
        unsafe {
            // Lane 15 of `before` precedes the smallest value: anything else than that value.
            let mut before = _mm512_set1_epi32(!_mm512_cvtsi512_si32(v[0]));
            let mut starts = M::ZERO;
            let mut own_lanes = M::ZERO;
            let own = _mm512_set1_epi32(own as i32);
            for (r, &reg) in v.iter().enumerate() {
                let previous = _mm512_alignr_epi32(reg, before, 15);
                starts |= M::at(_mm512_cmpneq_epu32_mask(reg, previous), r);
                if OWN_KEPT {
                    own_lanes |= M::at(_mm512_cmpeq_epu32_mask(reg, own), r);
                }
                before = reg;
            }
            (starts, own_lanes)
        }
    }

    /// Fills `levels[t - 1]` with the runs of at least `t` entries among `candidates` (the runs'
    /// first lanes), found where an entry equals the one `t - 1` lanes on (the entries are
    /// sorted), for `t` up to the largest count, which it returns with each lane's cost
    /// `n(g) + n(h) - 2 a(g,h)` (meaningful at the candidates). Every count and cost is read off
    /// these masks in the registers: storing the runs' starts and values compressed and loading
    /// them back stalled on store forwarding.
    ///
    /// # Safety
    /// AVX-512F must be available. (Not a `target_feature` function, which could not be
    /// `inline(always)`: it inlines into its caller, which has the feature.)
    #[inline(always)]
    unsafe fn count_levels<const R: usize, M: LaneMask>(
        window: &OverlapLists<'_>,
        v: &[__m512i; R],
        candidates: M,
        levels: &mut [M],
    ) -> ([__m512i; R], usize) {
        // SAFETY: AVX-512F is available (this function's contract).
        unsafe {
            let width = R * LANES;
            let padding = _mm512_set1_epi32(PADDING as i32);
            let len_shift = _mm512_set1_epi32(32 - window.len_bits as i32);
            let two = _mm512_set1_epi32(2);
            // `n(g) + n(h) - 2 a(g,h)`, with `a` counted down from 1 below; `u32` as `n(g) <=
            // MAX_WORK` (checked by the caller) and `n(h) < 2^31`.
            let base = _mm512_set1_epi32((window.n_g as u32).wrapping_sub(2) as i32);
            let mut costs = [_mm512_setzero_si512(); R];
            for (cost, &reg) in costs.iter_mut().zip(v) {
                *cost = _mm512_add_epi32(base, _mm512_srlv_epi32(reg, len_shift));
            }
            levels[0] = candidates;
            let mut largest = usize::from(candidates != M::ZERO);
            // `levels[largest - 1]`, kept in a register rather than read back from the stack.
            let mut previous = candidates;
            while (1..width).contains(&largest) {
                let mut level = M::ZERO;
                for r in 0..R {
                    let ahead = shifted(v, padding, largest, r);
                    let lanes = previous.lanes(r);
                    let equal = _mm512_mask_cmpeq_epu32_mask(lanes, v[r], ahead);
                    costs[r] = _mm512_mask_sub_epi32(costs[r], equal, costs[r], two);
                    level |= M::at(equal, r);
                }
                if level == M::ZERO {
                    break;
                }
                levels[largest] = level;
                previous = level;
                largest += 1;
            }
            (costs, largest)
        }
    }

    /// The two smallest `costs` at the lanes of `candidates` (`u32::MAX` where there are fewer).
    ///
    /// # Safety
    /// AVX-512F must be available. (Not a `target_feature` function, which could not be
    /// `inline(always)`: it inlines into its caller, which has the feature.)
    #[inline(always)]
    unsafe fn two_cheapest<const R: usize, M: LaneMask>(
        costs: &[__m512i; R],
        candidates: M,
    ) -> (u32, u32) {
        // SAFETY: AVX-512F is available (this function's contract).
        unsafe {
            let free = _mm512_set1_epi32(-1);
            let mut cheapest = (free, free);
            for (r, &cost) in costs.iter().enumerate() {
                let lanes = candidates.lanes(r);
                cheapest = two_smallest(cheapest, _mm512_mask_blend_epi32(lanes, free, cost));
            }
            let (first, second) = cheapest;
            let c1 = _mm512_reduce_min_epu32(first);
            let at_min = _mm512_cmpeq_epu32_mask(first, _mm512_set1_epi32(c1 as i32));
            let one_lane = at_min & at_min.wrapping_neg();
            let c2 = _mm512_reduce_min_epu32(_mm512_mask_blend_epi32(one_lane, first, free))
                .min(_mm512_reduce_min_epu32(second));
            (c1, c2)
        }
    }

    /// The best `keep` keys of the runs in `levels` (up to count `largest`) and how many there
    /// are: the runs of the largest count first, then of the next, each level in lane order
    /// (which is the order of the rank's ties). Meshes need one level or two. The keys gather in
    /// one register: each batch of picks goes in after the `kept` before it (a two-source
    /// permutation), where storing them at a running offset and loading the result back stalled
    /// on store forwarding.
    ///
    /// # Safety
    /// AVX-512F must be available. (Not a `target_feature` function, which could not be
    /// `inline(always)`: it inlines into its caller, which has the feature.)
    #[inline(always)]
    unsafe fn best_keys<const R: usize, M: LaneMask>(
        v: &[__m512i; R],
        levels: &[M],
        largest: usize,
        keep: usize,
    ) -> ([u64; MAX_KEEP], usize) {
        // SAFETY: AVX-512F is available (this function's contract); the one store writes
        // `keys`, which holds `MAX_KEEP` = 8 `u64`, one register.
        unsafe {
            let iota64 = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
            let mut gathered = _mm512_set1_epi64(-1);
            let mut kept = 0;
            let mut count = largest;
            while kept < keep && count > 0 {
                let exact = levels[count - 1] & !levels[count];
                let high = _mm512_set1_epi64((((u32::MAX - count as u32) as u64) << 32) as i64);
                for (r, &reg) in v.iter().enumerate() {
                    let lanes = exact.lanes(r);
                    if lanes == 0 {
                        continue;
                    }
                    let picked = _mm512_maskz_compress_epi32(lanes, reg);
                    let keys = _mm512_or_si512(
                        high,
                        _mm512_cvtepu32_epi64(_mm512_castsi512_si256(picked)),
                    );
                    // Lane `i` keeps `gathered[i]` below `kept`, else takes `keys[i - kept]`.
                    let before = ((1u32 << kept) - 1) as u8;
                    let from_keys = _mm512_add_epi64(iota64, _mm512_set1_epi64(8 - kept as i64));
                    let index = _mm512_mask_blend_epi64(before, from_keys, iota64);
                    gathered = _mm512_permutex2var_epi64(gathered, index, keys);
                    kept = (kept + lanes.count_ones() as usize).min(keep);
                    if kept == keep {
                        break;
                    }
                }
                count -= 1;
            }
            let mut keys = [u64::MAX; MAX_KEEP];
            let kept_lanes = ((1u32 << kept) - 1) as u8;
            _mm512_storeu_si512(
                keys.as_mut_ptr().cast(),
                _mm512_mask_blend_epi64(kept_lanes, _mm512_set1_epi64(-1), gathered),
            );
            (keys, kept)
        }
    }

    /// Lanes `16 r + s ..` of the `R · 16` values of `v` followed by `padding`: register `r` of
    /// `v` moved `s` lanes toward its start.
    #[target_feature(enable = "avx512f")]
    fn shifted<const R: usize>(v: &[__m512i; R], padding: __m512i, s: usize, r: usize) -> __m512i {
        let at = |i: usize| v.get(i).copied().unwrap_or(padding);
        let (whole, part) = (r + s / LANES, s % LANES);
        let index = _mm512_add_epi32(iota32(), _mm512_set1_epi32(part as i32));
        _mm512_permutex2var_epi32(at(whole), index, at(whole + 1))
    }
}

#[cfg(test)]
mod tests;
