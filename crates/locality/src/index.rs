//! The column-to-windows inverted index: for each column `c`, the windows `g` with `c ∈ F_g`, in
//! increasing window order (the transpose of the footprint matrix).
//!
//! `O(nnz(F) + threads·ncols)` time and memory, parallel over windows: each thread counts its own
//! consecutive windows per column, a prefix sum gives every thread its own slots inside each
//! column's list, and the threads scatter in parallel without locks (slots are disjoint; writes go
//! through relaxed atomic stores, plain stores on x86, because the slots of one thread are not a
//! contiguous region). Lists come out sorted because thread `t`'s slots follow thread `t-1`'s.
//!
//! The candidate search reads this index at random (one list per footprint column; on a shuffled
//! matrix every read is a cache and TLB miss), so it is kept small: offsets are `u32` when the
//! entries fit ([`Offset`]), and each entry is one `u32` packing the window with its footprint
//! length `n(h)` ([`EntryCodec`]), so the search reads `n(h)` from the list it already streams
//! instead of taking a miss per window (measured: `u64` entries cost about 15% more search time,
//! `u32` windows plus a lookup of `n(h)` about 35% more). Called by [`crate::WindowGraph`]
//! (candidate search); SPEC section 4.

use crate::footprint::Footprints;
use crate::par::{balanced_ranges, Parallelism};
use spmv_reorder_sparse::prefetch;
use std::ops::Range;
use std::sync::atomic::{AtomicU32, Ordering};

/// An offset into the index entries: `u32` when they fit (half the bytes of the random reads of
/// the search), `usize` otherwise.
pub(crate) trait Offset: Copy + Eq + Send + Sync + std::fmt::Debug {
    /// `x`, which the caller has checked to fit.
    fn from_usize(x: usize) -> Self;
    /// The offset as an index.
    fn to_usize(self) -> usize;
}

impl Offset for u32 {
    #[inline]
    fn from_usize(x: usize) -> Self {
        debug_assert!(u32::try_from(x).is_ok());
        x as u32
    }
    #[inline]
    fn to_usize(self) -> usize {
        self as usize
    }
}

impl Offset for usize {
    #[inline]
    fn from_usize(x: usize) -> Self {
        x
    }
    #[inline]
    fn to_usize(self) -> usize {
        self
    }
}

/// How an index entry packs a window `h` and its footprint length: `h << len_bits | min(n(h),
/// len_max)`, with `len_bits` whatever the window numbers leave of 32 bits and `len_max = 2^len_bits
/// - 1` standing for "`n(h)` too large: look it up".
///
/// # Invariants
/// `len_bits <= 31` and every window is below `2^(32 - len_bits) - 1`, so an entry is never
/// `u32::MAX` (the accumulators' empty key) and entries compare like their windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EntryCodec {
    len_bits: u32,
}

impl EntryCodec {
    /// The packing for windows `0..windows` (`windows <= u32::MAX`, checked by the caller) that
    /// leaves the most bits to `n(h)`.
    pub(crate) fn new(windows: usize) -> Self {
        let window_bits = (usize::BITS - windows.leading_zeros()).clamp(1, 32);
        Self {
            len_bits: 32 - window_bits,
        }
    }

    /// A packing with one bit of `n(h)` (any length above 0 is looked up), for windows below
    /// `2^31 - 1`: tests use it to cover the lookup.
    #[cfg(test)]
    pub(crate) fn tight() -> Self {
        Self { len_bits: 1 }
    }

    /// Bits left for `n(h)`: the entry's window is `entry >> len_bits`.
    pub(crate) fn len_bits(self) -> u32 {
        self.len_bits
    }

    fn len_max(self) -> u32 {
        (1u32 << self.len_bits) - 1
    }

    /// The entry of window `h` with footprint length `len`.
    #[inline]
    pub(crate) fn encode(self, h: u32, len: usize) -> u32 {
        h << self.len_bits | len.min(self.len_max() as usize) as u32
    }

    /// Whether footprint length `len` is packed in an entry (not looked up).
    pub(crate) fn holds_len(self, len: usize) -> bool {
        len < self.len_max() as usize
    }

