//! `G = pattern(A + Aᵀ) − diag(A)`: the undirected graph reverse Cuthill-McKee walks; for a rectangular
//! matrix, the bipartite row/column graph instead (rows are nodes `0..m`, columns nodes `m..m+n`).
//!
//! The merged adjacency lists are never materialised: a node's neighbours are its row of `A` followed
//! by its row of `Aᵀ` (omitted where the two are equal), and the searches skip nodes already
//! visited, so repeats and self-loops cost a comparison each. This saves an `nnz`-sized allocation
//! and a pass, which dominate on large matrices. Cost: a sequential `O(nnz + n)` symmetry check
//! ([`CsrMatrix::is_structurally_symmetric`], stopping at the first asymmetric entry), plus for an unsymmetric pattern one transpose and a
//! count of each node's distinct neighbours (parallel for large matrices), `O(nnz + n)`; the
//! bipartite graph copies its lists, `O(nnz + m + n)`. Called by [`crate::rcm`] and [`crate::pseudo_peripheral`].

use crate::PeersError;
use rayon::prelude::*;
use spmv_reorder_sparse::{prefetch, CsrMatrix, Value};
use std::borrow::Cow;

/// Nodes per rayon task: enough work per task to amortise scheduling.
const NODES_PER_TASK: usize = 4096;
/// Below this many stored entries the per-node passes run on the calling thread: handing a job to
/// the rayon pool costs more than the pass itself (RCM on a matrix of bcsstk13's size was
/// slower in parallel).
const PARALLEL_MIN_NNZ: usize = 200_000;

/// An undirected graph as one or two adjacency lists per node, possibly borrowing a matrix's arrays.
///
/// # Invariants
/// The neighbours of `v` are the union of `v`'s lists (without `v`); `v` is a neighbour of `u`
/// whenever `u` is one of `v`; `degrees[v]` is the size of that union; `mirrored` is empty or has
/// one flag per node. Guaranteed by the
/// constructors, not re-checked.
#[derive(Debug, Clone)]
pub(crate) struct Graph<'a> {
    offsets: Cow<'a, [usize]>,
    targets: Cow<'a, [u32]>,
    transpose: Option<CsrMatrix<()>>,
    /// `mirrored[v]`: `v`'s row of `Aᵀ` differs from its row of `A`, so both must be read.
    mirrored: Vec<bool>,
    degrees: Vec<u32>,
}

impl<'a> Graph<'a> {
    /// The graph of `A + Aᵀ` for a square matrix, borrowing `A`'s arrays.
    ///
    /// # Panics
    /// If `a` is not square (a caller bug: callers choose [`Graph::bipartite`] otherwise).
    pub(crate) fn symmetrised<T: Value>(a: &'a CsrMatrix<T>) -> Self {
        Self::of_square(a, false)
    }

    /// [`Self::symmetrised`]; with `known_symmetric` the caller vouches that the pattern equals
    /// its transpose's, and the check is skipped (a third of RCM's time on R-MAT 20 shuffled).
    /// On a pattern that is not symmetric the graph then has one-way edges, which RCM follows to
    /// a worse order ([`crate::rcm`] still numbers each node once).
    ///
    /// # Panics
    /// As [`Self::symmetrised`].
    pub(crate) fn of_square<T: Value>(a: &'a CsrMatrix<T>, known_symmetric: bool) -> Self {
        assert_eq!(
            a.nrows(),
            a.ncols(),
            "symmetrised graph needs a square matrix"
        );
        let unsymmetric = !known_symmetric && !a.is_structurally_symmetric();
        let transpose = unsymmetric.then(|| a.pattern_transpose());
        let node = |v: usize| {
            let (own, cols) = (v as u32, a.row(v).0);
            match &transpose {
                Some(at) if at.row(v).0 != cols => {
                    (union_size(cols, at.row(v).0, own) as u32, true)
                }
                _ => (
                    (cols.len() - usize::from(cols.binary_search(&own).is_ok())) as u32,
                    false,
                ),
            }
        };
        let (degrees, mirrored): (Vec<u32>, Vec<bool>) = if a.nnz() < PARALLEL_MIN_NNZ {
            (0..a.nrows()).map(node).unzip()
        } else {
            let nodes = (0..a.nrows()).into_par_iter();
            nodes.with_min_len(NODES_PER_TASK).map(node).unzip()
        };
        Self {
            offsets: Cow::Borrowed(a.row_ptr()),
            targets: Cow::Borrowed(a.col_idx()),
            transpose,
            mirrored,
            degrees,
        }
    }

