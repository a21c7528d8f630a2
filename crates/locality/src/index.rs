//! The column-to-windows inverted index: for each column `c`, the windows `g` with `c ∈ F_g`, in
//! increasing window order (the transpose of the footprint matrix).
//!
//! `O(nnz(F) + ncols + threads·buckets)` time, `O(nnz(F) + ncols)` memory: a two-pass radix sort
//! of the footprint entries by column, parallel over windows, then over buckets of consecutive
//! columns; each pass writes to regions no other thread writes. Lists come out sorted because
//! the first pass stages chunk after chunk of consecutive windows. A square symmetric footprint
//! matrix (one row per window of a structurally symmetric matrix) is its own transpose and is
//! only re-encoded ([`ColumnIndex::mirrored`]), and the index of any windows of such a matrix's
//! rows is its rows with each column replaced by its row's window
//! ([`ColumnIndex::through_windows`]); the candidate search confirms the symmetry.
//!
//! The candidate search reads this index at random (one list per footprint column; on a shuffled
//! matrix every read is a cache and TLB miss), so it is kept small: offsets are `u32` when the
//! entries fit ([`Offset`]), or there are none when every list fits a cache line and padding
//! them to one length costs little (a strided index: a list is then one line, found without
//! reading an offset), and each entry is one `u32` packing the window with its footprint
//! length `n(h)` ([`EntryCodec`]), so the search reads `n(h)` from the list it already streams
//! instead of taking a miss per window (measured: `u64` entries cost about 15% more search time,
//! `u32` windows plus a lookup of `n(h)` about 35% more). Called by [`crate::WindowGraph`]
//! (candidate search); SPEC section 4.

use crate::footprint::Footprints;
use crate::par::{balanced_ranges, offset_bounds, range_bounds, split_mut_at, Parallelism};
use crate::windows::Windows;
use spmv_reorder_sparse::overlap_kernel::PADDING;
use spmv_reorder_sparse::prefetch;
use std::ops::Range;

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

    /// Whether `entry`'s length field is the length it was encoded with (not "look it up").
    #[inline]
    pub(crate) fn holds_packed(self, entry: u32) -> bool {
        self.packed_len(entry) != self.len_max()
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
        if self.holds_packed(entry) {
            self.packed_len(entry)
        } else {
            footprints.footprint_len(self.window(entry) as usize) as u32
        }
    }
}

/// Windows per column: column `c`'s entries ([`Self::list`]), by increasing window, packed by
/// [`Self::codec`], laid out as CSR or a fixed stride apart ([`Lists`]).
#[derive(Debug, Clone)]
pub(crate) struct ColumnIndex<O> {
    lists: Lists<O>,
    entries: Vec<u32>,
    codec: EntryCodec,
}

/// Where each column's list is in [`ColumnIndex::entries`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum Lists<O> {
    /// Column `c`'s entries are `ptr[c]..ptr[c+1]`.
    Offsets(Vec<O>),
    /// Column `c`'s entries are the `stride` from `first + c·stride`, the list then
    /// [`PADDING`]: no offset to read (a cache miss of its own on a shuffled matrix), and with
    /// `first` on a cache line and `stride` a power of two up to 16, no list straddles two lines.
    /// See [`padded_stride`] for when the index is laid out so.
    Strided {
        first: usize,
        stride: usize,
        columns: usize,
    },
}

/// Indices are equal when they list the same entries for each column and pack them alike, laid
/// out either way.
impl<O: Offset> PartialEq for ColumnIndex<O> {
    fn eq(&self, other: &Self) -> bool {
        self.codec == other.codec
            && self.columns() == other.columns()
            && (0..self.columns() as u32).all(|c| self.list(c) == other.list(c))
    }
}

impl<O: Offset> Eq for ColumnIndex<O> {}

