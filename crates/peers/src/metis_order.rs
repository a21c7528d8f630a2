//! METIS orderings: the k-way partition order and nested dissection, the orderings users of METIS
//! reach for (`gpmetis` and `ndmetis`).
//!
//! - [`partition_order`]: `METIS_PartGraphKway` cuts `G = pattern(A + Aᵀ) − diag(A)` into
//!   `⌈n / part_rows⌉` parts of about `part_rows` rows with few edges between them; rows are then
//!   numbered part by part, keeping their relative order inside a part (what a user does with
//!   `argsort(parts)`).
//! - [`nested_dissection`]: `METIS_NodeND`, the fill-reducing order of recursive vertex
//!   separators (each separator after the two halves it separates).
//!
//! G. Karypis, V. Kumar, "A fast and high quality multilevel scheme for partitioning irregular
//! graphs", SIAM J. Sci. Comput. 20(1), 1998. Cost: multilevel, `O(nnz)` per level in practice.
//! METIS is built from its C source by the `metis-sys` crate (no system package). A rectangular
//! `m x n` matrix is ordered on its bipartite row/column graph, and the rows are read off in the
//! order of their nodes, as [`crate::reverse_cuthill_mckee`] does. Called by the reorder crate for
//! its `gp` and `nd` methods.

use crate::graph::Graph;
use crate::PeersError;
use metis::Idx;
use spmv_reorder_sparse::{CsrMatrix, Permutation, Value};
use std::sync::Mutex;

/// METIS keeps its random generator in global state: two calls running at once on different
/// threads would draw from it in turn and give different partitions from run to run. Every call
/// holds this lock, and seeds the generator with [`METIS_SEED`], so that the same graph always
/// gets the same order.
static METIS_LOCK: Mutex<()> = Mutex::new(());

/// The seed of METIS's random choices (its `METIS_OPTION_SEED`).
const METIS_SEED: Idx = 1;

/// Rows per part of [`partition_order`] by default: about the rows whose `x` entries (2 KiB as
/// `f64`) and matrix rows stay in a 32 KiB L1 cache together.
pub const DEFAULT_PART_ROWS: usize = 256;

/// The graph METIS reads: CSR adjacency without self-loops or repeats, in METIS's index type.
struct MetisGraph {
    xadj: Vec<Idx>,
    adjncy: Vec<Idx>,
    /// The matrix's rows are nodes `0..rows` (the columns of a rectangular matrix follow).
    rows: usize,
}

impl MetisGraph {
    fn new<T: Value>(a: &CsrMatrix<T>) -> Result<Self, PeersError> {
        let g = if a.nrows() == a.ncols() {
            Graph::symmetrised(a)
        } else {
            Graph::bipartite(a)?
        };
        let too_large = |nodes: u64| PeersError::TooLarge {
            what: "METIS",
            nodes,
            max: Idx::MAX as u64,
        };
        let nodes = g.len();
        if nodes >= Idx::MAX as usize {
            return Err(too_large(nodes as u64));
        }
        let mut xadj = Vec::with_capacity(nodes + 1);
        let mut adjncy: Vec<Idx> = Vec::new();
        let mut merged = Vec::new();
        xadj.push(0);
        for v in 0..nodes {
            let [own, mirror] = g.neighbour_lists(v);
            merged.clear();
            merged.extend(
                own.iter()
                    .chain(mirror)
                    .copied()
                    .filter(|&u| u as usize != v),
            );
            merged.sort_unstable();
            merged.dedup();
            adjncy.extend(merged.iter().map(|&u| u as Idx));
            // Entries are counted in METIS's index type too.
            if adjncy.len() >= Idx::MAX as usize {
                return Err(too_large(adjncy.len() as u64));
            }
            xadj.push(adjncy.len() as Idx);
        }
        Ok(Self {
            xadj,
            adjncy,
            rows: a.nrows(),
        })
    }

    fn nodes(&self) -> usize {
        self.xadj.len() - 1
    }

    /// The rows in the order their nodes appear in `node_order` (new → old over nodes).
    fn rows_in(
        &self,
        node_order: impl IntoIterator<Item = usize>,
    ) -> Result<Permutation, PeersError> {
        let rows = self.rows;
        let order: Vec<usize> = node_order.into_iter().filter(|&v| v < rows).collect();
        Ok(Permutation::from_new_to_old(order)?)
    }
}

