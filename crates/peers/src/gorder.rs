//! Gorder: a row order maximising `Σ_i Σ_{i-w <= j < i} S(row_j, row_i)`, greedily.
//!
//! H. Wei, J. X. Yu, C. Lu, X. Lin, "Speedup Graph Processing by Graph Ordering", SIGMOD 2016,
//! algorithm *GO-PQ* with the unit heap of section 4.2 (here [`crate::bucket_queue`], fed one summed
//! change per row and step). Our row model gives the score of rows `u`, `v`:
//! `S(u, v) = |C_u ∩ C_v|` (shared columns: the paper's common in-neighbours) `+ [v ∈ C_u] + [u ∈ C_v]`
//! (direct adjacency, the paper's `S_n`; square matrices only). With `w = 1` this maximises the summed
//! overlap of consecutive rows, which is minimising the `D` of SPEC section 2 (SPEC section 4).
//!
//! The first row is the one with the most nonzeros. Then, repeatedly, the unplaced row of largest
//! score against the last `w` placed rows is appended; when no unplaced row has a positive score, the
//! unplaced row with the most nonzeros (ties: smallest index) is taken.
//! Scores are kept incrementally: when row `u` enters the window every row sharing a column with it,
//! or adjacent to it, gains one per shared column or edge; when it leaves the window they lose it.
//! The scores a row gave on entering are kept while it is in the window, and taken back from that
//! list when it leaves, so each row's columns are walked once, not twice.
//!
//! Hub columns: a column with more than `hub_threshold` rows is skipped when propagating shared-column
//! scores (the paper skips vertices of degree above `√n` the same way). This bounds the cost to
//! `O(Σ_{|c| <= T} |c|² + nnz + n)`, at most `O(nnz·T)` with `T = hub_threshold`, instead of
//! `Σ_c |c|²`, which is quadratic in the size of a power-law hub. Each row enters and leaves the window
//! once, and every queue operation is `O(1)` amortised. Sequential: each choice depends on the
//! previous ones.
//! Called by the pipeline's `gorder` ordering.

use crate::bucket_queue::BucketQueue;
use crate::degree::{rows_by_degree, DegreeOrder};
use crate::ticker::Ticker;
use crate::PeersError;
use rayon::prelude::*;
use spmv_reorder_sparse::{prefetch, CsrMatrix, Permutation, Value};

/// The automatic hub threshold: `max(256, ⌈√nrows⌉)` rows per column.
///
/// `√n` is the paper's choice; the floor of 256 keeps small dense matrices (where `√n` is tiny but
/// `Σ_c |c|²` is cheap anyway) from losing every shared-column score.
pub fn default_hub_threshold(nrows: usize) -> usize {
    ((nrows as f64).sqrt().ceil() as usize).max(256)
}

/// The Gorder ordering of the rows of `a` with window `window`; columns with more than
/// `hub_threshold` rows do not propagate scores (see the module documentation).
///
/// A window longer than the matrix keeps every row in it, as one of `nrows + 1` rows does.
///
/// # Errors
/// [`PeersError::InvalidWindow`] when `window == 0`; [`PeersError::RowTooLong`] when a row has
/// more than `i32::MAX - 2` nonzeros.
pub fn gorder<T: Value>(
    a: &CsrMatrix<T>,
    window: usize,
    hub_threshold: usize,
) -> Result<Permutation, PeersError> {
    gorder_with_progress(a, window, hub_threshold, &mut |_, _| {})
}

