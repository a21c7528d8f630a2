//! Temporal sampling of a cache replay: [`RowSample`] says which stretches of the rows, in their
//! new order, the replay of [`crate::cache_model`] counts, and [`ReplaySample`] pairs it with the
//! spatial [`LineSample`].
//!
//! Systematic sampling as in SMARTS (Wunderlich et al., ISCA 2003): the order is cut into equal
//! stretches and the first share of each is counted, after a warm-up of the rows just before it.
//! The warm-up makes the counts of a segment those of the whole replay: an LRU set holds the
//! `ways` lines most recently used in it, so once the warm-up has brought `ways` distinct lines
//! into every set, the caches hold what the whole replay would hold there. The product's matrix
//! streams bring new lines in sequence, filling every set in turn; a warm-up of twice the largest
//! cache in stream bytes fills each one about twice over. What the sample estimates is the rest,
//! scaled by nonzeros: the miss rate of the rows it leaves out.

use crate::LineSample;

/// Bytes the matrix streams read per nonzero in the modelled product: a `u32` column index and
/// an `f64` value.
pub(crate) const STREAM_BYTES_PER_NONZERO: usize = 12;

/// Which rows a replay counts: every row, or the first `1/share` of each of `segments` equal
/// stretches of the new order (see the module documentation). A sample that would replay more
/// than half the nonzeros in warm-ups replays every row instead: it would save little, and small
/// matrices are priced exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowSample {
    segments: usize,
    share: usize,
}

impl RowSample {
    /// Every row: the exact replay.
    pub const ALL: Self = Self {
        segments: 1,
        share: 1,
    };

    /// The first `1/share` of each of `segments` stretches (each at least 1).
    pub fn segments(segments: usize, share: usize) -> Self {
        Self {
            segments: segments.max(1),
            share: share.max(1),
        }
    }

    /// The spans of rows a replay of `rows` rows and `nnz` nonzeros walks, with `warm` nonzeros
    /// of warm-up before each counted stretch; `row_len(i)` is the length of the `i`-th row of
    /// the new order. One span of every row when the sample would not save work.
    pub(crate) fn spans(
        self,
        rows: usize,
        nnz: usize,
        warm: usize,
        row_len: impl Fn(usize) -> usize,
    ) -> Vec<RowSpan> {
        let whole = vec![RowSpan {
            warm_from: 0,
            from: 0,
            to: rows,
            nonzeros_before: 0,
        }];
        if self.share == 1 || self.segments.saturating_mul(warm).saturating_mul(2) > nnz {
            return whole;
        }
        let stretch = rows.div_ceil(self.segments);
        let counted = stretch.div_ceil(self.share);
        let (mut spans, mut done, mut nonzeros) = (Vec::new(), 0, 0);
        for from in (0..rows).step_by(stretch.max(1)) {
            let mut warm_from = from;
            let mut warmed = 0;
            while warm_from > done && warmed < warm {
                warm_from -= 1;
                warmed += row_len(warm_from);
            }
            nonzeros += (done..warm_from).map(&row_len).sum::<usize>();
            let to = (from + counted).min(rows);
            spans.push(RowSpan {
                warm_from,
                from,
                to,
                nonzeros_before: nonzeros,
            });
            nonzeros += warmed + (from..to).map(&row_len).sum::<usize>();
            done = to;
        }
        spans
    }
}

/// A stretch of the new order a replay walks: rows `warm_from..from` replayed uncounted, then
/// `from..to` counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RowSpan {
    pub(crate) warm_from: usize,
    pub(crate) from: usize,
    pub(crate) to: usize,
    /// Nonzeros of the rows before `warm_from` in the new order: where the matrix streams are.
    pub(crate) nonzeros_before: usize,
}

impl RowSpan {
    /// Rows walked.
    pub(crate) fn len(&self) -> usize {
        self.to - self.warm_from
    }
}

/// What a replay simulates: which lines ([`LineSample`]) and which rows ([`RowSample`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplaySample {
    /// The lines of memory simulated.
    pub lines: LineSample,
    /// The rows counted.
    pub rows: RowSample,
}

impl ReplaySample {
    /// Every line and every row: the exact replay.
    pub const ALL: Self = Self {
        lines: LineSample::ALL,
        rows: RowSample::ALL,
    };
}

impl From<LineSample> for ReplaySample {
    /// The lines of `lines`, every row.
    fn from(lines: LineSample) -> Self {
        Self {
            lines,
            rows: RowSample::ALL,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_in_one_span_unless_the_sample_saves_work() {
        let whole = |rows| {
            vec![RowSpan {
                warm_from: 0,
                from: 0,
                to: rows,
                nonzeros_before: 0,
            }]
        };
        assert_eq!(RowSample::ALL.spans(100, 1_000, 10, |_| 10), whole(100));
        // 4 warm-ups of 200 nonzeros would be 800 of 1,000 replayed uncounted.
        let sample = RowSample::segments(4, 8);
        assert_eq!(sample.spans(100, 1_000, 200, |_| 10), whole(100));
        assert_eq!(
            RowSample::segments(4, 1).spans(100, 1_000, 1, |_| 10),
            whole(100)
        );
    }

    #[test]
    fn spans_count_a_share_of_each_stretch_after_their_warm_up() {
        // 100 rows of 10 nonzeros in 4 stretches of 25, the first 7 rows of each counted after
        // 30 nonzeros (3 rows) of warm-up; the first stretch has nothing before it.
        let spans = RowSample::segments(4, 4).spans(100, 1_000, 30, |_| 10);
        let expect = [
            (0, 0, 7, 0),
            (22, 25, 32, 220),
            (47, 50, 57, 470),
            (72, 75, 82, 720),
        ];
        let got: Vec<_> = spans
            .iter()
            .map(|s| (s.warm_from, s.from, s.to, s.nonzeros_before))
            .collect();
        assert_eq!(got, expect);
    }

    #[test]
    fn a_warm_up_stops_at_the_rows_already_walked() {
        // Stretches of 2 rows, 1 counted each; a warm-up of 3 nonzeros reaches back to the
        // previous span (one row of 5, or an empty row and beyond), so it starts where that one
        // ended; the nonzeros before each span count the rows skipped.
        let len = |i: usize| if i.is_multiple_of(3) { 0 } else { 5 };
        let spans = RowSample::segments(5, 2).spans(10, 35, 3, len);
        for pair in spans.windows(2) {
            assert_eq!(pair[1].warm_from, pair[0].to);
        }
        let before: Vec<usize> = spans.iter().map(|s| s.nonzeros_before).collect();
        let prefix = |r: usize| (0..r).map(len).sum::<usize>();
        let expect: Vec<usize> = spans.iter().map(|s| prefix(s.warm_from)).collect();
        assert_eq!(before, expect);
    }
}
