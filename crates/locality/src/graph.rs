//! The window distance graph: nodes are windows, `cost(g,h) = d_w(g,h) = n(g) + n(h) - 2a(g,h)`,
//! and each window keeps its best `K` candidate neighbours among the windows it overlaps.
//!
//! Candidate search is SpGEMM-like (`F·Fᵀ` row by row): for window `g`, every column `c ∈ F_g`
//! adds 1 to a per-thread accumulator ([`crate::accumulate`]: a small reusable hash table, or a
//! dense counter with a touched list for heavy windows) for each window of `c` in the inverted
//! index (or in the footprints themselves when they are square and symmetric, as one row per
//! window of a structurally symmetric matrix, or in the rows of such a matrix for any windows of
//! its rows: [`crate::index`]), and a short sorted list keeps
//! the best `K` (`u64` keys for the default rank whenever every `n(h)` is packed in the index,
//! else `u128`). Windows of 16 to 256 index entries (at most 128 of them other than padding
//! and their own) are ranked instead by sorting networks in
//! AVX-512 registers where the machine has them ([`spmv_reorder_sparse::overlap_kernel`], same
//! result). On a shuffled matrix every index read is a cache and TLB miss, which dominates the
//! cost: the index is compact, and strided where its lists are short (a list is then one cache
//! line found without an offset: [`crate::index`]), and windows are processed in batches of 16,
//! pipelined: while a batch is computed, the index reads of the next two are issued as software
//! prefetches, so the misses overlap with the work. Time `O(W)` adds, `W = Σ_c
//! |windows(c)|·min(|windows(c)|, hub_limit+1)`, and at most as many offers to the top-K, each
//! `O(1)` when rejected and `O(K)` when kept (worst case `O(K·W)`), parallel over windows; memory
//! `O(nnz + K·windows)`, plus one `O(windows)` counter per thread only if a window's work exceeds
//! 8192. Columns held by more than `hub_limit` windows (hubs, as in power-law graphs) are
//! *bounded*: each of their windows only counts the `hub_limit` windows nearest to it in window
//! order, so a hub costs `O(|windows(c)|·hub_limit)` instead of `O(|windows(c)|²)`.
//!
//! SPEC section 4 (thesis 4.2: only pairs with `a(g,h) > 0` are candidate edges). Called by the
//! reordering pipeline, which adapts the graph to the TSP crate's cost oracle and candidate lists.

use crate::distance::intersection_len;
use crate::error::LocalityError;
use crate::footprint::Footprints;
use crate::index::{ColumnIndex, EntryCodec, Offset};
use crate::par::{balanced_ranges, range_bounds, split_mut_at, Parallelism};
use crate::windows::Windows;
use spmv_reorder_sparse::{CsrMatrix, Value};
use std::ops::Range;

mod rank;
mod search;

use search::{search, ChunkOutput, Summary, CHUNK_OFFSET, CHUNK_SHIFT, MAX_CHUNKS};
/// How the candidates of a window are ranked (ties always fall to the next criterion, then to the
/// smaller window index, so the lists are deterministic).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum CandidateRank {
    /// Largest overlap `a(g,h)` first, then smallest cost.
    #[default]
    Overlap,
    /// Smallest cost `d_w(g,h)` first, then largest overlap. Better when window sizes vary a lot.
    Cost,
}

/// Options of [`WindowGraph::build`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct GraphOptions {
    /// Candidates kept per window, `K` (default 8). 0 keeps none.
    pub neighbours: usize,
    /// A column held by more than this many windows is bounded (default 256).
    pub hub_limit: usize,
    /// How candidates are ranked (default [`CandidateRank::Overlap`]).
    pub rank: CandidateRank,
    /// Sequential or rayon (default rayon, on the current pool).
    pub parallelism: Parallelism,
}

impl Default for GraphOptions {
    fn default() -> Self {
        Self {
            neighbours: 8,
            hub_limit: 256,
            rank: CandidateRank::Overlap,
            parallelism: Parallelism::Rayon,
        }
    }
}

