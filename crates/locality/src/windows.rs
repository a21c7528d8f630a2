//! Windows of locality: a partition of the rows `0..n` into runs of consecutive rows.
//!
//! Constructors are `O(n)` (fixed, latency, starts, lengths) or `O(nnz)` (variable, which needs
//! every `d(i,i+1)`). SPEC section 3 (thesis 4.2 for fixed and variable windows, 4.5 for latency
//! windows). Called by the reordering pipeline (windows → [`crate::WindowGraph`] → TSP order →
//! [`Windows::row_order`]) and by the CLI's `info --window SPEC`.

use crate::distance::{for_adjacent_distances, row_distance};
use crate::error::LocalityError;
use crate::par::{balanced_ranges, even_ranges, split_mut_at, Parallelism};
use spmv_reorder_sparse::{CsrMatrix, Permutation, Value};
use std::ops::Range;

/// A partition of the rows `0..nrows` into windows of consecutive rows, numbered in row order.
///
/// # Invariants
/// `starts` holds the first row of every window followed by `nrows`: `starts[0] == 0`, strictly
/// increasing (no window is empty), last entry `nrows`. A matrix with 0 rows has 0 windows
/// (`starts == [0]`). Checked by every constructor.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Windows {
    starts: Vec<usize>,
}

/// The latency threshold `T` of latency windows (SPEC section 3, thesis equation 4.5).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum LatencyThreshold {
    /// The average of the sampled per-row maxima (rows without a sample do not count). Compared
    /// exactly, in integers: a row joins when `max * sampled_rows <= Σ max`.
    AverageOfRowMaxima,
    /// A fixed number of cycles: a row joins when its maximum is at most this.
    Cycles(u32),
}

/// What a row without a latency sample does (SPEC section 3, thesis 4.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum UnsampledRows {
    /// The row starts a new window (the thesis's default).
    #[default]
    StartWindow,
    /// The row joins the window of the previous row (the thesis's *zeros* policy).
    JoinPrevious,
}

impl Windows {
    /// Windows of `w` rows: window `g` holds rows `[g*w, min((g+1)*w, nrows))` (the last one may be
    /// shorter).
    ///
    /// # Errors
    /// [`LocalityError::ZeroWindowSize`] when `w == 0`.
    pub fn fixed(nrows: usize, w: usize) -> Result<Self, LocalityError> {
        if w == 0 {
            return Err(LocalityError::ZeroWindowSize);
        }
        let mut starts: Vec<usize> = (0..nrows).step_by(w).collect();
        starts.push(nrows);
        Ok(Self { starts })
    }

    /// One window per row (`w = 1`): the graph is then the row graph and `D_w = D`.
    pub fn single_rows(nrows: usize) -> Self {
        Self {
            starts: (0..=nrows).collect(),
        }
    }

    /// Variable windows (thesis 4.2): rows `i` and `i+1` share a window when `d(i,i+1) < D/n`, with
    /// `n = nrows`. Compared exactly, in integers (`d·n < D`). When every distance is equal (e.g.
    /// `D = 0`) no pair is below the average and every row is its own window. `O(nnz)`.
    pub fn variable<T: Value>(a: &CsrMatrix<T>, par: Parallelism) -> Self {
        let pairs = a.nrows().saturating_sub(1);
        let ranges = balanced_ranges(&a.row_ptr()[..=pairs], 4 * par.threads());
        // Each chunk of pairs keeps its distances, saturated to `u16` (a quarter of the memory of
        // `u64`: the shuffled 1M-row grid's are about 14), and sums them exactly.
        let chunks = par.map(ranges, |range| {
            let (first, mut sum) = (range.start, 0u64);
            let mut saturated = vec![0u16; range.len()];
            for_adjacent_distances(a, range.clone(), |i, d| {
                sum += d;
                saturated[i - first] = u16::try_from(d).unwrap_or(u16::MAX);
            });
            (range, saturated, sum)
        });
        let total: u64 = chunks.iter().map(|(_, _, sum)| sum).sum();
        // `d·n >= D` exactly when `d >= ⌈D/n⌉` (integers, and `D <= 2·nnz` fits `u64`): one
        // compare a row. A saturated distance is recomputed only when the threshold is above
        // what `u16` holds.
        let at_least = total.div_ceil(a.nrows().max(1) as u64);
        let in_u16 = at_least <= u16::MAX as u64;
        let masks = par.map(chunks, |(pairs, saturated, _)| {
            // Row `i + 1` starts a window when `d(i, i + 1)` is at least the threshold.
            let flags = pairs.clone().zip(saturated).map(|(i, d)| match d {
                u16::MAX if !in_u16 => row_distance(a, i, i + 1) >= at_least,
                d => d as u64 >= at_least,
            });
            StartMask::of(pairs.start + 1, flags)
        });
        Self::from_start_masks(a.nrows(), masks, par)
    }