/// The stride of a [`Lists::Strided`] index of `lists` lists of `entries` entries in all, the
/// longest of `longest` entries, for a search that bounds lists longer than `hub_limit`: the
/// power of two at or above `longest`, if it is at most 16 (a cache line), at most `hub_limit`
/// (a bounded list needs its length) and pads the entries by at most half (or to at most
/// [`SMALL_STRIDED`] entries).
///
/// On the shuffled 1M-row grid (7 entries a list, so 8 a stride), the candidate search read a
/// list's offsets and then the list, often over two lines, for every column of every window.
/// Strided, the locality bench's side-by-side figures (three alternated runs each, 2 threads)
/// went from 19.6-19.8 to 18.0-18.5 SpMVs for one row per window and from 28.3-30.0 to
/// 24.1-25.6 for variable windows, whose index is then written in one pass instead of two.
fn padded_stride(longest: usize, lists: usize, entries: usize, hub_limit: usize) -> Option<usize> {
    let stride = longest.next_power_of_two();
    let padded = lists.saturating_mul(stride);
    let small = padded <= (entries + entries / 2).max(SMALL_STRIDED);
    (stride <= 16 && stride <= hub_limit && small).then_some(stride)
}

/// A strided index of at most this many entries, padding included, is small whatever it pads.
const SMALL_STRIDED: usize = 4096;

/// A zeroed array of `lists·stride` entries and the position in it where a cache line starts
/// (the first list's), for a [`Lists::Strided`] index.
fn strided_entries(lists: usize, stride: usize) -> (Vec<u32>, usize) {
    const LINE: usize = 64;
    let slack = LINE / std::mem::size_of::<u32>() - 1;
    // Zeroed (not padded) here: the pages are then written first by the threads that fill
    // their lists, in parallel.
    let entries = vec![0u32; lists * stride + slack];
    let first = entries.as_ptr().align_offset(LINE).min(slack);
    (entries, first)
}

impl<O: Offset> ColumnIndex<O> {
    /// Inverts `footprints`. The windows must fit `codec` and the number of footprint entries
    /// must fit `O` (checked by the caller).
    ///
    /// Two passes, as a radix sort on the column: the first stages every `(column, entry)` pair
    /// by bucket of consecutive columns (few enough buckets that each one's write position
    /// stays in cache), the second places each bucket's pairs in its columns' lists, inside a
    /// region small enough for L1. This replaced counting per column and scattering every entry
    /// straight to its list, a write to a random line of the whole index per entry, shared by
    /// the threads: on the shuffled 1M-row grid, w=1 and variable windows, 2 threads, the index
    /// took 22-24 ms against 33-37 ms (best of 3, two alternated runs).
    pub(crate) fn new(footprints: &Footprints<'_>, codec: EntryCodec, par: Parallelism) -> Self {
        let ncols = footprints.ncols();
        let buckets = Buckets::new(ncols);
        let chunks = balanced_ranges(footprints.offsets(), par.threads());
        let counts: Vec<Vec<usize>> = par.map(chunks.clone(), |range| {
            let mut count = vec![0usize; buckets.len()];
            footprints.for_each_column(range, |c| count[buckets.of(c)] += 1);
            count
        });
        // Staged pairs, bucket after bucket and, inside a bucket, chunk after chunk (so window
        // after window: the lists come out sorted).
        let mut bounds = Vec::with_capacity(buckets.len() * chunks.len() + 1);
        bounds.push(0);
        for b in 0..buckets.len() {
            for count in &counts {
                bounds.push(bounds[bounds.len() - 1] + count[b]);
            }
        }
        let total = footprints.entries();
        let mut staged = vec![0u64; total];
        let mut pieces_of: Vec<Vec<&mut [u64]>> = chunks.iter().map(|_| Vec::new()).collect();
        for (k, piece) in split_mut_at(&mut staged, &bounds).into_iter().enumerate() {
            pieces_of[k % chunks.len()].push(piece);
        }
        par.map(
            chunks.into_iter().zip(pieces_of).collect(),
            |(range, pieces)| buckets.stage(footprints, codec, range, pieces),
        );
        // Each bucket's entries and offsets are one region of the index.
        let starts: Vec<usize> = std::iter::once(0)
            .chain((1..=buckets.len()).map(|b| bounds[b * counts.len()]))
            .collect();
        let mut entries = vec![0u32; total];
        let mut ptr = vec![O::from_usize(0); ncols + 1];
        ptr[ncols] = O::from_usize(total);
        let jobs = balanced_ranges(&starts, 8 * par.threads());
        let entry_bounds = offset_bounds(&jobs, &starts);
        let column_bounds: Vec<usize> = std::iter::once(0)
            .chain(jobs.iter().map(|j| buckets.first_column(j.end)))
            .collect();
        let items: Vec<_> = jobs
            .into_iter()
            .zip(split_mut_at(&mut entries, &entry_bounds))
            .zip(split_mut_at(&mut ptr[..ncols], &column_bounds))
            .collect();
        par.map(items, |((job, entries), ptr)| {
            buckets.place(&staged, &starts, job, entries, ptr)
        });
        Self {
            lists: Lists::Offsets(ptr),
            entries,
            codec,
        }
    }

