//! `solve_path`: minimum-cost Hamiltonian path = construction → local search → chained kicks.
//!
//! Cost: construction O(n K log) + local search (near-linear in practice with neighbour lists and
//! don't-look bits) + O(kicks × (span + local repair)). Memory O(n K). Source: thesis (Lorenzo 2011)
//! section 4.2 and SPEC section 4 (the ordering problem, its lower bound); Applegate, Cook & Rohe,
//! "Chained Lin-Kernighan for large traveling salesman problems" (2003). Caller: the reordering pipeline.

use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::cache::CostCache;
use crate::construct::{initial_path, Construction};
use crate::kick::Kick;
use crate::lk::LinKernighan;
use crate::local_search::{descend, ActiveQueue, Both, Context, DescentProgress, Improver};
#[cfg(doc)]
use crate::lower_bound;
use crate::neighbours::Neighbours;
use crate::or_opt::OrOpt;
use crate::oracle::PathCosts;
use crate::relabel::Labels;
use crate::tour::{ArrayTour, Journal, Tour, TwoLevelTour};
use crate::two_opt::TwoOpt;
use crate::{CandidateLists, CostOracle, TspError};
use rayon::prelude::*;

/// The improvement moves of the local search.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LocalSearch {
    /// 2-opt and Or-opt (segments of 1-3 nodes) with neighbour lists and don't-look bits.
    TwoOptOrOpt,
    /// Lin-Kernighan moves of up to `depth` flips, trying `breadth[i]` alternatives at level `i` (1 at
    /// deeper levels), with Or-opt as a fallback move. Preceded by a 2-opt + Or-opt descent.
    LinKernighan {
        /// Maximum number of flips in one move (>= 1).
        depth: usize,
        /// Alternatives tried per level, with backtracking (each >= 1).
        breadth: Vec<usize>,
    },
}

impl Default for LocalSearch {
    fn default() -> Self {
        LocalSearch::LinKernighan {
            depth: DEFAULT_DEPTH,
            breadth: DEFAULT_BREADTH.to_vec(),
        }
    }
}

/// The tour representation used by the improvement stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TourKind {
    /// [`TourKind::Array`] below [`TWO_LEVEL_MIN_NODES`] nodes, [`TourKind::TwoLevel`] from there on.
    #[default]
    Auto,
    /// [`crate::tour::ArrayTour`]: flips cost up to `n/2`, fastest on small instances.
    Array,
    /// [`crate::tour::TwoLevelTour`]: flips cost O(√n).
    TwoLevel,
}

/// Node count from which [`TourKind::Auto`] picks the two-level list (measured with
/// `cargo bench --bench tsp -- uniform N --tour array|two-level`).
pub const TWO_LEVEL_MIN_NODES: usize = 5_000;

/// Default LK depth. linkern allows 50, but on row-distance instances, whose integer costs tie
/// everywhere, chains rarely lose gain and run to the limit: on the shuffled 12³ Poisson grid, 2000 kicks
/// took 2.7 s of CPU with depth 6 against 6.5 s with depth 10 and over 100 s with depth 50, for the same
/// final cost; on 5000 uniform points the results agreed within 0.1%.
pub const DEFAULT_DEPTH: usize = 6;
/// Default LK breadth per level (alternatives tried with backtracking at levels 1 and 2).
pub const DEFAULT_BREADTH: [usize; 2] = [5, 3];
/// Default span of a kick (nodes covered by the two moved stretches).
pub const DEFAULT_KICK_SPAN: usize = 50;

/// What the solver does and for how long.
///
/// When `chained` is set and no budget is given (`time_limit`, `max_kicks`, `max_stall_kicks` all
/// `None`), the solver makes `n` kicks. Without a `time_limit` the result depends only on the inputs,
/// `seed` and budgets; with one, the run may stop earlier on a slower machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SolverOptions {
    /// Seed of the kick generator.
    pub seed: u64,
    /// Wall-clock budget for the whole solve (checked during local search and between kicks).
    pub time_limit: Option<Duration>,
    /// Maximum number of kicks.
    pub max_kicks: Option<u64>,
    /// Stop after this many consecutive kicks without a strict improvement.
    pub max_stall_kicks: Option<u64>,
    /// Initial path.
    pub construction: Construction,
    /// A start path (a permutation of the nodes) used instead of `construction`: for example an
    /// earlier solve's path, refined with other moves.
    pub initial_order: Option<Vec<usize>>,
    /// Improvement moves.
    pub local_search: LocalSearch,
    /// Run Chained LK: kicks followed by local repair, kept when the path gets no worse.
    pub chained: bool,
    /// Nodes covered by a kick's two moved stretches (>= 2); keeps a kick O(span).
    pub kick_span: usize,
    /// Tour representation.
    pub tour: TourKind,
}