    /// Latency windows (thesis 4.5): row `j > 0` joins the window of row `j-1` when its maximum
    /// sampled latency is at most the threshold, and starts a new window otherwise. A row without a
    /// sample (`None`) follows `unsampled`. Row 0 always starts window 0. With no sample at all,
    /// [`LatencyThreshold::AverageOfRowMaxima`] is undefined but never consulted.
    ///
    /// `row_max_latency` has one entry per row of the (sampled) matrix.
    pub fn latency(
        row_max_latency: &[Option<u32>],
        threshold: LatencyThreshold,
        unsampled: UnsampledRows,
    ) -> Self {
        let (sum, count) = row_max_latency
            .iter()
            .flatten()
            .fold((0u128, 0u128), |(s, c), &l| (s + l as u128, c + 1));
        let joins = |latency: u32| match threshold {
            LatencyThreshold::AverageOfRowMaxima => latency as u128 * count <= sum,
            LatencyThreshold::Cycles(t) => latency <= t,
        };
        Self::split_where(
            row_max_latency.len(),
            Parallelism::Sequential,
            |j| match row_max_latency[j] {
                Some(latency) => !joins(latency),
                None => unsampled == UnsampledRows::StartWindow,
            },
        )
    }

    /// Windows starting at the given rows; `starts` must begin with 0 and strictly increase, and
    /// may end with `nrows` or not.
    ///
    /// # Errors
    /// [`LocalityError::InvalidWindowStarts`] naming the first entry that breaks the rules (an
    /// empty list is accepted only for `nrows == 0`).
    pub fn from_starts(nrows: usize, mut starts: Vec<usize>) -> Result<Self, LocalityError> {
        let invalid = |position: usize, value: usize, reason: &'static str| {
            Err(LocalityError::InvalidWindowStarts {
                nrows,
                position,
                value,
                reason,
            })
        };
        match starts.first() {
            None if nrows == 0 => return Ok(Self { starts: vec![0] }),
            None => return invalid(0, 0, "no window start given"),
            Some(&first) if first != 0 => {
                return invalid(0, first, "the first window must start at row 0")
            }
            Some(_) => {}
        }
        for (position, pair) in starts.windows(2).enumerate() {
            if pair[1] <= pair[0] {
                return invalid(position + 1, pair[1], "starts must strictly increase");
            }
        }
        let last = *starts.last().unwrap_or(&0);
        if last > nrows {
            return invalid(starts.len() - 1, last, "start beyond the last row");
        }
        if last != nrows {
            starts.push(nrows);
        }
        Ok(Self { starts })
    }

    /// Windows of the given lengths, in row order; the matrix has `Σ lengths` rows.
    ///
    /// # Errors
    /// [`LocalityError::EmptyWindow`] for a length of 0; [`LocalityError::TooLarge`] when the
    /// lengths add up past `usize::MAX` rows.
    pub fn from_lengths(lengths: &[usize]) -> Result<Self, LocalityError> {
        let mut starts = Vec::with_capacity(lengths.len() + 1);
        starts.push(0usize);
        for (window, &len) in lengths.iter().enumerate() {
            if len == 0 {
                return Err(LocalityError::EmptyWindow { window });
            }
            let end = starts[window]
                .checked_add(len)
                .ok_or(LocalityError::TooLarge {
                    what: "the rows of the windows",
                    value: u64::MAX,
                    max: usize::MAX as u64,
                })?;
            starts.push(end);
        }
        Ok(Self { starts })
    }

    /// Number of windows.
    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// True when there is no window (the matrix has no row).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of rows partitioned.
    pub fn nrows(&self) -> usize {
        self.starts[self.starts.len() - 1]
    }

    /// First row of every window, followed by `nrows` (`len() + 1` entries).
    pub fn starts(&self) -> &[usize] {
        &self.starts
    }

    /// The rows of window `g`.
    ///
    /// # Panics
    /// If `g >= len()` (a caller bug).
    pub fn rows(&self, g: usize) -> Range<usize> {
        self.starts[g]..self.starts[g + 1]
    }

    /// The number of rows of every window, in window order.
    pub fn lengths(&self) -> Vec<usize> {
        self.starts.windows(2).map(|s| s[1] - s[0]).collect()
    }

    /// Checks that these windows partition the rows of `a`.
    ///
    /// # Errors
    /// [`LocalityError::RowCountMismatch`] when `nrows()` differs from `a.nrows()`.
    pub fn check_rows<T: Value>(&self, a: &CsrMatrix<T>) -> Result<(), LocalityError> {
        if self.nrows() != a.nrows() {
            return Err(LocalityError::RowCountMismatch {
                what: "windows",
                expected: a.nrows(),
                found: self.nrows(),
            });
        }
        Ok(())
    }

    /// The row permutation that lays the windows out in `window_order` (a list of window indices,
    /// first to last), keeping the rows' relative order inside each window. Apply it to the full
    /// matrix with `permute` (rows) or `permute_symmetric`.
    ///
    /// # Errors
    /// [`LocalityError::InvalidWindowOrder`] when `window_order` is not a permutation of
    /// `0..len()`.
    pub fn row_order(&self, window_order: &[usize]) -> Result<Permutation, LocalityError> {
        check_window_order(self.len(), window_order)?;
        let new_to_old: Vec<usize> = window_order.iter().flat_map(|&g| self.rows(g)).collect();
        Ok(Permutation::from_new_to_old(new_to_old)?)
    }

    /// The windows of the matrix reordered by [`Self::row_order`]`(window_order)`: the same windows,
    /// renumbered in their new order.
    ///
    /// # Errors
    /// [`LocalityError::InvalidWindowOrder`] when `window_order` is not a permutation of
    /// `0..len()`.
    pub fn reordered(&self, window_order: &[usize]) -> Result<Self, LocalityError> {
        check_window_order(self.len(), window_order)?;
        let lengths: Vec<usize> = window_order.iter().map(|&g| self.rows(g).len()).collect();
        Self::from_lengths(&lengths)
    }

    /// Starts a window at row 0 and at every row `j` in `1..nrows` for which `starts_window(j)`,
    /// tested in parallel chunks of rows with `par`.
    fn split_where(
        nrows: usize,
        par: Parallelism,
        starts_window: impl Fn(usize) -> bool + Sync,
    ) -> Self {
        let chunks = even_ranges(nrows.saturating_sub(1), 4 * par.threads());
        let masks = par.map(chunks, |chunk| {
            StartMask::of(
                chunk.start + 1,
                (chunk.start + 1..chunk.end + 1).map(&starts_window),
            )
        });
        Self::from_start_masks(nrows, masks, par)
    }

    /// The windows starting at row 0 and at the rows marked in `masks`, which cover rows `1..nrows`
    /// in order. Rows are read from the set bits, a word at a time: testing each row and
    /// storing the starts took 1.5 ms of the shuffled 1M-row grid's variable windows, on one
    /// thread, where most rows start a window and the branch is mispredicted often.
    fn from_start_masks(nrows: usize, masks: Vec<StartMask>, par: Parallelism) -> Self {
        if nrows == 0 {
            return Self { starts: vec![0] };
        }
        let mut bounds = vec![0];
        for mask in &masks {
            bounds.push(bounds[bounds.len() - 1] + mask.count());
        }
        let found = bounds[bounds.len() - 1];
        let mut starts = vec![0; found + 2];
        starts[found + 1] = nrows;
        let pieces = split_mut_at(&mut starts[1..=found], &bounds);
        par.map(masks.into_iter().zip(pieces).collect(), |(mask, piece)| {
            mask.write_rows(piece)
        });
        Self { starts }
    }
}

