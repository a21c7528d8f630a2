//! Reverse Cuthill-McKee: `P` such that `P·(A + Aᵀ)·Pᵀ` has a small bandwidth and profile.
//!
//! E. Cuthill, J. McKee, "Reducing the bandwidth of sparse symmetric matrices", ACM national
//! conference, 1969; the reversal from A. George's thesis (1971); the start node from George and Liu
//! (1979, see [`crate::pseudo_peripheral`]). Cost: `O(nnz + n)` to build the graph (parallel) plus
//! `O(nnz + Σ_v deg(v)·log deg(v))` for the breadth-first searches (sequential: each search depends on
//! the previous one), plus one search per George-Liu round. Called by the pipeline's `rcm`
//! ordering and its RCM start order.
//!
//! Components are visited in order of their minimum-degree node (degree, then index), as in
//! `scipy.sparse.csgraph.reverse_cuthill_mckee`. Within a component the search starts from
//! [`RcmStart`]: scipy's choice (that minimum-degree node) or, by default, a pseudo-peripheral node
//! found from it. Each node's unvisited neighbours join the queue by increasing degree, ties by index.
//! The whole Cuthill-McKee sequence is then reversed.
//!
//! A rectangular `m x n` matrix is ordered on its bipartite row/column graph (`m + n` nodes), and the
//! row nodes are read off the reversed sequence: rows that share columns end up close together.

use crate::graph::Graph;
use crate::pseudo_peripheral::{pseudo_peripheral_node, LevelStructure};
use crate::ticker::Ticker;
use crate::PeersError;
use spmv_reorder_sparse::{CsrMatrix, Permutation, Value};

/// Where reverse Cuthill-McKee starts the search in each connected component.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum RcmStart {
    /// A pseudo-peripheral node (George-Liu), searched from the component's minimum-degree node.
    /// Costs a few extra breadth-first searches and gives narrower level sets, so a smaller bandwidth
    /// on most matrices: the textbook RCM and the choice of sprs.
    #[default]
    PseudoPeripheral,
    /// The component's minimum-degree node, as `scipy.sparse.csgraph.reverse_cuthill_mckee` does.
    MinimumDegree,
}

/// How [`reverse_cuthill_mckee_with_options`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct RcmOptions {
    /// Where each component's search starts.
    pub start: RcmStart,
    /// The caller vouches that the square pattern equals its transpose's (as scipy's
    /// `symmetric_mode`): a Matrix Market file stored as symmetric, skew-symmetric or Hermitian
    /// does once expanded. The graph is then the pattern itself, without the structural symmetry
    /// check, a third of RCM's time on a shuffled R-MAT graph. On a pattern that is not symmetric
    /// the result is still a permutation, in a worse order. Ignored for a rectangular matrix.
    pub symmetric_mode: bool,
}

/// What [`reverse_cuthill_mckee_with_progress`] is doing when it reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RcmStep {
    /// Building the graph of `A + Aᵀ` (the bipartite graph of a rectangular matrix), in parallel.
    Graph,
    /// The `round`-th breadth-first search for a pseudo-peripheral start node in a component
    /// (George-Liu), counted from 1 in each component; its work is the nodes expanded.
    StartSearch {
        /// Which search of the component this is.
        round: usize,
    },
    /// Numbering the nodes, component after component; its work is the nodes numbered.
    Numbering,
}

impl std::fmt::Display for RcmStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RcmStep::Graph => f.write_str("RCM: building the graph"),
            RcmStep::StartSearch { round } => {
                write!(f, "RCM: searching for a start node, search {round}")
            }
            RcmStep::Numbering => f.write_str("RCM: numbering"),
        }
    }
}

/// The reverse Cuthill-McKee ordering of the rows of `a` (see the module documentation).
///
/// # Errors
/// [`PeersError::TooLarge`] for a rectangular matrix whose `nrows + ncols` exceeds `u32::MAX`.
pub fn reverse_cuthill_mckee<T: Value>(
    a: &CsrMatrix<T>,
    start: RcmStart,
) -> Result<Permutation, PeersError> {
    reverse_cuthill_mckee_with_progress(a, start, &mut |_, _, _| {})
}

