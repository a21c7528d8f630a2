//! Minimum-cost Hamiltonian **paths** (free ends) by Chained Lin-Kernighan, for ordering windows of
//! locality (SPEC section 4; thesis chapter 4).
//!
//! The crate knows nodes, [`CandidateLists`] (each node's few cheapest known neighbours with costs) and a
//! [`CostOracle`] giving the exact symmetric integer cost of any pair — never a matrix type and never an
//! `n × n` table. [`solve_path`] builds an initial path ([`Construction`]), improves it to a local optimum
//! of 2-opt + Or-opt and then Lin-Kernighan ([`LocalSearch`]), and runs Chained LK kicks within the
//! budgets of [`SolverOptions`]. The [`PathSolution`] carries the order, its cost, the
//! [`lower_bound`] of SPEC section 4 and [`SolveStats`]. Tour representations implement [`tour::Tour`].
//!
//! ```
//! use spmv_reorder_tsp::{solve_path, CandidateLists, SolverOptions};
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
//! assert_eq!(sol.lower_bound, 4);
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
//!   on the choice; on 10k uniform points with 10k kicks the two-level list needed 2.6 s of CPU against
//!   7.3 s for the array.
//! - **Greedy start.** Greedy matching gives the best starts for 2-opt and LK (Johnson & McGeoch);
//!   leftover fragments are chained through a bounded oracle scan, so no stage is quadratic.
//! - **Internal ids follow the initial path.** The improvement stages renumber the nodes in the order of
//!   the initial path, so that tour links, neighbour lists and don't-look bits of nodes close in the tour
//!   are close in memory; the answer is mapped back to the caller's ids. On the shuffled 1M-row Poisson
//!   grid, whose ids are random, this took the 2-opt + Or-opt descent from 31 s to 28 s (identical moves).
//! - **Costs are cached.** Candidate costs come from the neighbour lists; other pairs go through a
//!   direct-mapped cache of oracle answers (62% hits on that grid), since an oracle call merges two
//!   footprints stored in the caller's random order. [`SolveStats::oracle_calls`] counts the misses.
//! - **LK as in linkern.** Moves are sequences of 2-opt flips from a fixed `t1` with a look-ahead order
//!   and breadth limits; Or-opt backs it up for the pure segment insertion LK's flips cannot reach
//!   through gainful steps.
//! - **Local kicks.** A segment double-bridge over `kick_span` consecutive nodes costs O(span), so a
//!   million-node path gets many kicks per second; kicks are kept when the path gets no worse.
//! - **Shallow LK by default.** Row-distance costs tie everywhere, so LK chains rarely lose gain and run
//!   to the depth limit; depth 6 with breadth 5, 3 was as good as depth 10-50 and 2-30× cheaper
//!   ([`DEFAULT_DEPTH`]). The search also stops a chain once its partial gain cannot beat the best
//!   closed gain found (Lin & Kernighan's rule).
//! - **Progress.** Reported at each phase change and every ~100 ms of local search and kicks (the
//!   search checks the clock every 256 queue pops), so a progress bar moves during the minutes a
//!   million-node descent can take; reporting never changes the search.
//! - **Determinism.** Everything but the wall-clock budget is a function of the inputs and the seed.
//! - **The oracle is authoritative.** Candidate costs are checked against it once, up front.
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
    path_cost, solve_path, LocalSearch, PathSolution, Phase, Progress, SolveStats, SolverOptions,
    TourKind, DEFAULT_BREADTH, DEFAULT_DEPTH, DEFAULT_KICK_SPAN, TWO_LEVEL_MIN_NODES,
};
