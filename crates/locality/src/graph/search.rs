//! The candidate search of [`super::WindowGraph`]: chunks of windows, batches pipelined with
//! prefetches of the index, each window's candidates counted and ranked into its top K.

use super::rank::{nearest, NarrowOverlap, Ranking, TopK, WideRank};
use super::GraphOptions;
use crate::accumulate::{Accumulator, DenseAccumulator, HashAccumulator, HASH_MAX_WORK};
use crate::distance::intersection_len;
use crate::footprint::Footprints;
use crate::index::{ColumnIndex, EntryCodec, Offset};
use spmv_reorder_sparse::overlap_kernel::{self, OverlapLists, PADDING};
use spmv_reorder_sparse::prefetch;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Runs the candidate search on every chunk of `items` over the windows of `footprints`, whose
/// entries `index` lists packed by `codec`, telling `windows_done` the windows of each chunk once
/// searched; returns each chunk's summary and candidates.
pub(super) fn search<O: Offset>(
    (footprints, index, codec): (&Footprints<'_>, &ColumnIndex<O>, EntryCodec),
    options: &GraphOptions,
    stride: usize,
    items: Vec<(Range<usize>, ChunkOutput<'_>)>,
    windows_done: &(dyn Fn(usize) + Sync),
) -> Vec<(Summary, Vec<u32>)> {
    // Narrow keys whenever they order like the wide ones. Alone (before the min/max insertion of
    // `TopK::offer`) they took cachegrind's count on the shuffled 64k-row grid, w=1 and variable
    // windows, from 680M to 629M instructions and 5.97M to 5.72M mispredicts; their own time gain
    // on the 1M-row grid was within the noise of a shared machine.
    match NarrowOverlap::new(options.rank, codec, footprints) {
        Some(narrow) => search_ranked(
            footprints,
            index,
            options,
            stride,
            narrow,
            items,
            windows_done,
        ),
        None => {
            let wide = WideRank {
                rank: options.rank,
                codec,
            };
            search_ranked(
                footprints,
                index,
                options,
                stride,
                wide,
                items,
                windows_done,
            )
        }
    }
}

/// [`search`] with top-K keys made by `rank`.
fn search_ranked<O: Offset, R: Ranking>(
    footprints: &Footprints<'_>,
    index: &ColumnIndex<O>,
    options: &GraphOptions,
    stride: usize,
    rank: R,
    items: Vec<(Range<usize>, ChunkOutput<'_>)>,
    windows_done: &(dyn Fn(usize) + Sync),
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
    options.parallelism.map(items, |(range, out)| {
        let windows = range.len();
        let found = search.run_chunk(range, out);
        windows_done(windows);
        found
    })
}

/// The three smallest footprints `(n(h), h)`, to bound the cost of non-overlapping pairs below.
#[derive(Debug, Clone, Copy)]
pub(super) struct SmallestFootprints([(u64, usize); 3]);

impl SmallestFootprints {
    pub(super) fn new(footprints: &Footprints<'_>) -> Self {
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
    pub(super) fn two_excluding(&self, g: usize) -> [u64; 2] {
        let mut others = self.0.iter().filter(|e| e.1 != g).map(|e| e.0);
        [
            others.next().unwrap_or(u64::MAX),
            others.next().unwrap_or(u64::MAX),
        ]
    }
}

/// Bits of [`WindowGraph`]'s `first` below a chunk's number: room for `2^40` candidates in a
/// chunk, 4 TiB of them, and `2^24` chunks.
pub(super) const CHUNK_SHIFT: u32 = 40;
pub(super) const CHUNK_OFFSET: u64 = (1 << CHUNK_SHIFT) - 1;
pub(super) const MAX_CHUNKS: usize = 1 << (u64::BITS - CHUNK_SHIFT);

/// The per-window results of a chunk of consecutive windows.
pub(super) struct ChunkOutput<'a> {
    /// The chunk's candidates, window after window.
    pub(super) slots: Vec<u32>,
    /// The chunk's number, shifted into place for `first`.
    pub(super) chunk: u64,
    pub(super) first: &'a mut [u64],
    pub(super) counts: &'a mut [u32],
}

/// Per-thread workspace: the gathered index entries of a batch, the accumulators and the best
/// candidates of the current window.
pub(super) struct Scratch<K> {
    /// The chunk's windows with a non-empty footprint.
    pub(super) windows: Vec<usize>,
    pub(super) batch: Batch,
    /// The next batch, gathered while `batch` is computed.
    pub(super) next: Batch,
    pub(super) hash: HashAccumulator,
    /// Allocated on the first window whose work exceeds [`HASH_MAX_WORK`].
    pub(super) dense: Option<DenseAccumulator>,
    pub(super) best: TopK<K>,
}

/// Windows searched together: the random index reads of a batch are prefetched while the previous
/// batch is computed (see [`CandidateSearch::run_chunk`]). Small enough that the lines prefetched
/// for the next batch (about ten per window) stay in L1 until it is computed (on the shuffled
/// 1M-row grid 16 measured faster than 64, and alike to 8).
pub(super) const BATCH: usize = 16;

/// The index spans of a batch of windows.
#[derive(Debug, Default)]
pub(super) struct Batch {
    /// Ranges of [`ColumnIndex::entries`], window after window.
    pub(super) spans: Vec<Range<usize>>,
    /// `spans_of[b]..spans_of[b+1]` are window `b`'s spans.
    pub(super) spans_of: Vec<usize>,
    /// How many bounded columns window `b` met.
    pub(super) hubs: Vec<u32>,
}

/// Totals of a chunk: windows touching bounded columns and the path lower bound's terms.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Summary {
    pub(super) bounded_windows: usize,
    /// A window's overlap with itself was not `n(g)`: the index was not the footprints'
    /// transpose (a mirrored index of a matrix that is not symmetric); the other fields are void.
    pub(super) asymmetric: bool,
    /// `Σ_g (c1(g) + c2(g))`.
    pub(super) cheapest_sum: u128,
    /// The two largest `c2(g)`.
    pub(super) largest_second: [u64; 2],
}

impl Summary {
    pub(super) fn add_window(&mut self, bounded: bool, cheapest: [u64; 2]) {
        self.bounded_windows += bounded as usize;
        self.cheapest_sum += cheapest[0] as u128 + cheapest[1] as u128;
        self.push_second(cheapest[1]);
    }

    pub(super) fn push_second(&mut self, c2: u64) {
        if c2 > self.largest_second[1] {
            self.largest_second[1] = c2;
            if c2 > self.largest_second[0] {
                self.largest_second.swap(0, 1);
            }
        }
    }

    pub(super) fn merge(mut self, other: Summary) -> Summary {
        self.bounded_windows += other.bounded_windows;
        self.asymmetric |= other.asymmetric;
        self.cheapest_sum += other.cheapest_sum;
        other
            .largest_second
            .iter()
            .for_each(|&c| self.push_second(c));
        self
    }

    pub(super) fn path_bound(&self) -> u64 {
        let ends = self.largest_second[0] as u128 + self.largest_second[1] as u128;
        (self.cheapest_sum.saturating_sub(ends)).div_ceil(2) as u64
    }
}

/// Shared, read-only state of the candidate search, plus a pool of scratch workspaces.
pub(super) struct CandidateSearch<'a, O, R: Ranking> {
    pub(super) footprints: &'a Footprints<'a>,
    pub(super) index: &'a ColumnIndex<O>,
    pub(super) hub_limit: usize,
    pub(super) rank: R,
    pub(super) stride: usize,
    pub(super) smallest: SmallestFootprints,
    pub(super) scratch: Mutex<Vec<Scratch<R::Key>>>,
    /// Set by the first window whose overlap with itself is not `n(g)`: the other chunks stop.
    pub(super) asymmetric: AtomicBool,
    /// Whether small windows go to [`overlap_kernel::rank`] (the machine has it, and `K` fits).
    pub(super) small_kernel: bool,
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
    pub(super) fn run_chunk(
        &self,
        range: Range<usize>,
        mut out: ChunkOutput<'_>,
    ) -> (Summary, Vec<u32>) {
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

    pub(super) fn take_scratch(&self) -> Scratch<R::Key> {
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
    pub(super) fn prefetch_offsets(&self, g: usize) {
        for &c in self.footprints.get(g) {
            self.index.prefetch_span(c);
        }
    }

    /// Prefetches the first and last index entries of every span of window number `b` of
    /// `batch`, if there is one (a span of a few entries often straddles two cache lines, and
    /// touching only the first measured slower).
    pub(super) fn prefetch_entries(&self, batch: &Batch, b: usize) {
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
    pub(super) fn gather(&self, windows: &[usize], batch: &mut Batch) {
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
    pub(super) fn rank_candidates(
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
    pub(super) fn rank_with<'e>(
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
    pub(super) fn unseen_costs(&self, g: usize, n_g: u64) -> [u64; 2] {
        let [m1, m2] = self.smallest.two_excluding(g);
        [n_g.saturating_add(m1), n_g.saturating_add(m2)]
    }

    /// Writes the kept candidates of the chunk's window number `local`.
    pub(super) fn write(&self, local: usize, best: &TopK<R::Key>, out: &mut ChunkOutput<'_>) {
        let codec = self.index.codec();
        out.first[local] = out.chunk | out.slots.len() as u64;
        out.counts[local] = best.keys().len() as u32;
        out.slots.extend(best.keys().iter().map(|&key| {
            let (window, overlap) = self.rank.decode(key);
            codec.encode(window, overlap as usize)
        }));
    }

    /// The part of the index span of a bounded column that window `g` pairs with.
    pub(super) fn nearest(&self, span: Range<usize>, g: u32) -> Range<usize> {
        let codec = self.index.codec();
        let near = nearest(
            &self.index.entries()[span.clone()],
            |e| codec.window(e) < g,
            self.hub_limit,
        );
        span.start + near.start..span.start + near.end
    }

    /// Replaces the kept candidates' overlaps by exact ones (a merge each) and re-ranks them.
    pub(super) fn make_exact(&self, g: usize, best: &mut TopK<R::Key>) {
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