/// [`reverse_cuthill_mckee`], calling `progress(step, done, total)` as it goes: once before the
/// graph is built (`0` of `1`), during each search for a start node that expands more than a
/// thousandth of its bound, and at most a thousand times while numbering, then once with every
/// node numbered (`done == total`). The searches of a large component can take as long as the
/// numbering, so each step has its own share.
///
/// # Errors
/// As [`reverse_cuthill_mckee`].
pub fn reverse_cuthill_mckee_with_progress<T: Value>(
    a: &CsrMatrix<T>,
    start: RcmStart,
    progress: &mut dyn FnMut(RcmStep, usize, usize),
) -> Result<Permutation, PeersError> {
    let options = RcmOptions {
        start,
        symmetric_mode: false,
    };
    reverse_cuthill_mckee_with_options(a, options, progress)
}

/// [`reverse_cuthill_mckee_with_progress`] with [`RcmOptions`]: with `symmetric_mode`, no check
/// of the pattern's symmetry.
///
/// ```
/// use spmv_reorder_peers::{reverse_cuthill_mckee, reverse_cuthill_mckee_with_options, RcmOptions};
/// use spmv_reorder_sparse::CsrMatrix;
///
/// let path = CsrMatrix::from_triplets(3, 3, vec![(0, 2, ()), (2, 0, ()), (1, 2, ()), (2, 1, ())])?;
/// let options = RcmOptions { symmetric_mode: true, ..RcmOptions::default() };
/// let p = reverse_cuthill_mckee_with_options(&path, options, &mut |_, _, _| {})?;
/// assert_eq!(p, reverse_cuthill_mckee(&path, options.start)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`reverse_cuthill_mckee`].
pub fn reverse_cuthill_mckee_with_options<T: Value>(
    a: &CsrMatrix<T>,
    options: RcmOptions,
    progress: &mut dyn FnMut(RcmStep, usize, usize),
) -> Result<Permutation, PeersError> {
    let (rows, start) = (a.nrows(), options.start);
    progress(RcmStep::Graph, 0, 1);
    let graph = if rows == a.ncols() {
        Graph::of_square(a, options.symmetric_mode)
    } else {
        Graph::bipartite(a)?
    };
    let mut sequence = cuthill_mckee(&graph, start, progress);
    sequence.reverse();
    let new_to_old = sequence
        .into_iter()
        .map(|v| v as usize)
        .filter(|&v| v < rows)
        .collect();
    Ok(Permutation::from_new_to_old(new_to_old)?)
}

/// The Cuthill-McKee sequence of every node of `g`, component after component.
fn cuthill_mckee(
    g: &Graph,
    start: RcmStart,
    progress: &mut dyn FnMut(RcmStep, usize, usize),
) -> Vec<u32> {
    let n = g.len();
    let mut levels = LevelStructure::new(n);
    let mut numbering = Numbering::new(n);
    for first in nodes_by_degree(g) {
        // Once on a symmetric pattern: the search stays in `first`'s component, and numbering it
        // from any of its nodes numbers `first`. A pattern wrongly vouched symmetric has one-way
        // edges, along which the search can end at a node from which `first` cannot be reached;
        // each round numbers at least its root, so the rounds end.
        while !numbering.visited[first] {
            let root = match start {
                RcmStart::PseudoPeripheral => {
                    let unplaced = n - numbering.sequence.len();
                    let mut searching = |round, expanded, total| {
                        progress(RcmStep::StartSearch { round }, expanded, total)
                    };
                    let found =
                        pseudo_peripheral_node(g, first, &mut levels, unplaced, &mut searching);
                    // One-way edges can also lead the search to a node numbered before: start
                    // from `first` then.
                    if numbering.visited[found] {
                        first
                    } else {
                        found
                    }
                }
                RcmStart::MinimumDegree => first,
            };
            numbering.reached_from(g, root, progress);
        }
    }
    progress(RcmStep::Numbering, n, n);
    numbering.sequence
}

