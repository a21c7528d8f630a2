//! Local search driver: applies an [`Improver`] from every active node until none improves
//! (neighbour lists + don't-look bits).
//!
//! Cost: O(number of improving moves × cost of one move search); each search is bounded by the
//! neighbour-list length and the move's depth. Source: don't-look bits of Bentley, "Fast algorithms for
//! geometric traveling salesman problems" (1992); queue order as in Applegate et al., "Chained
//! Lin-Kernighan for large traveling salesman problems" (2003). Caller: [`crate::solve_path`] (initial
//! descent) and the chained kick loop.

use std::collections::VecDeque;
use std::time::Instant;

use crate::neighbours::Neighbours;
use crate::oracle::PathCosts;
use crate::tour::Tour;

/// What every move search sees: costs (with the dummy node) and the neighbour lists.
#[derive(Clone, Copy)]
pub(crate) struct Context<'a> {
    /// Edge costs of the tour nodes.
    pub(crate) costs: PathCosts<'a>,
    /// Candidate neighbours of the tour nodes.
    pub(crate) neighbours: &'a Neighbours,
}

impl Context<'_> {
    /// The cost of `{a, b}`: 0 at the dummy, the listed cost when `b` is a candidate of `a` (a scan of
    /// `K` entries, cheaper than most oracles: tour edges are mostly candidate edges), else the oracle's.
    #[inline]
    pub(crate) fn cost(&self, a: usize, b: usize) -> i64 {
        if a == self.costs.dummy() || b == self.costs.dummy() {
            return 0;
        }
        match self.neighbours.cost_of(a, b) {
            Some(c) => c,
            None => self.costs.cost(a, b),
        }
    }
}

/// One kind of improving move searched from a node `t1`.
pub(crate) trait Improver {
    /// Searches moves touching `t1`; applies the first improving one found and returns its gain (> 0),
    /// pushing the endpoints of changed edges onto `touched`. Returns 0 (tour unchanged) otherwise.
    fn improve<T: Tour>(
        &mut self,
        ctx: &Context<'_>,
        tour: &mut T,
        t1: usize,
        touched: &mut Vec<usize>,
    ) -> i64;
}

/// FIFO of nodes whose don't-look bit is off.
pub(crate) struct ActiveQueue {
    queue: VecDeque<u32>,
    queued: Vec<bool>,
}

impl ActiveQueue {
    /// An empty queue over `len` nodes.
    pub(crate) fn new(len: usize) -> Self {
        Self {
            queue: VecDeque::new(),
            queued: vec![false; len],
        }
    }

    /// Turns `v`'s don't-look bit off.
    pub(crate) fn push(&mut self, v: usize) {
        if !self.queued[v] {
            self.queued[v] = true;
            self.queue.push_back(v as u32);
        }
    }

    /// Number of queued nodes.
    pub(crate) fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether no node is queued.
    pub(crate) fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    fn pop(&mut self) -> Option<usize> {
        let v = self.queue.pop_front()? as usize;
        self.queued[v] = false;
        Some(v)
    }

    /// Empties the queue.
    pub(crate) fn clear(&mut self) {
        while self.pop().is_some() {}
    }
}

/// Queue pops between two deadline checks and progress calls of [`descend`].
const CHECK_EVERY: u64 = 256;

/// Where a running [`descend`] stands, given to its progress callback every [`CHECK_EVERY`] pops.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DescentProgress {
    /// Gain so far.
    pub(crate) gain: i64,
    /// Nodes popped so far over popped plus queued: an estimate of the work done, in `[0, 1)`.
    pub(crate) fraction: f64,
}

