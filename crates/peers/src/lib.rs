//! The classic orderings users compare spmv-reorder's windows + Lin-Kernighan ordering against.
//!
//! One entry point, [`order`], takes a matrix, a [`Method`] and [`PeerOptions`] and returns the row
//! [`Permutation`] (`new_to_old`: the old row indices in their new order). For a square matrix the
//! permutation is meant to be applied symmetrically, `P·A·Pᵀ`. The methods:
//!
//! | [`Method`] | what | cost |
//! |---|---|---|
//! | `identity` | the order as read | `O(n)` |
//! | `random` | seeded shuffle ([`Permutation::random`]): destroys locality | `O(n)` |
//! | `degree-asc`, `degree-desc` | stable sort by nonzeros per row ([`rows_by_degree`]) | `O(n log n)` |
//! | `rcm` | reverse Cuthill-McKee on `A + Aᵀ` ([`reverse_cuthill_mckee`]) | `O(nnz log Δ)` |
//! | `gorder` | Gorder greedy window ordering ([`gorder()`]) | `O(Σ_{|c| <= T} |c|²)` |
//!
//! [`bandwidth`] and [`profile`] measure what RCM minimises.
//!
//! ```
//! use spmv_reorder_peers::{bandwidth, order, Method, PeerOptions};
//! use spmv_reorder_sparse::{CsrMatrix, Permutation};
//!
//! // A path 0-1-2-3-4 numbered badly: 0-3-1-4-2.
//! let edges = [(0, 3), (3, 1), (1, 4), (4, 2)];
//! let a = CsrMatrix::from_triplets(5, 5, edges.iter().flat_map(|&(i, j)| [(i, j, 1.0), (j, i, 1.0)]))
//!     .unwrap();
//! assert_eq!(bandwidth(&a, &Permutation::identity(5)).unwrap(), 3);
//!
//! let p = order(&a, Method::Rcm, &PeerOptions::default()).unwrap();
//! assert_eq!(bandwidth(&a, &p).unwrap(), 1);
//! let b = a.permute_symmetric(&p).unwrap(); // P·A·Pᵀ, tridiagonal
//! assert_eq!(b.row(2).0, &[1, 3]);
//!
//! let method: Method = "gorder".parse().unwrap();
//! let q = order(&a, method, &PeerOptions { window: 2, ..PeerOptions::default() }).unwrap();
//! assert_eq!(q.len(), 5);
//! ```
//!
//! # Crate features
//! None.
//!
//! # Design decisions
//! - **Rows only, also for rectangular matrices.** Every method orders rows; a square matrix's row
//!   order is also its column order. For an `m x n` matrix, RCM runs on the bipartite row/column
//!   graph (`m + n` nodes; never forming `A·Aᵀ`, which can be far denser) and keeps the row nodes;
//!   Gorder scores rows by shared columns, which is `A·Aᵀ` used implicitly, without its adjacency term.
//! - **RCM starts from a pseudo-peripheral node** ([`RcmStart::PseudoPeripheral`], George-Liu),
//!   searched from each component's minimum-degree node; scipy starts from the minimum-degree node
//!   itself ([`RcmStart::MinimumDegree`], kept for comparison). The peripheral start costs a few more
//!   breadth-first searches and gives a smaller bandwidth on most matrices (see
//!   `scripts/compare_rcm.py`).
//! - **Gorder's hub columns are skipped** when propagating scores (threshold
//!   [`default_hub_threshold`] `= max(256, ⌈√n⌉)` unless set), so power-law matrices cost
//!   `O(nnz·T)`, not `O(Σ_c |c|²)`; a bucket queue (the paper's unit heap, fed one summed change
//!   per row and step) gives `O(1)` score updates.
//! - **Determinism**: every tie is broken by index and the random order is a seeded xoshiro256++
//!   shuffle, so the same input gives the same permutation on every run and thread count.
//! - **Parallelism where it pays**: graph symmetrisation and degree sorting use rayon; the RCM and
//!   Gorder sweeps are inherently sequential (each step depends on the previous one).
//! - Permutations are built through [`Permutation::from_new_to_old`], whose check would report a
//!   broken internal invariant as [`PeersError::Sparse`] instead of panicking.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod bucket_queue;
mod degree;
mod envelope;
mod error;
mod gorder;
mod graph;
mod pseudo_peripheral;
mod rcm;
#[cfg(test)]
mod testutil;

pub use degree::{rows_by_degree, DegreeOrder};
pub use envelope::{bandwidth, profile};
pub use error::PeersError;
pub use gorder::{default_hub_threshold, gorder};
pub use rcm::{reverse_cuthill_mckee, RcmStart};

use spmv_reorder_sparse::{CsrMatrix, Permutation, Value};
use std::fmt;
use std::str::FromStr;

/// A peer ordering method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Method {
    /// The rows as they are.
    Identity,
    /// A seeded uniform shuffle ([`PeerOptions::seed`]).
    Random,
    /// Rows by increasing number of nonzeros, stable.
    DegreeAscending,
    /// Rows by decreasing number of nonzeros, stable.
    DegreeDescending,
    /// Reverse Cuthill-McKee ([`PeerOptions::rcm_start`]).
    Rcm,
    /// Gorder ([`PeerOptions::window`], [`PeerOptions::hub_threshold`]).
    Gorder,
}

impl Method {
    /// Every method, in the order of the table in the crate documentation.
    pub const ALL: [Method; 6] = [
        Method::Identity,
        Method::Random,
        Method::DegreeAscending,
        Method::DegreeDescending,
        Method::Rcm,
        Method::Gorder,
    ];

