//! `G = pattern(A + Aᵀ) − diag(A)`: the undirected graph reverse Cuthill-McKee walks; for a rectangular
//! matrix, the bipartite row/column graph instead (rows are nodes `0..m`, columns nodes `m..m+n`).
//!
//! Cost: `O(nnz + m + n)` time and memory; the per-node merges run in parallel over nodes (count,
//! prefix sum, fill into disjoint slices). Called by [`crate::rcm`].

use crate::PeersError;
use rayon::prelude::*;
use spmv_reorder_sparse::{CsrMatrix, Value};

/// An undirected graph in adjacency-list (CSR) form.
///
/// # Invariants
/// Each node's neighbour list is sorted, holds no duplicate and not the node itself, and `v` lists `u`
/// whenever `u` lists `v` (guaranteed by the two constructors, not re-checked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Graph {
    offsets: Vec<usize>,
    neighbours: Vec<u32>,
}

impl Graph {
    /// The graph of `A + Aᵀ` without self-loops, for a square matrix.
    ///
    /// # Panics
    /// If `a` is not square (a caller bug: callers choose [`Graph::bipartite`] otherwise).
    pub(crate) fn symmetrised<T: Value>(a: &CsrMatrix<T>) -> Self {
        assert_eq!(
            a.nrows(),
            a.ncols(),
            "symmetrised graph needs a square matrix"
        );
        let at = a.pattern().transpose();
        let lists = |v: usize| (a.row(v).0, at.row(v).0, v as u32);
        Self::from_nodes(
            a.nrows(),
            |v| {
                let (r, c, own) = lists(v);
                let mut count = 0;
                merge_union(r, c, own, |_| count += 1);
                count
            },
            |v, out| {
                let (r, c, own) = lists(v);
                let mut k = 0;
                merge_union(r, c, own, |u| {
                    out[k] = u;
                    k += 1;
                });
            },
        )
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
        let at = a.pattern().transpose();
        let shift = m as u32;
        Ok(Self::from_nodes(
            m + n,
            |v| {
                if v < m {
                    a.row_nnz(v)
                } else {
                    at.row_nnz(v - m)
                }
            },
            |v, out| {
                if v < m {
                    for (slot, &c) in out.iter_mut().zip(a.row(v).0) {
                        *slot = c + shift;
                    }
                } else {
                    out.copy_from_slice(at.row(v - m).0);
                }
            },
        ))
    }

    /// Builds the CSR arrays from a per-node neighbour count and a per-node fill, both in parallel.
    fn from_nodes(
        nodes: usize,
        count: impl Fn(usize) -> usize + Sync + Send,
        fill: impl Fn(usize, &mut [u32]) + Sync + Send,
    ) -> Self {
        let counts: Vec<usize> = (0..nodes).into_par_iter().map(&count).collect();
        let mut offsets = Vec::with_capacity(nodes + 1);
        offsets.push(0);
        for c in counts {
            offsets.push(offsets[offsets.len() - 1] + c);
        }
        let mut neighbours = vec![0u32; offsets[nodes]];
        let mut slices = Vec::with_capacity(nodes);
        let mut rest: &mut [u32] = &mut neighbours;
        for w in offsets.windows(2) {
            let (head, tail) = rest.split_at_mut(w[1] - w[0]);
            slices.push(head);
            rest = tail;
        }
        slices
            .into_par_iter()
            .enumerate()
            .for_each(|(v, out)| fill(v, out));
        Self {
            offsets,
            neighbours,
        }
    }

    /// Number of nodes.
    pub(crate) fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The sorted neighbours of `v`.
    pub(crate) fn neighbours(&self, v: usize) -> &[u32] {
        &self.neighbours[self.offsets[v]..self.offsets[v + 1]]
    }

    /// Number of neighbours of `v`.
    pub(crate) fn degree(&self, v: usize) -> usize {
        self.offsets[v + 1] - self.offsets[v]
    }
}

/// Calls `emit` on each element of the union of two sorted, duplicate-free lists, in increasing
/// order, leaving out `skip`.
fn merge_union(a: &[u32], b: &[u32], skip: u32, mut emit: impl FnMut(u32)) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = match (a.get(i), b.get(j)) {
            (Some(&x), Some(&y)) if x == y => {
                i += 1;
                j += 1;
                x
            }
            (Some(&x), Some(&y)) if x < y => {
                i += 1;
                x
            }
            (Some(&x), None) => {
                i += 1;
                x
            }
            (_, Some(&y)) => {
                j += 1;
                y
            }
            (None, None) => unreachable!("loop condition"),
        };
        if next != skip {
            emit(next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetrised_merges_both_triangles_and_drops_the_diagonal() {
        let a =
            CsrMatrix::from_triplets(3, 3, vec![(0, 0, ()), (0, 2, ()), (1, 0, ()), (2, 0, ())])
                .unwrap();
        let g = Graph::symmetrised(&a);
        assert_eq!(g.len(), 3);
        assert_eq!(g.neighbours(0), &[1, 2]);
        assert_eq!(g.neighbours(1), &[0]);
        assert_eq!(g.neighbours(2), &[0]);
        assert_eq!(g.degree(0), 2);
    }

    #[test]
    fn bipartite_links_rows_to_shifted_columns() {
        let a =
            CsrMatrix::from_triplets(2, 3, vec![(0, 1, 1.0), (1, 1, 1.0), (1, 2, 1.0)]).unwrap();
        let g = Graph::bipartite(&a).unwrap();
        assert_eq!(g.len(), 5);
        assert_eq!(g.neighbours(0), &[3]);
        assert_eq!(g.neighbours(1), &[3, 4]);
        assert_eq!(g.neighbours(2), &[] as &[u32]);
        assert_eq!(g.neighbours(3), &[0, 1]);
        assert_eq!(g.neighbours(4), &[1]);
    }

    #[test]
    fn empty_matrix_gives_empty_graph() {
        let a: CsrMatrix<()> = CsrMatrix::from_triplets(0, 0, vec![]).unwrap();
        assert_eq!(Graph::symmetrised(&a).len(), 0);
    }
}
