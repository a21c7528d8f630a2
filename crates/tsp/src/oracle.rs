//! `cost(a, b)`: the exact, symmetric, integer cost of any pair of nodes.
//!
//! Cost: whatever the implementation costs; the solver calls it O(1) times per move it evaluates
//! beyond the candidate lists, and `n·K` times to check the lists. Source: SPEC section 4
//! (`d_w(g,h) = n(g) + n(h) - 2a(g,h)`); caller: every stage of [`crate::solve_path`].

use crate::cache::CostCache;
use crate::relabel::Labels;

/// The exact cost of an edge between two nodes.
///
/// # Contract
/// `cost(a, b) == cost(b, a) >= 0` for all `a != b` below the number of nodes; `cost(a, a)` is never
/// asked. The oracle is authoritative: candidate lists must agree with it (checked by
/// [`crate::solve_path`]). Implementations must be cheap enough to call in inner loops (no `n × n` matrix
/// is required: row distances are a sorted-set merge).
pub trait CostOracle: Sync {
    /// The cost of the edge `{a, b}`.
    fn cost(&self, a: usize, b: usize) -> i64;
}

impl<F> CostOracle for F
where
    F: Fn(usize, usize) -> i64 + Sync,
{
    fn cost(&self, a: usize, b: usize) -> i64 {
        self(a, b)
    }
}

/// The oracle of the solver's internal tour: the `n` real nodes in internal ids ([`Labels`]) plus one dummy
/// node `n` at cost 0 to every node, which turns a Hamiltonian path with free ends into a tour (the two
/// tour edges at the dummy mark the path's ends).
#[derive(Clone, Copy)]
pub(crate) struct PathCosts<'a> {
    oracle: &'a dyn CostOracle,
    labels: &'a Labels,
    cache: &'a CostCache,
    dummy: usize,
}

impl<'a> PathCosts<'a> {
    /// Wraps `oracle` for the `labels.len()` real nodes (the dummy is node `labels.len()`), remembering
    /// answers in `cache`.
    pub(crate) fn new(
        oracle: &'a dyn CostOracle,
        labels: &'a Labels,
        cache: &'a CostCache,
    ) -> Self {
        Self {
            oracle,
            labels,
            cache,
            dummy: labels.len(),
        }
    }

    /// The dummy node's id (= the number of real nodes).
    pub(crate) fn dummy(&self) -> usize {
        self.dummy
    }

    /// The cost of `{a, b}` in the tour: 0 at the dummy, the oracle's (through the cache) otherwise.
    #[inline]
    pub(crate) fn cost(&self, a: usize, b: usize) -> i64 {
        if a == self.dummy || b == self.dummy {
            0
        } else {
            self.cache.get(a, b, || {
                self.oracle.cost(self.labels.old(a), self.labels.old(b))
            })
        }
    }

    /// Oracle calls made through these costs so far.
    pub(crate) fn oracle_calls(&self) -> u64 {
        self.cache.misses()
    }
}
