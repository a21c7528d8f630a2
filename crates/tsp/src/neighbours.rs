//! The solver's neighbour lists over the `n + 1` tour nodes: each real node's candidates preceded by the
//! dummy node (cost 0), so that every move may also make a node a path end.
//!
//! Nodes are in the solver's internal ids ([`Labels`]); each list keeps the caller's order of entries.
//! Short lists are laid out a fixed stride apart (no offsets), others as CSR.
//!
//! Cost: `O(n K)` time and memory to build. Source: the dummy-node reduction of a Hamiltonian path to a
//! tour (Lawler et al., "The Traveling Salesman Problem", 1985, ch. 3). Caller: [`crate::solve_path`].

use crate::relabel::Labels;
use crate::CandidateLists;

/// Neighbour lists of the tour nodes `0..=n` (the dummy `n` has none: moves from it gain nothing).
pub(crate) struct Neighbours {
    layout: Layout,
    nodes: Vec<u32>,
    costs: Vec<i64>,
}

/// Where node `v`'s list is in `nodes` and `costs`.
enum Layout {
    /// `offsets[v]..offsets[v+1]` (CSR).
    Offsets(Vec<usize>),
    /// The `stride` entries from `v·stride`, the list then [`ABSENT`]: no offset to read before
    /// the list (a dependent cache miss on a large instance) in every cost lookup of the local
    /// search. On the 30 shuffled bundled matrices (default runs, 2 threads, three alternated
    /// runs), the summed reordering time went from 2.02-2.17 s to 1.96-2.05 s, wing's 2-opt from
    /// 156-172 ms to 144-154 ms, with the same orders.
    Strided(usize),
}

/// Pads a strided list: never a node, as candidate lists hold at most `u32::MAX - 1` nodes, so
/// the dummy too is below it.
const ABSENT: u32 = u32::MAX;

/// Longest list laid out strided (the default 8 candidates and the dummy take 9).
const MAX_STRIDE: usize = 16;

impl Neighbours {
    /// Lists of `cands` in the internal ids of `labels`, with the dummy node `cands.len()` first in every
    /// real node's list. Strided when every list is at most [`MAX_STRIDE`] long and padding them to
    /// the longest adds at most half the entries.
    pub(crate) fn with_dummy(cands: &CandidateLists, labels: &Labels) -> Self {
        let n = cands.len();
        debug_assert_eq!(labels.len(), n);
        let list_of = |v: usize| {
            let old = labels.old(v);
            let listed = cands
                .neighbours(old)
                .iter()
                .map(|&u| labels.internal(u as usize) as u32);
            let costs = cands.costs(old).iter().copied();
            std::iter::once((n as u32, 0)).chain(listed.zip(costs))
        };
        let entries = cands.num_entries() + n;
        let longest = (0..n)
            .map(|v| cands.neighbours(v).len() + 1)
            .max()
            .unwrap_or(0);
        let padded = (n + 1).saturating_mul(longest);
        if longest <= MAX_STRIDE && padded <= entries + entries / 2 {
            let mut nodes = vec![ABSENT; padded];
            let mut costs = vec![0; padded];
            for v in 0..n {
                for (k, (u, cost)) in list_of(v).enumerate() {
                    nodes[v * longest + k] = u;
                    costs[v * longest + k] = cost;
                }
            }
            return Self {
                layout: Layout::Strided(longest),
                nodes,
                costs,
            };
        }
        let mut offsets = Vec::with_capacity(n + 2);
        let mut nodes = Vec::with_capacity(entries);
        let mut costs = Vec::with_capacity(entries);
        offsets.push(0);
        for v in 0..n {
            for (u, cost) in list_of(v) {
                nodes.push(u);
                costs.push(cost);
            }
            offsets.push(nodes.len());
        }
        offsets.push(nodes.len());
        Self {
            layout: Layout::Offsets(offsets),
            nodes,
            costs,
        }
    }

    /// Where `v`'s list is (with its padding, if strided).
    #[inline]
    fn range(&self, v: usize) -> std::ops::Range<usize> {
        match self.layout {
            Layout::Offsets(ref offsets) => offsets[v]..offsets[v + 1],
            Layout::Strided(stride) => v * stride..(v + 1) * stride,
        }
    }

    /// The listed cost of `b` in `a`'s list, if listed.
    #[inline]
    pub(crate) fn cost_of(&self, a: usize, b: usize) -> Option<i64> {
        let r = self.range(a);
        self.nodes[r.clone()]
            .iter()
            .position(|&u| u as usize == b)
            .map(|i| self.costs[r.start + i])
    }

    /// `(neighbour, cost)` of tour node `v`, cheapest first.
    #[inline]
    pub(crate) fn of(&self, v: usize) -> impl Iterator<Item = (usize, i64)> + '_ {
        let r = self.range(v);
        self.nodes[r.clone()]
            .iter()
            .take_while(|&&u| u != ABSENT)
            .map(|&u| u as usize)
            .zip(self.costs[r].iter().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks `of` and `cost_of` against the lists, relabelled, with the dummy first.
    fn check(lists: Vec<Vec<(u32, i64)>>, strided: bool) {
        let n = lists.len();
        let cands = CandidateLists::from_lists(lists.clone()).unwrap();
        // A relabelling that moves every node: old node `v` is internal `n - 1 - v`.
        let order: Vec<usize> = (0..n).rev().collect();
        let labels = Labels::from_order(&order);
        let neighbours = Neighbours::with_dummy(&cands, &labels);
        assert_eq!(matches!(neighbours.layout, Layout::Strided(_)), strided);
        for v in 0..n {
            // The lists as `CandidateLists` keeps them (cheapest first).
            let old = labels.old(v);
            let listed = cands.neighbours(old).iter().zip(cands.costs(old));
            let expect: Vec<(usize, i64)> = std::iter::once((n, 0))
                .chain(listed.map(|(&u, &c)| (labels.internal(u as usize), c)))
                .collect();
            assert_eq!(expect.len(), lists[old].len() + 1);
            assert_eq!(neighbours.of(v).collect::<Vec<_>>(), expect);
            for &(u, c) in &expect {
                assert_eq!(neighbours.cost_of(v, u), Some(c));
            }
            let listed: Vec<usize> = expect.iter().map(|e| e.0).collect();
            for u in (0..=n).filter(|u| !listed.contains(u)) {
                assert_eq!(neighbours.cost_of(v, u), None);
            }
        }
        assert_eq!(neighbours.of(n).count(), 0);
    }

    #[test]
    fn short_lists_are_strided_and_long_ones_keep_offsets() {
        // A ring: two neighbours each, one node with one (lists of 2-3 with the dummy).
        let ring: Vec<Vec<(u32, i64)>> = (0..10u32)
            .map(|v| match v {
                0 => vec![(1, 3)],
                _ => vec![((v + 1) % 10, 3 + v as i64), ((v + 9) % 10, 2)],
            })
            .collect();
        check(ring, true);
        // One node lists everyone: padding the others to its length would cost too much.
        let star: Vec<Vec<(u32, i64)>> = (0..20u32)
            .map(|v| match v {
                0 => (1..20).map(|u| (u, u as i64)).collect(),
                _ => vec![(0, v as i64)],
            })
            .collect();
        check(star, false);
    }
}
