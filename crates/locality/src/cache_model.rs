//! A deterministic model of what the order of rows and columns costs in cache: the misses of the
//! `x[col]` reads of one CSR SpMV under set-associative LRU caches (by default a 32 KiB, 8-way L1
//! data cache with 64-byte lines holding `f64`s, and a 1 MiB, 16-way L2).
//!
//! `D` (SPEC section 2) only sees columns shared by *consecutive* rows; the cache reuses `x` across
//! every row whose accesses fit in it. Under cachegrind (`scripts/cache_misses.py`) paths that
//! minimise `D` had 5-15% more L1 misses than RCM on the bundled mesh matrices whose `x` exceeds
//! L1, so the pipeline uses this model to choose between its start order and the path.
//! [`x_misses`] models `x` alone; [`spmv_x_misses`] puts the matrix streams and `y` in the same
//! caches (they take ways from `x`) and feeds a second level with the first level's misses;
//! [`CacheModel`] prices the misses in cycles. Cost `O(nnz · ways)`, sequential, no allocation
//! beyond the caches' tags.

use crate::line_sample::HashedLines;
use crate::row_sample::{ReplaySample, RowSpan, STREAM_BYTES_PER_NONZERO};
use spmv_reorder_sparse::{prefetch, CsrMatrix, Permutation, Value};

/// The shape of the modelled cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheShape {
    /// Capacity in bytes.
    pub bytes: usize,
    /// Associativity (lines per set).
    pub ways: usize,
    /// Line size in bytes.
    pub line_bytes: usize,
    /// Size of one `x` element in bytes.
    pub element_bytes: usize,
}

impl Default for CacheShape {
    /// A 32 KiB, 8-way L1 data cache with 64-byte lines, `f64` elements: every x86-64 core of the
    /// last decade.
    fn default() -> Self {
        Self {
            bytes: 32 * 1024,
            ways: 8,
            line_bytes: 64,
            element_bytes: 8,
        }
    }
}

impl CacheShape {
    pub(crate) fn sets(&self) -> usize {
        (self.bytes / (self.ways.max(1) * self.line_bytes.max(1))).max(1)
    }

    /// Elements of `x` per line (at least 1).
    pub fn elements_per_line(&self) -> usize {
        (self.line_bytes / self.element_bytes.max(1)).max(1)
    }
}

/// Misses of the `x` reads of `y = B·x` for `B = P·A·Qᵀ`, where `rows` is `P` and `cols` is `Q`
/// (`x` is laid out in `Q`'s new order), under an LRU cache of `shape` that starts empty.
///
/// # Panics
/// If the permutations' lengths differ from `a`'s shape (a caller bug).
pub fn x_misses<T: Value>(
    a: &CsrMatrix<T>,
    rows: &Permutation,
    cols: &Permutation,
    shape: &CacheShape,
) -> u64 {
    replay(
        a,
        rows,
        cols,
        std::slice::from_ref(shape),
        false,
        ReplaySample::ALL,
        &|_| {},
    )[0]
}

/// Misses of the `x` reads of `y = B·x` for `B = P·A·Qᵀ` as in [`x_misses`], in a hierarchy of
/// caches (`levels[0]` first; an access reaches level `k + 1` only when it missed level `k`, as in
/// cachegrind's model), with the rest of the product's traffic in the same caches: per row the
/// `row_ptr` entry, per nonzero its `u32` column index and `f64` value (read in the order of `B`,
/// so sequentially), and the row's `y` store. These streams are the same whatever the order, but
/// they take ways away from `x`: on rows with many nonzeros the `x` lines of the previous rows are
/// gone sooner than an `x`-only model assumes (on e40r0100, 32 nonzeros a row, an `x`-only model
/// ranked two orders the other way round from cachegrind). Each array starts at a set boundary
/// of every level (large allocations are page-aligned). Returns the `x` misses of each level.
///
/// # Panics
/// As [`x_misses`]; also if the levels' line sizes differ (a caller bug).
pub fn spmv_x_misses<T: Value>(
    a: &CsrMatrix<T>,
    rows: &Permutation,
    cols: &Permutation,
    levels: &[CacheShape],
) -> Vec<u64> {
    replay(a, rows, cols, levels, true, ReplaySample::ALL, &|_| {})
}

