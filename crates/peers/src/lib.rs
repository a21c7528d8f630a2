//! The classic orderings users compare spmv-reorder's windows + Lin-Kernighan ordering against.
//!
//! Each ordering is one function that takes a matrix and returns the row [`Permutation`]
//! (`new_to_old`: the old row indices in their new order); for a square matrix the permutation is
//! meant to be applied symmetrically, `P·A·Pᵀ`. The pipeline's `Method` (in
//! `spmv-reorder-reorder`) names them on the command line and in reports.
//!
//! | ordering | what | cost |
//! |---|---|---|
//! | identity | the order as read ([`Permutation::identity`]) | `O(n)` |
//! | random | seeded shuffle ([`Permutation::random`]): destroys locality | `O(n)` |
//! | degree | stable sort by nonzeros per row ([`rows_by_degree`]) | `O(n log n)` |
//! | RCM | reverse Cuthill-McKee on `A + Aᵀ` ([`reverse_cuthill_mckee`]) | `O(nnz log Δ)` |
//! | Gorder | Gorder greedy window ordering ([`gorder()`]) | `O(Σ_{|c| <= T} |c|²)` |
//! | METIS parts | k-way parts of a given number of rows, numbered part by part ([`partition_order`]) | `O(nnz)` a level |
//! | METIS nested dissection | fill-reducing order of `A + Aᵀ` ([`nested_dissection`]) | `O(nnz)` a level |
//!
//! [`bandwidth`] and [`profile`] measure what RCM minimises.
//!
//! ```
//! use spmv_reorder_peers::{bandwidth, gorder, reverse_cuthill_mckee, RcmStart};
//! use spmv_reorder_sparse::{CsrMatrix, Permutation};
//!
//! // A path 0-1-2-3-4 numbered badly: 0-3-1-4-2.
//! let edges = [(0, 3), (3, 1), (1, 4), (4, 2)];
//! let a = CsrMatrix::from_triplets(5, 5, edges.iter().flat_map(|&(i, j)| [(i, j, 1.0), (j, i, 1.0)]))
//!     .unwrap();
//! assert_eq!(bandwidth(&a, &Permutation::identity(5)).unwrap(), 3);
//!
//! let p = reverse_cuthill_mckee(&a, RcmStart::default()).unwrap();
//! assert_eq!(bandwidth(&a, &p).unwrap(), 1);
//! let b = a.permute_symmetric(&p).unwrap(); // P·A·Pᵀ, tridiagonal
//! assert_eq!(b.row(2).0, &[1, 3]);
//!
//! let q = gorder(&a, 2, 256).unwrap(); // window 2, hub threshold 256
//! assert_eq!(q.len(), 5);
//! ```
//!
//! # Crate features
//! None. METIS is compiled from source by `metis-sys` (a C compiler is needed, no system library).
//!
//! # Design decisions
//! - **Rows only, also for rectangular matrices.** Every method orders rows; a square matrix's row
//!   order is also its column order. For an `m x n` matrix, RCM runs on the bipartite row/column
//!   graph (`m + n` nodes; never forming `A·Aᵀ`, which can be far denser) and keeps the row nodes;
//!   Gorder scores rows by shared columns, which is `A·Aᵀ` used implicitly, without its adjacency term.
//! - **RCM starts from a pseudo-peripheral node** ([`RcmStart::PseudoPeripheral`], George-Liu),
//!   searched from each component's minimum-degree node; scipy starts from the minimum-degree node
//!   itself ([`RcmStart::MinimumDegree`]). The peripheral start costs a few more breadth-first
//!   searches and gives a smaller bandwidth on most matrices (see `scripts/compare_rcm.py`). The
//!   reordering pipeline starts from the minimum-degree node by default: the searches took about
//!   as long as the rest of RCM on 1M-row shuffled matrices, and the bandwidth they saved did not
//!   make SpMV faster there (`docs/tuning.md`).
//! - **Gorder's hub columns are skipped** when propagating scores (threshold
//!   [`default_hub_threshold`] `= max(256, ⌈√n⌉)` unless set), so power-law matrices cost
//!   `O(nnz·T)`, not `O(Σ_c |c|²)`; a bucket queue (the paper's unit heap with its lazy
//!   decreases, fed one summed change per row and step) gives `O(1)` score updates.
//! - **Determinism**: every tie is broken by index and the random order is a seeded xoshiro256++
//!   shuffle, so the same input gives the same permutation on every run and thread count.
//! - **Parallelism where it pays**: graph symmetrisation and degree sorting use rayon; the RCM and
//!   Gorder sweeps are inherently sequential (each step depends on the previous one).
//! - Permutations are built through [`Permutation::from_new_to_old`], whose check would report a
//!   broken internal invariant as [`PeersError::Sparse`] instead of panicking.
//! - **METIS from its C source**, through the `metis` crate (partitions) and `metis-sys` (nested
//!   dissection, which the wrapper does not offer): the one `unsafe` block of the crate is that
//!   foreign call. METIS is deterministic (fixed seed), so `gp` and `nd` are too.
#![deny(unsafe_code)]
#![deny(missing_docs)]

mod bucket_queue;
mod degree;
mod envelope;
mod error;
mod gorder;
mod graph;
mod metis_order;
mod pseudo_peripheral;
mod rcm;
#[cfg(test)]
mod testutil;
mod ticker;

