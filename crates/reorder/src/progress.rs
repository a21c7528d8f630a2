//! Progress of the work the pipeline runs on several threads at once (the cache model's replays,
//! which count the rows they have replayed, and the window graph's candidate search, which counts
//! windows), told to the caller as one share of its total. Called by [`crate::auto`],
//! [`crate::side`] and [`crate::measure`].

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// `work` of `total` as a share (all of it when there is nothing to do).
pub(crate) fn share(work: usize, total: usize) -> f64 {
    if total == 0 {
        1.0
    } else {
        work as f64 / total as f64
    }
}

/// Work done on several threads at once, reported as a share of `total` that never goes back.
pub(crate) struct SharedProgress<'a> {
    total: usize,
    done: AtomicUsize,
    /// The caller's report and the last share it was told: two threads' reports may arrive out
    /// of order, and a later arrival with a smaller share is not told.
    report: Mutex<(&'a mut (dyn FnMut(f64) + Send), f64)>,
}

impl<'a> SharedProgress<'a> {
    /// Progress over `total` units of work, told to `report` as a share in `[0, 1]`.
    pub(crate) fn new(total: usize, report: &'a mut (dyn FnMut(f64) + Send)) -> Self {
        Self {
            total,
            done: AtomicUsize::new(0),
            report: Mutex::new((report, 0.0)),
        }
    }

    /// Counts `units` more done (a replay's `rows_done`, the search's `windows_done`).
    pub(crate) fn add(&self, units: usize) {
        let done = self.done.fetch_add(units, Ordering::Relaxed) + units;
        // A rerun of the graph's search counts its windows again: the share stops at all of it.
        let now = share(done, self.total).min(1.0);
        let mut guard = self
            .report
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let (report, told) = &mut *guard;
        if now > *told {
            *told = now;
            report(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_and_never_go_back() {
        let mut told = Vec::new();
        let mut record = |share: f64| told.push(share);
        {
            let progress = SharedProgress::new(400, &mut record);
            rayon::join(
                || (0..100).for_each(|_| progress.add(2)),
                || (0..100).for_each(|_| progress.add(2)),
            );
        }
        assert_eq!(told.last(), Some(&1.0));
        assert!(told.windows(2).all(|w| w[0] < w[1]), "{told:?}");
    }
}