/// Asks for the reads at random of the rows after row `i` of the new order while row `i` is
/// replayed (the replay waited on them: most of its own time on a shuffled grid): the next row's
/// `x` positions in `col_pos` (an array as long as `x`; `None` when columns keep their order),
/// the columns of the row after, and the offsets of the one after that.
#[inline]
fn ask_ahead<T: Value>(
    a: &CsrMatrix<T>,
    new_to_old: &[usize],
    i: usize,
    col_pos: Option<&[usize]>,
) {
    let (row_ptr, col_idx) = (a.row_ptr(), a.col_idx());
    if let (Some(&next), Some(col_pos)) = (new_to_old.get(i + 1), col_pos) {
        for &c in a.row(next).0 {
            prefetch(col_pos, c as usize);
        }
    }
    if let Some(&after) = new_to_old.get(i + 2) {
        prefetch(col_idx, row_ptr[after]);
        prefetch(col_idx, row_ptr[after + 1].saturating_sub(1));
    }
    if let Some(&later) = new_to_old.get(i + 3) {
        prefetch(row_ptr, later);
    }
}

/// The one replay behind [`x_misses`] and [`spmv_x_misses`]: the `x` reads of `y = B·x` in row
/// order through `levels`, with the matrix streams and `y` when `streams` is set. Returns the
/// `x` misses of each level.
fn replay<T: Value>(
    a: &CsrMatrix<T>,
    rows: &Permutation,
    cols: &Permutation,
    levels: &[CacheShape],
    streams: bool,
    sample: ReplaySample,
    rows_done: &(dyn Fn(usize) + Sync),
) -> Vec<u64> {
    assert_eq!(rows.len(), a.nrows(), "row permutation length");
    assert_eq!(cols.len(), a.ncols(), "column permutation length");
    let every = sample.lines.usable(levels);
    let mut misses = vec![0u64; levels.len()];
    let Some(first) = levels.first() else {
        return misses;
    };
    assert!(
        levels.iter().all(|l| l.line_bytes == first.line_bytes),
        "every level needs the same line size"
    );
    let line = first.line_bytes.max(1);
    let per_line = first.elements_per_line();
    let mut hierarchy = Hierarchy::new(levels, every);
    let [ptr_base, col_base, val_base, y_base] = stream_regions(a, first, hierarchy.most_sets);
    let mut touch = |l: usize| hierarchy.touch(l);
    // Lines and elements per line are powers of two in every usual shape: shifts, not the
    // divisions that took about a third of the replay's own time.
    let (to_line, to_x_line) = (Divide::by(line), Divide::by(per_line));
    let col_pos = cols.old_to_new();
    // Under the identity (the input order, priced by every default run), a column is its own
    // position: the replay skips a read at random per nonzero.
    let cols_as_read = cols.is_identity();
    let new_to_old = rows.new_to_old();
    let spans = row_spans(a, new_to_old, levels, streams, sample);
    let mut progress = ReplayProgress::new(rows_done, new_to_old.len(), &spans);
    let mut counted_nonzeros = 0usize;
    // A row's `x` positions, gathered before its reads are replayed: the loads of a separate
    // loop overlap, where one per read, behind the previous read's replay, waits alone.
    let mut positions: Vec<usize> = Vec::new();
    for span in &spans {
        let mut k = span.nonzeros_before;
        for i in span.warm_from..span.to {
            progress.row();
            ask_ahead(a, new_to_old, i, (!cols_as_read).then_some(col_pos));
            if streams {
                touch(ptr_base + to_line.of((i + 1) * 8));
            }
            let counted = if i >= span.from { misses.len() } else { 0 };
            let row = a.row(new_to_old[i]).0;
            positions.clear();
            if cols_as_read {
                positions.extend(row.iter().map(|&c| c as usize));
            } else {
                positions.extend(row.iter().map(|&c| col_pos[c as usize]));
            }
            for &position in &positions {
                if streams {
                    touch(col_base + to_line.of(k * 4));
                    touch(val_base + to_line.of(k * 8));
                }
                let missed = touch(to_x_line.of(position)).min(counted);
                for m in &mut misses[..missed] {
                    *m += 1;
                }
                k += 1;
            }
            if counted > 0 {
                counted_nonzeros += row.len();
            }
            if streams {
                touch(y_base + to_line.of(i * 8));
            }
        }
    }
    progress.finish();
    for m in &mut misses {
        *m = scaled(*m * every as u64, a.nnz(), counted_nonzeros);
    }
    misses
}