pub use degree::{rows_by_degree, DegreeOrder};
pub use envelope::{bandwidth, profile};
pub use error::PeersError;
pub use gorder::{default_hub_threshold, gorder, gorder_with_progress};
pub use metis_order::{nested_dissection, partition, partition_order, DEFAULT_PART_ROWS};
pub use rcm::{
    reverse_cuthill_mckee, reverse_cuthill_mckee_with_options, reverse_cuthill_mckee_with_progress,
    RcmOptions, RcmStart, RcmStep,
};

#[cfg(doc)]
use spmv_reorder_sparse::Permutation;

#[cfg(test)]
mod proptests {
    use super::*;
    use crate::testutil::{distance_sum_after, grid, shuffled_symmetric};
    use proptest::prelude::*;
    use spmv_reorder_sparse::{CsrMatrix, Permutation};

    /// Random patterns, square or rectangular, with empty rows and disconnected parts.
    fn arb_matrix() -> impl Strategy<Value = CsrMatrix<()>> {
        (0usize..25, 0usize..25, any::<bool>()).prop_flat_map(|(m, n, square)| {
            let n = if square { m } else { n };
            let entries = if m == 0 || n == 0 {
                0..1
            } else {
                0..3 * (m + n)
            };
            proptest::collection::vec((0..m.max(1), 0..n.max(1)), entries).prop_map(move |t| {
                CsrMatrix::from_triplets(m, n, t.into_iter().map(|(i, j)| (i, j, ()))).unwrap()
            })
        })
    }

    /// Every ordering of `a`: identity, random, degree (both ways), RCM (both starts), Gorder.
    fn every_order(
        a: &CsrMatrix<()>,
        window: usize,
        hub: usize,
        seed: u64,
    ) -> Vec<Result<Permutation, PeersError>> {
        vec![
            Ok(Permutation::identity(a.nrows())),
            Ok(Permutation::random(a.nrows(), seed)),
            Ok(Permutation::from_new_to_old(rows_by_degree(a, DegreeOrder::Increasing)).unwrap()),
            Ok(Permutation::from_new_to_old(rows_by_degree(a, DegreeOrder::Decreasing)).unwrap()),
            reverse_cuthill_mckee(a, RcmStart::PseudoPeripheral),
            reverse_cuthill_mckee(a, RcmStart::MinimumDegree),
            gorder(a, window, hub),
        ]
    }

    proptest! {
        #[test]
        fn every_method_gives_a_permutation_of_the_rows(
            a in arb_matrix(), window in 1usize..7, hub in 1usize..30, seed in any::<u64>(),
        ) {
            for p in every_order(&a, window, hub, seed) {
                prop_assert_eq!(p.unwrap().len(), a.nrows());
            }
        }

        #[test]
        fn orderings_are_deterministic(a in arb_matrix(), seed in any::<u64>()) {
            prop_assert_eq!(every_order(&a, 3, 8, seed), every_order(&a, 3, 8, seed));
        }

        #[test]
        fn gorder_places_a_best_scored_row_at_every_step(
            a in arb_matrix(), window in 1usize..5, hub in 1usize..8,
        ) {
            // The greedy of the module documentation, checked step by step against scores computed
            // from scratch: the chosen row has the largest score against the last `window` placed
            // rows, or, with no positive score left, is the longest unplaced row (smallest index).
            let order = gorder(&a, window, hub).unwrap().new_to_old().to_vec();
            let at = a.pattern_transpose();
            let square = a.nrows() == a.ncols();
            let has = |x: usize, c: u32| a.row(x).0.binary_search(&c).is_ok();
            let score = |u: usize, v: usize| {
                let shared = a.row(u).0.iter()
                    .filter(|&&c| at.row(c as usize).0.len() <= hub && has(v, c))
                    .count();
                let adjacent = usize::from(has(u, v as u32)) + usize::from(has(v, u as u32));
                shared + if square { adjacent } else { 0 }
            };
            let by_degree = rows_by_degree(&a, DegreeOrder::Decreasing);
            for k in 0..order.len() {
                let placed = &order[..k];
                let in_window = &placed[k.saturating_sub(window)..];
                let total = |v: usize| in_window.iter().map(|&u| score(u, v)).sum::<usize>();
                let unplaced: Vec<usize> =
                    by_degree.iter().copied().filter(|v| !placed.contains(v)).collect();
                let best = unplaced.iter().map(|&v| total(v)).max().unwrap();
                if best > 0 {
                    prop_assert_eq!(total(order[k]), best, "step {}", k);
                } else {
                    prop_assert_eq!(order[k], unplaced[0], "step {}", k);
                }
            }
        }

        #[test]
        fn gorder_window_one_never_loses_to_identity_on_shuffled_grids(
            w in 2usize..9, h in 2usize..9, seed in any::<u64>(),
        ) {
            // The greedy follows shared columns, so it stays within the grid's rows D most of the
            // time; a shuffled grid's identity order shares almost nothing.
            let g = shuffled_symmetric(&grid(w, h), seed);
            let p = gorder(&g, 1, 64).unwrap();
            let id = Permutation::identity(g.nrows());
            let (dg, di) = (distance_sum_after(&g, &p), distance_sum_after(&grid(w, h), &id));
            // Never worse than the natural (row-major) grid numbering by more than a third.
            prop_assert!(3 * dg <= 4 * di, "gorder {} natural {}", dg, di);
        }
    }

    #[test]
    fn gorder_window_zero_is_reported() {
        let a = grid(3, 3);
        let e = gorder(&a, 0, 8).unwrap_err();
        assert_eq!(e, PeersError::InvalidWindow { window: 0 });
    }
}