impl GraphOptions {
    /// Sets [`Self::neighbours`].
    pub fn with_neighbours(mut self, k: usize) -> Self {
        self.neighbours = k;
        self
    }
    /// Sets [`Self::hub_limit`].
    pub fn with_hub_limit(mut self, limit: usize) -> Self {
        self.hub_limit = limit;
        self
    }
    /// Sets [`Self::rank`].
    pub fn with_rank(mut self, rank: CandidateRank) -> Self {
        self.rank = rank;
        self
    }
    /// Sets [`Self::parallelism`].
    pub fn with_parallelism(mut self, par: Parallelism) -> Self {
        self.parallelism = par;
        self
    }
}

/// The window distance graph of SPEC section 4: footprints plus the best `K` candidate neighbours
/// of every window.
///
/// # Invariants
/// Window `g`'s candidates are distinct windows `h != g` with `a(g,h) > 0`, at most `K`, in rank
/// order, each with its exact overlap `a(g,h)`. When no column is bounded they are exactly the
/// best `K` by the rank over all windows; when some column is bounded, a window touching one is
/// ranked on the overlaps its sampled windows reveal (their reported overlaps are still exact).
/// Upheld by construction.
#[derive(Debug, Clone)]
pub struct WindowGraph<'a> {
    footprints: Footprints<'a>,
    /// The candidates found by each chunk of consecutive windows of the search, window after
    /// window, each one `u32` packing the neighbour `h` with its overlap `a(g,h)` by
    /// [`Self::codec`]. A chunk's vector has room for `K` per window but only what it holds is
    /// ever written, so a sparse graph (a sample's) touches few pages.
    slots: Vec<Vec<u32>>,
    /// How `slots` pack a neighbour and its overlap: the index's packing of a window and its
    /// footprint length, the overlap in place of the length (an overlap too large to pack is
    /// recomputed when read, see [`Candidates`]).
    codec: EntryCodec,
    /// Where window `g`'s candidates start: its chunk's number `<<` [`CHUNK_SHIFT`] `|` the
    /// position in that chunk's slots.
    first: Vec<u64>,
    counts: Vec<u32>,
    bounded_columns: usize,
    bounded_windows: usize,
    lower_bound: u64,
}

/// Graphs are equal when their footprints, candidates (in order, with their overlaps), bounded
/// counts and lower bounds are: where the search packed the candidates does not matter.
impl PartialEq for WindowGraph<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.footprints == other.footprints
            && self.bounded_columns == other.bounded_columns
            && self.bounded_windows == other.bounded_windows
            && self.lower_bound == other.lower_bound
            && (0..self.len()).all(|g| self.candidates(g).eq(other.candidates(g)))
    }
}

impl Eq for WindowGraph<'_> {}

impl<'a> WindowGraph<'a> {
    /// Builds the graph of `windows` over the rows of `a` (values are ignored; for a column model
    /// pass [`crate::Axis::Columns`]`.pattern(a)`; for a sample pass the sampled pattern).
    ///
    /// # Errors
    /// [`LocalityError::RowCountMismatch`] when the windows do not partition `a`'s rows,
    /// [`LocalityError::TooLarge`] for more than `u32::MAX` windows.
    pub fn build<T: Value>(
        a: &'a CsrMatrix<T>,
        windows: &Windows,
        options: &GraphOptions,
    ) -> Result<Self, LocalityError> {
        Self::build_with_progress(a, windows, options, &|_| {})
    }

    /// [`Self::build`], calling `windows_done(k)` each time the candidate search, most of the
    /// build's time, has been through another `k` windows (a chunk of them, on any thread of the
    /// pool). The calls add up to the windows; should a mirrored index fail, the search runs
    /// again and they add up to twice as many.
    ///
    /// # Errors
    /// As [`Self::build`].
    pub fn build_with_progress<T: Value>(
        a: &'a CsrMatrix<T>,
        windows: &Windows,
        options: &GraphOptions,
        windows_done: &(dyn Fn(usize) + Sync),
    ) -> Result<Self, LocalityError> {
        let footprints = Footprints::new(a, windows, options.parallelism)?;
        let rows = Footprints::rows_of(a);
        let mirror = if windows.len() == a.nrows() {
            Mirror::Footprints
        } else {
            Mirror::Rows {
                rows: &rows,
                windows,
            }
        };
        Self::with_mirror(footprints, options, mirror, windows_done)
    }

