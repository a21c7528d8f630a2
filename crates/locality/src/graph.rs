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

use crate::accumulate::{Accumulator, DenseAccumulator, HashAccumulator, HASH_MAX_WORK};
use crate::distance::intersection_len;
use crate::error::LocalityError;
use crate::footprint::Footprints;
use crate::index::{ColumnIndex, EntryCodec, Offset};
use crate::par::{balanced_ranges, range_bounds, split_mut_at, Parallelism};
use crate::windows::Windows;
use spmv_reorder_sparse::overlap_kernel::{self, OverlapLists, PADDING};
use spmv_reorder_sparse::{prefetch, CsrMatrix, Value};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

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
        Self::with_mirror(footprints, options, mirror)
    }

    /// Builds the graph on given footprints.
    ///
    /// # Errors
    /// [`LocalityError::TooLarge`] for more than `u32::MAX` windows.
    pub fn from_footprints(
        footprints: Footprints<'a>,
        options: &GraphOptions,
    ) -> Result<Self, LocalityError> {
        Self::with_mirror(footprints, options, Mirror::Footprints)
    }

    /// [`Self::from_footprints`], with an index found through `mirror` when it can be.
    fn with_mirror(
        footprints: Footprints<'a>,
        options: &GraphOptions,
        mirror: Mirror<'_>,
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
            Self::with_index::<u32>(footprints, options, codec, mirror)
        } else {
            Self::with_index::<usize>(footprints, options, codec, mirror)
        })
    }

    /// [`Self::from_footprints`] with index offsets of type `O`, which must hold every footprint
    /// entry's position, and entries packed by `codec`, which must fit every window, the index
    /// found through `mirror` when it can be (tests pass other choices than the default to cover
    /// every path).
    pub(crate) fn with_index<O: Offset>(
        footprints: Footprints<'a>,
        options: &GraphOptions,
        codec: EntryCodec,
        mirror: Mirror<'_>,
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
            let items: Vec<_> = ranges
                .iter()
                .cloned()
                .zip(split_mut_at(&mut first, &range_bounds(&ranges, 1)))
                .zip(split_mut_at(&mut counts, &range_bounds(&ranges, 1)))
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
                .collect();
            // Narrow keys whenever they order like the wide ones. Alone (before the min/max
            // insertion of `TopK::offer`) they took cachegrind's count on the shuffled 64k-row
            // grid, w=1 and variable windows, from 680M to 629M instructions and 5.97M to 5.72M
            // mispredicts; their own time gain on the 1M-row grid was within the noise of a
            // shared machine.
            let summaries = match NarrowOverlap::new(options.rank, codec, &footprints) {
                Some(narrow) => search(&footprints, index, options, stride, narrow, items),
                None => {
                    let wide = WideRank {
                        rank: options.rank,
                        codec,
                    };
                    search(&footprints, index, options, stride, wide, items)
                }
            };
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
        let mirrored = match mirror {
            #[cfg(test)]
            Mirror::None => None,
            Mirror::Footprints => {
                ColumnIndex::<O>::mirrored(&footprints, codec, par, options.hub_limit)
            }
            Mirror::Rows { rows, windows } => ColumnIndex::<O>::through_windows(
                rows,
                windows,
                &footprints,
                codec,
                par,
                options.hub_limit,
            ),
        };
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

/// Runs the candidate search on every chunk of `items`, with top-K keys made by `rank`; returns
/// each chunk's summary and candidates.
fn search<O: Offset, R: Ranking>(
    footprints: &Footprints<'_>,
    index: &ColumnIndex<O>,
    options: &GraphOptions,
    stride: usize,
    rank: R,
    items: Vec<(Range<usize>, ChunkOutput<'_>)>,
) -> Vec<(Summary, Vec<u32>)> {
    let search = CandidateSearch {
        footprints,
        index,
        hub_limit: options.hub_limit,
        rank,
        stride,
        smallest: SmallestFootprints::new(footprints),
        scratch: Mutex::new(Vec::new()),
        asymmetric: AtomicBool::new(false),
        small_kernel: (1..=overlap_kernel::MAX_KEEP).contains(&stride)
            && overlap_kernel::available(),
    };
    options
        .parallelism
        .map(items, |(range, out)| search.run_chunk(range, out))
}

/// The three smallest footprints `(n(h), h)`, to bound the cost of non-overlapping pairs below.
#[derive(Debug, Clone, Copy)]
struct SmallestFootprints([(u64, usize); 3]);

impl SmallestFootprints {
    fn new(footprints: &Footprints<'_>) -> Self {
        let mut best = [(u64::MAX, usize::MAX); 3];
        for h in 0..footprints.len() {
            let entry = (footprints.footprint_len(h) as u64, h);
            if entry < best[2] {
                best[2] = entry;
                best.sort_unstable();
            }
        }
        Self(best)
    }

    /// The two smallest `n(h)` over `h != g`.
    fn two_excluding(&self, g: usize) -> [u64; 2] {
        let mut others = self.0.iter().filter(|e| e.1 != g).map(|e| e.0);
        [
            others.next().unwrap_or(u64::MAX),
            others.next().unwrap_or(u64::MAX),
        ]
    }
}

/// Bits of [`WindowGraph`]'s `first` below a chunk's number: room for `2^40` candidates in a
/// chunk, 4 TiB of them, and `2^24` chunks.
const CHUNK_SHIFT: u32 = 40;
const CHUNK_OFFSET: u64 = (1 << CHUNK_SHIFT) - 1;
const MAX_CHUNKS: usize = 1 << (u64::BITS - CHUNK_SHIFT);

/// The per-window results of a chunk of consecutive windows.
struct ChunkOutput<'a> {
    /// The chunk's candidates, window after window.
    slots: Vec<u32>,
    /// The chunk's number, shifted into place for `first`.
    chunk: u64,
    first: &'a mut [u64],
    counts: &'a mut [u32],
}

/// Per-thread workspace: the gathered index entries of a batch, the accumulators and the best
/// candidates of the current window.
struct Scratch<K> {
    /// The chunk's windows with a non-empty footprint.
    windows: Vec<usize>,
    batch: Batch,
    /// The next batch, gathered while `batch` is computed.
    next: Batch,
    hash: HashAccumulator,
    /// Allocated on the first window whose work exceeds [`HASH_MAX_WORK`].
    dense: Option<DenseAccumulator>,
    best: TopK<K>,
}

/// Windows searched together: the random index reads of a batch are prefetched while the previous
/// batch is computed (see [`CandidateSearch::run_chunk`]). Small enough that the lines prefetched
/// for the next batch (about ten per window) stay in L1 until it is computed (on the shuffled
/// 1M-row grid 16 measured faster than 64, and alike to 8).
const BATCH: usize = 16;

/// The index spans of a batch of windows.
#[derive(Debug, Default)]
struct Batch {
    /// Ranges of [`ColumnIndex::entries`], window after window.
    spans: Vec<Range<usize>>,
    /// `spans_of[b]..spans_of[b+1]` are window `b`'s spans.
    spans_of: Vec<usize>,
    /// How many bounded columns window `b` met.
    hubs: Vec<u32>,
}

/// Totals of a chunk: windows touching bounded columns and the path lower bound's terms.
#[derive(Debug, Clone, Copy, Default)]
struct Summary {
    bounded_windows: usize,
    /// A window's overlap with itself was not `n(g)`: the index was not the footprints'
    /// transpose (a mirrored index of a matrix that is not symmetric); the other fields are void.
    asymmetric: bool,
    /// `Σ_g (c1(g) + c2(g))`.
    cheapest_sum: u128,
    /// The two largest `c2(g)`.
    largest_second: [u64; 2],
}

impl Summary {
    fn add_window(&mut self, bounded: bool, cheapest: [u64; 2]) {
        self.bounded_windows += bounded as usize;
        self.cheapest_sum += cheapest[0] as u128 + cheapest[1] as u128;
        self.push_second(cheapest[1]);
    }

    fn push_second(&mut self, c2: u64) {
        if c2 > self.largest_second[1] {
            self.largest_second[1] = c2;
            if c2 > self.largest_second[0] {
                self.largest_second.swap(0, 1);
            }
        }
    }

    fn merge(mut self, other: Summary) -> Summary {
        self.bounded_windows += other.bounded_windows;
        self.asymmetric |= other.asymmetric;
        self.cheapest_sum += other.cheapest_sum;
        other
            .largest_second
            .iter()
            .for_each(|&c| self.push_second(c));
        self
    }

    fn path_bound(&self) -> u64 {
        let ends = self.largest_second[0] as u128 + self.largest_second[1] as u128;
        (self.cheapest_sum.saturating_sub(ends)).div_ceil(2) as u64
    }
}

/// Shared, read-only state of the candidate search, plus a pool of scratch workspaces.
struct CandidateSearch<'a, O, R: Ranking> {
    footprints: &'a Footprints<'a>,
    index: &'a ColumnIndex<O>,
    hub_limit: usize,
    rank: R,
    stride: usize,
    smallest: SmallestFootprints,
    scratch: Mutex<Vec<Scratch<R::Key>>>,
    /// Set by the first window whose overlap with itself is not `n(g)`: the other chunks stop.
    asymmetric: AtomicBool,
    /// Whether small windows go to [`overlap_kernel::rank`] (the machine has it, and `K` fits).
    small_kernel: bool,
}