/// The spans of rows [`replay`] walks: every row, or with the rows of `sample` a warm-up of
/// twice the largest level in stream bytes before each counted stretch (`RowSample`).
fn row_spans<T: Value>(
    a: &CsrMatrix<T>,
    new_to_old: &[usize],
    levels: &[CacheShape],
    streams: bool,
    sample: ReplaySample,
) -> Vec<RowSpan> {
    let rows = if streams {
        sample.rows
    } else {
        crate::RowSample::ALL
    };
    let largest = levels.iter().map(|l| l.bytes).max().unwrap_or(0);
    let warm = 2 * largest / STREAM_BYTES_PER_NONZERO;
    let row_ptr = a.row_ptr();
    let len = |i: usize| row_ptr[new_to_old[i] + 1] - row_ptr[new_to_old[i]];
    rows.spans(new_to_old.len(), a.nnz(), warm, len)
}

/// `misses` counted on `counted` of `whole` nonzeros, scaled to the whole (unchanged when every
/// nonzero was counted, or none).
fn scaled(misses: u64, whole: usize, counted: usize) -> u64 {
    if counted == 0 || counted >= whole {
        return misses;
    }
    let scaled = (misses as u128 * whole as u128 + counted as u128 / 2) / counted as u128;
    u64::try_from(scaled).unwrap_or(u64::MAX)
}

/// Tells `rows_done` how far a replay has got: every [`ROWS_PER_REPORT`] rows walked, the rows
/// of the whole order that many stand for, so that the calls add up to the order's rows however
/// few the spans walk.
struct ReplayProgress<'a> {
    rows_done: &'a (dyn Fn(usize) + Sync),
    /// Rows of the whole order.
    rows: usize,
    /// Rows the spans walk, and rows walked so far.
    walked_total: usize,
    walked: usize,
    /// Rows of the whole order told to `rows_done` so far.
    reported: usize,
}

impl<'a> ReplayProgress<'a> {
    fn new(rows_done: &'a (dyn Fn(usize) + Sync), rows: usize, spans: &[RowSpan]) -> Self {
        Self {
            rows_done,
            rows,
            walked_total: spans.iter().map(RowSpan::len).sum::<usize>().max(1),
            walked: 0,
            reported: 0,
        }
    }

    /// One more row walked.
    #[inline]
    fn row(&mut self) {
        if self.walked.is_multiple_of(ROWS_PER_REPORT) && self.walked > 0 {
            self.report(self.walked);
        }
        self.walked += 1;
    }

    /// The rest, once the last row is walked.
    fn finish(mut self) {
        if self.walked > 0 {
            self.report(self.walked_total);
        }
    }

    #[cold]
    #[inline(never)]
    fn report(&mut self, walked: usize) {
        let stands_for = (walked as u128 * self.rows as u128 / self.walked_total as u128) as usize;
        (self.rows_done)(stands_for - self.reported);
        self.reported = stands_for;
    }
}

/// How many rows [`replay`] gets through between two reports of its progress.
const ROWS_PER_REPORT: usize = 1 << 16;

/// The cache levels of a replay, fed the lines of the sample's sets.
struct Hierarchy {
    caches: Vec<LruCache>,
    hashed: HashedLines,
    /// The sets of the level with the most.
    most_sets: usize,
}

impl Hierarchy {
    fn new(levels: &[CacheShape], every: usize) -> Self {
        let caches: Vec<LruCache> = levels.iter().map(|l| LruCache::new(l, every)).collect();
        let most_sets = caches.iter().map(|c| c.sets).max().unwrap_or(1);
        Self {
            caches,
            hashed: HashedLines::new(every, most_sets),
            most_sets,
        }
    }

    /// Touches `line` level by level; the number of levels it missed (none for a line the
    /// sample leaves out).
    #[inline]
    fn touch(&mut self, line: usize) -> usize {
        let Some(line) = self.hashed.name(line) else {
            return 0;
        };
        let mut missed = 0;
        for cache in self.caches.iter_mut() {
            if cache.access(line) {
                break;
            }
            missed += 1;
        }
        missed
    }
}