    /// The length field of `entry`: the footprint length when it was held ([`Self::holds_len`]),
    /// else the "look it up" value.
    #[inline]
    pub(crate) fn packed_len(self, entry: u32) -> u32 {
        entry & self.len_max()
    }

    /// The window of `entry`.
    #[inline]
    pub(crate) fn window(self, entry: u32) -> u32 {
        entry >> self.len_bits
    }

    /// `n(h)` of `entry`'s window, from the entry unless it did not fit.
    #[inline]
    pub(crate) fn len(self, entry: u32, footprints: &Footprints<'_>) -> u32 {
        let len = self.packed_len(entry);
        if len == self.len_max() {
            footprints.footprint_len(self.window(entry) as usize) as u32
        } else {
            len
        }
    }
}

/// Windows per column, CSR: column `c`'s entries are `entries[ptr[c]..ptr[c+1]]`, by increasing
/// window, packed by [`Self::codec`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ColumnIndex<O> {
    ptr: Vec<O>,
    entries: Vec<u32>,
    codec: EntryCodec,
}

impl<O: Offset> ColumnIndex<O> {
    /// Inverts `footprints`. The windows must fit `codec` and the number of footprint entries
    /// must fit `O` (checked by the caller).
    pub(crate) fn new(footprints: &Footprints<'_>, codec: EntryCodec, par: Parallelism) -> Self {
        let ncols = footprints.ncols();
        let ranges = balanced_ranges(footprints.offsets(), par.threads());
        // Per chunk: its windows' count in every column, turned in place into the chunk's first
        // slot in every column (no second array per chunk).
        let mut slots: Vec<Vec<O>> = par.map(ranges.clone(), |range| {
            let mut count = vec![O::from_usize(0); ncols];
            for &c in &footprints.columns()[chunk_entries(footprints, &range)] {
                let n = &mut count[c as usize];
                *n = O::from_usize(n.to_usize() + 1);
            }
            count
        });
        let ptr = counts_to_first_slots(ncols, &mut slots);
        // Initialised in parallel: the first touch of each page (a fault) is most of the cost.
        let entries: Vec<AtomicU32> =
            par.collect_indexed(footprints.columns().len(), |_| AtomicU32::new(0));
        par.map(
            ranges.into_iter().zip(slots).collect(),
            |(range, mut next)| {
                for g in range {
                    let f_g = footprints.get(g);
                    let entry = codec.encode(g as u32, f_g.len());
                    for &c in f_g {
                        let slot = &mut next[c as usize];
                        entries[slot.to_usize()].store(entry, Ordering::Relaxed);
                        *slot = O::from_usize(slot.to_usize() + 1);
                    }
                }
            },
        );
        let entries = entries.into_iter().map(AtomicU32::into_inner).collect();
        Self {
            ptr,
            entries,
            codec,
        }
    }

    /// The entries of the windows whose footprint holds column `c`, by increasing window.
    #[cfg(test)]
    pub(crate) fn entries_of(&self, c: u32) -> &[u32] {
        &self.entries[self.span_of(c)]
    }

    /// Where column `c`'s entries are in [`Self::entries`].
    #[inline]
    pub(crate) fn span_of(&self, c: u32) -> Range<usize> {
        self.ptr[c as usize].to_usize()..self.ptr[c as usize + 1].to_usize()
    }

    /// Asks for column `c`'s offsets (read by [`Self::span_of`]) ahead of time.
    #[inline]
    pub(crate) fn prefetch_span(&self, c: u32) {
        prefetch(&self.ptr, c as usize);
    }

    /// Every entry, column after column.
    pub(crate) fn entries(&self) -> &[u32] {
        &self.entries
    }

    /// How the entries pack windows and footprint lengths.
    pub(crate) fn codec(&self) -> EntryCodec {
        self.codec
    }

    /// `(window, n(window))` of `entry`.
    #[cfg(test)]
    fn decode(&self, entry: u32, footprints: &Footprints<'_>) -> (u32, u32) {
        (self.codec.window(entry), self.codec.len(entry, footprints))
    }

    /// Number of columns held by more than `limit` windows.
    pub(crate) fn columns_over(&self, limit: usize) -> usize {
        self.ptr
            .windows(2)
            .filter(|p| p[1].to_usize() - p[0].to_usize() > limit)
            .count()
    }
}

