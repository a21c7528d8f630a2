//! The solver's neighbour lists over the `n + 1` tour nodes: each real node's candidates preceded by the
//! dummy node (cost 0), so that every move may also make a node a path end.
//!
//! Nodes are in the solver's internal ids ([`Labels`]); each list keeps the caller's order of entries.
//!
//! Cost: `O(n K)` time and memory to build. Source: the dummy-node reduction of a Hamiltonian path to a
//! tour (Lawler et al., "The Traveling Salesman Problem", 1985, ch. 3). Caller: [`crate::solve_path`].

use crate::relabel::Labels;
use crate::CandidateLists;

/// CSR neighbour lists of the tour nodes `0..=n` (the dummy `n` has none: moves from it gain nothing).
pub(crate) struct Neighbours {
    offsets: Vec<usize>,
    nodes: Vec<u32>,
    costs: Vec<i64>,
}

impl Neighbours {
    /// Lists of `cands` in the internal ids of `labels`, with the dummy node `cands.len()` first in every
    /// real node's list.
    pub(crate) fn with_dummy(cands: &CandidateLists, labels: &Labels) -> Self {
        let n = cands.len();
        debug_assert_eq!(labels.len(), n);
        let mut offsets = Vec::with_capacity(n + 2);
        let mut nodes = Vec::with_capacity(cands.num_entries() + n);
        let mut costs = Vec::with_capacity(cands.num_entries() + n);
        offsets.push(0);
        for v in 0..n {
            let old = labels.old(v);
            nodes.push(n as u32);
            costs.push(0);
            nodes.extend(
                cands
                    .neighbours(old)
                    .iter()
                    .map(|&u| labels.internal(u as usize) as u32),
            );
            costs.extend_from_slice(cands.costs(old));
            offsets.push(nodes.len());
        }
        offsets.push(nodes.len());
        Self {
            offsets,
            nodes,
            costs,
        }
    }

    /// The listed cost of `b` in `a`'s list, if listed.
    #[inline]
    pub(crate) fn cost_of(&self, a: usize, b: usize) -> Option<i64> {
        let r = self.offsets[a]..self.offsets[a + 1];
        self.nodes[r.clone()]
            .iter()
            .position(|&u| u as usize == b)
            .map(|i| self.costs[r.start + i])
    }

    /// `(neighbour, cost)` of tour node `v`, cheapest first.
    #[inline]
    pub(crate) fn of(&self, v: usize) -> impl Iterator<Item = (usize, i64)> + '_ {
        let r = self.offsets[v]..self.offsets[v + 1];
        self.nodes[r.clone()]
            .iter()
            .map(|&u| u as usize)
            .zip(self.costs[r].iter().copied())
    }
}