    /// The index of a square footprint matrix that looks symmetric (`c ∈ F_g` exactly when
    /// `g ∈ F_c`, as for one row per window of a structurally symmetric matrix): column `c`'s
    /// windows are then `F_c` itself, so the index is the footprints with each column replaced by
    /// its entry, one pass in footprint order and no transpose.
    ///
    /// `None` when the footprints are not square or a probe of up to [`MIRROR_PROBES`] pairs finds
    /// one without its mirror. A probe can miss an asymmetric pair: the candidate search checks
    /// every window (a window's overlap with itself, counted through this index, is `n(g)`
    /// exactly when each of its columns lists it, and if that holds for every window the
    /// footprint matrix is symmetric), and the caller falls back to [`Self::new`] when one fails.
    pub(crate) fn mirrored(
        footprints: &Footprints<'_>,
        codec: EntryCodec,
        par: Parallelism,
        hub_limit: usize,
    ) -> Option<Self> {
        let windows = footprints.len();
        if windows != footprints.ncols() || !looks_symmetric(footprints) {
            return None;
        }
        let lengths = LengthTable::new(footprints);
        let offsets = footprints.offsets();
        let entries = footprints.entries();
        if let Some(stride) = padded_stride(longest(offsets), windows, entries, hub_limit) {
            let list_of = |c: usize| {
                footprints
                    .get(c)
                    .iter()
                    .map(|&h| codec.encode(h, lengths.get(h, footprints)))
            };
            return Some(Self::strided(offsets, stride, codec, par, list_of).0);
        }
        let chunks = balanced_ranges(offsets, 8 * par.threads());
        let bounds = offset_bounds(&chunks, offsets);
        let mut entries = vec![0u32; footprints.entries()];
        // Written in place, chunk by chunk: fresh pages cost (see `WindowGraph`'s slots), and
        // per-chunk vectors joined afterwards wrote every offset twice.
        let mut ptr = vec![O::from_usize(0); windows + 1];
        ptr[windows] = O::from_usize(offsets[windows]);
        let window_bounds = range_bounds(&chunks, 1);
        let items = chunks
            .into_iter()
            .zip(split_mut_at(&mut entries, &bounds))
            .zip(split_mut_at(&mut ptr[..windows], &window_bounds))
            .collect();
        par.map(
            items,
            |((range, out), starts): ((Range<usize>, &mut [u32]), &mut [O])| {
                let mut out = out.iter_mut();
                footprints.for_each_column(range.clone(), |c| {
                    if let Some(entry) = out.next() {
                        *entry = codec.encode(c, lengths.get(c, footprints));
                    }
                });
                for (start, &offset) in starts.iter_mut().zip(&offsets[range]) {
                    *start = O::from_usize(offset);
                }
            },
        );
        Some(Self {
            lists: Lists::Offsets(ptr),
            entries,
            codec,
        })
    }