/// The positions in [`Footprints::columns`] of the windows of `range`.
fn chunk_entries(footprints: &Footprints<'_>, range: &Range<usize>) -> Range<usize> {
    footprints.offsets()[range.start]..footprints.offsets()[range.end]
}

/// Turns per-chunk column counts into, per chunk, the first slot of each column (chunk `t`'s
/// slots in column `c` follow those of chunks `< t`), and returns the column offsets `ptr`.
fn counts_to_first_slots<O: Offset>(ncols: usize, counts: &mut [Vec<O>]) -> Vec<O> {
    let mut ptr = Vec::with_capacity(ncols + 1);
    ptr.push(O::from_usize(0));
    let mut next = 0usize;
    for c in 0..ncols {
        for count in counts.iter_mut() {
            let n = count[c].to_usize();
            count[c] = O::from_usize(next);
            next += n;
        }
        ptr.push(O::from_usize(next));
    }
    ptr
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::spec_example;
    use crate::Windows;

    #[test]
    fn index_inverts_footprints() {
        let a = spec_example();
        let f = Footprints::new(&a, &Windows::single_rows(4), Parallelism::Sequential).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let par =
            pool.install(|| ColumnIndex::<u32>::new(&f, EntryCodec::new(4), Parallelism::Rayon));
        let seq = ColumnIndex::<u32>::new(&f, EntryCodec::new(4), Parallelism::Sequential);
        let wide = ColumnIndex::<usize>::new(&f, EntryCodec::tight(), Parallelism::Sequential);
        assert_eq!(par, seq);
        let windows = |c: u32| -> Vec<(u32, u32)> {
            let wide_list: Vec<_> = wide
                .entries_of(c)
                .iter()
                .map(|&e| wide.decode(e, &f))
                .collect();
            let list: Vec<_> = seq
                .entries_of(c)
                .iter()
                .map(|&e| seq.decode(e, &f))
                .collect();
            assert_eq!(wide_list, list);
            list
        };
        assert_eq!(windows(0), vec![(0, 2), (3, 3)]);
        assert_eq!(windows(1), vec![(0, 2), (1, 2), (3, 3)]);
        assert_eq!(windows(2), vec![(1, 2), (3, 3)]);
        assert_eq!(windows(3), vec![]);
        assert_eq!(windows(5), vec![(2, 1)]);
        assert_eq!(seq.span_of(1), 2..5);
        assert_eq!(seq.columns_over(2), 1);
        assert_eq!(seq.columns_over(0), 4);
        assert_eq!(wide.columns_over(2), 1);
    }

    #[test]
    fn codec_packs_windows_and_lengths() {
        // 4 windows: 3 bits of window (4 itself must stay below the top), 29 of length.
        let c = EntryCodec::new(4);
        assert_eq!(c.len_bits(), 29);
        let e = c.encode(3, 7);
        assert_eq!((c.window(e), e & c.len_max()), (3, 7));
        assert!(c.encode(2, 1 << 30) < c.encode(3, 0));
        // Windows that take all 32 bits leave no length: every length is looked up.
        let full = EntryCodec::new(u32::MAX as usize);
        assert_eq!(full.len_bits(), 0);
        assert_eq!(full.encode(u32::MAX - 1, 5), u32::MAX - 1);
        for windows in [
            0usize,
            1,
            2,
            3,
            1 << 20,
            (1 << 31) - 1,
            1 << 31,
            u32::MAX as usize,
        ] {
            let c = EntryCodec::new(windows);
            let last = windows.saturating_sub(1) as u32;
            assert!(c.encode(last, usize::MAX) < u32::MAX, "{windows}");
            assert_eq!(c.window(c.encode(last, usize::MAX)), last);
        }
        // A saturated length is read from the footprints.
        let a = spec_example();
        let f = Footprints::new(&a, &Windows::single_rows(4), Parallelism::Sequential).unwrap();
        let tight = EntryCodec::tight();
        assert_eq!(tight.len(tight.encode(3, 3), &f), 3);
        assert_eq!(tight.len(tight.encode(2, 0), &f), 0);
    }
}