impl Default for SolverOptions {
    fn default() -> Self {
        Self {
            seed: 0,
            time_limit: None,
            max_kicks: None,
            max_stall_kicks: None,
            construction: Construction::default(),
            initial_order: None,
            local_search: LocalSearch::default(),
            chained: true,
            kick_span: DEFAULT_KICK_SPAN,
            tour: TourKind::Auto,
        }
    }
}

impl SolverOptions {
    fn validate(&self) -> Result<(), TspError> {
        if let LocalSearch::LinKernighan { depth, breadth } = &self.local_search {
            if *depth == 0 {
                return Err(TspError::InvalidOption {
                    name: "depth",
                    reason: "must be at least 1",
                });
            }
            if breadth.contains(&0) {
                return Err(TspError::InvalidOption {
                    name: "breadth",
                    reason: "every level must allow at least 1 alternative",
                });
            }
        }
        if self.kick_span < 2 {
            return Err(TspError::InvalidOption {
                name: "kick_span",
                reason: "must be at least 2",
            });
        }
        Ok(())
    }
}

/// The stage a [`Progress`] report comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Phase {
    /// The initial path is built (reported once, when done).
    Construction,
    /// Local search to a local optimum (reported at its start, about every 100 ms and at its end).
    LocalSearch,
    /// Chained kicks (reported about every 100 ms).
    Kicks,
    /// Finished.
    Done,
}

/// A progress report.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Current stage.
    pub phase: Phase,
    /// Time since the solve started.
    pub elapsed: Duration,
    /// Cost of the current path.
    pub cost: i64,
    /// Kicks made so far.
    pub kicks: u64,
    /// In [`Phase::Kicks`], the fraction of the kick budget used, in `[0, 1]` (the largest over the
    /// budgets set). In [`Phase::LocalSearch`], an estimate of the search done: nodes processed over
    /// processed plus queued (with LK, the 2-opt + Or-opt descent covers the first half).
    pub fraction: f64,
}

/// Where the time went and how the cost evolved.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SolveStats {
    /// Seconds spent building the initial path.
    pub construction_s: f64,
    /// Seconds of the 2-opt + Or-opt descent (part of `local_search_s`).
    pub two_opt_s: f64,
    /// Seconds of the local search to the first local optimum (2-opt + Or-opt, then LK if chosen).
    pub local_search_s: f64,
    /// Seconds of the kick phase.
    pub kicks_s: f64,
    /// Kicks made.
    pub kicks: u64,
    /// Kicks that strictly improved the path.
    pub improving_kicks: u64,
    /// Cost of the initial path.
    pub initial_cost: i64,
    /// Cost after the 2-opt + Or-opt descent.
    pub after_two_opt_cost: i64,
    /// Cost after the first local search.
    pub after_local_search_cost: i64,
    /// False when the time limit, or a [`Checkpoint`] that said stop, ended the first local
    /// search before a local optimum.
    pub reached_local_optimum: bool,
    /// Oracle calls of the local search and kicks (pairs outside the candidate lists that missed the
    /// solver's cost cache); the up-front check of the lists adds one per candidate entry.
    pub oracle_calls: u64,
}

impl SolveStats {
    /// The figures of this solve continued by `later`, which started from this one's path: times,
    /// kicks and oracle calls add up; the costs run from this solve's start to `later`'s end.
    pub fn then(&self, later: &SolveStats) -> SolveStats {
        SolveStats {
            construction_s: self.construction_s + later.construction_s,
            two_opt_s: self.two_opt_s + later.two_opt_s,
            local_search_s: self.local_search_s + later.local_search_s,
            kicks_s: self.kicks_s + later.kicks_s,
            kicks: self.kicks + later.kicks,
            improving_kicks: self.improving_kicks + later.improving_kicks,
            initial_cost: self.initial_cost,
            after_two_opt_cost: self.after_two_opt_cost,
            after_local_search_cost: later.after_local_search_cost,
            reached_local_optimum: later.reached_local_optimum,
            oracle_calls: self.oracle_calls + later.oracle_calls,
        }
    }
}