/// The METIS k-way partition order of `a`'s rows: parts of about `part_rows` rows, numbered part by
/// part, rows in their relative order inside a part. One part (or fewer than two rows) gives the
/// identity.
///
/// # Errors
/// [`PeersError::InvalidPartRows`] for `part_rows == 0`; as [`partition`].
pub fn partition_order<T: Value>(
    a: &CsrMatrix<T>,
    part_rows: usize,
) -> Result<Permutation, PeersError> {
    if part_rows == 0 {
        return Err(PeersError::InvalidPartRows { part_rows });
    }
    let part = partition(a, a.nrows().div_ceil(part_rows))?;
    let mut rows: Vec<usize> = (0..a.nrows()).collect();
    rows.sort_by_key(|&r| part[r]); // stable: rows keep their order inside a part
    Ok(Permutation::from_new_to_old(rows)?)
}

/// The part (`0..parts`) of each of `a`'s rows in a METIS k-way partition of its graph into
/// `parts` parts of about equal size with few edges between them (`METIS_PartGraphKway`). Fewer
/// than two parts, or a graph without edges (nothing to cut), put every row in part 0. Some parts
/// may be empty.
///
/// # Errors
/// [`PeersError::TooLarge`] when the graph does not fit METIS's 32-bit indices;
/// [`PeersError::Metis`] when METIS fails.
pub fn partition<T: Value>(a: &CsrMatrix<T>, parts: usize) -> Result<Vec<u32>, PeersError> {
    let single = vec![0; a.nrows()];
    if parts < 2 || a.nrows() < 2 {
        return Ok(single);
    }
    let g = MetisGraph::new(a)?;
    if g.adjncy.is_empty() {
        // METIS refuses an edgeless graph, and every split of it is as good.
        return Ok(single);
    }
    let parts = parts.min(g.nodes()).min(Idx::MAX as usize);
    // A rectangular matrix's parts hold rows and columns: as many parts, about as many rows each.
    let mut part = vec![0 as Idx; g.nodes()];
    let failed = |e: &dyn std::fmt::Display| PeersError::Metis {
        call: "METIS_PartGraphKway",
        message: e.to_string(),
    };
    let graph = metis::Graph::new(1, parts as Idx, &g.xadj, &g.adjncy).map_err(|e| failed(&e))?;
    let _one_at_a_time = METIS_LOCK
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    graph
        .set_option(metis::option::Seed(METIS_SEED))
        .part_kway(&mut part)
        .map_err(|e| failed(&e))?;
    Ok(part[..g.rows].iter().map(|&p| p as u32).collect())
}