/// The rows of a range that start a window, as bits: bit `b` of word `w` marks row `first + 64·w
/// + b`.
struct StartMask {
    first: usize,
    words: Vec<u64>,
}

impl StartMask {
    /// The rows from `first` on that start a window, one flag a row.
    fn of(first: usize, flags: impl Iterator<Item = bool>) -> Self {
        let (mut words, mut word, mut bit) = (Vec::new(), 0u64, 0);
        for starts in flags {
            word |= (starts as u64) << bit;
            bit += 1;
            if bit == 64 {
                words.push(word);
                (word, bit) = (0, 0);
            }
        }
        if bit > 0 {
            words.push(word);
        }
        Self { first, words }
    }

    /// How many rows are marked.
    fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Writes the marked rows in order; `out` holds [`Self::count`] of them.
    fn write_rows(&self, out: &mut [usize]) {
        let mut k = 0;
        for (w, &word) in self.words.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                out[k] = self.first + 64 * w + word.trailing_zeros() as usize;
                k += 1;
                word &= word - 1;
            }
        }
    }
}

/// Checks that `order` is a permutation of `0..windows`.
pub(crate) fn check_window_order(windows: usize, order: &[usize]) -> Result<(), LocalityError> {
    let invalid = |position: usize, value: usize, reason: &'static str| {
        Err(LocalityError::InvalidWindowOrder {
            windows,
            position,
            value,
            reason,
        })
    };
    if order.len() != windows {
        return invalid(order.len().min(windows), order.len(), "wrong length");
    }
    let mut seen = vec![false; windows];
    for (position, &g) in order.iter().enumerate() {
        if g >= windows {
            return invalid(position, g, "out of range");
        }
        if std::mem::replace(&mut seen[g], true) {
            return invalid(position, g, "repeated");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::spec_example;

    #[test]
    fn lengths_past_the_largest_row_count_are_an_error() {
        assert!(matches!(
            Windows::from_lengths(&[usize::MAX, 2]),
            Err(LocalityError::TooLarge { .. })
        ));
        assert_eq!(Windows::from_lengths(&[2, 1]).unwrap().starts(), &[0, 2, 3]);
    }

    #[test]
    fn fixed_windows_cover_rows() {
        let w = Windows::fixed(7, 3).unwrap();
        assert_eq!(w.starts(), &[0, 3, 6, 7]);
        assert_eq!(w.lengths(), vec![3, 3, 1]);
        assert_eq!(w.rows(2), 6..7);
        assert_eq!(Windows::fixed(6, 3).unwrap().starts(), &[0, 3, 6]);
        assert_eq!(Windows::fixed(0, 3).unwrap().len(), 0);
        assert_eq!(Windows::fixed(1, 5).unwrap().starts(), &[0, 1]);
        assert_eq!(Windows::fixed(4, 1).unwrap(), Windows::single_rows(4));
        assert_eq!(Windows::fixed(4, 0), Err(LocalityError::ZeroWindowSize));
        assert!(Windows::single_rows(0).is_empty());
        assert_eq!(Windows::single_rows(0).nrows(), 0);
    }

    #[test]
    fn variable_windows_follow_the_average_distance() {
        // d = [2, 3, 4], D = 9, n = 4, D/n = 2.25: only d(0,1) = 2 is below.
        let a = spec_example();
        for par in [Parallelism::Sequential, Parallelism::Rayon] {
            assert_eq!(Windows::variable(&a, par).starts(), &[0, 2, 3, 4]);
        }
        // Identical rows: D = 0, nothing is below the average.
        let same =
            CsrMatrix::from_triplets(3, 2, vec![(0, 0, 1.0), (1, 0, 1.0), (2, 0, 1.0)]).unwrap();
        assert_eq!(Windows::variable(&same, Parallelism::Rayon).len(), 3);
        let empty: CsrMatrix<()> = CsrMatrix::from_triplets(0, 0, vec![]).unwrap();
        assert!(Windows::variable(&empty, Parallelism::Rayon).is_empty());
        let one: CsrMatrix<()> = CsrMatrix::from_triplets(1, 1, vec![]).unwrap();
        assert_eq!(
            Windows::variable(&one, Parallelism::Rayon).starts(),
            &[0, 1]
        );
    }

    #[test]
    fn variable_windows_compare_long_distances_exactly() {
        // d(0,1) = 140,000 and d(1,2) = 68,000, both beyond `u16`; ⌈D/n⌉ = 69,334 is too, so
        // both are recomputed: row 1 starts a window and row 2 does not.
        let rows = [0..70_000, 70_000..140_000, 70_000..72_000];
        let triplets: Vec<_> = rows
            .iter()
            .enumerate()
            .flat_map(|(i, cols)| cols.clone().map(move |c| (i, c, ())))
            .collect();
        let a = CsrMatrix::from_triplets(3, 140_000, triplets).unwrap();
        for par in [Parallelism::Sequential, Parallelism::Rayon] {
            assert_eq!(Windows::variable(&a, par).starts(), &[0, 1, 3]);
        }
    }

    #[test]
    fn latency_windows() {
        let lat = [Some(10), Some(2), None, Some(7), Some(1), None];
        // Average of maxima: 20 / 4 = 5.
        let avg = LatencyThreshold::AverageOfRowMaxima;
        let w = Windows::latency(&lat, avg, UnsampledRows::StartWindow);
        assert_eq!(w.starts(), &[0, 2, 3, 5, 6]);
        let w = Windows::latency(&lat, avg, UnsampledRows::JoinPrevious);
        assert_eq!(w.starts(), &[0, 3, 6]);
        let w = Windows::latency(
            &lat,
            LatencyThreshold::Cycles(7),
            UnsampledRows::JoinPrevious,
        );
        assert_eq!(w.starts(), &[0, 6]);
        let w = Windows::latency(
            &lat,
            LatencyThreshold::Cycles(0),
            UnsampledRows::StartWindow,
        );
        assert_eq!(w, Windows::single_rows(6));
        // Exactly at the average joins (<=): maxima 4 and 6, average 5; 5 joins.
        let w = Windows::latency(
            &[Some(4), Some(6), Some(5)],
            avg,
            UnsampledRows::StartWindow,
        );
        assert_eq!(w.starts(), &[0, 1, 3]);
        // No sample at all.
        let w = Windows::latency(&[None, None], avg, UnsampledRows::JoinPrevious);
        assert_eq!(w.starts(), &[0, 2]);
        assert!(Windows::latency(&[], avg, UnsampledRows::StartWindow).is_empty());
    }

    #[test]
    fn windows_from_starts_and_lengths() {
        let w = Windows::from_starts(5, vec![0, 2, 3]).unwrap();
        assert_eq!(w.starts(), &[0, 2, 3, 5]);
        assert_eq!(Windows::from_starts(5, vec![0, 2, 3, 5]).unwrap(), w);
        assert_eq!(Windows::from_lengths(&[2, 1, 2]).unwrap(), w);
        assert_eq!(Windows::from_starts(0, vec![]).unwrap().len(), 0);
        assert_eq!(Windows::from_starts(0, vec![0]).unwrap().len(), 0);
        assert_eq!(Windows::from_lengths(&[]).unwrap().len(), 0);
        let bad = |starts: Vec<usize>| match Windows::from_starts(5, starts) {
            Err(LocalityError::InvalidWindowStarts {
                position, value, ..
            }) => (position, value),
            other => panic!("expected an error, got {other:?}"),
        };
        assert_eq!(bad(vec![]), (0, 0));
        assert_eq!(bad(vec![1, 2]), (0, 1));
        assert_eq!(bad(vec![0, 2, 2]), (2, 2));
        assert_eq!(bad(vec![0, 3, 1]), (2, 1));
        assert_eq!(bad(vec![0, 6]), (1, 6));
        assert_eq!(
            Windows::from_lengths(&[2, 0, 1]),
            Err(LocalityError::EmptyWindow { window: 1 })
        );
    }

    #[test]
    fn row_order_keeps_rows_inside_windows() {
        let w = Windows::from_lengths(&[2, 1, 3]).unwrap();
        let p = w.row_order(&[2, 0, 1]).unwrap();
        assert_eq!(p.new_to_old(), &[3, 4, 5, 0, 1, 2]);
        assert_eq!(w.reordered(&[2, 0, 1]).unwrap().lengths(), vec![3, 2, 1]);
        assert!(w.row_order(&[0, 1, 2]).unwrap().is_identity());
        for (order, reason) in [
            (vec![0, 1], "wrong length"),
            (vec![0, 1, 3], "out of range"),
            (vec![0, 1, 1], "repeated"),
        ] {
            match w.row_order(&order) {
                Err(LocalityError::InvalidWindowOrder { reason: r, .. }) => assert_eq!(r, reason),
                other => panic!("expected an error, got {other:?}"),
            }
        }
        assert!(Windows::single_rows(0).row_order(&[]).unwrap().is_empty());
    }

    #[test]
    fn windows_must_match_the_matrix() {
        let a = spec_example();
        assert!(Windows::single_rows(4).check_rows(&a).is_ok());
        assert_eq!(
            Windows::single_rows(3).check_rows(&a),
            Err(LocalityError::RowCountMismatch {
                what: "windows",
                expected: 4,
                found: 3
            })
        );
    }
}