impl<O: Offset, R: Ranking> CandidateSearch<'_, O, R> {
    /// The job of one chunk of consecutive windows, in batches of [`BATCH`], pipelined: while
    /// batch `b` is computed, each window prefetches the index entries of its counterpart in batch
    /// `b+1` (whose spans are known) and the index offsets of its counterpart in batch `b+2`, so
    /// the random reads of a batch are in cache by the time it is computed. This replaced touching
    /// a batch's offsets and entries in tight loops just before computing it, which overlapped the
    /// misses with each other but not with the work: on the shuffled 1M-row grid, w=1, one
    /// thread, the build's best of 11 went from 622-683 ms to 548-592 ms (three alternated runs
    /// each, on a machine shared with another benchmark).
    fn run_chunk(&self, range: Range<usize>, mut out: ChunkOutput<'_>) -> (Summary, Vec<u32>) {
        let mut scratch = self.take_scratch();
        let mut summary = Summary::default();
        // Empty windows (most windows of a sparse sample) have no candidate, and every edge of
        // theirs costs `n(h)`: settled here, so that the pipeline only sees windows with work
        // (on the shuffled 1M-row grid's 2% sample, w=1, 2 threads, the build measured 30-33
        // ms against 35-43 ms).
        let mut windows = std::mem::take(&mut scratch.windows);
        windows.clear();
        for g in range.clone() {
            if self.footprints.footprint_len(g) == 0 {
                summary.add_window(false, self.smallest.two_excluding(g));
            } else {
                windows.push(g);
            }
        }
        let batch_from =
            |first: usize| first.min(windows.len())..(first + BATCH).min(windows.len());
        let mut current = batch_from(0);
        let mut next = batch_from(current.end);
        // The first two batches of a chunk have nothing to overlap with.
        for &g in &windows[current.start..next.end] {
            self.prefetch_offsets(g);
        }
        self.gather(&windows[current.clone()], &mut scratch.batch);
        for b in 0..current.len() {
            self.prefetch_entries(&scratch.batch, b);
        }
        while !current.is_empty() {
            if self.asymmetric.load(Ordering::Relaxed) {
                summary.asymmetric = true;
                break;
            }
            let after = batch_from(next.end);
            self.gather(&windows[next.clone()], &mut scratch.next);
            for (b, &g) in windows[current.clone()].iter().enumerate() {
                self.prefetch_entries(&scratch.next, b);
                if let Some(&later) = windows[after.clone()].get(b) {
                    self.prefetch_offsets(later);
                }
                let bounded = scratch.batch.hubs[b] > 0;
                let Some(cheapest) = self.rank_candidates(g, b, &mut scratch) else {
                    self.asymmetric.store(true, Ordering::Relaxed);
                    summary.asymmetric = true;
                    break;
                };
                summary.add_window(bounded, cheapest);
                if bounded {
                    self.make_exact(g, &mut scratch.best);
                }
                self.write(g - range.start, &scratch.best, &mut out);
            }
            std::mem::swap(&mut scratch.batch, &mut scratch.next);
            current = next;
            next = after;
        }
        scratch.windows = windows;
        self.scratch
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(scratch);
        (summary, out.slots)
    }

    fn take_scratch(&self) -> Scratch<R::Key> {
        let reused = self.scratch.lock().unwrap_or_else(|e| e.into_inner()).pop();
        reused.unwrap_or_else(|| Scratch {
            windows: Vec::new(),
            batch: Batch::default(),
            next: Batch::default(),
            hash: HashAccumulator::default(),
            dense: None,
            best: TopK::new(self.stride),
        })
    }

    /// Prefetches the index offsets of every column of window `g`.
    fn prefetch_offsets(&self, g: usize) {
        for &c in self.footprints.get(g) {
            self.index.prefetch_span(c);
        }
    }

    /// Prefetches the first and last index entries of every span of window number `b` of
    /// `batch`, if there is one (a span of a few entries often straddles two cache lines, and
    /// touching only the first measured slower).
    fn prefetch_entries(&self, batch: &Batch, b: usize) {
        if self.index.is_strided() {
            // `prefetch_offsets` asked for the lists themselves.
            return;
        }
        let Some(spans) = batch.spans_of.get(b..b + 2) else {
            return;
        };
        let all = self.index.entries();
        for span in &batch.spans[spans[0]..spans[1]] {
            if !span.is_empty() {
                prefetch(all, span.start);
                prefetch(all, span.end - 1);
            }
        }
    }

    /// Finds the index spans of every window of `windows` (bounding hub columns).
    fn gather(&self, windows: &[usize], batch: &mut Batch) {
        let Batch {
            spans,
            spans_of,
            hubs,
        } = batch;
        spans.clear();
        spans_of.clear();
        hubs.clear();
        spans_of.push(0);
        for &g in windows {
            let mut bounded = 0;
            for &c in self.footprints.get(g) {
                let mut span = self.index.span_of(c);
                if span.len() > self.hub_limit {
                    bounded += 1;
                    span = self.nearest(span, g as u32);
                }
                spans.push(span);
            }
            spans_of.push(spans.len());
            hubs.push(bounded);
        }
    }

    /// Fills `scratch.best` with the best candidates of window `g` (number `b` of the gathered
    /// batch) by (possibly partial) overlap; returns lower bounds of `g`'s two cheapest edge costs
    /// (exact unless `g` met a bounded column), or `None` when `g`'s overlap with itself is not
    /// `n(g)` (the index is not the footprints' transpose).
    fn rank_candidates(
        &self,
        g: usize,
        b: usize,
        scratch: &mut Scratch<R::Key>,
    ) -> Option<[u64; 2]> {
        let Scratch {
            batch,
            next: _,
            windows: _,
            hash,
            dense,
            best,
        } = scratch;
        let spans = &batch.spans[batch.spans_of[b]..batch.spans_of[b + 1]];
        let all = self.index.entries();
        let work: usize = spans.iter().map(|s| s.len()).sum();
        let n_g = self.footprints.footprint_len(g);
        let window = OverlapLists {
            entries: all,
            spans,
            own: self.index.codec().encode(g as u32, n_g),
            n_g: n_g as u64,
            len_bits: self.index.codec().len_bits(),
            bounds: self.unseen_costs(g, n_g as u64),
            keep: self.stride,
        };
        let kernel = (self.small_kernel
            && (overlap_kernel::MIN_WORK..=overlap_kernel::MAX_WORK).contains(&work)
            && batch.hubs[b] == 0)
            .then(|| self.rank.rank_small(&window, best))
            .flatten();
        let (cheapest, own_overlap) = kernel.unwrap_or_else(|| {
            let lists = spans.iter().map(|s| &all[s.clone()]);
            if work <= HASH_MAX_WORK {
                hash.reset(work);
                self.rank_with(&window, lists, hash, best)
            } else {
                let dense = dense.get_or_insert_with(|| {
                    DenseAccumulator::new(self.footprints.len(), self.index.codec().len_bits())
                });
                self.rank_with(&window, lists, dense, best)
            }
        });
        if own_overlap as usize != n_g {
            None
        } else {
            // A bounded column's partial list may have left out a window that shares it: the
            // overlap with any window is at most one more per bounded column than counted.
            let shared_unseen = 2 * batch.hubs[b] as u64;
            Some(cheapest.map(|c| c.saturating_sub(shared_unseen)))
        }
    }

    /// Counts overlaps from `lists` (the index entries of `window`) and offers every window to
    /// `best`; returns the two cheapest edge costs seen, with `window.bounds` standing for the
    /// windows not seen, and `g`'s count of itself.
    fn rank_with<'e>(
        &self,
        window: &OverlapLists<'_>,
        lists: impl Iterator<Item = &'e [u32]>,
        acc: &mut impl Accumulator,
        best: &mut TopK<R::Key>,
    ) -> ([u64; 2], u32) {
        // `g` itself is counted too and skipped once in the drain: a test per entry here
        // mispredicted once per column of `g`.
        for list in lists {
            // A strided index pads its lists at the end.
            for &entry in list.iter().take_while(|&&e| e != PADDING) {
                acc.add(entry);
            }
        }
        let n_g = window.n_g;
        let mut cheapest = window.bounds;
        best.clear();
        let mut own_overlap = 0;
        acc.drain(|key, overlap| {
            if key == window.own {
                own_overlap = overlap;
                return;
            }
            let n_h = self.rank.footprint_len(key, self.footprints);
            let cost = n_g + n_h as u64 - 2 * overlap as u64;
            if cost < cheapest[1] {
                cheapest = if cost < cheapest[0] {
                    [cost, cheapest[0]]
                } else {
                    [cheapest[0], cost]
                };
            }
            best.offer(self.rank.key(key, overlap, cost));
        });
        (cheapest, own_overlap)
    }

    /// `n(g) + ` the two smallest `n(h)`, `h != g`: the two cheapest costs of windows `g` does not
    /// overlap.
    fn unseen_costs(&self, g: usize, n_g: u64) -> [u64; 2] {
        let [m1, m2] = self.smallest.two_excluding(g);
        [n_g.saturating_add(m1), n_g.saturating_add(m2)]
    }

    /// Writes the kept candidates of the chunk's window number `local`.
    fn write(&self, local: usize, best: &TopK<R::Key>, out: &mut ChunkOutput<'_>) {
        let codec = self.index.codec();
        out.first[local] = out.chunk | out.slots.len() as u64;
        out.counts[local] = best.keys().len() as u32;
        out.slots.extend(best.keys().iter().map(|&key| {
            let (window, overlap) = self.rank.decode(key);
            codec.encode(window, overlap as usize)
        }));
    }

    /// The part of the index span of a bounded column that window `g` pairs with.
    fn nearest(&self, span: Range<usize>, g: u32) -> Range<usize> {
        let codec = self.index.codec();
        let near = nearest(
            &self.index.entries()[span.clone()],
            |e| codec.window(e) < g,
            self.hub_limit,
        );
        span.start + near.start..span.start + near.end
    }

    /// Replaces the kept candidates' overlaps by exact ones (a merge each) and re-ranks them.
    fn make_exact(&self, g: usize, best: &mut TopK<R::Key>) {
        let f_g = self.footprints.get(g);
        let codec = self.index.codec();
        for key in best.keys_mut() {
            let (h, _) = self.rank.decode(*key);
            let f_h = self.footprints.get(h as usize);
            let overlap = intersection_len(f_g, f_h);
            let cost = (f_g.len() + f_h.len() - 2 * overlap) as u64;
            *key = self
                .rank
                .key(codec.encode(h, f_h.len()), overlap as u32, cost);
        }
        best.keys_mut().sort_unstable();
    }
}