    /// The index of windows of consecutive rows of a square matrix that looks structurally
    /// symmetric (`rows`, its rows as one footprint each), given the windows' own `footprints`:
    /// column `c`'s windows are then those of the rows `r` with `c` in row `r`, which are row
    /// `c`'s columns, so each list is row `c` with every column replaced by its row's window
    /// (consecutive duplicates dropped: windows increase along a row). One pass over the matrix
    /// when the index is strided, two (count, then write) otherwise, instead of the radix sort
    /// of [`Self::new`], and no staging array.
    ///
    /// `None` when the matrix is not square, the windows do not partition its rows into the
    /// footprints' windows, a probe of up to [`MIRROR_PROBES`] entries finds one without its
    /// mirror, or the lists do not hold as many entries as the footprints (then they are not their
    /// transpose). With as many, the lists are the transpose exactly when each
    /// lists every window whose footprint holds its column, which the candidate search checks for
    /// every window (see [`Self::mirrored`]); the caller falls back to [`Self::new`] when one
    /// fails.
    pub(crate) fn through_windows(
        rows: &Footprints<'_>,
        windows: &Windows,
        footprints: &Footprints<'_>,
        codec: EntryCodec,
        par: Parallelism,
        hub_limit: usize,
    ) -> Option<Self> {
        let n = rows.len();
        let partition = windows.nrows() == n && windows.len() == footprints.len();
        if n != rows.ncols() || !partition || !looks_symmetric(rows) {
            return None;
        }
        let entry_of_row = entries_of_rows(windows, footprints, codec, par);
        // Each list's windows: a run of equal windows (so of equal entries) is one entry.
        let entry_of_row = &entry_of_row;
        let list_of = |c: usize| {
            let mut last = PADDING;
            rows.get(c).iter().filter_map(move |&r| {
                let entry = entry_of_row[r as usize];
                (entry != last).then(|| {
                    last = entry;
                    entry
                })
            })
        };
        let entries = footprints.entries();
        // A list is at most as long as its row: the rows bound the lists' lengths.
        if let Some(stride) = padded_stride(longest(rows.offsets()), n, entries, hub_limit) {
            let (index, total) = Self::strided(rows.offsets(), stride, codec, par, list_of);
            return (total == entries).then_some(index);
        }
        let chunks = balanced_ranges(rows.offsets(), 8 * par.threads());
        let counts: Vec<Vec<usize>> = par.map(chunks.clone(), |columns| {
            columns.map(|c| list_of(c).count()).collect()
        });
        // As many entries as the footprints (so that they fit `O`), or not their transpose.
        let total: usize = counts.iter().flatten().sum();
        if total != footprints.entries() {
            return None;
        }
        let mut ptr = Vec::with_capacity(n + 1);
        let mut at = 0;
        for count in counts.iter().flatten() {
            ptr.push(O::from_usize(at));
            at += count;
        }
        ptr.push(O::from_usize(total));
        let mut entries = vec![0u32; total];
        let bounds: Vec<usize> = std::iter::once(0)
            .chain(chunks.iter().map(|r| ptr[r.end].to_usize()))
            .collect();
        let items = chunks
            .into_iter()
            .zip(split_mut_at(&mut entries, &bounds))
            .collect();
        par.map(items, |(columns, out): (Range<usize>, &mut [u32])| {
            for (slot, entry) in out.iter_mut().zip(columns.flat_map(&list_of)) {
                *slot = entry;
            }
        });
        Some(Self {
            lists: Lists::Offsets(ptr),
            entries,
            codec,
        })
    }

    /// A [`Lists::Strided`] index of `stride` entries a list whose column `c` lists
    /// `list_of(c)`, at most `bounds[c+1] - bounds[c] <= stride` entries (the lists' sources, by
    /// which the columns are shared out among the threads), and the number of entries listed.
    fn strided<I: Iterator<Item = u32>>(
        bounds: &[usize],
        stride: usize,
        codec: EntryCodec,
        par: Parallelism,
        list_of: impl Fn(usize) -> I + Sync,
    ) -> (Self, usize) {
        let columns = bounds.len() - 1;
        let (mut entries, first) = strided_entries(columns, stride);
        let chunks = balanced_ranges(bounds, 8 * par.threads());
        let lists = &mut entries[first..first + columns * stride];
        let regions = split_mut_at(lists, &range_bounds(&chunks, stride));
        let items = chunks.into_iter().zip(regions).collect();
        let listed = par.map(items, |(columns, region): (Range<usize>, &mut [u32])| {
            let mut listed = 0;
            for (c, slots) in columns.zip(region.chunks_exact_mut(stride)) {
                let mut len = 0;
                for (slot, entry) in slots.iter_mut().zip(list_of(c)) {
                    *slot = entry;
                    len += 1;
                }
                slots[len..].fill(PADDING);
                listed += len;
            }
            listed
        });
        let index = Self {
            lists: Lists::Strided {
                first,
                stride,
                columns,
            },
            entries,
            codec,
        };
        (index, listed.into_iter().sum())
    }