    /// Builds the graph on given footprints.
    ///
    /// # Errors
    /// [`LocalityError::TooLarge`] for more than `u32::MAX` windows.
    pub fn from_footprints(
        footprints: Footprints<'a>,
        options: &GraphOptions,
    ) -> Result<Self, LocalityError> {
        Self::with_mirror(footprints, options, Mirror::Footprints, &|_| {})
    }

    /// [`Self::from_footprints`], with an index found through `mirror` when it can be.
    fn with_mirror(
        footprints: Footprints<'a>,
        options: &GraphOptions,
        mirror: Mirror<'_>,
        windows_done: &(dyn Fn(usize) + Sync),
    ) -> Result<Self, LocalityError> {
        let nw = footprints.len();
        if nw > u32::MAX as usize {
            return Err(LocalityError::TooLarge {
                what: "windows",
                value: nw as u64,
                max: u32::MAX as u64,
            });
        }
        let codec = EntryCodec::new(nw);
        // Narrow offsets whenever they fit: the search reads them at random.
        Ok(if footprints.entries() <= u32::MAX as usize {
            Self::searched::<u32>(footprints, options, codec, mirror, windows_done)
        } else {
            Self::searched::<usize>(footprints, options, codec, mirror, windows_done)
        })
    }

    /// [`Self::from_footprints`] with index offsets of type `O`, which must hold every footprint
    /// entry's position, and entries packed by `codec`, which must fit every window, the index
    /// found through `mirror` when it can be (tests pass other choices than the default to cover
    /// every path).
    #[cfg(test)]
    pub(crate) fn with_index<O: Offset>(
        footprints: Footprints<'a>,
        options: &GraphOptions,
        codec: EntryCodec,
        mirror: Mirror<'_>,
    ) -> Self {
        Self::searched::<O>(footprints, options, codec, mirror, &|_| {})
    }

    /// [`Self::with_index`], telling `windows_done` the windows searched as in
    /// [`Self::build_with_progress`].
    fn searched<O: Offset>(
        footprints: Footprints<'a>,
        options: &GraphOptions,
        codec: EntryCodec,
        mirror: Mirror<'_>,
        windows_done: &(dyn Fn(usize) + Sync),
    ) -> Self {
        let nw = footprints.len();
        let par = options.parallelism;
        let stride = options.neighbours.min(nw.saturating_sub(1));
        let mut first = vec![0u64; nw];
        let mut counts = vec![0u32; nw];
        // Many more chunks than threads: on a machine shared with other work a thread may lose
        // its core for a while, and the others then take over its remaining chunks (the SpMV
        // the benches compare with splits its rows into chunks of 4096; 64 per thread are about
        // 8000 windows each for 1M windows on 2 threads).
        let ranges = balanced_ranges(footprints.offsets(), (64 * par.threads()).min(MAX_CHUNKS));
        // A second run (after a mirrored index failed) rewrites every window with a non-empty
        // footprint, which are all the first one wrote.
        let mut run = |index: &ColumnIndex<O>| -> (Summary, Vec<Vec<u32>>) {
            let items = chunk_outputs(&ranges, (&mut first, &mut counts), stride);
            let summaries = search(
                (&footprints, index, codec),
                options,
                stride,
                items,
                windows_done,
            );
            let (summaries, slots): (Vec<Summary>, Vec<Vec<u32>>) = summaries.into_iter().unzip();
            let summary = summaries
                .into_iter()
                .fold(Summary::default(), Summary::merge);
            (summary, slots)
        };
        // A symmetric footprint matrix is its own index, and the windows of a symmetric matrix's
        // rows have theirs in its rows; the search confirms the symmetry (see
        // `ColumnIndex::mirrored`) and, should a window disprove it, the search runs again on
        // the real inverted index.
        let mirrored = mirrored_index::<O>(mirror, &footprints, codec, par, options.hub_limit);
        let mirrored = mirrored
            .map(|index| {
                let (summary, slots) = run(&index);
                (index, summary, slots)
            })
            .filter(|(_, summary, _)| !summary.asymmetric);
        let (index, summary, slots) = mirrored.unwrap_or_else(|| {
            let index = ColumnIndex::<O>::new(&footprints, codec, par);
            let (summary, slots) = run(&index);
            debug_assert!(!summary.asymmetric, "an inverted index lists every window");
            (index, summary, slots)
        });
        let bounded_columns = index.columns_over(options.hub_limit);
        let mut graph = Self {
            footprints,
            slots,
            codec,
            first,
            counts,
            bounded_columns,
            bounded_windows: summary.bounded_windows,
            lower_bound: 0,
        };
        graph.lower_bound = match nw {
            0 | 1 => 0,
            2 => graph.distance(0, 1),
            _ => summary.path_bound(),
        };
        graph
    }