impl CandidateRank {
    /// A key whose order is the rank order (smaller is better), ties to the smaller window.
    /// Costs are below `2^33` (at most twice `u32::MAX` columns), so they fit 64 bits.
    fn encode(self, window: u32, overlap: u32, cost: u64) -> u128 {
        let worse_overlap = (u32::MAX - overlap) as u128;
        match self {
            CandidateRank::Overlap => worse_overlap << 96 | (cost as u128) << 32 | window as u128,
            CandidateRank::Cost => (cost as u128) << 64 | worse_overlap << 32 | window as u128,
        }
    }

    /// `(window, overlap)` of a key made by [`Self::encode`].
    fn decode(self, key: u128) -> (u32, u32) {
        let worse_overlap = match self {
            CandidateRank::Overlap => (key >> 96) as u32,
            CandidateRank::Cost => (key >> 32) as u32,
        };
        (key as u32, u32::MAX - worse_overlap)
    }
}

/// A top-K key: its order is the rank order (smaller is better).
trait RankKey: Copy + Ord + Send + std::fmt::Debug {
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
trait Ranking: Copy + Send + Sync {
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
struct WideRank {
    rank: CandidateRank,
    codec: EntryCodec,
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
struct NarrowOverlap {
    codec: EntryCodec,
}

impl NarrowOverlap {
    /// The narrow keys, if `rank` is [`CandidateRank::Overlap`] and every footprint length fits
    /// an entry packed by `codec` (below its "look it up" value).
    fn new(rank: CandidateRank, codec: EntryCodec, footprints: &Footprints<'_>) -> Option<Self> {
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
    fn set_padded(&mut self, keys: &[u64; overlap_kernel::MAX_KEEP], kept: usize) {
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
struct TopK<K> {
    slots: Vec<K>,
    len: usize,
}

impl<K: RankKey> TopK<K> {
    const FREE: K = K::FREE;

    fn new(capacity: usize) -> Self {
        Self {
            slots: vec![Self::FREE; capacity],
            len: 0,
        }
    }

    fn clear(&mut self) {
        self.slots[..self.len].fill(Self::FREE);
        self.len = 0;
    }

    /// Keeps exactly `keys` (increasing, at most `capacity`), as if offered after a clear.
    fn set_sorted(&mut self, keys: &[K]) {
        debug_assert!(keys.windows(2).all(|p| p[0] < p[1]) && keys.len() <= self.slots.len());
        self.slots[..keys.len()].copy_from_slice(keys);
        self.slots[keys.len()..].fill(Self::FREE);
        self.len = keys.len();
    }

    /// The kept keys, best first.
    fn keys(&self) -> &[K] {
        &self.slots[..self.len]
    }

    /// The kept keys, to be rewritten (the caller restores the order).
    fn keys_mut(&mut self) -> &mut [K] {
        &mut self.slots[..self.len]
    }

    fn offer(&mut self, key: K) {
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
fn sink<K: RankKey>(slots: &mut [K], key: K) {
    let mut carry = key;
    for slot in slots.iter_mut() {
        let held = *slot;
        *slot = held.min(carry);
        carry = held.max(carry);
    }
}

/// The positions of the `limit + 1` entries of the sorted `list` nearest to `g`'s position (`g` is
/// in `list`), so `g` meets at most `limit` other windows.
fn nearest(list: &[u32], before_g: impl Fn(u32) -> bool, limit: usize) -> Range<usize> {
    let at = list.partition_point(|&entry| before_g(entry));
    let take = limit.saturating_add(1).min(list.len());
    let start = at.saturating_sub(limit / 2).min(list.len() - take);
    start..start + take
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::spec_example;

    /// Window `w`'s candidates as `(h, a(w,h))` pairs.
    fn pairs(g: &WindowGraph<'_>, w: usize) -> Vec<(u32, u32)> {
        g.candidates(w).collect()
    }

    #[test]
    fn spec_worked_example_graph() {
        let a = spec_example();
        let g = WindowGraph::build(&a, &Windows::single_rows(4), &GraphOptions::default()).unwrap();
        assert_eq!(g.len(), 4);
        // Overlaps: a(0,1)=1, a(0,3)=2, a(1,3)=2, row 2 overlaps nothing.
        assert_eq!(pairs(&g, 0), [(3, 2), (1, 1)]);
        assert_eq!(pairs(&g, 1), [(3, 2), (0, 1)]);
        assert_eq!(g.candidates(2).len(), 0);
        assert_eq!(pairs(&g, 3), [(0, 2), (1, 2)]);
        assert_eq!(g.footprint_len(3), 3);
        assert_eq!(g.distance(2, 3), 4);
        assert_eq!(g.windowed_distance(Parallelism::Rayon), 9);
        assert_eq!(path_cost(&g, &[0, 3, 1, 2]).unwrap(), 5);
        assert_eq!(g.bounded_columns(), 0);
        let two = WindowGraph::build(&a, &Windows::fixed(4, 2).unwrap(), &GraphOptions::default())
            .unwrap();
        assert_eq!(two.windowed_distance(Parallelism::Rayon), 1);
        assert_eq!(two.path_lower_bound(), 1);
        assert_eq!(pairs(&two, 0), [(1, 3)]);
    }

    #[test]
    fn nearest_takes_a_window_around_g() {
        let list: Vec<u32> = (0..10).map(|x| x * 2).collect();
        let near =
            |g: u32, limit: usize| -> Vec<u32> { list[nearest(&list, |e| e < g, limit)].to_vec() };
        assert_eq!(near(8, 4), vec![4, 6, 8, 10, 12]);
        assert_eq!(near(0, 4), vec![0, 2, 4, 6, 8]);
        assert_eq!(near(18, 4), vec![10, 12, 14, 16, 18]);
        assert_eq!(near(18, 0), vec![18]);
        assert_eq!(near(6, 100).len(), 10);
    }

    #[test]
    fn rank_keys_round_trip_and_order() {
        for rank in [CandidateRank::Overlap, CandidateRank::Cost] {
            let k = rank.encode(7, 3, 10);
            assert_eq!(rank.decode(k), (7, 3));
            assert!(rank.encode(7, 3, 10) < rank.encode(8, 3, 10));
        }
        let o = CandidateRank::Overlap;
        assert!(o.encode(9, 4, 100) < o.encode(1, 3, 1));
        assert!(o.encode(9, 4, 5) < o.encode(1, 4, 6));
        let c = CandidateRank::Cost;
        assert!(c.encode(9, 1, 5) < c.encode(1, 4, 6));
        assert!(c.encode(9, 4, 5) < c.encode(1, 3, 5));
        let mut top = TopK::new(3);
        for key in [5u128, 1, 9, 3, 7, 2] {
            top.offer(key);
        }
        assert_eq!(top.keys(), &[1, 2, 3]);
        top.clear();
        top.offer(4);
        top.offer(2);
        assert_eq!(top.keys(), &[2, 4]);
        for key in [9u128, 8, 7, 1] {
            top.offer(key);
        }
        assert_eq!(top.keys(), &[1, 2, 4]);
        top.clear();
        assert!(top.keys().is_empty());
        top.offer(5);
        assert_eq!(top.keys(), &[5]);
        let mut none = TopK::<u128>::new(0);
        none.offer(1);
        assert!(none.keys().is_empty());
        // The min/max chain keeps the smallest keys of any sequence, duplicates included.
        let mut x = 12345u64;
        for capacity in 1..10 {
            let mut top = TopK::<u64>::new(capacity);
            for len in 0..30 {
                top.clear();
                let mut offered = Vec::new();
                for _ in 0..len {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let key = (x >> 40) % 50;
                    top.offer(key);
                    offered.push(key);
                }
                offered.sort_unstable();
                offered.truncate(capacity);
                assert_eq!(top.keys(), &offered[..]);
            }
        }
    }

    #[test]
    fn narrow_keys_order_like_wide_ones() {
        let codec = EntryCodec::new(1000);
        let narrow = NarrowOverlap { codec };
        let wide = WideRank {
            rank: CandidateRank::Overlap,
            codec,
        };
        let n_g = 9u64;
        // (window, n(h), overlap) with overlap <= min(n(g), n(h)).
        let mut candidates = Vec::new();
        for h in [0u32, 1, 2, 500, 998] {
            for n_h in [1u32, 2, 5, 9, 40] {
                for a in 1..=n_h.min(n_g as u32) {
                    candidates.push((h, n_h, a));
                }
            }
        }
        let keys = |(h, n_h, a): (u32, u32, u32)| {
            let entry = codec.encode(h, n_h as usize);
            let cost = n_g + n_h as u64 - 2 * a as u64;
            (narrow.key(entry, a, cost), wide.key(entry, a, cost))
        };
        for &x in &candidates {
            let (nx, wx) = keys(x);
            assert_eq!(narrow.decode(nx), (x.0, x.2));
            assert_eq!(wide.decode(wx), (x.0, x.2));
            for &y in &candidates {
                let (ny, wy) = keys(y);
                assert_eq!(nx.cmp(&ny), wx.cmp(&wy), "{x:?} {y:?}");
            }
        }
    }

    #[test]
    fn narrow_keys_only_when_every_length_is_packed() {
        let a = spec_example();
        let f = Footprints::new(&a, &Windows::single_rows(4), Parallelism::Sequential).unwrap();
        let overlap = CandidateRank::Overlap;
        assert!(NarrowOverlap::new(overlap, EntryCodec::new(4), &f).is_some());
        assert!(NarrowOverlap::new(CandidateRank::Cost, EntryCodec::new(4), &f).is_none());
        // One bit of length: footprints of length 1 or more are looked up, so the u128 path runs,
        // and it gives the same graph.
        assert!(NarrowOverlap::new(overlap, EntryCodec::tight(), &f).is_none());
        for k in [1, 2, 3] {
            let opts = GraphOptions::default().with_neighbours(k);
            let narrow = WindowGraph::with_index::<u32>(
                f.clone(),
                &opts,
                EntryCodec::new(4),
                Mirror::Footprints,
            );
            let wide =
                WindowGraph::with_index::<u32>(f.clone(), &opts, EntryCodec::tight(), Mirror::None);
            assert_eq!(narrow, wide);
        }
    }

    #[test]
    fn degenerate_graphs() {
        let empty: CsrMatrix<()> = CsrMatrix::from_triplets(0, 0, vec![]).unwrap();
        let g =
            WindowGraph::build(&empty, &Windows::single_rows(0), &GraphOptions::default()).unwrap();
        assert!(g.is_empty());
        assert_eq!(g.path_lower_bound(), 0);
        assert_eq!(g.path_cost(&[], Parallelism::Rayon).unwrap(), 0);
        let one = CsrMatrix::from_triplets(1, 2, vec![(0, 1, 1.0)]).unwrap();
        let g =
            WindowGraph::build(&one, &Windows::single_rows(1), &GraphOptions::default()).unwrap();
        assert_eq!(g.candidates(0).len(), 0);
        assert_eq!(g.path_cost(&[0], Parallelism::Rayon).unwrap(), 0);
        let blank: CsrMatrix<f64> = CsrMatrix::from_triplets(4, 4, vec![]).unwrap();
        let g =
            WindowGraph::build(&blank, &Windows::single_rows(4), &GraphOptions::default()).unwrap();
        assert!((0..4).all(|w| g.candidates(w).len() == 0 && g.footprint_len(w) == 0));
        assert_eq!(g.path_lower_bound(), 0);
        let none = GraphOptions::default().with_neighbours(0);
        let example = spec_example();
        let g = WindowGraph::build(&example, &Windows::single_rows(4), &none).unwrap();
        assert!((0..4).all(|w| g.candidates(w).len() == 0));
    }

    #[test]
    fn heavy_windows_use_the_dense_accumulator() {
        // Rows 0..100 hold columns 0..100 (work 100·100 > HASH_MAX_WORK per row); rows 100..150
        // hold one column 200 + i % 5, shared by 10 rows each.
        let dense_rows = (0..100).flat_map(|i| (0..100).map(move |j| (i, j, 1.0)));
        let light_rows = (100..150).map(|i| (i, 200 + i % 5, 1.0));
        let a = CsrMatrix::from_triplets(150, 205, dense_rows.chain(light_rows)).unwrap();
        const { assert!(100 * 100 > HASH_MAX_WORK) };
        let opts = GraphOptions::default()
            .with_neighbours(3)
            .with_hub_limit(usize::MAX);
        let g = WindowGraph::build(&a, &Windows::single_rows(150), &opts).unwrap();
        assert_eq!(pairs(&g, 0), [(1, 100), (2, 100), (3, 100)]);
        assert_eq!(pairs(&g, 57), [(0, 100), (1, 100), (2, 100)]);
        assert_eq!(pairs(&g, 101), [(106, 1), (111, 1), (116, 1)]);
        let seq = WindowGraph::build(
            &a,
            &Windows::single_rows(150),
            &opts.with_parallelism(Parallelism::Sequential),
        )
        .unwrap();
        assert_eq!(seq, g);
    }

    #[test]
    fn windows_on_hub_columns_keep_a_useful_lower_bound() {
        // Every row holds the hub column 0 and three columns of its own: every pair of rows
        // shares exactly the hub, so every edge costs 4 + 4 - 2 = 6 and the best path 6·(n - 1).
        // With the hub bounded, a window's partial list may miss windows sharing it: its counted
        // costs (6 for the windows seen, 8 for the others) are lowered by 2, to 4 and 6, and the
        // bound is half of 4 + 4 per window less the ends' 4 + 4: 4·(n - 1). It used to be 0.
        let n = 50;
        let t: Vec<(usize, usize, f64)> = (0..n)
            .flat_map(|i| {
                [
                    (i, 0, 1.0),
                    (i, 1 + 3 * i, 1.0),
                    (i, 2 + 3 * i, 1.0),
                    (i, 3 + 3 * i, 1.0),
                ]
            })
            .collect();
        let a = CsrMatrix::from_triplets(n, 1 + 3 * n, t).unwrap();
        let bounded = GraphOptions::default()
            .with_hub_limit(10)
            .with_neighbours(4);
        let g = WindowGraph::build(&a, &Windows::single_rows(n), &bounded).unwrap();
        assert_eq!((g.bounded_columns(), g.bounded_windows()), (1, n));
        assert_eq!(g.path_lower_bound(), 4 * (n as u64 - 1));
        let order: Vec<usize> = (0..n).collect();
        assert_eq!(path_cost(&g, &order).unwrap(), 6 * (n as u64 - 1));
        // Unbounded, the costs are exact: every window's two cheapest are 6.
        let exact =
            WindowGraph::build(&a, &Windows::single_rows(n), &GraphOptions::default()).unwrap();
        assert_eq!(exact.path_lower_bound(), 6 * (n as u64 - 1));
    }

    #[test]
    fn hub_columns_are_bounded_and_counted() {
        // Column 0 is in every row (a hub); column 1 + i/10 groups rows by tens.
        let n = 100;
        let t: Vec<(usize, usize, f64)> = (0..n)
            .flat_map(|i| [(i, 0, 1.0), (i, 1 + i / 10, 1.0)])
            .collect();
        let a = CsrMatrix::from_triplets(n, 11, t).unwrap();
        let opts = GraphOptions::default()
            .with_hub_limit(20)
            .with_neighbours(4);
        let g = WindowGraph::build(&a, &Windows::single_rows(n), &opts).unwrap();
        assert_eq!(g.bounded_columns(), 1);
        assert_eq!(g.bounded_windows(), n);
        assert_eq!(g.path_lower_bound(), 0);
        for w in 0..n {
            assert_eq!(g.candidates(w).len(), 4);
            // Exact overlaps, and the best ones (same group of ten: overlap 2) come first.
            for (h, o) in g.candidates(w) {
                assert_eq!(o as u64, (2 + 2 - g.distance(w, h as usize)) / 2);
                assert_eq!(o, 2);
                assert_eq!(h as usize / 10, w / 10);
            }
        }
        // A hub limit of 0 skips every column.
        let skip = GraphOptions::default().with_hub_limit(0);
        let g = WindowGraph::build(&a, &Windows::single_rows(n), &skip).unwrap();
        assert_eq!(g.bounded_columns(), 11);
        assert!((0..n).all(|w| g.candidates(w).len() == 0));
    }
}