/// Cuthill-McKee's sequence as it grows.
struct Numbering {
    /// The nodes numbered so far, in their order.
    sequence: Vec<u32>,
    /// Whether each node is in `sequence`.
    visited: Vec<bool>,
    /// The new neighbours of the node being expanded, before they are sorted.
    fresh: Vec<u32>,
    ticker: Ticker,
}

impl Numbering {
    fn new(n: usize) -> Self {
        Self {
            sequence: Vec::with_capacity(n),
            visited: vec![false; n],
            fresh: Vec::new(),
            ticker: Ticker::new(n),
        }
    }

    /// Numbers `root`, then every node not yet numbered that a breadth-first search from it
    /// reaches, each node's new neighbours by increasing degree.
    fn reached_from(
        &mut self,
        g: &Graph,
        root: usize,
        progress: &mut dyn FnMut(RcmStep, usize, usize),
    ) {
        let mut head = self.sequence.len();
        self.sequence.push(root as u32);
        self.visited[root] = true;
        while head < self.sequence.len() {
            self.ticker.at(head, &mut |done, total| {
                progress(RcmStep::Numbering, done, total)
            });
            g.prefetch_search(&self.sequence, head, &self.visited);
            let v = self.sequence[head] as usize;
            head += 1;
            self.fresh.clear();
            for list in g.neighbour_lists(v) {
                for &u in list {
                    if !self.visited[u as usize] {
                        self.visited[u as usize] = true;
                        self.fresh.push(u);
                    }
                }
            }
            self.fresh
                .sort_unstable_by_key(|&u| (g.degree(u as usize), u));
            self.sequence.extend_from_slice(&self.fresh);
        }
    }
}