/// The first lines of the streams of `y = A·x` after `x` (`row_ptr`, `col_idx`, `values`, `y`),
/// each region rounded up to a whole number of `sets` (as a page-aligned allocation starts at a
/// set boundary of every level).
fn stream_regions<T: Value>(a: &CsrMatrix<T>, shape: &CacheShape, sets: usize) -> [usize; 4] {
    let line = shape.line_bytes.max(1);
    let lines_of = |bytes: usize| bytes.div_ceil(line).div_ceil(sets) * sets;
    let ptr = lines_of(a.ncols() * shape.element_bytes);
    let col = ptr + lines_of((a.nrows() + 1) * 8);
    let val = col + lines_of(a.nnz() * 4);
    [ptr, col, val, val + lines_of(a.nnz() * 8)]
}

/// Integer division by a fixed divisor, a shift when it is a power of two.
#[derive(Clone, Copy)]
struct Divide {
    divisor: usize,
    shift: Option<u32>,
}

impl Divide {
    /// Division by `divisor` (at least 1).
    fn by(divisor: usize) -> Self {
        Self {
            divisor,
            shift: divisor.is_power_of_two().then(|| divisor.trailing_zeros()),
        }
    }

    /// `x / divisor`.
    fn of(self, x: usize) -> usize {
        match self.shift {
            Some(shift) => x >> shift,
            None => x / self.divisor,
        }
    }
}

/// What the `x` reads of one SpMV are modelled to cost: [`spmv_x_misses`] in an L1 and an L2,
/// each miss priced by the latency of the level that serves it.
///
/// The default is one core of a current x86 server (L1d 32 KiB, L2 1 MiB) with load-to-use
/// latencies typical of such cores: about 14 cycles from L2 and 50-70 from L3 (60 is used for L3
/// or beyond; DRAM costs more, so this errs towards L1). Pricing L2 misses matters where `x`
/// exceeds L2: on a shuffled 60³ Poisson grid a TSP path had fewer L1 misses than RCM under
/// cachegrind but more L2 misses, and ran slower (docs/results.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheModel {
    /// The first level.
    pub l1: CacheShape,
    /// The second level (fed by the first level's misses).
    pub l2: CacheShape,
    /// Cycles of an `x` read served by L2.
    pub l2_hit_cycles: u64,
    /// Cycles of an `x` read that misses L2 too.
    pub beyond_l2_cycles: u64,
}

impl Default for CacheModel {
    fn default() -> Self {
        Self {
            l1: CacheShape::default(),
            l2: CacheShape {
                bytes: 1024 * 1024,
                ways: 16,
                ..CacheShape::default()
            },
            l2_hit_cycles: 14,
            beyond_l2_cycles: 60,
        }
    }
}

/// The modelled cost of one order: misses per level and the cycles they cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ModelledCost {
    /// `x` reads that missed L1.
    pub l1_misses: u64,
    /// `x` reads that missed L2 as well.
    pub l2_misses: u64,
    /// `(l1_misses - l2_misses)·l2_hit_cycles + l2_misses·beyond_l2_cycles`.
    pub cycles: u64,
}

impl CacheModel {
    /// The modelled cost of the `x` reads of `y = B·x`, `B = P·A·Qᵀ` (`rows` = `P`, `cols` = `Q`).
    ///
    /// # Panics
    /// As [`spmv_x_misses`].
    pub fn cost<T: Value>(
        &self,
        a: &CsrMatrix<T>,
        rows: &Permutation,
        cols: &Permutation,
    ) -> ModelledCost {
        self.cost_sampled(a, rows, cols, ReplaySample::ALL)
    }

    /// [`Self::cost`] estimated from the lines and rows of `sample` (a
    /// [`LineSample`](crate::LineSample) alone keeps every row; exact with [`ReplaySample::ALL`]).
    ///
    /// # Panics
    /// As [`spmv_x_misses`].
    pub fn cost_sampled<T: Value>(
        &self,
        a: &CsrMatrix<T>,
        rows: &Permutation,
        cols: &Permutation,
        sample: impl Into<ReplaySample>,
    ) -> ModelledCost {
        self.cost_with_progress(a, rows, cols, sample, &|_| {})
    }

