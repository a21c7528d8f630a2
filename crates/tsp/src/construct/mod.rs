//! Initial paths: an order of the `n` real nodes for local search to improve.
//!
//! Cost: see the sibling modules (`greedy.rs`, `nearest.rs`); `identity` is O(n). Source: Johnson &
//! McGeoch (1997) section 2 (greedy starts suit 2-opt and LK best). Caller: [`crate::solve_path`].

pub(crate) mod greedy;
pub(crate) mod nearest;

use crate::{CandidateLists, CostOracle};

/// How many not-yet-used nodes nearest neighbour scans, by oracle, when candidate lists offer no way on:
/// bounds the cost at `O(n × JOIN_SCAN)` oracle calls (greedy uses its own, shorter scan).
pub(crate) const JOIN_SCAN: usize = 64;

/// The construction heuristic for the initial path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Construction {
    /// Greedy edge matching over candidate edges (cheapest first, degree ≤ 2, no cycle); the fragments are
    /// then chained, each tail joined to the cheapest end of an unused fragment holding one of its
    /// candidates (else of one of the next few unused fragments).
    #[default]
    Greedy,
    /// Nearest neighbour from node 0 along candidate lists; when every candidate is used, the cheapest of
    /// the next few unused nodes by the oracle.
    NearestNeighbour,
    /// The given node order `0, 1, …, n-1` (e.g. the matrix's own order).
    Identity,
}

/// The initial path for `cands` under `construction`.
pub(crate) fn initial_path(
    construction: Construction,
    cands: &CandidateLists,
    oracle: &dyn CostOracle,
) -> Vec<usize> {
    match construction {
        Construction::Greedy => greedy::greedy_path(cands, oracle),
        Construction::NearestNeighbour => nearest::nearest_neighbour_path(cands, oracle),
        Construction::Identity => (0..cands.len()).collect(),
    }
}

/// A doubly-linked list of the not-yet-used items `0..len`, in index order, with O(1) removal.
pub(crate) struct Unused {
    next: Vec<u32>,
    prev: Vec<u32>,
    head: u32,
}

const NIL: u32 = u32::MAX;

impl Unused {
    /// All of `0..len` unused.
    pub(crate) fn new(len: usize) -> Self {
        let next = (0..len)
            .map(|i| if i + 1 < len { i as u32 + 1 } else { NIL })
            .collect();
        let prev = (0..len)
            .map(|i| if i > 0 { i as u32 - 1 } else { NIL })
            .collect();
        Self {
            next,
            prev,
            head: if len > 0 { 0 } else { NIL },
        }
    }

    /// Marks `i` used.
    pub(crate) fn remove(&mut self, i: usize) {
        let (p, n) = (self.prev[i], self.next[i]);
        if p == NIL {
            self.head = n;
        } else {
            self.next[p as usize] = n;
        }
        if n != NIL {
            self.prev[n as usize] = p;
        }
        self.next[i] = NIL;
        self.prev[i] = NIL;
    }

    /// The first `limit` unused items in index order.
    pub(crate) fn first(&self, limit: usize) -> impl Iterator<Item = usize> + '_ {
        let mut cur = self.head;
        std::iter::from_fn(move || {
            (cur != NIL).then(|| {
                let v = cur as usize;
                cur = self.next[v];
                v
            })
        })
        .take(limit)
    }
}
