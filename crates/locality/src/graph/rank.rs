//! How [`super::WindowGraph`]'s candidates are ranked: keys whose order is the rank order, wide
//! (`u128`, any rank and packing) or narrow (`u64`, the default rank when every `n(h)` is packed
//! in the index), and the short sorted list that keeps a window's best K.

use super::CandidateRank;
use crate::footprint::Footprints;
use crate::index::EntryCodec;
use spmv_reorder_sparse::overlap_kernel::{self, OverlapLists};
use std::ops::Range;

impl CandidateRank {
    /// A key whose order is the rank order (smaller is better), ties to the smaller window.
    /// Costs are below `2^33` (at most twice `u32::MAX` columns), so they fit 64 bits.
    pub(super) fn encode(self, window: u32, overlap: u32, cost: u64) -> u128 {
        let worse_overlap = (u32::MAX - overlap) as u128;
        match self {
            CandidateRank::Overlap => worse_overlap << 96 | (cost as u128) << 32 | window as u128,
            CandidateRank::Cost => (cost as u128) << 64 | worse_overlap << 32 | window as u128,
        }
    }

    /// `(window, overlap)` of a key made by [`Self::encode`].
    pub(super) fn decode(self, key: u128) -> (u32, u32) {
        let worse_overlap = match self {
            CandidateRank::Overlap => (key >> 96) as u32,
            CandidateRank::Cost => (key >> 32) as u32,
        };
        (key as u32, u32::MAX - worse_overlap)
    }
}

/// A top-K key: its order is the rank order (smaller is better).
pub(super) trait RankKey: Copy + Ord + Send + std::fmt::Debug {
    /// Worse than every key (a candidate's overlap is at least 1).
    const FREE: Self;
}

impl RankKey for u64 {
    const FREE: u64 = u64::MAX;
}

impl RankKey for u128 {
    const FREE: u128 = u128::MAX;
}

/// How the candidate search makes top-K keys of candidates and reads them back.
pub(super) trait Ranking: Copy + Send + Sync {
    /// The key type.
    type Key: RankKey;
    /// `n(h)` of index entry `entry`'s window.
    fn footprint_len(self, entry: u32, footprints: &Footprints<'_>) -> u32;
    /// The key of the window of index entry `entry` with overlap `overlap` and cost `cost`.
    fn key(self, entry: u32, overlap: u32, cost: u64) -> Self::Key;
    /// `(window, overlap)` of a key.
    fn decode(self, key: Self::Key) -> (u32, u32);
    /// Fills `best` for a small window through [`overlap_kernel::rank`] if that kernel makes these
    /// keys, and returns the window's two cheapest costs and its count of itself; `None` for the
    /// scalar path.
    fn rank_small(
        self,
        _window: &OverlapLists<'_>,
        _best: &mut TopK<Self::Key>,
    ) -> Option<([u64; 2], u32)> {
        None
    }
}

/// Any [`CandidateRank`] with any entry packing, on `u128` keys ([`CandidateRank::encode`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct WideRank {
    pub(super) rank: CandidateRank,
    pub(super) codec: EntryCodec,
}

impl Ranking for WideRank {
    type Key = u128;

    #[inline]
    fn footprint_len(self, entry: u32, footprints: &Footprints<'_>) -> u32 {
        self.codec.len(entry, footprints)
    }

    #[inline]
    fn key(self, entry: u32, overlap: u32, cost: u64) -> u128 {
        self.rank.encode(self.codec.window(entry), overlap, cost)
    }

    #[inline]
    fn decode(self, key: u128) -> (u32, u32) {
        self.rank.decode(key)
    }
}

/// [`CandidateRank::Overlap`] on `u64` keys, when every `n(h)` fits its index entry: `(u32::MAX -
/// a) << 32 | entry.rotate_right(len_bits)`. With `g` fixed the rank orders by largest `a`, then
/// smallest cost `n(g) + n(h) - 2a`, i.e. smallest `n(h)`, then smallest `h`; the rotated entry is
/// `n(h) << window_bits | h`, which orders by `(n(h), h)`. So the keys order like
/// [`WideRank`]'s, in half the width.
#[derive(Debug, Clone, Copy)]
pub(super) struct NarrowOverlap {
    pub(super) codec: EntryCodec,
}

impl NarrowOverlap {
    /// The narrow keys, if `rank` is [`CandidateRank::Overlap`] and every footprint length fits
    /// an entry packed by `codec` (below its "look it up" value).
    pub(super) fn new(
        rank: CandidateRank,
        codec: EntryCodec,
        footprints: &Footprints<'_>,
    ) -> Option<Self> {
        let fits = footprints
            .offsets()
            .windows(2)
            .all(|w| codec.holds_len(w[1] - w[0]));
        (rank == CandidateRank::Overlap && fits).then_some(Self { codec })
    }
}

impl Ranking for NarrowOverlap {
    type Key = u64;

    #[inline]
    fn footprint_len(self, entry: u32, _: &Footprints<'_>) -> u32 {
        self.codec.packed_len(entry)
    }

    #[inline]
    fn key(self, entry: u32, overlap: u32, _: u64) -> u64 {
        ((u32::MAX - overlap) as u64) << 32 | entry.rotate_right(self.codec.len_bits()) as u64
    }