/// A Hamiltonian path and its quality.
#[derive(Debug, Clone, PartialEq)]
pub struct PathSolution {
    /// The nodes in path order (a permutation of `0..n`).
    pub order: Vec<usize>,
    /// Sum of the oracle's costs along the path.
    pub cost: i64,
    /// Timings and counters.
    pub stats: SolveStats,
}

impl PathSolution {
    /// [`relative_gap`] of this path's cost to a lower bound such as [`lower_bound`]'s.
    pub fn gap(&self, bound: i64) -> f64 {
        relative_gap(self.cost, bound)
    }
}

/// Relative gap `(cost − bound) / bound` of a path cost to a lower bound (0 when the cost is at
/// most the bound, infinite when only the bound is 0 or below).
pub fn relative_gap(cost: i64, bound: i64) -> f64 {
    if cost <= bound {
        0.0
    } else if bound <= 0 {
        f64::INFINITY
    } else {
        (cost - bound) as f64 / bound as f64
    }
}

/// The cost of visiting `order` in sequence.
pub fn path_cost<O: CostOracle + ?Sized>(order: &[usize], oracle: &O) -> i64 {
    order.windows(2).map(|w| oracle.cost(w[0], w[1])).sum()
}

/// A look at the path partway through the first 2-opt + Or-opt descent of
/// [`solve_path_with_checkpoint`], at the same point on every machine (unlike a time limit).
pub struct Checkpoint<'a> {
    /// Nodes the descent takes from its queue before the look.
    pub pops: u64,
    /// Sees the path there (the nodes in path order) and says whether the solve goes on. When it
    /// goes on, the descent continues exactly as if it had not stopped; when not, that path is
    /// the solution (no further search, no kicks).
    pub go_on: &'a mut dyn FnMut(&[usize]) -> bool,
}

/// [`solve_path`] with a [`Checkpoint`] in its first descent: a caller that can tell early that
/// the path will not be used stops it there. The checkpoint is not reached when the descent ends
/// sooner (a local optimum or the time limit).
///
/// # Errors
/// As [`solve_path`].
pub fn solve_path_with_checkpoint(
    cands: &CandidateLists,
    oracle: &impl CostOracle,
    opts: &SolverOptions,
    checkpoint: Checkpoint<'_>,
    progress: &mut dyn FnMut(&Progress),
) -> Result<PathSolution, TspError> {
    solve(cands, oracle, opts, Some(checkpoint), progress)
}

