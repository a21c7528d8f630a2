//! Windows of locality: a partition of the rows `0..n` into runs of consecutive rows.
//!
//! Constructors are `O(n)` (fixed, latency, starts, lengths) or `O(nnz)` (variable, which needs
//! every `d(i,i+1)`). SPEC section 3 (thesis 4.2 for fixed and variable windows, 4.5 for latency
//! windows). Called by the reordering pipeline (windows → [`crate::WindowGraph`] → TSP order →
//! [`Windows::row_order`]) and by the CLI's `info --window SPEC`.

use crate::distance::adjacent_row_distances;
use crate::error::LocalityError;
use crate::par::{even_ranges, Parallelism};
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
        let distances = adjacent_row_distances(a, par);
        let chunks = even_ranges(distances.len(), 4 * par.threads());
        let total: u128 = par
            .map(chunks, |chunk| {
                distances[chunk].iter().map(|&d| d as u128).sum::<u128>()
            })
            .into_iter()
            .sum();
        // `d·n >= D` exactly when `d >= ⌈D/n⌉` (integers), which fits `u64` as `d` does: one
        // compare a row instead of a 128-bit product.
        let at_least = total.div_ceil(a.nrows().max(1) as u128) as u64;
        Self::split_where(a.nrows(), par, |i| distances[i - 1] >= at_least)
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
    /// [`LocalityError::EmptyWindow`] for a length of 0.
    pub fn from_lengths(lengths: &[usize]) -> Result<Self, LocalityError> {
        let mut starts = Vec::with_capacity(lengths.len() + 1);
        starts.push(0usize);
        for (window, &len) in lengths.iter().enumerate() {
            if len == 0 {
                return Err(LocalityError::EmptyWindow { window });
            }
            starts.push(starts[window] + len);
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
    /// tested in parallel chunks of rows with `par` (the variable windows of a 1M-row matrix
    /// took about 2 ms on one thread).
    fn split_where(
        nrows: usize,
        par: Parallelism,
        starts_window: impl Fn(usize) -> bool + Sync,
    ) -> Self {
        let chunks = even_ranges(nrows.saturating_sub(1), 4 * par.threads());
        let found = par.map(chunks, |chunk| {
            (chunk.start + 1..chunk.end + 1)
                .filter(|&j| starts_window(j))
                .collect::<Vec<usize>>()
        });
        let mut starts = Vec::with_capacity(found.iter().map(Vec::len).sum::<usize>() + 2);
        if nrows > 0 {
            starts.push(0);
        }
        for chunk in found {
            starts.extend(chunk);
        }
        starts.push(nrows);
        Self { starts }
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