/// [`gorder()`], calling `progress(done, total)` as the rows are placed: after each thousandth of
/// the work and once at the end (`done == total`). The units are score updates, the sweep's work
/// (`Σ|c|` over the columns each row walks), not rows: the first rows placed are the longest, and
/// on a power-law matrix they take most of a sweep that can last minutes.
///
/// # Errors
/// As [`gorder()`].
pub fn gorder_with_progress<T: Value>(
    a: &CsrMatrix<T>,
    window: usize,
    hub_threshold: usize,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Permutation, PeersError> {
    if window == 0 {
        return Err(PeersError::InvalidWindow { window });
    }
    // No row ever leaves a window longer than the matrix: its slots need not be allocated.
    let window = window.min(a.nrows() + 1);
    check_row_lengths(a)?;
    let scores = Scores::new(a, hub_threshold);
    let n = a.nrows();
    let by_degree = rows_by_degree(a, DegreeOrder::Decreasing);
    let mut fallback = by_degree.iter();
    let mut queue = BucketQueue::new(n);
    let mut step = ScoreStep::new(n);
    let mut in_window = WindowScores::new(window);
    let mut order: Vec<usize> = Vec::with_capacity(n);
    let mut ticker = Ticker::new(scores.total_walk());
    let mut work = 0;
    while order.len() < n {
        let next = match queue.pop_positive_max() {
            Some(v) => v,
            None => {
                let v = *fallback
                    .find(|&&v| queue.contains(v))
                    .expect("an unplaced row remains while order is short");
                queue.remove(v);
                v
            }
        };
        step.place(next);
        scores.for_each_related(next, |rows| {
            work += rows.len();
            step.add_each(rows);
        });
        let entering = in_window.record(&step);
        if order.len() >= window {
            step.take_back(in_window.leaving(entering));
        }
        step.apply(&mut queue);
        order.push(next);
        ticker.at(work, progress);
    }
    progress(ticker.total(), ticker.total());
    Ok(Permutation::from_new_to_old(order)?)
}

/// The largest row length whose score changes fit [`ScoreStep`]'s `i32` (a row scores at most its
/// length plus 2 against another).
const MAX_ROW_NNZ: usize = i32::MAX as usize - 2;

fn check_row_lengths<T: Value>(a: &CsrMatrix<T>) -> Result<(), PeersError> {
    match (0..a.nrows()).find(|&r| a.row_nnz(r) > MAX_ROW_NNZ) {
        Some(row) => Err(PeersError::RowTooLong {
            row,
            nnz: a.row_nnz(row),
            max: MAX_ROW_NNZ,
        }),
        None => Ok(()),
    }
}

/// How many rows ahead [`ScoreStep`] asks for a row's score (and queue node) before using it.
///
/// The updates land on rows scattered over arrays of tens of megabytes; asking ahead overlaps
/// their cache misses (R-MAT scale 20: the sweep took 82 s without the hint on the queue's
/// nodes, 61 s with it).
const PREFETCH_AHEAD: usize = 16;

/// How many columns ahead [`Scores::for_each_related`] asks for a column's row list.
const COLUMNS_AHEAD: usize = 4;

/// Marks a placed row in [`ScoreStep::delta`]: no score change is recorded for it again.
const PLACED: i32 = i32::MIN;

/// The score changes of one step (a row entering the window, another leaving it), summed per row
/// before touching the queue, so that each row moves once per step however many columns it shares.
///
/// Placed rows are marked in the same array, so that each of the `Σ|c|²` updates reads one `i32`
/// (16 MB for 4M rows, which stays in a large last-level cache) instead of a flag and a counter.
struct ScoreStep {
    delta: Vec<i32>,
    /// `touched[..len]`: rows whose change became nonzero, in the order they first did (their
    /// order in the queue's buckets, hence the order ties are broken in). A row enters it at most
    /// once while the entering row is added (its change only grows) and at most once more while
    /// the leaving row's scores are taken back (each row is once in that list), so `2n + 1` slots
    /// always suffice, and a row is written to the next slot whether or not it is kept: the
    /// `Σ|c|²` updates then run without a branch to mispredict.
    touched: Vec<u32>,
    len: usize,
}

impl ScoreStep {
    fn new(n: usize) -> Self {
        Self {
            delta: vec![0; n],
            touched: vec![0; 2 * n + 1],
            len: 0,
        }
    }

    /// Marks `v` placed: changes to its score are ignored from now on.
    fn place(&mut self, v: usize) {
        self.delta[v] = PLACED;
    }

    /// Records `change` to the score of `v`, unless `v` is already placed.
    #[inline]
    fn add(&mut self, v: usize, change: i32) {
        let d = self.delta[v];
        let live = d != PLACED;
        self.touched[self.len] = v as u32;
        self.len += usize::from(live & (d == 0));
        self.delta[v] = if live { d + change } else { d };
    }

    /// Adds one to the score of each row of `rows` (repeats count each time).
    #[inline]
    fn add_each(&mut self, rows: &[u32]) {
        for (i, &v) in rows.iter().enumerate() {
            if let Some(&ahead) = rows.get(i + PREFETCH_AHEAD) {
                prefetch(&self.delta, ahead as usize);
            }
            self.add(v as usize, 1);
        }
    }

    /// Takes back scores a row gave on entering the window ([`WindowScores::leaving`]).
    fn take_back(&mut self, scores: &[(u32, i32)]) {
        for (i, &(v, s)) in scores.iter().enumerate() {
            if let Some(&(ahead, _)) = scores.get(i + PREFETCH_AHEAD) {
                prefetch(&self.delta, ahead as usize);
            }
            self.add(v as usize, -s);
        }
    }

    /// The rows touched so far in this step.
    fn touched(&self) -> &[u32] {
        &self.touched[..self.len]
    }

    /// Moves every touched row by its summed change and resets the step. A row touched twice (its
    /// change went back to zero and on) moves at its first entry, by the whole sum.
    fn apply(&mut self, queue: &mut BucketQueue) {
        let touched = &self.touched[..self.len];
        for (i, &v) in touched.iter().enumerate() {
            // The rows are scattered over the queue's nodes: ask for a row's node well before it
            // is moved, so that the moves overlap their cache misses.
            if let Some(&ahead) = touched.get(i + PREFETCH_AHEAD) {
                queue.prefetch(ahead as usize);
                prefetch(&self.delta, ahead as usize);
            }
            let change = std::mem::take(&mut self.delta[v as usize]);
            queue.adjust(v as usize, i64::from(change));
        }
        self.len = 0;
    }
}

/// The scores `S(u, v)` of the rows `u` in the window against the rows unplaced when `u` entered,
/// kept so that a row leaving the window subtracts them without walking its columns again.
///
/// Replaying them gives the same queue as walking again: the rows still unplaced are a subset of
/// those recorded, in the same first-touched order, so they enter [`ScoreStep::touched`] in the
/// same order.
struct WindowScores {
    /// One list per window slot, reused round-robin: `(row, S(u, row))` in first-touched order.
    slots: Vec<Vec<(u32, i32)>>,
    /// The slot the next entering row fills.
    next: usize,
}

impl WindowScores {
    fn new(window: usize) -> Self {
        Self {
            slots: vec![Vec::new(); window + 1],
            next: 0,
        }
    }

    /// Records the scores of the row that just entered, read from `step` before anything else is
    /// added to it, and returns its slot.
    fn record(&mut self, step: &ScoreStep) -> usize {
        let slot = self.next;
        self.next = (slot + 1) % self.slots.len();
        let list = &mut self.slots[slot];
        list.clear();
        list.extend(step.touched().iter().map(|&v| (v, step.delta[v as usize])));
        slot
    }

    /// The scores of the row that leaves as the row in slot `entering` enters: the one that entered
    /// a window's length of steps before it.
    fn leaving(&self, entering: usize) -> &[(u32, i32)] {
        let slots = self.slots.len();
        &self.slots[(entering + 1) % slots]
    }
}

/// The matrix and its transpose, to enumerate the rows related to a row.
struct Scores<'a, T> {
    a: &'a CsrMatrix<T>,
    at: CsrMatrix<()>,
    hub_threshold: usize,
    square: bool,
}

