//! A pseudo-peripheral node of a connected component: a node whose eccentricity is (close to) the
//! component's diameter, the start that makes Cuthill-McKee's level sets narrow.
//!
//! George and Liu's algorithm (A. George, J. W. H. Liu, "An implementation of a pseudoperipheral node
//! finder", ACM TOMS 5(3), 1979; SPARSPAK's `FNROOT` without its level-width shrinking): root a level
//! structure at `r`; take the minimum-degree node `x` of the last level; if the structure rooted at
//! `x` is deeper, set `r = x` and repeat. Each round costs one breadth-first search, `O(|V_c| + |E_c|)`
//! on the component; the height strictly increases, and in practice 2 to 4 rounds suffice.
//! Called by [`crate::rcm`].

use crate::graph::Graph;
use crate::ticker::Ticker;

/// Breadth-first level structure rooted at a node, with a visit stamp so that one allocation serves
/// every search of every component (no `O(n)` reset per search).
///
/// # Invariants
/// After [`LevelStructure::build`], `order` holds the component of the root in breadth-first order and
/// `level_starts` the offsets of its levels in `order` (`level_starts[0] == 0`, last `== order.len()`).
pub(crate) struct LevelStructure {
    order: Vec<u32>,
    level_starts: Vec<usize>,
    stamp: Vec<u32>,
    current: u32,
}

impl LevelStructure {
    /// A workspace for searches on a graph of `nodes` nodes.
    pub(crate) fn new(nodes: usize) -> Self {
        Self {
            order: Vec::new(),
            level_starts: Vec::new(),
            stamp: vec![0; nodes],
            current: 0,
        }
    }

    /// Builds the level structure of `g` rooted at `root`, calling `expanded` with the number of
    /// nodes whose neighbours have been walked so far (the search's work, up to the component's
    /// size) after each.
    pub(crate) fn build(&mut self, g: &Graph, root: usize, mut expanded: impl FnMut(usize)) {
        self.next_stamp();
        self.order.clear();
        self.level_starts.clear();
        self.order.push(root as u32);
        self.stamp[root] = self.current;
        let mut level_start = 0;
        while level_start < self.order.len() {
            self.level_starts.push(level_start);
            let level_end = self.order.len();
            for k in level_start..level_end {
                g.prefetch_search(&self.order, k, &self.stamp);
                for list in g.neighbour_lists(self.order[k] as usize) {
                    for &u in list {
                        if self.stamp[u as usize] != self.current {
                            self.stamp[u as usize] = self.current;
                            self.order.push(u);
                        }
                    }
                }
                expanded(k + 1);
            }
            level_start = level_end;
        }
        self.level_starts.push(self.order.len());
    }

    /// Number of levels (the root's eccentricity plus one).
    pub(crate) fn height(&self) -> usize {
        self.level_starts.len() - 1
    }

    /// The nodes of the deepest level.
    pub(crate) fn last_level(&self) -> &[u32] {
        let h = self.height();
        &self.order[self.level_starts[h - 1]..self.level_starts[h]]
    }

    fn next_stamp(&mut self) {
        if self.current == u32::MAX {
            self.stamp.fill(0);
            self.current = 0;
        }
        self.current += 1;
    }
}

/// A pseudo-peripheral node of the component of `start`, searched from `start`.
///
/// Ties among last-level nodes of equal degree go to the smallest index, so the result is
/// deterministic. `progress(round, expanded, total)` hears of each search as it goes (at most a
/// thousand times a search, in nodes expanded): `total` is the component's size once the first
/// search has found it, and `unplaced`, a bound of it, during that first search.
pub(crate) fn pseudo_peripheral_node(
    g: &Graph,
    start: usize,
    ls: &mut LevelStructure,
    unplaced: usize,
    progress: &mut dyn FnMut(usize, usize, usize),
) -> usize {
    let mut round = 1;
    let mut search = |ls: &mut LevelStructure, root: usize, total: usize| {
        let mut ticker = Ticker::new(total);
        let mut report = |expanded, total| progress(round, expanded, total);
        ls.build(g, root, |expanded| ticker.at(expanded, &mut report));
        round += 1;
    };
    let mut root = start;
    search(ls, root, unplaced);
    let component = ls.order.len();
    loop {
        let height = ls.height();
        let candidate = ls
            .last_level()
            .iter()
            .map(|&v| v as usize)
            .min_by_key(|&v| (g.degree(v), v))
            .expect("a level structure has a non-empty last level");
        if candidate == root {
            return root;
        }
        search(ls, candidate, component);
        if ls.height() <= height {
            return root;
        }
        root = candidate;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spmv_reorder_sparse::CsrMatrix;

    fn path_matrix(n: usize) -> CsrMatrix<()> {
        let t = (0..n.saturating_sub(1)).map(|i| (i, i + 1, ()));
        CsrMatrix::from_triplets(n, n, t).unwrap()
    }

    #[test]
    fn level_structure_of_a_path() {
        let a = path_matrix(5);
        let g = Graph::symmetrised(&a);
        let mut ls = LevelStructure::new(5);
        ls.build(&g, 2, |_| {});
        assert_eq!(ls.height(), 3);
        let mut last = ls.last_level().to_vec();
        last.sort_unstable();
        assert_eq!(last, [0, 4]);
        ls.build(&g, 0, |_| {});
        assert_eq!(ls.height(), 5);
        assert_eq!(ls.last_level(), &[4]);
    }

    #[test]
    fn middle_of_a_path_leads_to_an_end() {
        let a = path_matrix(9);
        let g = Graph::symmetrised(&a);
        let mut ls = LevelStructure::new(9);
        let v = pseudo_peripheral_node(&g, 4, &mut ls, 9, &mut |_, _, _| {});
        assert!(v == 0 || v == 8, "got {v}");
    }

    #[test]
    fn isolated_node_is_its_own_peripheral_node() {
        let a = path_matrix(1);
        let g = Graph::symmetrised(&a);
        let mut ls = LevelStructure::new(1);
        assert_eq!(
            pseudo_peripheral_node(&g, 0, &mut ls, 1, &mut |_, _, _| {}),
            0
        );
    }
}