/// Finds a low-cost Hamiltonian path (free ends) over the nodes of `cands`.
///
/// `progress` receives reports at phase changes and about every 100 ms of local search and kicks.
/// [`lower_bound`] bounds the cost of every path, for the solution's [`PathSolution::gap`]: not
/// computed here, since it may take up to `EXACT_SCAN_BUDGET` oracle calls and callers such as the
/// reordering pipeline have a bound of their own.
///
/// # Errors
/// [`TspError::InvalidOption`] for out-of-domain options; [`TspError::CostMismatch`] when a candidate
/// cost differs from the oracle's.
///
/// # Panics
/// Debug builds only, when the oracle breaks its contract (an asymmetric cost makes the tracked cost
/// drift from the recomputed one): a programmer error. Release builds return the recomputed cost.
pub fn solve_path(
    cands: &CandidateLists,
    oracle: &impl CostOracle,
    opts: &SolverOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<PathSolution, TspError> {
    solve(cands, oracle, opts, None, progress)
}

/// The solve behind [`solve_path`] and [`solve_path_with_checkpoint`].
fn solve(
    cands: &CandidateLists,
    oracle: &impl CostOracle,
    opts: &SolverOptions,
    checkpoint: Option<Checkpoint<'_>>,
    progress: &mut dyn FnMut(&Progress),
) -> Result<PathSolution, TspError> {
    opts.validate()?;
    if let Some(order) = &opts.initial_order {
        check_permutation(order, cands.len())?;
    }
    check_costs(cands, oracle)?;
    let mut solver = Solver {
        cands,
        oracle,
        opts,
        progress,
        checkpoint,
        start: Instant::now(),
        last_report: Instant::now(),
        stats: SolveStats::default(),
    };
    let order = solver.run();
    let cost = path_cost(&order, oracle);
    Ok(PathSolution {
        order,
        cost,
        stats: solver.stats,
    })
}

/// A given start path must visit each of the `n` nodes once.
fn check_permutation(order: &[usize], n: usize) -> Result<(), TspError> {
    let mut seen = vec![false; n];
    let visits_each_once = order.len() == n
        && order
            .iter()
            .all(|&v| v < n && !std::mem::replace(&mut seen[v], true));
    if visits_each_once {
        Ok(())
    } else {
        Err(TspError::InvalidOption {
            name: "initial_order",
            reason: "must list every node exactly once",
        })
    }
}

/// Every candidate cost must equal the oracle's (the solver mixes both). The first mismatch in
/// node order is reported. Large lists are checked on the rayon pool: on the shuffled 1M-row grid
/// (8M entries, each an exact merge of two rows) the check took 109 ms of a 2.6 s default
/// reordering on one thread.
fn check_costs(cands: &CandidateLists, oracle: &impl CostOracle) -> Result<(), TspError> {
    let mismatch = |a: usize| {
        cands.entries(a).find_map(|(b, listed)| {
            let b = b as usize;
            let cost = oracle.cost(a, b);
            (cost != listed).then_some(TspError::CostMismatch {
                a,
                b,
                listed,
                oracle: cost,
            })
        })
    };
    let first = if cands.num_entries() < PARALLEL_CHECK_MIN_ENTRIES {
        (0..cands.len()).find_map(mismatch)
    } else {
        (0..cands.len())
            .into_par_iter()
            .with_min_len(PARALLEL_CHECK_NODES_PER_TASK)
            .find_map_first(mismatch)
    };
    first.map_or(Ok(()), Err)
}

/// Below this many candidate entries the check runs on the calling thread: handing it to the
/// rayon pool would cost more than it saves.
const PARALLEL_CHECK_MIN_ENTRIES: usize = 1 << 16;

/// Nodes per rayon task of the parallel check.
const PARALLEL_CHECK_NODES_PER_TASK: usize = 4096;

struct Solver<'a, 'p, 'c> {
    cands: &'a CandidateLists,
    oracle: &'a dyn CostOracle,
    opts: &'a SolverOptions,
    progress: &'p mut dyn FnMut(&Progress),
    checkpoint: Option<Checkpoint<'c>>,
    start: Instant,
    last_report: Instant,
    stats: SolveStats,
}

/// The tour's path in internal ids, without the dummy node that closes it.
fn path_of<T: Tour>(ctx: &Context<'_>, tour: &T) -> Vec<usize> {
    let mut path = tour.order_from(ctx.costs.dummy());
    path.remove(0);
    path
}

/// Interval of the periodic progress reports during local search and kicks.
const REPORT_EVERY: Duration = Duration::from_millis(100);

