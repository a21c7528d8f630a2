//! Parallelism: one `job(chunk)` body for the sequential and the rayon paths.
//!
//! Work is split into consecutive chunks balanced by a prefix sum of the work (nonzeros), as the
//! house style asks; chunks write into disjoint `split_at_mut` regions. Called by every parallel
//! stage of this crate (footprints, inverted index, candidate search, distance sums).

use rayon::prelude::*;
use std::ops::Range;

/// How a computation runs.
///
/// `Rayon` runs on the current rayon pool: call the function inside `ThreadPool::install` to choose
/// the thread count. Results never depend on the choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Parallelism {
    /// One thread, the caller's.
    Sequential,
    /// The threads of the current rayon pool.
    #[default]
    Rayon,
}

impl Parallelism {
    /// Number of threads the computation may use.
    pub fn threads(self) -> usize {
        match self {
            Parallelism::Sequential => 1,
            Parallelism::Rayon => rayon::current_num_threads().max(1),
        }
    }

    /// Runs `job` on every item, in parallel or not, and returns the results in item order.
    pub(crate) fn map<I, R, F>(self, items: Vec<I>, job: F) -> Vec<R>
    where
        I: Send,
        R: Send,
        F: Fn(I) -> R + Sync + Send,
    {
        match self {
            Parallelism::Sequential => items.into_iter().map(job).collect(),
            Parallelism::Rayon => items.into_par_iter().map(job).collect(),
        }
    }
}

/// Splits `0..prefix.len()-1` into at most `parts` consecutive non-empty ranges of about equal work,
/// where item `i` costs `prefix[i+1] - prefix[i] + 1` (the `+1` accounts for per-item overhead).
pub(crate) fn balanced_ranges(prefix: &[usize], parts: usize) -> Vec<Range<usize>> {
    let items = prefix.len().saturating_sub(1);
    if items == 0 {
        return Vec::new();
    }
    let parts = parts.clamp(1, items);
    // Cumulative work before item boundary `b`; strictly increasing in `b`.
    let work = |b: usize| prefix[b] - prefix[0] + b;
    let total = work(items);
    let mut ranges = Vec::with_capacity(parts);
    let mut start = 0;
    for p in 1..=parts {
        if start == items {
            break;
        }
        let target = (total as u128 * p as u128 / parts as u128) as usize;
        // Smallest boundary in `start+1..=items` whose cumulative work reaches the target.
        let (mut lo, mut hi) = (start + 1, items);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if work(mid) < target {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let end = if p == parts { items } else { lo };
        ranges.push(start..end);
        start = end;
    }
    ranges
}

/// Splits `0..items` into at most `parts` consecutive non-empty ranges of about equal length.
pub(crate) fn even_ranges(items: usize, parts: usize) -> Vec<Range<usize>> {
    let parts = parts.clamp(1, items.max(1));
    (0..parts)
        .map(|p| items * p / parts..items * (p + 1) / parts)
        .filter(|r| !r.is_empty())
        .collect()
}

/// Splits `data` at the absolute offsets `bounds` (non-decreasing, `bounds[0] == 0`): piece `k` is
/// `data[bounds[k]..bounds[k+1]]`.
///
/// # Panics
/// If the bounds decrease or overrun `data` (a caller bug).
pub(crate) fn split_mut_at<'a, E>(mut data: &'a mut [E], bounds: &[usize]) -> Vec<&'a mut [E]> {
    let mut out = Vec::with_capacity(bounds.len().saturating_sub(1));
    for pair in bounds.windows(2) {
        let (head, tail) = data.split_at_mut(pair[1] - pair[0]);
        out.push(head);
        data = tail;
    }
    out
}

/// The bounds of `ranges` (consecutive from 0) in an array holding `stride` elements per item.
pub(crate) fn range_bounds(ranges: &[Range<usize>], stride: usize) -> Vec<usize> {
    std::iter::once(0)
        .chain(ranges.iter().map(|r| r.end * stride))
        .collect()
}

/// The bounds of `ranges` (consecutive from 0) in an array where item `i` starts at
/// `offsets[i]` (`offsets[0] == 0`): where each range's part of a CSR-like array ends.
pub(crate) fn offset_bounds(ranges: &[Range<usize>], offsets: &[usize]) -> Vec<usize> {
    std::iter::once(0)
        .chain(ranges.iter().map(|r| offsets[r.end]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_follow_strides_and_offsets() {
        let ranges = [0..2, 2..3, 3..5];
        assert_eq!(range_bounds(&ranges, 4), vec![0, 8, 12, 20]);
        assert_eq!(
            offset_bounds(&ranges, &[0, 1, 4, 4, 9, 10]),
            vec![0, 4, 4, 10]
        );
    }

    #[test]
    fn balanced_ranges_cover_everything_once() {
        for prefix in [
            vec![0usize],
            vec![0, 5],
            vec![0, 0, 0, 0],
            vec![0, 100, 100, 101, 300, 300],
            (0..50).map(|i| i * i).collect::<Vec<_>>(),
        ] {
            for parts in [1, 2, 3, 7, 100] {
                let r = balanced_ranges(&prefix, parts);
                let items = prefix.len() - 1;
                let mut next = 0;
                for range in &r {
                    assert_eq!(range.start, next);
                    assert!(range.end > range.start);
                    next = range.end;
                }
                assert_eq!(next, items);
                assert!(r.len() <= parts.max(1));
            }
        }
    }

    #[test]
    fn even_ranges_and_splits() {
        assert!(even_ranges(0, 4).is_empty());
        assert_eq!(even_ranges(10, 3), vec![0..3, 3..6, 6..10]);
        assert_eq!(even_ranges(2, 5), vec![0..1, 1..2]);
        let ranges = even_ranges(10, 3);
        let mut data: Vec<u32> = (0..20).collect();
        let pieces = split_mut_at(&mut data, &range_bounds(&ranges, 2));
        assert_eq!(
            pieces.iter().map(|p| p.len()).collect::<Vec<_>>(),
            vec![6, 6, 8]
        );
        assert_eq!(pieces[1][0], 6);
    }

    #[test]
    fn balanced_ranges_balance_work() {
        let prefix: Vec<usize> = (0..=1000).map(|i| i * 10).collect();
        let r = balanced_ranges(&prefix, 4);
        assert_eq!(r.len(), 4);
        for range in r {
            assert!((240..=260).contains(&range.len()), "{range:?}");
        }
    }
}
