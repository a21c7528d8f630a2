//! Greedy edge matching: take candidate edges cheapest first while every node keeps degree ≤ 2 and no
//! cycle closes; then chain the resulting fragments end to end.
//!
//! Cost: O(E log E) for the `E` candidate edges (sort) plus near-linear union-find, then O(F × K) oracle
//! calls to chain `F` fragments (O(F × FAR_JOIN_SCAN) where no candidate leads to an unused fragment).
//! Source: Bentley (1992) "greedy matching"; Johnson & McGeoch (1997) section 2.2 (the best start for
//! 2-opt/LK). Caller: [`super::initial_path`].

use super::Unused;
use crate::{CandidateLists, CostOracle};

const NONE: u32 = u32::MAX;

/// Unused fragments scanned (both ends, by oracle) when no candidate of the tail leads to one. Such joins
/// are far apart and mostly tie at the worst cost `n(g) + n(h)`, so a long scan buys little: on the
/// shuffled 1M-row Poisson grid 95% of the 373k joins were of this kind, and scanning 8 instead of
/// [`super::JOIN_SCAN`] fragments cut the construction from 4.0 s to 1.2 s for a 0.02% dearer start and the
/// same cost after 2-opt + Or-opt.
const FAR_JOIN_SCAN: usize = 8;

/// The greedy-matching order of all nodes of `cands`.
pub(crate) fn greedy_path(cands: &CandidateLists, oracle: &dyn CostOracle) -> Vec<usize> {
    let links = match_edges(cands);
    let fragments = fragments(&links);
    chain(&fragments, cands, oracle)
}

/// Each node's (up to two) fragment neighbours after greedy matching.
fn match_edges(cands: &CandidateLists) -> Vec<[u32; 2]> {
    let n = cands.len();
    let mut edges: Vec<(i64, u32, u32)> = (0..n)
        .flat_map(|a| {
            cands
                .entries(a)
                .filter(move |&(b, _)| a < b as usize)
                .map(move |(b, cost)| (cost, a as u32, b))
        })
        .collect();
    // Reverse-only entries (b lists a but a does not list b) are covered from b's side.
    edges.extend((0..n).flat_map(|a| {
        cands
            .entries(a)
            .filter(move |&(b, _)| a > b as usize)
            .map(move |(b, cost)| (cost, b, a as u32))
    }));
    edges.sort_unstable();
    edges.dedup_by_key(|e| (e.1, e.2));
    let mut links = vec![[NONE; 2]; n];
    let mut sets = DisjointSets::new(n);
    for (_, a, b) in edges {
        let (a, b) = (a as usize, b as usize);
        if links[a][1] != NONE || links[b][1] != NONE || !sets.union(a, b) {
            continue;
        }
        for (u, v) in [(a, b), (b, a)] {
            let slot = if links[u][0] == NONE { 0 } else { 1 };
            links[u][slot] = v as u32;
        }
    }
    links
}

/// The fragments (paths) formed by `links`, each walked from its lower-numbered end, in order of that end.
fn fragments(links: &[[u32; 2]]) -> Vec<Vec<usize>> {
    let mut seen = vec![false; links.len()];
    let mut out = Vec::new();
    for start in 0..links.len() {
        if seen[start] || links[start][1] != NONE {
            continue;
        }
        let mut frag = vec![start];
        seen[start] = true;
        let (mut prev, mut cur) = (start, links[start][0]);
        while cur != NONE {
            let c = cur as usize;
            seen[c] = true;
            frag.push(c);
            let [x, y] = links[c];
            let next = if x as usize == prev { y } else { x };
            (prev, cur) = (c, next);
        }
        out.push(frag);
    }
    out
}

/// Concatenates fragments. After each, the next is the cheapest (by the oracle, either orientation) among
/// the unused fragments holding a candidate neighbour of the current tail (they are nearby), or, when
/// there is none, among the next [`FAR_JOIN_SCAN`] unused fragments.
fn chain(fragments: &[Vec<usize>], cands: &CandidateLists, oracle: &dyn CostOracle) -> Vec<usize> {
    let mut fragment_of = vec![0u32; cands.len()];
    for (f, frag) in fragments.iter().enumerate() {
        for &v in frag {
            fragment_of[v] = f as u32;
        }
    }
    let mut used = vec![false; fragments.len()];
    let mut order = Vec::with_capacity(cands.len());
    let mut unused = Unused::new(fragments.len());
    let mut next = (!fragments.is_empty()).then_some((0, false));
    while let Some((f, reversed)) = next {
        unused.remove(f);
        used[f] = true;
        if reversed {
            order.extend(fragments[f].iter().rev());
        } else {
            order.extend(&fragments[f]);
        }
        let tail = *order.last().expect("fragments are non-empty");
        let join = |g: usize| {
            let frag = &fragments[g];
            [
                (oracle.cost(tail, frag[0]), g, false),
                (oracle.cost(tail, frag[frag.len() - 1]), g, true),
            ]
        };
        let nearby = cands
            .neighbours(tail)
            .iter()
            .map(|&u| fragment_of[u as usize] as usize)
            .filter(|&g| !used[g])
            .flat_map(join)
            .min();
        next = nearby
            .or_else(|| unused.first(FAR_JOIN_SCAN).flat_map(join).min())
            .map(|(_, g, reversed)| (g, reversed));
    }
    order
}

/// Union-find with path halving and union by size.
struct DisjointSets {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl DisjointSets {
    fn new(n: usize) -> Self {
        Self {
            parent: (0..n as u32).collect(),
            size: vec![1; n],
        }
    }

    fn find(&mut self, mut v: usize) -> usize {
        while self.parent[v] as usize != v {
            let grand = self.parent[self.parent[v] as usize];
            self.parent[v] = grand;
            v = grand as usize;
        }
        v
    }

    /// Joins the sets of `a` and `b`; false when they were already one set.
    fn union(&mut self, a: usize, b: usize) -> bool {
        let (mut ra, mut rb) = (self.find(a), self.find(b));
        if ra == rb {
            return false;
        }
        if self.size[ra] < self.size[rb] {
            std::mem::swap(&mut ra, &mut rb);
        }
        self.parent[rb] = ra as u32;
        self.size[ra] += self.size[rb];
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_follows_cheap_edges() {
        // A path 0-1-2-3 of cost-1 edges plus expensive chords.
        let cands = CandidateLists::from_lists(vec![
            vec![(1, 1), (3, 9)],
            vec![(0, 1), (2, 1)],
            vec![(1, 1), (3, 1)],
            vec![(2, 1), (0, 9)],
        ])
        .unwrap();
        let order = greedy_path(&cands, &|a: usize, b: usize| {
            if a.abs_diff(b) == 1 {
                1
            } else {
                9
            }
        });
        assert_eq!(order, vec![0, 1, 2, 3]);
    }

    #[test]
    fn isolated_nodes_are_chained() {
        let cands = CandidateLists::from_lists(vec![vec![]; 5]).unwrap();
        let mut order = greedy_path(&cands, &|a: usize, b: usize| (a + b) as i64);
        order.sort_unstable();
        assert_eq!(order, vec![0, 1, 2, 3, 4]);
    }
}