    /// [`Self::cost_sampled`], calling `rows_done(k)` as the replay goes (every 65,536 rows walked,
    /// for the rows of the order those stand for, and the rest at the end: the calls add up to
    /// the rows).
    /// Two replays running at once may share one counter, hence `Sync`.
    ///
    /// # Panics
    /// As [`spmv_x_misses`].
    pub fn cost_with_progress<T: Value>(
        &self,
        a: &CsrMatrix<T>,
        rows: &Permutation,
        cols: &Permutation,
        sample: impl Into<ReplaySample>,
        rows_done: &(dyn Fn(usize) + Sync),
    ) -> ModelledCost {
        let levels = [self.l1, self.l2];
        let m = replay(a, rows, cols, &levels, true, sample.into(), rows_done);
        let (l1_misses, l2_misses) = (m[0], m[1]);
        ModelledCost {
            l1_misses,
            l2_misses,
            // Saturating: absurd prices must rank an order last, not wrap to the cheapest.
            cycles: (l1_misses - l2_misses)
                .saturating_mul(self.l2_hit_cycles)
                .saturating_add(l2_misses.saturating_mul(self.beyond_l2_cycles)),
        }
    }

    /// A lower bound of [`Self::cost`] over every row and column order of `a`: both levels start
    /// empty, so each line of `x` read misses both once, and the columns read (those with a
    /// nonzero) fill at least `⌈columns / elements per line⌉` lines. `O(nnz)`.
    pub fn floor<T: Value>(&self, a: &CsrMatrix<T>) -> ModelledCost {
        let mut read = vec![false; a.ncols()];
        for &c in a.col_idx() {
            read[c as usize] = true;
        }
        let columns = read.iter().filter(|&&r| r).count();
        let lines = columns.div_ceil(self.l1.elements_per_line()) as u64;
        ModelledCost {
            l1_misses: lines,
            l2_misses: lines,
            cycles: lines.saturating_mul(self.beyond_l2_cycles),
        }
    }
}

/// Set-associative LRU tags: each set keeps its lines most recent first.
struct LruCache {
    ways: usize,
    sets: usize,
    /// `sets × ways` line numbers plus one (0 = empty), most recently used first in each set.
    tags: Vec<usize>,
}

impl LruCache {
    /// The tags of `shape` with one set in `every` (a power of two dividing its sets).
    fn new(shape: &CacheShape, every: usize) -> Self {
        let (sets, ways) = (shape.sets() / every, shape.ways.max(1));
        Self {
            ways,
            sets,
            tags: vec![0; sets * ways],
        }
    }

    /// Touches `line`; true on a hit.
    #[inline]
    fn access(&mut self, line: usize) -> bool {
        // Sets are a power of two in every usual shape: a mask, not a division.
        let set = if self.sets.is_power_of_two() {
            line & (self.sets - 1)
        } else {
            line % self.sets
        };
        let slots = &mut self.tags[set * self.ways..(set + 1) * self.ways];
        let tag = line + 1;
        // Most accesses (the matrix streams, a row's neighbouring `x` entries) hit the most
        // recent line of their set, which then stays in place.
        if slots[0] == tag {
            return true;
        }
        // The usual associativities get a set of known size, whose shift the compiler unrolls
        // instead of calling `memmove` (a fifth of the replay's time went there).
        if let Ok(set) = <&mut [usize; 8]>::try_from(&mut *slots) {
            return touch_set(set, tag);
        }
        if let Ok(set) = <&mut [usize; 16]>::try_from(&mut *slots) {
            return touch_set(set, tag);
        }
        match slots.iter().position(|&t| t == tag) {
            Some(k) => {
                slots[..=k].rotate_right(1);
                true
            }
            None => {
                slots.rotate_right(1);
                slots[0] = tag;
                false
            }
        }
    }
}

/// [`LruCache::access`] on one set of `W` ways, most recent first: `tag` moves to the front and
/// the tags it passes move back one way (on a miss the last one falls out). True on a hit.
fn touch_set<const W: usize>(set: &mut [usize; W], tag: usize) -> bool {
    let found = set.iter().position(|&t| t == tag);
    let last = found.unwrap_or(W - 1);
    for way in (1..W).rev() {
        if way <= last {
            set[way] = set[way - 1];
        }
    }
    set[0] = tag;
    found.is_some()
}

#[cfg(test)]
mod tests;