impl<'a, T: Value> Scores<'a, T> {
    fn new(a: &'a CsrMatrix<T>, hub_threshold: usize) -> Self {
        Self {
            a,
            at: a.pattern_transpose(),
            hub_threshold,
            square: a.nrows() == a.ncols(),
        }
    }

    /// The length of the lists [`Self::for_each_related`] gives over all rows: the sweep's work.
    fn total_walk(&self) -> usize {
        (0..self.a.nrows())
            .into_par_iter()
            .map(|u| {
                let mut walk = 0;
                self.for_each_related(u, |rows| walk += rows.len());
                walk
            })
            .sum()
    }

    /// Calls `f(rows)` with lists of rows that hold each `v` once per unit of `S(u, v)`: the
    /// rows of each column of `u` (hub columns excepted), then the rows adjacent to `u`. `u` may be
    /// in them too; callers ignore placed rows.
    fn for_each_related(&self, u: usize, mut f: impl FnMut(&[u32])) {
        let cols = self.a.row(u).0;
        let starts = self.at.row_ptr();
        for (k, &c) in cols.iter().enumerate() {
            // Each column's row list is somewhere else in memory: ask for the next ones' bounds
            // and first rows while this one is walked.
            if let Some(&ahead) = cols.get(k + COLUMNS_AHEAD) {
                prefetch(starts, ahead as usize);
                if let Some(&first) = starts.get(ahead as usize) {
                    prefetch(self.at.col_idx(), first);
                }
            }
            let rows = self.at.row(c as usize).0;
            if rows.len() <= self.hub_threshold {
                f(rows);
            }
        }
        if self.square {
            f(cols);
            f(self.at.row(u).0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{distance_sum_after, grid, shuffled_symmetric};

    #[test]
    fn window_zero_is_an_error() {
        let a: CsrMatrix<()> = CsrMatrix::from_triplets(2, 2, vec![]).unwrap();
        assert_eq!(
            gorder(&a, 0, 10).unwrap_err(),
            PeersError::InvalidWindow { window: 0 }
        );
    }

    /// A window past the matrix's rows is the whole matrix: same order, nothing allocated for it.
    #[test]
    fn windows_longer_than_the_matrix_keep_every_row() {
        let a = shuffled_symmetric(&grid(6, 6), 3);
        let whole = gorder(&a, a.nrows() + 1, 10).unwrap();
        for window in [a.nrows() + 2, 1 << 40, usize::MAX] {
            assert_eq!(gorder(&a, window, 10).unwrap(), whole, "{window}");
        }
    }

    #[test]
    fn spec_worked_example_is_ordered_greedily() {
        // SPEC section 2: r0={0,1}, r1={1,2}, r2={5}, r3={0,1,2}; D = 9 as given, 5 for r0,r3,r1,r2.
        let t = [
            (0, 0),
            (0, 1),
            (1, 1),
            (1, 2),
            (2, 5),
            (3, 0),
            (3, 1),
            (3, 2),
        ];
        let a = CsrMatrix::from_triplets(4, 6, t.map(|(i, j)| (i, j, ()))).unwrap();
        let p = gorder(&a, 1, 100).unwrap();
        // Starts at the longest row r3, then r0 and r1 tie (2 shared columns each), then the other
        // one (1 shared column); r2 shares nothing and comes last: D = 1 + 2 + 3 = 6. (The optimum 5
        // puts r3 between r0 and r1, which a greedy start at r3 cannot reach.)
        assert_eq!(p.new_to_old()[0], 3);
        assert_eq!(p.new_to_old()[3], 2);
        assert_eq!(distance_sum_after(&a, &p), 6);
    }

    #[test]
    fn beats_a_random_order_on_a_shuffled_grid() {
        // In a 5-point grid consecutive rows share at most 2 of their 5 columns, so the natural
        // row-major numbering (D ≈ 6 per row) is close to the optimum; a random order shares nothing
        // (D ≈ 10 per row).
        let (w, h) = (25, 25);
        let natural = grid(w, h);
        let g = shuffled_symmetric(&natural, 3);
        let p = gorder(&g, 5, default_hub_threshold(g.nrows())).unwrap();
        let dg = distance_sum_after(&g, &p);
        let dr = distance_sum_after(&g, &Permutation::random(g.nrows(), 9));
        let dn = distance_sum_after(&natural, &Permutation::identity(w * h));
        assert!(3 * dg < 2 * dr, "gorder D {dg}, random D {dr}");
        assert!(10 * dg < 11 * dn, "gorder D {dg}, natural D {dn}");
    }

    #[test]
    fn hub_columns_are_skipped_but_rows_still_all_placed() {
        // Column 0 is shared by every row (a hub); columns 1.. pair rows (2k, 2k+1).
        let n = 40;
        let t = (0..n).flat_map(|i| [(i, 0, ()), (i, 1 + i / 2, ())]);
        let a = CsrMatrix::from_triplets(n, 1 + n / 2, t).unwrap();
        let p = gorder(&a, 1, 4).unwrap();
        let order = p.new_to_old();
        // With the hub ignored, the only positive scores pair each row with its twin.
        for pair in order.chunks(2) {
            assert_eq!(pair[0] / 2, pair[1] / 2, "{order:?}");
        }
    }

    #[test]
    fn a_hub_shared_by_every_row_costs_linear_time() {
        // Without skipping, placing each row would touch all n rows through column 0: n² = 10^10
        // updates. With the default threshold it is a few million.
        let n = 100_000;
        let t = (0..n).flat_map(|i| [(i, 0, ()), (i, 1 + i / 4, ())]);
        let a = CsrMatrix::from_triplets(n, 1 + n / 4, t).unwrap();
        let p = gorder(&a, 5, default_hub_threshold(n)).unwrap();
        assert_eq!(p.len(), n);
        // Rows sharing their private column (groups of 4) are placed together.
        let first = &p.new_to_old()[..4];
        assert!(first.iter().all(|&r| r / 4 == first[0] / 4), "{first:?}");
    }

    #[test]
    fn progress_counts_the_sweeps_work_up_to_all_of_it() {
        let g = grid(100, 100);
        let mut calls = Vec::new();
        let p =
            gorder_with_progress(&g, 5, 256, &mut |done, total| calls.push((done, total))).unwrap();
        assert_eq!(p, gorder(&g, 5, 256).unwrap());
        // In score updates: each row walks its columns (of up to 5 rows each) and its neighbours
        // twice. At most a thousand calls before the last, a thousandth of the work apart.
        let total = calls[0].1;
        assert!(calls.iter().all(|&(_, t)| t == total));
        assert!(calls.len() > 100 && calls.len() <= 1001, "{}", calls.len());
        let (last, before) = calls.split_last().unwrap();
        assert!(before.windows(2).all(|w| w[1].0 >= w[0].0 + total / 1000));
        assert!(before.iter().all(|&(done, _)| done < total));
        assert_eq!(last, &(total, total));
        let column_rows = |r: usize| g.row(r).0.iter().map(|&c| g.row_nnz(c as usize));
        let walked: usize = (0..g.nrows()).flat_map(column_rows).sum();
        assert_eq!(total, walked + 2 * g.nnz());
    }

    #[test]
    fn no_shared_columns_falls_back_to_decreasing_degree() {
        let t = vec![
            (0, 0, ()),
            (1, 1, ()),
            (1, 2, ()),
            (2, 3, ()),
            (2, 4, ()),
            (2, 5, ()),
        ];
        let a = CsrMatrix::from_triplets(4, 6, t).unwrap();
        let p = gorder(&a, 3, 10).unwrap();
        assert_eq!(p.new_to_old(), &[2, 1, 0, 3]);
    }
}