    /// The entries of the windows whose footprint holds column `c`, by increasing window
    /// (without padding).
    pub(crate) fn list(&self, c: u32) -> &[u32] {
        let list = &self.entries[self.span_of(c)];
        &list[..list.iter().take_while(|&&e| e != PADDING).count()]
    }

    /// Number of columns (lists).
    fn columns(&self) -> usize {
        match &self.lists {
            Lists::Offsets(ptr) => ptr.len() - 1,
            &Lists::Strided { columns, .. } => columns,
        }
    }

    /// Where column `c`'s entries are in [`Self::entries`], with the list's padding, if any
    /// ([`PADDING`] after its entries: [`Lists::Strided`]).
    #[inline]
    pub(crate) fn span_of(&self, c: u32) -> Range<usize> {
        let c = c as usize;
        match &self.lists {
            Lists::Offsets(ptr) => ptr[c].to_usize()..ptr[c + 1].to_usize(),
            &Lists::Strided { first, stride, .. } => {
                let start = first + c * stride;
                start..start + stride
            }
        }
    }

    /// Asks ahead of time for what [`Self::span_of`] reads (column `c`'s offsets), or where no
    /// offset is read, for the list itself.
    #[inline]
    pub(crate) fn prefetch_span(&self, c: u32) {
        match &self.lists {
            Lists::Offsets(ptr) => prefetch(ptr, c as usize),
            Lists::Strided { .. } => prefetch(&self.entries, self.span_of(c).start),
        }
    }

    /// Whether lists are laid out a fixed stride apart ([`Lists::Strided`]): then
    /// [`Self::prefetch_span`] asks for the list itself, which lies in one cache line.
    pub(crate) fn is_strided(&self) -> bool {
        matches!(self.lists, Lists::Strided { .. })
    }

    /// Every entry, column after column (with padding, see [`Self::span_of`]).
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
        match &self.lists {
            Lists::Offsets(ptr) => ptr
                .windows(2)
                .filter(|p| p[1].to_usize() - p[0].to_usize() > limit)
                .count(),
            &Lists::Strided { stride, .. } if stride <= limit => 0,
            Lists::Strided { .. } => (0..self.columns() as u32)
                .filter(|&c| self.list(c).len() > limit)
                .count(),
        }
    }
}

/// Footprint lengths `n(g)` in one byte each (1 MB for 1M windows, about L2's size), for passes
/// that read them at random, one per index entry: two 8-byte offsets each took twice as long.
/// Lengths of 255 or more are read from the footprints.
struct LengthTable(Vec<u8>);

impl LengthTable {
    fn new(footprints: &Footprints<'_>) -> Self {
        Self(
            (0..footprints.len())
                .map(|g| footprints.footprint_len(g).min(u8::MAX as usize) as u8)
                .collect(),
        )
    }

    /// `n(g)`.
    #[inline]
    fn get(&self, g: u32, footprints: &Footprints<'_>) -> usize {
        match self.0[g as usize] {
            u8::MAX => footprints.footprint_len(g as usize),
            short => short as usize,
        }
    }
}

/// The index entry of each row's window (`codec.encode(g, n(g))` for every row of window `g`):
/// one lookup a list entry when the index is read through the rows. The window of a row and its
/// footprint's length looked up apart (a bitmap of 250 KB and a byte a window, for 1M rows) were
/// two misses, and the second took about as long as the whole pass without it.
fn entries_of_rows(
    windows: &Windows,
    footprints: &Footprints<'_>,
    codec: EntryCodec,
    par: Parallelism,
) -> Vec<u32> {
    let starts = windows.starts();
    let mut entry_of_row = vec![0u32; windows.nrows()];
    let chunks = balanced_ranges(starts, 8 * par.threads());
    let row_bounds = offset_bounds(&chunks, starts);
    let items = chunks
        .into_iter()
        .zip(split_mut_at(&mut entry_of_row, &row_bounds))
        .collect();
    par.map(items, |(range, out): (Range<usize>, &mut [u32])| {
        let first_row = starts[range.start];
        for g in range {
            let entry = codec.encode(g as u32, footprints.footprint_len(g));
            out[windows.rows(g).start - first_row..windows.rows(g).end - first_row].fill(entry);
        }
    });
    entry_of_row
}