    /// Number of windows (nodes).
    pub fn len(&self) -> usize {
        self.footprints.len()
    }

    /// True when there is no window.
    pub fn is_empty(&self) -> bool {
        self.footprints.is_empty()
    }

    /// The footprints.
    pub fn footprints(&self) -> &Footprints<'a> {
        &self.footprints
    }

    /// `n(g) = |F_g|`.
    ///
    /// # Panics
    /// If `g >= len()` (a caller bug).
    pub fn footprint_len(&self, g: usize) -> usize {
        self.footprints.footprint_len(g)
    }

    /// Window `g`'s candidate neighbours `h` with their overlaps `a(g,h)`, best first; the cost of
    /// edge `(g, h)` is `n(g) + n(h) - 2a(g,h)`. Empty for a window that overlaps no other.
    ///
    /// # Panics
    /// If `g >= len()` (a caller bug).
    pub fn candidates(&self, g: usize) -> Candidates<'_> {
        let first = self.first[g];
        let at = (first & CHUNK_OFFSET) as usize;
        let slots = &self.slots[(first >> CHUNK_SHIFT) as usize][at..at + self.counts[g] as usize];
        Candidates {
            footprints: &self.footprints,
            codec: self.codec,
            g,
            slots: slots.iter(),
        }
    }

    /// `d_w(g,h)`, exact, for any pair (a merge of the footprints, `O(n(g) + n(h))`).
    ///
    /// # Panics
    /// If `g` or `h` is not a window (a caller bug).
    pub fn distance(&self, g: usize, h: usize) -> u64 {
        self.footprints.distance(g, h)
    }

    /// Columns held by more than `hub_limit` windows, whose pair enumeration was bounded.
    pub fn bounded_columns(&self) -> usize {
        self.bounded_columns
    }

    /// Windows whose footprint holds at least one bounded column (their candidates may miss
    /// pairs).
    pub fn bounded_windows(&self) -> usize {
        self.bounded_windows
    }

    /// `D_w` in the current window order.
    pub fn windowed_distance(&self, par: Parallelism) -> u64 {
        self.footprints.windowed_distance(par)
    }

    /// `Σ_k d_w(order[k], order[k+1])`, see [`path_cost`].
    ///
    /// # Errors
    /// [`LocalityError::InvalidWindowOrder`] when `order` is not a permutation of `0..len()`.
    pub fn path_cost(&self, order: &[usize], par: Parallelism) -> Result<u64, LocalityError> {
        self.footprints.path_cost(order, par)
    }

    /// A lower bound on the cost of every Hamiltonian path (SPEC section 4): half the sum over
    /// windows of their two cheapest edge costs, less the two largest second-cheapest costs (the
    /// path's ends), rounded up. Cheapest costs are exact over overlapping windows and bounded
    /// below by `n(g) + min n(h)` for the others. A window with `b` bounded columns may share each
    /// of them with a window its partial lists did not show, so its costs are lowered by `2b`
    /// (at most `b` more columns in common), not exact.
    /// Exact (the only path's cost) for two windows, 0 for fewer.
    pub fn path_lower_bound(&self) -> u64 {
        self.lower_bound
    }
}