    /// The bipartite graph of an `m x n` matrix: row `i` is node `i`, column `j` is node `m + j`, and
    /// each entry `(i, j)` is an edge.
    ///
    /// # Errors
    /// [`PeersError::TooLarge`] when `m + n` exceeds `u32::MAX`.
    pub(crate) fn bipartite<T: Value>(a: &CsrMatrix<T>) -> Result<Self, PeersError> {
        let (m, n) = (a.nrows(), a.ncols());
        let nodes = m as u64 + n as u64;
        if nodes > u32::MAX as u64 {
            return Err(PeersError::TooLarge {
                what: "bipartite row/column",
                nodes,
                max: u32::MAX as u64,
            });
        }
        let at = a.pattern_transpose();
        let shift = m as u32;
        let mut offsets = a.row_ptr().to_vec();
        offsets.extend(at.row_ptr()[1..].iter().map(|&o| o + a.nnz()));
        let mut targets: Vec<u32> = a.col_idx().iter().map(|&c| c + shift).collect();
        targets.extend_from_slice(at.col_idx());
        let degrees = offsets.windows(2).map(|w| (w[1] - w[0]) as u32).collect();
        Ok(Self {
            offsets: Cow::Owned(offsets),
            targets: Cow::Owned(targets),
            transpose: None,
            mirrored: Vec::new(),
            degrees,
        })
    }

    /// Number of nodes.
    pub(crate) fn len(&self) -> usize {
        self.degrees.len()
    }

    /// The neighbours of `v` as two lists (its row of `A` and, for an unsymmetric pattern, of `Aᵀ`),
    /// possibly with repeats and `v` itself (see the module documentation).
    #[inline]
    pub(crate) fn neighbour_lists(&self, v: usize) -> [&[u32]; 2] {
        let own = &self.targets[self.offsets[v]..self.offsets[v + 1]];
        match &self.transpose {
            Some(at) if self.mirrored[v] => [own, at.row(v).0],
            _ => [own, &[]],
        }
    }

    /// Number of distinct neighbours of `v` other than `v` itself.
    #[inline]
    pub(crate) fn degree(&self, v: usize) -> usize {
        self.degrees[v] as usize
    }

    /// Asks ahead for what a breadth-first search reads at random while it takes the nodes of
    /// `queue` in turn and is at `queue[at]`: the offsets of the node `3 · SEARCH_AHEAD` places
    /// on, the own list of the node `2 · SEARCH_AHEAD` on (its offsets asked for before), and the
    /// marks (`marks[u]`, the search's visit flags) and degrees of the neighbours in the own list
    /// of the node [`SEARCH_AHEAD`] on. On a shuffled matrix each of these is a cache miss the
    /// search would otherwise wait for, one after the other (RCM of the shuffled 1M-row grid:
    /// 0.70-0.81 s without, 0.40-0.52 s with).
    #[inline]
    pub(crate) fn prefetch_search<M>(&self, queue: &[u32], at: usize, marks: &[M]) {
        if let Some(&v) = queue.get(at + 3 * SEARCH_AHEAD) {
            prefetch(&self.offsets, v as usize);
        }
        if let Some(&v) = queue.get(at + 2 * SEARCH_AHEAD) {
            prefetch(&self.targets, self.offsets[v as usize]);
        }
        if let Some(&v) = queue.get(at + SEARCH_AHEAD) {
            let v = v as usize;
            for &u in &self.targets[self.offsets[v]..self.offsets[v + 1]] {
                prefetch(marks, u as usize);
                prefetch(&self.degrees, u as usize);
            }
        }
    }
}

/// How many nodes of its queue apart a breadth-first search asks for each stage of what it reads
/// (see [`Graph::prefetch_search`]).
const SEARCH_AHEAD: usize = 8;