/// Runs `improver` from queued nodes until the queue empties (a local optimum), `deadline` passes
/// or `max_pops` nodes have been popped (a budget that, unlike the deadline, gives the same path on
/// every machine), calling `progress` every [`CHECK_EVERY`] pops (the callback cannot change the
/// search, so results do not depend on it). Returns the total gain and whether the optimum was
/// reached.
pub(crate) fn descend<T: Tour>(
    improver: &mut impl Improver,
    ctx: &Context<'_>,
    tour: &mut T,
    queue: &mut ActiveQueue,
    (deadline, max_pops): (Option<Instant>, Option<u64>),
    progress: &mut dyn FnMut(DescentProgress),
) -> (i64, bool) {
    let mut gain = 0;
    let mut touched = Vec::new();
    let mut steps = 0u64;
    loop {
        // The budget is checked before a pop, so that a descent called again with the same queue
        // goes on exactly where this one stopped.
        if max_pops.is_some_and(|m| steps >= m) && !queue.is_empty() {
            return (gain, false);
        }
        let Some(t1) = queue.pop() else { break };
        steps += 1;
        if steps.is_multiple_of(CHECK_EVERY) {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                queue.push(t1);
                return (gain, false);
            }
            progress(DescentProgress {
                gain,
                fraction: steps as f64 / (steps + queue.len() as u64 + 1) as f64,
            });
        }
        touched.clear();
        let g = improver.improve(ctx, tour, t1, &mut touched);
        if g > 0 {
            gain += g;
            queue.push(t1);
            for &v in &touched {
                queue.push(v);
            }
        }
    }
    (gain, true)
}

/// Two improvers tried in turn from each node: the second only when the first finds nothing.
pub(crate) struct Both<A, B>(pub(crate) A, pub(crate) B);

impl<A: Improver, B: Improver> Improver for Both<A, B> {
    fn improve<T: Tour>(
        &mut self,
        ctx: &Context<'_>,
        tour: &mut T,
        t1: usize,
        touched: &mut Vec<usize>,
    ) -> i64 {
        let g = self.0.improve(ctx, tour, t1, touched);
        if g > 0 {
            g
        } else {
            self.1.improve(ctx, tour, t1, touched)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::CostCache;
    use crate::relabel::Labels;
    use crate::tour::ArrayTour;
    use crate::two_opt::TwoOpt;
    use crate::CandidateLists;

    /// Points on a line visited in a scrambled order: the descent pops every node at least once.
    #[test]
    fn descent_reports_progress_periodically() {
        let n = 2000;
        let cost = |a: usize, b: usize| a.abs_diff(b) as i64;
        let lists = (0..n)
            .map(|a: usize| {
                let near = a.saturating_sub(3)..(a + 4).min(n);
                near.filter(|&b| b != a)
                    .map(|b| (b as u32, cost(a, b)))
                    .collect()
            })
            .collect();
        let cands = CandidateLists::from_lists(lists).unwrap();
        let labels = Labels::from_order(&(0..n).collect::<Vec<_>>());
        let neighbours = Neighbours::with_dummy(&cands, &labels);
        let cache = CostCache::new(n + 1);
        let ctx = Context {
            costs: PathCosts::new(&cost, &labels, &cache),
            neighbours: &neighbours,
        };
        let mut order: Vec<usize> = (0..n).map(|i| (i * 7919) % n).collect();
        order.push(n);
        let mut tour = ArrayTour::from_order(&order);
        let mut queue = ActiveQueue::new(n + 1);
        for &v in &order {
            queue.push(v);
        }
        let mut reports = Vec::new();
        let (gain, finished) = descend(
            &mut Both(TwoOpt, crate::or_opt::OrOpt),
            &ctx,
            &mut tour,
            &mut queue,
            (None, None),
            &mut |p| reports.push(p),
        );
        assert!(finished && gain > 0);
        assert!(
            reports.len() >= n / CHECK_EVERY as usize,
            "{}",
            reports.len()
        );
        for w in reports.windows(2) {
            assert!(w[0].gain <= w[1].gain);
        }
        assert!(reports.iter().all(|p| (0.0..1.0).contains(&p.fraction)));
        assert!(reports.last().unwrap().gain <= gain);
    }
}