/// Where [`WindowGraph::with_index`] may find the inverted index without the radix sort of
/// [`ColumnIndex::new`].
#[derive(Debug, Clone, Copy)]
pub(crate) enum Mirror<'m> {
    /// Nowhere: invert the footprints (tests).
    #[cfg(test)]
    None,
    /// In the footprints, when they are square and symmetric ([`ColumnIndex::mirrored`]).
    Footprints,
    /// In the rows of a square matrix of which the footprints are the `windows`, when it is
    /// structurally symmetric ([`ColumnIndex::through_windows`]).
    Rows {
        rows: &'m Footprints<'m>,
        windows: &'m Windows,
    },
}

/// The candidates of one window, best first, as `(h, a(g,h))` pairs: see
/// [`WindowGraph::candidates`].
#[derive(Debug, Clone)]
pub struct Candidates<'g> {
    footprints: &'g Footprints<'g>,
    codec: EntryCodec,
    g: usize,
    slots: std::slice::Iter<'g, u32>,
}

impl Iterator for Candidates<'_> {
    type Item = (u32, u32);

    #[inline]
    fn next(&mut self) -> Option<(u32, u32)> {
        let &slot = self.slots.next()?;
        let h = self.codec.window(slot);
        let overlap = if self.codec.holds_packed(slot) {
            self.codec.packed_len(slot)
        } else {
            let (f_g, f_h) = (self.footprints.get(self.g), self.footprints.get(h as usize));
            intersection_len(f_g, f_h) as u32
        };
        Some((h, overlap))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.slots.size_hint()
    }
}

impl ExactSizeIterator for Candidates<'_> {}

/// `Σ_k d_w(order[k], order[k+1])` along a window order: `D_w` of the matrix reordered by
/// [`Windows::row_order`]`(order)` (rows keep their order inside a window, so footprints do not
/// change). Parallel on the current rayon pool.
///
/// # Errors
/// [`LocalityError::InvalidWindowOrder`] when `order` is not a permutation of the windows.
pub fn path_cost(graph: &WindowGraph<'_>, order: &[usize]) -> Result<u64, LocalityError> {
    graph.path_cost(order, Parallelism::Rayon)
}

/// Each chunk of windows in `ranges` with its output: room for `stride` candidates a window, and
/// its part of the graph's `first` and `counts` arrays.
fn chunk_outputs<'o>(
    ranges: &[Range<usize>],
    (first, counts): (&'o mut [u64], &'o mut [u32]),
    stride: usize,
) -> Vec<(Range<usize>, ChunkOutput<'o>)> {
    ranges
        .iter()
        .cloned()
        .zip(split_mut_at(first, &range_bounds(ranges, 1)))
        .zip(split_mut_at(counts, &range_bounds(ranges, 1)))
        .enumerate()
        .map(|(chunk, ((range, f), c))| {
            // One `u32` per candidate, not a neighbour and an overlap of `u32` each: a
            // fresh page costs microseconds on its first write, a visible share of a
            // large build. Never zeroed: one zeroed array for all chunks, when the allocator
            // reused it from its heap, was cleared in full, which on a sample's sparse
            // graph wrote 32 MB for a few thousand candidates.
            let slots = Vec::with_capacity(range.len() * stride);
            (
                range,
                ChunkOutput {
                    slots,
                    chunk: (chunk as u64) << CHUNK_SHIFT,
                    first: f,
                    counts: c,
                },
            )
        })
        .collect()
}

/// The index found through `mirror`, when it can be (see [`ColumnIndex::mirrored`]).
fn mirrored_index<O: Offset>(
    mirror: Mirror<'_>,
    footprints: &Footprints<'_>,
    codec: EntryCodec,
    par: Parallelism,
    hub_limit: usize,
) -> Option<ColumnIndex<O>> {
    match mirror {
        #[cfg(test)]
        Mirror::None => None,
        Mirror::Footprints => ColumnIndex::<O>::mirrored(footprints, codec, par, hub_limit),
        Mirror::Rows { rows, windows } => {
            ColumnIndex::<O>::through_windows(rows, windows, footprints, codec, par, hub_limit)
        }
    }
}

#[cfg(test)]
mod tests;