impl Solver<'_, '_, '_> {
    fn report(&mut self, phase: Phase, cost: i64, kicks: u64, fraction: f64) {
        self.last_report = Instant::now();
        (self.progress)(&Progress {
            phase,
            elapsed: self.start.elapsed(),
            cost,
            kicks,
            fraction,
        });
    }

    /// Reports when [`REPORT_EVERY`] has passed since the last report.
    fn tick(&mut self, phase: Phase, cost: i64, kicks: u64, fraction: f64) {
        if self.last_report.elapsed() >= REPORT_EVERY {
            self.report(phase, cost, kicks, fraction);
        }
    }

    fn deadline(&self) -> Option<Instant> {
        self.opts.time_limit.map(|t| self.start + t)
    }

    fn run(&mut self) -> Vec<usize> {
        let n = self.cands.len();
        let t = Instant::now();
        let mut order = match &self.opts.initial_order {
            Some(given) => given.clone(),
            None => initial_path(self.opts.construction, self.cands, self.oracle),
        };
        self.stats.construction_s = t.elapsed().as_secs_f64();
        self.stats.initial_cost = path_cost(&order, self.oracle);
        self.report(Phase::Construction, self.stats.initial_cost, 0, 0.0);
        if n >= 3 {
            // Internal ids follow the initial path, which becomes `0, 1, …, n-1` then the dummy node `n`
            // closing it into a tour.
            let labels = Labels::from_order(&order);
            let neighbours = Neighbours::with_dummy(self.cands, &labels);
            let cache = CostCache::new(n + 1);
            let ctx = Context {
                costs: PathCosts::new(self.oracle, &labels, &cache),
                neighbours: &neighbours,
            };
            let internal: Vec<usize> = (0..=n).collect();
            let two_level = match self.opts.tour {
                TourKind::Auto => internal.len() >= TWO_LEVEL_MIN_NODES,
                TourKind::Array => false,
                TourKind::TwoLevel => true,
            };
            let (tracked, tour_order) = if two_level {
                self.improve_with::<TwoLevelTour>(&ctx, &labels, &internal)
            } else {
                self.improve_with::<ArrayTour>(&ctx, &labels, &internal)
            };
            order = labels.to_old(&tour_order);
            self.stats.oracle_calls = ctx.costs.oracle_calls();
            debug_assert_eq!(
                tracked,
                path_cost(&order, self.oracle),
                "tracked cost drifted"
            );
        } else {
            self.stats.after_local_search_cost = self.stats.initial_cost;
            self.stats.after_two_opt_cost = self.stats.initial_cost;
            self.stats.reached_local_optimum = true;
        }
        let cost = path_cost(&order, self.oracle);
        self.report(Phase::Done, cost, self.stats.kicks, 1.0);
        order
    }

    /// Builds a `T` tour from `order` (ending with the dummy node), improves it and returns the tracked
    /// cost with the resulting path.
    fn improve_with<T: Tour>(
        &mut self,
        ctx: &Context<'_>,
        labels: &Labels,
        order: &[usize],
    ) -> (i64, Vec<usize>) {
        let mut tour = Journal::new(T::from_order(order));
        let tracked = match &self.opts.local_search {
            LocalSearch::TwoOptOrOpt => {
                self.improve(ctx, labels, &mut tour, &mut Both(TwoOpt, OrOpt))
            }
            LocalSearch::LinKernighan { depth, breadth } => {
                let mut lk = Both(LinKernighan::new(*depth, breadth.clone()), OrOpt);
                self.improve(ctx, labels, &mut tour, &mut lk)
            }
        };
        (tracked, path_of(ctx, &tour))
    }

    /// Local search (2-opt + Or-opt first, then `improver`), then the chained kicks with `improver`.
    /// Returns the tracked path cost.
    fn improve<T: Tour, I: Improver>(
        &mut self,
        ctx: &Context<'_>,
        labels: &Labels,
        tour: &mut Journal<T>,
        improver: &mut I,
    ) -> i64 {
        let deadline = self.deadline();
        let mut checkpoint = self.checkpoint.take();
        let mut cost = self.stats.initial_cost;
        self.report(Phase::LocalSearch, cost, 0, 0.0);
        let t = Instant::now();
        let mut queue = ActiveQueue::new(tour.len());
        let mut done = true;
        let passes = match self.opts.local_search {
            LocalSearch::TwoOptOrOpt => 1,
            LocalSearch::LinKernighan { .. } => 2,
        };
        for pass in 0..passes {
            for v in tour.order_from(ctx.costs.dummy()) {
                queue.push(v);
            }
            let base = cost;
            let mut on_progress = |p: DescentProgress| {
                let fraction = (pass as f64 + p.fraction) / passes as f64;
                self.tick(Phase::LocalSearch, base - p.gain, 0, fraction);
            };
            let (gain, finished) = if pass == 0 {
                let two_opt = &mut Both(TwoOpt, OrOpt);
                let pops = checkpoint.as_ref().map(|c| c.pops);
                let (mut gain, mut finished) = descend(
                    two_opt,
                    ctx,
                    tour,
                    &mut queue,
                    (deadline, pops),
                    &mut on_progress,
                );
                let timed_out = deadline.is_some_and(|d| Instant::now() >= d);
                // A checkpoint that says stop leaves the descent unfinished: no more passes and
                // no kicks.
                if let Some(c) = checkpoint.as_mut().filter(|_| !finished && !timed_out) {
                    if (c.go_on)(&labels.to_old(&path_of(ctx, tour))) {
                        let rest = (deadline, None);
                        let (more, done) =
                            descend(two_opt, ctx, tour, &mut queue, rest, &mut on_progress);
                        (gain, finished) = (gain + more, done);
                    }
                }
                (gain, finished)
            } else {
                descend(
                    improver,
                    ctx,
                    tour,
                    &mut queue,
                    (deadline, None),
                    &mut on_progress,
                )
            };
            cost -= gain;
            done &= finished;
            if pass == 0 {
                self.stats.two_opt_s = t.elapsed().as_secs_f64();
                self.stats.after_two_opt_cost = cost;
            }
            if !finished {
                break;
            }
        }
        tour.commit();
        self.stats.local_search_s = t.elapsed().as_secs_f64();
        self.after_local_search(ctx, tour, improver, &mut queue, (cost, done))
    }

    /// Records the local search's outcome `(cost, reached a local optimum)`, then runs the chained
    /// kicks from a local optimum when asked. Returns the tracked path cost.
    fn after_local_search<T: Tour, I: Improver>(
        &mut self,
        ctx: &Context<'_>,
        tour: &mut Journal<T>,
        improver: &mut I,
        queue: &mut ActiveQueue,
        (mut cost, done): (i64, bool),
    ) -> i64 {
        self.stats.after_local_search_cost = cost;
        self.stats.reached_local_optimum = done;
        self.report(Phase::LocalSearch, cost, 0, 1.0);
        if self.opts.chained && done && tour.len() >= 5 {
            let t = Instant::now();
            cost = self.kicks(ctx, tour, improver, queue, cost);
            self.stats.kicks_s = t.elapsed().as_secs_f64();
        }
        cost
    }

    /// Chained local search: kick, repair, keep when no worse, else roll back.
    fn kicks<T: Tour, I: Improver>(
        &mut self,
        ctx: &Context<'_>,
        tour: &mut Journal<T>,
        improver: &mut I,
        queue: &mut ActiveQueue,
        mut cost: i64,
    ) -> i64 {
        let n = self.cands.len() as u64;
        let opts = self.opts;
        let unlimited =
            opts.time_limit.is_none() && opts.max_kicks.is_none() && opts.max_stall_kicks.is_none();
        let max_kicks = if unlimited { Some(n) } else { opts.max_kicks };
        let deadline = self.deadline();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(opts.seed);
        let mut stall = 0u64;
        self.report(Phase::Kicks, cost, 0, 0.0);
        loop {
            let kicks = self.stats.kicks;
            // A budget of 0 kicks is spent before the first one.
            let spent = |done: u64, budget: u64| match budget {
                0 => 1.0,
                b => done as f64 / b as f64,
            };
            let fraction = [
                max_kicks.map(|m| spent(kicks, m)),
                opts.max_stall_kicks.map(|m| spent(stall, m)),
                opts.time_limit
                    .map(|t| self.start.elapsed().as_secs_f64() / t.as_secs_f64().max(1e-9)),
            ]
            .into_iter()
            .flatten()
            .fold(0.0, f64::max);
            if fraction >= 1.0 || deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            self.tick(Phase::Kicks, cost, kicks, fraction);
            let kick = Kick::random(tour, opts.kick_span, &mut rng);
            let before = cost;
            cost += kick.delta(|a, b| ctx.cost(a, b));
            kick.apply(tour);
            for v in kick.nodes {
                queue.push(v);
            }
            let (gain, finished) =
                descend(improver, ctx, tour, queue, (deadline, None), &mut |_| {});
            cost -= gain;
            self.stats.kicks += 1;
            if !finished || cost > before {
                queue.clear();
                tour.rollback();
                cost = before;
                stall += 1;
            } else {
                if cost < before {
                    self.stats.improving_kicks += 1;
                    stall = 0;
                } else {
                    stall += 1;
                }
                tour.commit();
            }
        }
        cost
    }
}