/// All nodes by increasing degree, ties by index: a counting sort, `O(n + max degree)`.
fn nodes_by_degree(g: &Graph) -> Vec<usize> {
    let n = g.len();
    let max_degree = (0..n).map(|v| g.degree(v)).max().unwrap_or(0);
    let mut starts = vec![0usize; max_degree + 2];
    for v in 0..n {
        starts[g.degree(v) + 1] += 1;
    }
    for d in 0..=max_degree {
        starts[d + 1] += starts[d];
    }
    let mut sorted = vec![0usize; n];
    for v in 0..n {
        let slot = &mut starts[g.degree(v)];
        sorted[*slot] = v;
        *slot += 1;
    }
    sorted
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{bandwidth_after, grid, shuffled_symmetric};

    #[test]
    fn path_is_restored_to_bandwidth_one() {
        let n = 50;
        let path = CsrMatrix::from_triplets(n, n, (0..n - 1).map(|i| (i, i + 1, ()))).unwrap();
        let shuffled = shuffled_symmetric(&path, 7);
        for start in [RcmStart::PseudoPeripheral, RcmStart::MinimumDegree] {
            let p = reverse_cuthill_mckee(&shuffled, start).unwrap();
            assert_eq!(bandwidth_after(&shuffled, &p), 1, "{start:?}");
        }
    }

    #[test]
    fn shuffled_grid_gets_back_to_about_its_width() {
        let (w, h) = (20, 30);
        let g = grid(w, h);
        let shuffled = shuffled_symmetric(&g, 11);
        assert!(bandwidth_after(&shuffled, &Permutation::identity(w * h)) > 10 * w);
        let p = reverse_cuthill_mckee(&shuffled, RcmStart::PseudoPeripheral).unwrap();
        let b = bandwidth_after(&shuffled, &p);
        // Level sets of a grid from a corner are anti-diagonals: at most `w` nodes wide, so the
        // bandwidth is at most about the grid's smaller side.
        assert!(b <= w + 1, "bandwidth {b} for a {w} x {h} grid");
    }

    #[test]
    fn pseudo_peripheral_start_is_never_worse_on_a_grid_started_inside() {
        // A grid plus a centre node of degree 1 hanging off it: the minimum-degree start is the centre
        // leaf, which is far from peripheral.
        let (w, h) = (15, 15);
        let n = w * h;
        let mut t: Vec<(usize, usize, ())> = Vec::new();
        let base = grid(w, h);
        for i in 0..n {
            t.extend(base.row(i).0.iter().map(|&j| (i, j as usize, ())));
        }
        let centre = (h / 2) * w + w / 2;
        t.push((n, centre, ()));
        t.push((centre, n, ()));
        let a = CsrMatrix::from_triplets(n + 1, n + 1, t).unwrap();
        let pp = reverse_cuthill_mckee(&a, RcmStart::PseudoPeripheral).unwrap();
        let md = reverse_cuthill_mckee(&a, RcmStart::MinimumDegree).unwrap();
        assert!(bandwidth_after(&a, &pp) < bandwidth_after(&a, &md));
    }

    #[test]
    fn progress_tells_each_step_in_order_and_ends_with_every_node_numbered() {
        // A shuffled grid and, after it, a path of 2,000 nodes: two large components.
        let (w, h) = (120, 100);
        let n = w * h + 2_000;
        let mut t: Vec<(usize, usize, ())> = Vec::new();
        let base = grid(w, h);
        for i in 0..w * h {
            t.extend(base.row(i).0.iter().map(|&j| (i, j as usize, ())));
        }
        t.extend((w * h..n - 1).map(|i| (i, i + 1, ())));
        let a = shuffled_symmetric(&CsrMatrix::from_triplets(n, n, t).unwrap(), 3);
        let mut calls = Vec::new();
        let p = reverse_cuthill_mckee_with_progress(&a, RcmStart::default(), &mut |s, d, t| {
            calls.push((s, d, t))
        })
        .unwrap();
        assert_eq!(p, reverse_cuthill_mckee(&a, RcmStart::default()).unwrap());
        assert_eq!(calls[0], (RcmStep::Graph, 0, 1));
        assert_eq!(calls.last(), Some(&(RcmStep::Numbering, n, n)));
        // Each search reports what it has expanded, short of its total; a first search's bound is
        // the nodes not yet numbered, later searches count to the component's size.
        let searches: Vec<(usize, usize, usize)> = calls
            .iter()
            .filter_map(|&(s, d, t)| match s {
                RcmStep::StartSearch { round } => Some((round, d, t)),
                _ => None,
            })
            .collect();
        assert!(searches.iter().all(|&(_, d, t)| d < t && t <= n));
        assert!(searches.iter().any(|&(round, _, t)| round == 1 && t == n));
        assert!(searches
            .iter()
            .any(|&(round, _, t)| round >= 2 && t == w * h));
        assert!(searches
            .iter()
            .any(|&(round, _, t)| round >= 2 && t == 2_000));
        // The numbering goes forward, at most a thousand reports before the last.
        let numbered: Vec<usize> = calls
            .iter()
            .filter(|c| c.0 == RcmStep::Numbering)
            .map(|c| c.1)
            .collect();
        assert!(
            numbered.len() > 100 && numbered.len() <= 1000,
            "{}",
            numbered.len()
        );
        assert!(numbered.windows(2).all(|w| w[0] < w[1]));
        // The graph, then searches until the first component's numbering reports.
        let first_numbering = calls
            .iter()
            .position(|c| c.0 == RcmStep::Numbering)
            .unwrap();
        assert!(calls[..first_numbering]
            .iter()
            .skip(1)
            .all(|c| matches!(c.0, RcmStep::StartSearch { .. })));
    }

    #[test]
    fn components_and_isolated_nodes_are_all_placed() {
        // Two paths {0,2,4} and {1,3}, and isolated 5.
        let a = CsrMatrix::from_triplets(6, 6, vec![(0, 2, ()), (2, 4, ()), (1, 3, ())]).unwrap();
        let p = reverse_cuthill_mckee(&a, RcmStart::default()).unwrap();
        assert_eq!(p.len(), 6);
        assert_eq!(bandwidth_after(&a, &p), 1);
        // The isolated node has the smallest degree: first in Cuthill-McKee, last once reversed.
        assert_eq!(p.new_to_old()[5], 5);
    }

    #[test]
    fn rectangular_rows_sharing_columns_become_neighbours() {
        // Rows 0..8 of a banded 8 x 12 matrix, shuffled: RCM on the bipartite graph restores a
        // sequence where consecutive rows share a column.
        let (m, n) = (8, 12);
        let t = (0..m).flat_map(|i| (i..i + 3).map(move |j| (i, j, ())));
        let a = CsrMatrix::from_triplets(m, n, t).unwrap();
        let shuffle = Permutation::random(m, 5);
        let shuffled = a.permute(&shuffle, &Permutation::identity(n)).unwrap();
        let p = reverse_cuthill_mckee(&shuffled, RcmStart::default()).unwrap();
        let b = shuffled.permute(&p, &Permutation::identity(n)).unwrap();
        for i in 0..m - 1 {
            let (r, s) = (b.row(i).0, b.row(i + 1).0);
            assert!(
                r.iter().any(|c| s.contains(c)),
                "rows {i} and {} share nothing",
                i + 1
            );
        }
    }

    #[test]
    fn same_order_on_one_and_two_threads_for_a_large_unsymmetric_matrix() {
        // Large enough for the parallel graph passes.
        let a = crate::testutil::banded_random(60_000, 64, 3);
        let run = |threads| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| reverse_cuthill_mckee(&a, RcmStart::default()).unwrap())
        };
        let p = run(1);
        assert_eq!(p, run(2));
        assert!(bandwidth_after(&a, &p) <= 2 * 64);
    }

    #[test]
    fn symmetric_mode_gives_the_same_order_to_a_symmetric_pattern() {
        let vouched = RcmOptions {
            symmetric_mode: true,
            ..RcmOptions::default()
        };
        let run = |a: &CsrMatrix<()>, options| {
            reverse_cuthill_mckee_with_options(a, options, &mut |_, _, _| {}).unwrap()
        };
        // A random graph made symmetric: each row with its row of the transpose.
        let random = crate::testutil::random_graph(3000, 3, 5);
        let transpose = random.pattern_transpose();
        let both = (0..3000).flat_map(|i| {
            let row = random.row(i).0.iter().chain(transpose.row(i).0);
            row.map(move |&j| (i, j as usize, ())).collect::<Vec<_>>()
        });
        let symmetric = CsrMatrix::from_triplets(3000, 3000, both).unwrap();
        let grid = crate::testutil::shuffled_symmetric(&crate::testutil::grid(40, 30), 2);
        for a in [&grid, &symmetric] {
            assert!(a.is_structurally_symmetric());
            assert_eq!(run(a, vouched), run(a, RcmOptions::default()));
        }
        // Vouched for wrongly: still every row once (the random graph's one-way edges lead
        // searches to rows numbered before).
        for unsymmetric in [&random, &crate::testutil::banded_random(2000, 16, 3)] {
            assert!(!unsymmetric.is_structurally_symmetric());
            assert_eq!(run(unsymmetric, vouched).len(), unsymmetric.nrows());
        }
        // Sparse random directed graphs, of many small pieces: a search from a row can end at a
        // row whose numbering never reaches the first, which must then be numbered too.
        for seed in 0..40 {
            let sparse = crate::testutil::random_graph(300, 2, seed);
            assert_eq!(run(&sparse, vouched).len(), 300, "seed {seed}");
        }
    }

    #[test]
    fn empty_matrices() {
        for (m, n) in [(0, 0), (0, 3), (3, 0), (4, 4)] {
            let a: CsrMatrix<()> = CsrMatrix::from_triplets(m, n, vec![]).unwrap();
            assert_eq!(
                reverse_cuthill_mckee(&a, RcmStart::default())
                    .unwrap()
                    .len(),
                m
            );
        }
    }
}