    /// The name used on the command line and in reports (`"rcm"`, `"degree-asc"`, …).
    pub fn name(self) -> &'static str {
        match self {
            Method::Identity => "identity",
            Method::Random => "random",
            Method::DegreeAscending => "degree-asc",
            Method::DegreeDescending => "degree-desc",
            Method::Rcm => "rcm",
            Method::Gorder => "gorder",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Method {
    type Err = PeersError;

    /// Parses a [`Method::name`].
    fn from_str(s: &str) -> Result<Self, PeersError> {
        Method::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| PeersError::UnknownMethod {
                name: s.to_owned(),
                expected: Method::ALL.map(Method::name).join(", "),
            })
    }
}

/// Parameters of the peer orderings; each method reads only its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerOptions {
    /// Seed of [`Method::Random`]. Default 0.
    pub seed: u64,
    /// Gorder window `w`: how many placed rows a candidate is scored against. Default 5 (the
    /// paper's). Must be at least 1.
    pub window: usize,
    /// Gorder: columns with more rows than this do not propagate scores. `None` (default) means
    /// [`default_hub_threshold`] of the row count.
    pub hub_threshold: Option<usize>,
    /// Where RCM starts in each component. Default [`RcmStart::PseudoPeripheral`].
    pub rcm_start: RcmStart,
}

impl Default for PeerOptions {
    fn default() -> Self {
        Self {
            seed: 0,
            window: 5,
            hub_threshold: None,
            rcm_start: RcmStart::default(),
        }
    }
}

/// The row permutation of `a` by `method` (for a square matrix, to apply as `P·A·Pᵀ`).
///
/// # Errors
/// [`PeersError::InvalidWindow`] for Gorder with `window == 0`; [`PeersError::TooLarge`] for RCM on a
/// rectangular matrix with more than `u32::MAX` rows plus columns.
pub fn order<T: Value>(
    a: &CsrMatrix<T>,
    method: Method,
    options: &PeerOptions,
) -> Result<Permutation, PeersError> {
    let n = a.nrows();
    match method {
        Method::Identity => Ok(Permutation::identity(n)),
        Method::Random => Ok(Permutation::random(n, options.seed)),
        Method::DegreeAscending => Ok(Permutation::from_new_to_old(rows_by_degree(
            a,
            DegreeOrder::Increasing,
        ))?),
        Method::DegreeDescending => Ok(Permutation::from_new_to_old(rows_by_degree(
            a,
            DegreeOrder::Decreasing,
        ))?),
        Method::Rcm => reverse_cuthill_mckee(a, options.rcm_start),
        Method::Gorder => gorder(
            a,
            options.window,
            options
                .hub_threshold
                .unwrap_or_else(|| default_hub_threshold(n)),
        ),
    }
}

#[cfg(test)]
mod proptests {
    use super::*;
    use crate::testutil::{distance_sum_after, grid, shuffled_symmetric};
    use proptest::prelude::*;

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

    fn options(window: usize, hub: usize, seed: u64) -> PeerOptions {
        PeerOptions {
            seed,
            window,
            hub_threshold: Some(hub),
            ..PeerOptions::default()
        }
    }

    proptest! {
        #[test]
        fn every_method_gives_a_permutation_of_the_rows(
            a in arb_matrix(), window in 1usize..7, hub in 1usize..30, seed in any::<u64>(),
        ) {
            for method in Method::ALL {
                let p = order(&a, method, &options(window, hub, seed)).unwrap();
                prop_assert_eq!(p.len(), a.nrows());
            }
            let p = order(&a, Method::Rcm, &PeerOptions {
                rcm_start: RcmStart::MinimumDegree, ..PeerOptions::default()
            }).unwrap();
            prop_assert_eq!(p.len(), a.nrows());
        }

        #[test]
        fn orderings_are_deterministic(a in arb_matrix(), seed in any::<u64>()) {
            for method in Method::ALL {
                let o = options(3, 8, seed);
                prop_assert_eq!(order(&a, method, &o).unwrap(), order(&a, method, &o).unwrap());
            }
        }

        #[test]
        fn gorder_window_one_never_loses_to_identity_on_shuffled_grids(
            w in 2usize..9, h in 2usize..9, seed in any::<u64>(),
        ) {
            // The greedy follows shared columns, so it stays within the grid's rows D most of the
            // time; a shuffled grid's identity order shares almost nothing.
            let g = shuffled_symmetric(&grid(w, h), seed);
            let p = order(&g, Method::Gorder, &options(1, 64, 0)).unwrap();
            let id = Permutation::identity(g.nrows());
            let (dg, di) = (distance_sum_after(&g, &p), distance_sum_after(&grid(w, h), &id));
            // Never worse than the natural (row-major) grid numbering by more than a third.
            prop_assert!(3 * dg <= 4 * di, "gorder {} natural {}", dg, di);
        }
    }

    #[test]
    fn unknown_method_names_the_accepted_ones() {
        let e = "metis".parse::<Method>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown ordering method \"metis\" (expected one of: identity, random, degree-asc, \
             degree-desc, rcm, gorder)"
        );
        for m in Method::ALL {
            assert_eq!(m.to_string().parse::<Method>().unwrap(), m);
        }
    }

    #[test]
    fn gorder_window_zero_is_reported() {
        let a = grid(3, 3);
        let e = order(&a, Method::Gorder, &options(0, 8, 0)).unwrap_err();
        assert_eq!(e, PeersError::InvalidWindow { window: 0 });
    }
}