    #[inline]
    fn decode(self, key: u64) -> (u32, u32) {
        let window = key as u32 & (u32::MAX >> self.codec.len_bits());
        (window, u32::MAX - (key >> 32) as u32)
    }

    #[inline]
    fn rank_small(
        self,
        window: &OverlapLists<'_>,
        best: &mut TopK<u64>,
    ) -> Option<([u64; 2], u32)> {
        let ranked = overlap_kernel::rank(window)?;
        best.set_padded(&ranked.keys, ranked.kept);
        Some((ranked.cheapest, ranked.own_overlap))
    }
}

impl TopK<u64> {
    /// Keeps the first `kept` of `keys` (increasing, then [`Self::FREE`]), as
    /// [`Self::set_sorted`] would: for the default `K` (8), one copy of fixed size, where a copy
    /// of run-time length was a call to `memmove`.
    pub(super) fn set_padded(&mut self, keys: &[u64; overlap_kernel::MAX_KEEP], kept: usize) {
        match <&mut [u64; overlap_kernel::MAX_KEEP]>::try_from(self.slots.as_mut_slice()) {
            Ok(slots) => {
                *slots = *keys;
                self.len = kept;
            }
            Err(_) => self.set_sorted(&keys[..kept]),
        }
    }
}

/// The `capacity` smallest keys offered since the last clear, sorted: insertion into a short
/// sorted list, `O(1)` for a key worse than the current last, `O(capacity)` otherwise (a chain of
/// min/max over every slot, without a data-dependent branch).
///
/// # Invariants
/// `slots.len() == capacity`; `slots[..len]` are the kept keys, increasing, and the other slots
/// hold [`Self::FREE`], which no key reaches (a candidate's overlap is at least 1). Free slots make a
/// list that is not yet full look like a full one whose last key is the worst possible, so an
/// offer tests one condition (measured with cachegrind's branch simulation on a shuffled grid:
/// a separate "is it full" test mispredicted about 5 times per window).
#[derive(Debug, Clone)]
pub(super) struct TopK<K> {
    pub(super) slots: Vec<K>,
    pub(super) len: usize,
}

impl<K: RankKey> TopK<K> {
    const FREE: K = K::FREE;

    pub(super) fn new(capacity: usize) -> Self {
        Self {
            slots: vec![Self::FREE; capacity],
            len: 0,
        }
    }

    pub(super) fn clear(&mut self) {
        self.slots[..self.len].fill(Self::FREE);
        self.len = 0;
    }

    /// Keeps exactly `keys` (increasing, at most `capacity`), as if offered after a clear.
    pub(super) fn set_sorted(&mut self, keys: &[K]) {
        debug_assert!(keys.windows(2).all(|p| p[0] < p[1]) && keys.len() <= self.slots.len());
        self.slots[..keys.len()].copy_from_slice(keys);
        self.slots[keys.len()..].fill(Self::FREE);
        self.len = keys.len();
    }

    /// The kept keys, best first.
    pub(super) fn keys(&self) -> &[K] {
        &self.slots[..self.len]
    }

    /// The kept keys, to be rewritten (the caller restores the order).
    pub(super) fn keys_mut(&mut self) -> &mut [K] {
        &mut self.slots[..self.len]
    }

    pub(super) fn offer(&mut self, key: K) {
        debug_assert!(key < Self::FREE);
        let slots = &mut self.slots;
        match slots.last() {
            Some(&worst) if key < worst => {}
            _ => return,
        }
        // Sorted insertion as a chain of min/max (conditional moves): the key sinks to its place
        // and the worst key drops out of the end. This replaced a shifting loop whose exit
        // mispredicted: with cachegrind's branch simulation on the shuffled 64k-row grid (w=1 and
        // variable windows, about 120k windows), the program's mispredicts went from 5.72M to
        // 3.98M, and on the 1M-row grid, one thread, the build's best of 7 went from about 510 ms
        // (with u64 keys) to 451-460 ms for w=1 (three alternated runs).
        match <&mut [K; 8]>::try_from(&mut slots[..]) {
            // The default K.
            Ok(fixed) => sink(fixed, key),
            Err(_) => sink(slots, key),
        }
        self.len += (self.len < slots.len()) as usize;
    }
}

/// Sorted insertion of `key` into the sorted `slots`, the worst key dropping out of the end:
/// `TopK::offer`'s min/max chain. Called with a fixed-size array for the default `K = 8`, so that
/// the chain is unrolled: the shuffled 1M-row grid's search (w=1, one thread, best of 6) took
/// 354-366 ms against 367-381 ms with the loop over a slice (three alternated runs).
#[inline(always)]
pub(super) fn sink<K: RankKey>(slots: &mut [K], key: K) {
    let mut carry = key;
    for slot in slots.iter_mut() {
        let held = *slot;
        *slot = held.min(carry);
        carry = held.max(carry);
    }
}

/// The positions of the `limit + 1` entries of the sorted `list` nearest to `g`'s position (`g` is
/// in `list`), so `g` meets at most `limit` other windows.
pub(super) fn nearest(list: &[u32], before_g: impl Fn(u32) -> bool, limit: usize) -> Range<usize> {
    let at = list.partition_point(|&entry| before_g(entry));
    let take = limit.saturating_add(1).min(list.len());
    let start = at.saturating_sub(limit / 2).min(list.len() - take);
    start..start + take
}