/// The METIS nested-dissection order of `a`'s rows (`METIS_NodeND`).
///
/// # Errors
/// [`PeersError::TooLarge`] when the graph does not fit METIS's 32-bit indices;
/// [`PeersError::Metis`] when METIS fails.
pub fn nested_dissection<T: Value>(a: &CsrMatrix<T>) -> Result<Permutation, PeersError> {
    if a.nrows() < 2 {
        return Ok(Permutation::identity(a.nrows()));
    }
    let mut g = MetisGraph::new(a)?;
    let mut nvtxs = g.nodes() as Idx;
    let mut perm = vec![0 as Idx; g.nodes()];
    let mut iperm = vec![0 as Idx; g.nodes()];
    let mut options = [-1 as Idx; metis::NOPTIONS]; // -1: METIS's default for every option
    options[metis_sys::moptions_et_METIS_OPTION_SEED as usize] = METIS_SEED;
    let _one_at_a_time = METIS_LOCK
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    // SAFETY: `xadj` has `nvtxs + 1` entries, nondecreasing from 0 to `adjncy.len()`, and every
    // `adjncy` entry is a node below `nvtxs` (built so by `MetisGraph::new`, and both fit `Idx`);
    // `perm` and `iperm` hold `nvtxs` entries each; `options` holds `METIS_NOPTIONS` entries; the
    // vertex weights may be null (METIS then uses unit weights). METIS reads the graph, may permute `xadj` and
    // `adjncy` in place while it runs, and writes only `perm` and `iperm`; nothing is kept after
    // the call returns.
    #[allow(unsafe_code)]
    let status = unsafe {
        metis_sys::METIS_NodeND(
            &mut nvtxs,
            g.xadj.as_mut_ptr(),
            g.adjncy.as_mut_ptr(),
            std::ptr::null_mut(),
            options.as_mut_ptr(),
            perm.as_mut_ptr(),
            iperm.as_mut_ptr(),
        )
    };
    if status != metis_sys::rstatus_et_METIS_OK {
        return Err(PeersError::Metis {
            call: "METIS_NodeND",
            message: format!("status {status}"),
        });
    }
    // METIS's `perm[i]` is the node placed at position `i` (new → old).
    g.rows_in(perm.into_iter().map(|v| v as usize))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{grid, shuffled_symmetric};

    #[test]
    fn partition_order_keeps_parts_together_on_a_shuffled_grid() {
        let a = shuffled_symmetric(&grid(32, 32), 3);
        let p = partition_order(&a, 64).unwrap();
        assert_eq!(p.len(), 1024);
        // Parts of a grid are compact: most edges join rows of one part, so they sit within a
        // part's length of each other once the parts are numbered in turn.
        let b = a.permute_symmetric(&p).unwrap();
        let near = (0..b.nrows())
            .flat_map(|i| b.row(i).0.iter().map(move |&j| i.abs_diff(j as usize)))
            .filter(|&d| d < 64)
            .count();
        assert!(
            near * 10 > b.nnz() * 8,
            "{near} of {} edges within a part",
            b.nnz()
        );
        // Deterministic.
        assert_eq!(partition_order(&a, 64).unwrap(), p);
    }

    #[test]
    fn nested_dissection_is_a_permutation_that_restores_structure() {
        let a = shuffled_symmetric(&grid(30, 30), 5);
        let p = nested_dissection(&a).unwrap();
        assert_eq!(p.len(), 900);
        // The shuffle spreads neighbours over the whole matrix; the dissection keeps the halves
        // it separates apart, so neighbours are close again, except across separators.
        let mean_gap = |b: &CsrMatrix<()>| {
            let sum: usize = (0..b.nrows())
                .flat_map(|i| b.row(i).0.iter().map(move |&j| i.abs_diff(j as usize)))
                .sum();
            sum as f64 / b.nnz() as f64
        };
        let b = a.permute_symmetric(&p).unwrap();
        let (shuffled, dissected) = (mean_gap(&a), mean_gap(&b));
        assert!(
            dissected * 3.0 < shuffled,
            "mean gap {dissected} against {shuffled}"
        );
        assert_eq!(nested_dissection(&a).unwrap(), p);
    }

    #[test]
    fn degenerate_inputs_give_defined_orders() {
        let empty = CsrMatrix::<()>::from_triplets(0, 0, Vec::new()).unwrap();
        assert_eq!(partition_order(&empty, 4).unwrap().len(), 0);
        assert_eq!(nested_dissection(&empty).unwrap().len(), 0);
        let diagonal = CsrMatrix::from_triplets(10, 10, (0..10).map(|i| (i, i, ()))).unwrap();
        assert_eq!(
            partition_order(&diagonal, 2).unwrap(),
            Permutation::identity(10)
        );
        assert_eq!(nested_dissection(&diagonal).unwrap().len(), 10);
        assert_eq!(
            partition_order(&diagonal, 0),
            Err(PeersError::InvalidPartRows { part_rows: 0 })
        );
    }

    #[test]
    fn rectangular_matrices_order_their_rows() {
        // Rows 0, 2, 4 share columns 0-1; rows 1, 3, 5 share columns 2-3.
        let t = (0..6).flat_map(|i| {
            let c = if i % 2 == 0 { 0 } else { 2 };
            [(i, c, ()), (i, c + 1, ())]
        });
        let a = CsrMatrix::from_triplets(6, 4, t).unwrap();
        for p in [
            partition_order(&a, 3).unwrap(),
            nested_dissection(&a).unwrap(),
        ] {
            assert_eq!(p.len(), 6);
        }
        let p = partition_order(&a, 3).unwrap();
        let first: Vec<usize> = p.new_to_old()[..3].to_vec();
        let evens = first.iter().all(|r| r % 2 == 0);
        let odds = first.iter().all(|r| r % 2 == 1);
        assert!(
            evens || odds,
            "parts mix the two groups: {:?}",
            p.new_to_old()
        );
    }
}