/// The longest of the lists delimited by `offsets`.
fn longest(offsets: &[usize]) -> usize {
    offsets.windows(2).map(|o| o[1] - o[0]).max().unwrap_or(0)
}

/// Pairs `(g, c)` that [`ColumnIndex::mirrored`] probes for their mirror before it trusts a
/// square footprint matrix to be symmetric (spread over the windows; a few microseconds).
const MIRROR_PROBES: usize = 1024;

/// Whether up to [`MIRROR_PROBES`] footprint entries `(g, c)`, spread over the windows, all have
/// their mirror `g ∈ F_c`.
fn looks_symmetric(footprints: &Footprints<'_>) -> bool {
    let windows = footprints.len();
    let step = windows.div_ceil(MIRROR_PROBES).max(1);
    (0..windows).step_by(step).all(|g| {
        footprints.get(g).iter().take(4).all(|&c| {
            footprints
                .get(c as usize)
                .binary_search(&(g as u32))
                .is_ok()
        })
    })
}

/// At most this many buckets of consecutive columns in [`ColumnIndex::new`]'s first pass: it
/// writes to one position per bucket, so their lines stay in L1/L2, and a bucket of the
/// shuffled 1M-row grid (1024 columns, about 7k entries) is placed in L1 by the second pass.
const MAX_BUCKETS: usize = 1024;

/// The buckets of consecutive columns of the two-pass inversion: bucket `b` holds columns
/// `b << shift ..(b + 1) << shift`.
#[derive(Debug, Clone, Copy)]
struct Buckets {
    shift: u32,
    ncols: usize,
}

impl Buckets {
    fn new(ncols: usize) -> Self {
        let bits = usize::BITS - ncols.leading_zeros();
        Self {
            shift: bits.saturating_sub(MAX_BUCKETS.trailing_zeros()),
            ncols,
        }
    }

    /// Number of buckets.
    fn len(self) -> usize {
        self.ncols.div_ceil(1 << self.shift)
    }

    /// The first column of bucket `b` (`ncols` for `b == len()`).
    fn first_column(self, b: usize) -> usize {
        (b << self.shift).min(self.ncols)
    }

    /// The bucket of column `c`.
    fn of(self, c: u32) -> usize {
        (c >> self.shift) as usize
    }

    /// Writes the pairs `(column within its bucket) << 32 | entry` of the windows of `range`,
    /// each into its bucket's piece, in window order.
    fn stage(
        self,
        footprints: &Footprints<'_>,
        codec: EntryCodec,
        range: Range<usize>,
        mut pieces: Vec<&mut [u64]>,
    ) {
        let low = (1u32 << self.shift) - 1;
        let mut fill = vec![0usize; pieces.len()];
        for g in range {
            let f_g = footprints.get(g);
            let entry = codec.encode(g as u32, f_g.len()) as u64;
            for &c in f_g {
                let b = self.of(c);
                pieces[b][fill[b]] = ((c & low) as u64) << 32 | entry;
                fill[b] += 1;
            }
        }
    }

    /// Counting sort of the staged pairs of buckets `job` by column: writes their entries (which
    /// start at `starts[job.start]`) and their columns' offsets.
    fn place(
        self,
        staged: &[u64],
        starts: &[usize],
        job: Range<usize>,
        entries: &mut [u32],
        ptr: &mut [impl Offset],
    ) {
        let base = starts[job.start];
        let first_column = self.first_column(job.start);
        let mut next = vec![0usize; (1 << self.shift) + 1];
        for b in job {
            let pairs = &staged[starts[b]..starts[b + 1]];
            let columns = self.first_column(b)..self.first_column(b + 1);
            let next = &mut next[..columns.len()];
            next.fill(0);
            for &pair in pairs {
                next[(pair >> 32) as usize] += 1;
            }
            let mut at = starts[b] - base;
            for (c, n) in columns.zip(next.iter_mut()) {
                ptr[c - first_column] = Offset::from_usize(at + base);
                let count = *n;
                *n = at;
                at += count;
            }
            for &pair in pairs {
                let slot = &mut next[(pair >> 32) as usize];
                entries[*slot] = pair as u32;
                *slot += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests;
