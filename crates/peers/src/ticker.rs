//! Progress reports at a bounded rate: after each thousandth of a known amount of work, so that a
//! long sweep reports at most a thousand times however large the matrix.

/// The most reports a [`Ticker`] makes before the end of its work.
pub(crate) const STEPS: usize = 1000;

/// Decides when work done so far is worth a report: each time another `1 / STEPS` of `total` is
/// done, and never at or past `total` (the caller reports the end, once).
pub(crate) struct Ticker {
    total: usize,
    every: usize,
    next: usize,
}

impl Ticker {
    /// A ticker for `total` units of work.
    pub(crate) fn new(total: usize) -> Self {
        let every = (total / STEPS).max(1);
        Self {
            total,
            every,
            next: every,
        }
    }

    /// The work the ticker counts to.
    pub(crate) fn total(&self) -> usize {
        self.total
    }

    /// Calls `report(done, total)` when `done` has passed the next thousandth and is short of the
    /// total.
    #[inline]
    pub(crate) fn at(&mut self, done: usize, report: &mut dyn FnMut(usize, usize)) {
        if done >= self.next && done < self.total {
            report(done, self.total);
            self.next = done + self.every;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_each_thousandth_and_never_the_end() {
        let mut ticker = Ticker::new(10_000);
        let mut calls = Vec::new();
        for done in 0..=10_000 {
            ticker.at(done, &mut |d, t| calls.push((d, t)));
        }
        assert_eq!(calls.len(), STEPS - 1);
        assert_eq!(calls[0], (10, 10_000));
        assert!(calls.windows(2).all(|w| w[1].0 == w[0].0 + 10));
        assert_eq!(calls.last(), Some(&(9_990, 10_000)));
    }

    #[test]
    fn small_totals_report_every_unit_short_of_the_end() {
        let mut ticker = Ticker::new(3);
        let mut calls = Vec::new();
        for done in 0..=3 {
            ticker.at(done, &mut |d, _| calls.push(d));
        }
        assert_eq!(calls, [1, 2]);
    }
}