/// The size of the union of two sorted, duplicate-free lists, leaving out `skip`.
fn union_size(a: &[u32], b: &[u32], skip: u32) -> usize {
    let (mut i, mut j, mut count) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        count += usize::from(x.min(y) != skip);
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    let tail = a[i..].iter().chain(&b[j..]);
    count + tail.filter(|&&v| v != skip).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The distinct neighbours of `v` other than itself, sorted.
    fn neighbour_set(g: &Graph, v: usize) -> Vec<u32> {
        let lists = g.neighbour_lists(v);
        let mut s: Vec<u32> = lists
            .concat()
            .into_iter()
            .filter(|&u| u as usize != v)
            .collect();
        s.sort_unstable();
        s.dedup();
        assert_eq!(s.len(), g.degree(v), "degree of {v}");
        s
    }

    #[test]
    fn unsymmetric_pattern_gets_both_triangles_without_the_diagonal() {
        let t = vec![(0, 0, ()), (0, 2, ()), (1, 0, ()), (2, 0, ())];
        let a = CsrMatrix::from_triplets(3, 3, t).unwrap();
        let g = Graph::symmetrised(&a);
        assert!(g.transpose.is_some());
        assert_eq!(g.len(), 3);
        assert_eq!(neighbour_set(&g, 0), vec![1, 2]);
        assert_eq!(neighbour_set(&g, 1), vec![0]);
        assert_eq!(neighbour_set(&g, 2), vec![0]);
    }

    #[test]
    fn symmetric_pattern_is_borrowed_as_it_is() {
        let t = vec![(0, 0, ()), (0, 2, ()), (2, 0, ()), (1, 1, ())];
        let a = CsrMatrix::from_triplets(3, 3, t).unwrap();
        let g = Graph::symmetrised(&a);
        assert!(g.transpose.is_none() && matches!(g.targets, Cow::Borrowed(_)));
        assert_eq!(g.neighbour_lists(0), [&[0, 2][..], &[]]);
        assert_eq!(neighbour_set(&g, 1), Vec::<u32>::new());
        assert_eq!(neighbour_set(&g, 2), vec![0]);
    }

    #[test]
    fn bipartite_links_rows_to_shifted_columns() {
        let a =
            CsrMatrix::from_triplets(2, 3, vec![(0, 1, 1.0), (1, 1, 1.0), (1, 2, 1.0)]).unwrap();
        let g = Graph::bipartite(&a).unwrap();
        assert_eq!(g.len(), 5);
        let lists: Vec<Vec<u32>> = (0..5).map(|v| neighbour_set(&g, v)).collect();
        assert_eq!(
            lists,
            vec![vec![3], vec![3, 4], vec![], vec![0, 1], vec![1]]
        );
    }

    /// The large-matrix (parallel) path against a naive set union, in pools of 1 and 2 threads.
    #[test]
    fn large_unsymmetric_graph_matches_naive_union_on_any_thread_count() {
        let n = 60_000;
        let a = crate::testutil::banded_random(n, 64, 7);
        assert!(a.nnz() >= PARALLEL_MIN_NNZ);
        let at = a.transpose();
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let g = pool.install(|| Graph::symmetrised(&a));
            assert!(g.transpose.is_some());
            for v in (0..n).step_by(97) {
                let mut naive: Vec<u32> = a.row(v).0.iter().chain(at.row(v).0).copied().collect();
                naive.sort_unstable();
                naive.dedup();
                naive.retain(|&u| u as usize != v);
                assert_eq!(neighbour_set(&g, v), naive, "node {v}, {threads} threads");
            }
        }
    }

    #[test]
    fn union_sizes() {
        assert_eq!(union_size(&[1, 3, 5], &[2, 3, 6], 99), 5);
        assert_eq!(union_size(&[1, 3, 5], &[2, 3, 6], 3), 4);
        assert_eq!(union_size(&[], &[4], 4), 0);
    }

    #[test]
    fn empty_matrix_gives_empty_graph() {
        let a: CsrMatrix<()> = CsrMatrix::from_triplets(0, 0, vec![]).unwrap();
        assert_eq!(Graph::symmetrised(&a).len(), 0);
        let b: CsrMatrix<()> = CsrMatrix::from_triplets(0, 3, vec![]).unwrap();
        assert_eq!(Graph::bipartite(&b).unwrap().len(), 3);
    }
}
