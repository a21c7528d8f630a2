//! Minimum-cost Hamiltonian **paths** (free ends) by Chained Lin-Kernighan, for ordering windows of
//! locality (SPEC section 4; thesis chapter 4).
//!
//! The crate knows nodes, [`CandidateLists`] (each node's few cheapest known neighbours with costs) and a
//! [`CostOracle`] giving the exact symmetric integer cost of any pair — never a matrix type and never an
//! `n × n` table. [`solve_path`] builds an initial path ([`Construction`]), improves it to a local optimum
//! of 2-opt + Or-opt and then Lin-Kernighan ([`LocalSearch`]), and runs Chained LK kicks within the
//! budgets of [`SolverOptions`]. The [`PathSolution`] carries the order, its cost and [`SolveStats`];
//! [`lower_bound`] gives the bound of SPEC section 4. [`solve_path_with_checkpoint`] lets a caller
//! look at the path partway through the first descent and stop the solve there. Tour representations implement [`tour::Tour`].
//!
//! ```
//! use spmv_reorder_tsp::{lower_bound, solve_path, CandidateLists, SolverOptions};
//!
//! // Five points on a line, listed out of order; the cost is their distance.
//! let x = [3i64, 0, 4, 1, 2];
//! let cost = |a: usize, b: usize| (x[a] - x[b]).abs();
//! let lists = (0..5)
//!     .map(|a| (0..5).filter(|&b| b != a).map(|b| (b as u32, cost(a, b))).collect())
//!     .collect();
//! let cands = CandidateLists::from_lists(lists)?;
//! let sol = solve_path(&cands, &cost, &SolverOptions::default(), &mut |_| {})?;
//! assert_eq!(sol.cost, 4);
//! assert!(sol.order == [1, 3, 4, 0, 2] || sol.order == [2, 0, 4, 3, 1]);
//! assert_eq!(lower_bound(&cands, &cost), 4);
//! # Ok::<(), spmv_reorder_tsp::TspError>(())
//! ```
//!
//! # Crate features
//! None. Dependencies: `thiserror`, `rand`, `rand_xoshiro` (the seeded kick generator).
//!
//! # Design decisions
//! - **A dummy node turns the path into a tour.** Node `n` costs 0 to every node and heads every
//!   neighbour list, so every tour move also moves the path's ends; no path-specific move code is needed.
//! - **All moves are flips.** 2-opt, Or-opt (up to three flips), LK steps and kicks (three flips) use only
//!   [`tour::Tour::flip`], so the tour representation is replaceable and a [`tour::Journal`] can undo a
//!   rejected kick exactly, in time proportional to the work done since the kick.
//! - **Two tour representations behind one trait.** [`tour::ArrayTour`] (position index, reversal of the
//!   shorter side, up to `n/2` swaps per flip) is fastest on small instances; [`tour::TwoLevelTour`]
//!   (Fredman et al.'s two-level doubly-linked list, O(√n) per flip) takes over from
//!   [`TWO_LEVEL_MIN_NODES`] nodes ([`TourKind`]). Both make identical moves, so results do not depend
//!   on the choice; on 10k uniform points with many kicks the two-level list needed about a third
//!   of the array's time.
//! - **Greedy start.** Greedy matching gives the best starts for 2-opt and LK (Johnson & McGeoch);
//!   leftover fragments are chained through a bounded oracle scan, so no stage is quadratic.
//! - **Internal ids follow the initial path.** The improvement stages renumber the nodes in the order of
//!   the initial path, so that tour links, neighbour lists and don't-look bits of nodes close in the tour
//!   are close in memory; the answer is mapped back to the caller's ids. On the shuffled 1M-row Poisson
//!   grid, whose ids are random, this took the 2-opt + Or-opt descent from 31 s to 28 s (identical moves,
//!   measured at load 3.6); with the cost cache and the two-level list's changes the descent takes
//!   15 s and construction 1.1 s on a quiet machine (`cargo bench --bench tsp -- poisson 100 --ls 2opt
//!   --no-chain`).
//! - **Costs are cached.** Candidate costs come from the neighbour lists; other pairs go through a
//!   cache of oracle answers with four slots per node (the pair's lower id), since an oracle call merges
//!   two footprints stored in the caller's random order. Slots by node keep the lookups of a search
//!   close in memory; a table hashed over all pairs hit more often but missed the CPU cache on nearly
//!   every lookup. [`SolveStats::oracle_calls`] counts the oracle calls.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod bound;
mod cache;
mod candidates;
mod construct;
mod error;
mod kick;
mod lk;
mod local_search;
mod neighbours;
mod or_opt;
mod oracle;
mod relabel;
mod solve;
pub mod tour;
mod two_opt;

pub use bound::lower_bound;
pub use candidates::CandidateLists;
pub use construct::Construction;
pub use error::TspError;
pub use oracle::CostOracle;
pub use solve::{
    path_cost, relative_gap, solve_path, solve_path_with_checkpoint, Checkpoint, LocalSearch,
    PathSolution, Phase, Progress, SolveStats, SolverOptions, TourKind, DEFAULT_BREADTH,
    DEFAULT_DEPTH, DEFAULT_KICK_SPAN, TWO_LEVEL_MIN_NODES,
};
