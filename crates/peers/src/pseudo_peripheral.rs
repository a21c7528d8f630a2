//! A pseudo-peripheral node of a connected component: a node whose eccentricity is (close to) the
//! component's diameter, the start that makes Cuthill-McKee's level sets narrow.
//!
//! George and Liu's algorithm (A. George, J. W. H. Liu, "An implementation of a pseudoperipheral node
//! finder", ACM TOMS 5(3), 1979; SPARSPAK's `FNROOT` without its level-width shrinking): root a level
//! structure at `r`; take the minimum-degree node `x` of the last level; if the structure rooted at
//! `x` is deeper, set `r = x` and repeat. Each round costs one breadth-first search, `O(|V_c| + |E_c|)`
//! on the component; the height strictly increases, and in practice 2 to 4 rounds suffice. Levels
//! of [`PARALLEL_LEVEL_MIN`] nodes or more are expanded on the pool's threads (the same nodes per
//! level, so the same node found): on 2 threads a search of the shuffled 1M-row geometric graph
//! took 80-100 ms instead of 105-115.
//! Called by [`crate::rcm`].

use crate::graph::Graph;
use crate::ticker::Ticker;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Breadth-first level structure rooted at a node, with a visit stamp so that one allocation serves
/// every search of every component (no `O(n)` reset per search).
///
/// # Invariants
/// After [`LevelStructure::build`], `order` holds the component of the root level by level and
/// `level_starts` the offsets of its levels in `order` (`level_starts[0] == 0`, last `== order.len()`).
/// Each level holds the same nodes whatever the threads; their order within a level may differ
/// from run to run when the level was expanded on several threads.
pub(crate) struct LevelStructure {
    order: Vec<u32>,
    level_starts: Vec<usize>,
    /// The search that last reached each node. Atomic so that a wide level's nodes are expanded
    /// side by side: a node joins the next level once, from whichever thread claims it first.
    stamp: Vec<AtomicU32>,
    current: u32,
    /// The pool's threads, asked once: RCM searches each of R-MAT's 400,000 small components.
    threads: usize,
}

impl LevelStructure {
    /// A workspace for searches on a graph of `nodes` nodes, on the current rayon pool.
    pub(crate) fn new(nodes: usize) -> Self {
        Self {
            order: Vec::new(),
            level_starts: Vec::new(),
            stamp: (0..nodes).map(|_| AtomicU32::new(0)).collect(),
            current: 0,
            threads: rayon::current_num_threads(),
        }
    }

    /// Builds the level structure of `g` rooted at `root`, calling `expanded` with the number of
    /// nodes whose neighbours have been walked so far (the search's work, up to the component's
    /// size): after each node, or after each level expanded on the pool's threads.
    pub(crate) fn build(&mut self, g: &Graph, root: usize, mut expanded: impl FnMut(usize)) {
        self.next_stamp();
        self.order.clear();
        self.level_starts.clear();
        self.order.push(root as u32);
        self.stamp[root].store(self.current, Relaxed);
        let threads = self.threads;
        let mut level_start = 0;
        while level_start < self.order.len() {
            self.level_starts.push(level_start);
            let level_end = self.order.len();
            if threads > 1 && level_end - level_start >= PARALLEL_LEVEL_MIN {
                self.expand_side_by_side(g, level_start..level_end, threads);
                expanded(level_end);
            } else {
                for k in level_start..level_end {
                    g.prefetch_search(&self.order, k, &self.stamp);
                    for list in g.neighbour_lists(self.order[k] as usize) {
                        for &u in list {
                            // One thread: a plain load and store, no atomic exchange.
                            let stamp = &self.stamp[u as usize];
                            if stamp.load(Relaxed) != self.current {
                                stamp.store(self.current, Relaxed);
                                self.order.push(u);
                            }
                        }
                    }
                    expanded(k + 1);
                }
            }
            level_start = level_end;
        }
        self.level_starts.push(self.order.len());
    }

    /// Appends the next level, the unreached neighbours of the nodes of `level`, walking the
    /// level in [`CHUNKS_PER_THREAD`] chunks per thread side by side. The searches of RCM's start
    /// are most of its time on large matrices, one random read after another; a level's nodes are
    /// independent but for the claims, which an atomic exchange settles.
    fn expand_side_by_side(&mut self, g: &Graph, level: Range<usize>, threads: usize) {
        let (stamps, current) = (&self.stamp, self.current);
        let chunk = level.len().div_ceil(threads * CHUNKS_PER_THREAD);
        let found: Vec<Vec<u32>> = self.order[level]
            .par_chunks(chunk)
            .map(|nodes| {
                let mut found = Vec::new();
                for (k, &v) in nodes.iter().enumerate() {
                    g.prefetch_search(nodes, k, stamps);
                    for list in g.neighbour_lists(v as usize) {
                        for &u in list {
                            let stamp = &stamps[u as usize];
                            if stamp.load(Relaxed) != current
                                && stamp.swap(current, Relaxed) != current
                            {
                                found.push(u);
                            }
                        }
                    }
                }
                found
            })
            .collect();
        for nodes in found {
            self.order.extend_from_slice(&nodes);
        }
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
            self.stamp.iter_mut().for_each(|s| *s.get_mut() = 0);
            self.current = 0;
        }
        self.current += 1;
    }
}

/// The fewest nodes of a level that are expanded on several threads: below, the tasks' start
/// costs more than the walk saves.
const PARALLEL_LEVEL_MIN: usize = 1024;

/// Chunks per thread of a level expanded side by side: wide levels of power-law graphs hold
/// nodes of very different degrees.
const CHUNKS_PER_THREAD: usize = 4;

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

    /// The root `pseudo_peripheral_node` finds from node 0 on a pool of `threads`, the levels of
    /// the structure rooted there (each level's nodes sorted) and the last count of nodes expanded.
    fn search_on(g: &Graph, threads: usize) -> (usize, Vec<Vec<u32>>, usize) {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut ls = LevelStructure::new(g.len());
            let root = pseudo_peripheral_node(g, 0, &mut ls, g.len(), &mut |_, _, _| {});
            let mut expanded = 0;
            ls.build(g, root, |e| expanded = e);
            let levels = ls
                .level_starts
                .windows(2)
                .map(|w| {
                    let mut level = ls.order[w[0]..w[1]].to_vec();
                    level.sort_unstable();
                    level
                })
                .collect();
            (root, levels, expanded)
        })
    }

    #[test]
    fn wide_levels_hold_the_same_nodes_on_several_threads() {
        // A random graph of 50,000 nodes: its middle levels hold thousands of nodes, expanded
        // side by side on 4 threads; each level holds the nodes it holds on one thread.
        let a = crate::testutil::random_graph(50_000, 2, 11);
        let g = Graph::symmetrised(&a);
        let one = search_on(&g, 1);
        assert_eq!(one, search_on(&g, 4));
        assert!(one
            .1
            .iter()
            .any(|level| level.len() >= 4 * PARALLEL_LEVEL_MIN));
        let reached: usize = one.1.iter().map(Vec::len).sum();
        assert_eq!(one.2, reached);
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
