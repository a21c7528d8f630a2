//! The TSP path over a side's windows (SPEC section 4): the cost the solver minimises
//! (`d_w(g, h)`, plus a price for each change of row length between one-row windows), its
//! candidate lists, and the solve. Under the cache check the 2-opt + Or-opt descent comes first,
//! pausing at a checkpoint where a path already priced far behind is set aside; Lin-Kernighan and
//! the kicks refine only a draft that may pass the check ([`crate::choice`]).
//!
//! Cost: the candidate lists `O(windows · neighbours)`; the solve within its time budget. Called
//! by [`crate::side`].

use crate::choice::{start_has_lower_d, Priced, Pricing};
use crate::pipeline::Stage;
use crate::report::{CacheCheck, Kept, Side, SideReport, TspReport};
use crate::side::SideWork;
use crate::start::{row_lengths, rows_in_order};
use crate::{ReorderError, Reorderer, SamplerChoice, StartOrder, WindowSpec};
use spmv_reorder_locality::{ModelledCost, Parallelism, WindowGraph};
use spmv_reorder_sparse::Permutation;
use spmv_reorder_tsp::{
    solve_path, solve_path_with_checkpoint, CandidateLists, Checkpoint, Construction, CostOracle,
    LocalSearch, PathSolution, Progress, SolverOptions,
};
use std::time::{Duration, Instant};

impl SideWork<'_> {
    /// Computes the path over `graph` (the windows cut in the start order `first`) and, under
    /// the cache check (`check`: its pricing and the prices so far), the order the check keeps.
    pub(crate) fn with_path(
        &self,
        first: Option<Permutation>,
        graph: &WindowGraph<'_>,
        graph_seconds: f64,
        check: Option<(&Pricing<'_>, Priced)>,
        progress: &mut (dyn FnMut(&Stage) + Send),
    ) -> Result<(Permutation, SideReport), ReorderError> {
        let config = self.config;
        // Rows' lengths in the graph's numbering, for the price of a length change.
        let lengths = (config.length_change_cost > 0
            && self.side == Side::Rows
            && config.window == WindowSpec::Fixed(1))
        .then(|| row_lengths(first.as_ref(), self.structure, self.windows.len()));
        let search = PathSearch::new(
            graph,
            lengths.as_deref(),
            config.length_change_cost,
            config.time_limit.map(|d| d.as_secs_f64()),
            self.side,
        )?;
        let solver = config.solver_options(self.windows.len());
        let rows_of = |order: &[usize]| rows_in_order(first.as_ref(), &self.windows, order);
        let (solution, perm, cache_check) = match check {
            None => {
                let solution = search.solve(&solver, None, Duration::ZERO, progress)?;
                let path = rows_of(&solution.order)?;
                (solution, path, None)
            }
            Some((pricing, mut priced)) => {
                let (solution, path) = self.draft_and_refine(
                    &search,
                    solver,
                    (pricing, &mut priced),
                    first.as_ref(),
                    progress,
                )?;
                let (perm, check) = priced.choose(first, Some(path), |start, input| {
                    start_has_lower_d(self.structure, start, input)
                })?;
                (solution, perm, Some(check))
            }
        };
        let kept = cache_check
            .as_ref()
            .map_or(Kept::Path, |c: &CacheCheck| c.kept);
        let lengths = self.moved_windows(kept, Some(&solution.order));
        let tsp = TspReport::from_solution(
            &solution,
            graph.path_lower_bound(),
            search.oracle.identity_cost(),
            if search.oracle.lengths.is_some() {
                config.length_change_cost
            } else {
                0
            },
        );
        let bounded = graph.bounded_columns();
        let report = self.report(lengths, graph_seconds, bounded, Some(tsp), cache_check);
        Ok((perm, report))
    }

    /// The path under the cache check, and its rows: the 2-opt + Or-opt path first, which
    /// Lin-Kernighan and the kicks refine only if it may pass the check. The descent pauses at a
    /// checkpoint, where a path already priced far behind is set aside unfinished; otherwise it
    /// goes on as if it had not paused. Records the draft's and the refined path's prices in
    /// `priced`.
    fn draft_and_refine(
        &self,
        search: &PathSearch<'_>,
        solver: SolverOptions,
        (pricing, priced): (&Pricing<'_>, &mut Priced),
        first: Option<&Permutation>,
        progress: &mut (dyn FnMut(&Stage) + Send),
    ) -> Result<(PathSolution, Permutation), ReorderError> {
        let rows_of = |order: &[usize]| rows_in_order(first, &self.windows, order);
        let price = |order: &[usize]| rows_of(order).map(|rows| pricing.cost(&rows));
        let draft_opts = SolverOptions {
            local_search: LocalSearch::TwoOptOrOpt,
            chained: false,
            ..solver.clone()
        };
        let solve_start = Instant::now();
        let mut at_checkpoint: Option<ModelledCost> = None;
        let mut look = |order: &[usize]| {
            // A path the solver made is a permutation: on the impossible error, go on.
            let Ok(cost) = price(order) else {
                return true;
            };
            at_checkpoint = Some(cost);
            !priced.hopeless(cost)
        };
        let checkpoint = Checkpoint {
            pops: (self.windows.len()).div_ceil(self.config.tuning.draft_checkpoint_divisor) as u64,
            go_on: &mut look,
        };
        let draft = search.solve(&draft_opts, Some(checkpoint), Duration::ZERO, progress)?;
        let draft_path = rows_of(&draft.order)?;
        priced.draft_abandoned = at_checkpoint.is_some_and(|c| priced.hopeless(c));
        priced.draft = Some(match at_checkpoint {
            Some(cost) if priced.draft_abandoned => cost,
            _ => pricing.cost(&draft_path),
        });
        if !priced.path_may_pass() {
            return Ok((draft, draft_path));
        }
        let spent = solve_start.elapsed();
        let refine_opts = SolverOptions {
            initial_order: Some(draft.order),
            time_limit: self.config.time_limit.map(|t| t.saturating_sub(spent)),
            ..solver
        };
        let refined = search.solve(&refine_opts, None, spent, progress)?;
        let path = rows_of(&refined.order)?;
        priced.refined = Some(pricing.cost(&path));
        let stats = draft.stats.then(&refined.stats);
        Ok((PathSolution { stats, ..refined }, path))
    }
}

impl Reorderer {
    /// The solver's options for a path over `windows` windows.
    fn solver_options(&self, windows: usize) -> SolverOptions {
        // On a sample, windows without sampled nonzeros carry no information: keep the start
        // order and only make moves the sample shows to be strict improvements (no kicks, which
        // accept equal-cost moves), so that such windows keep their place instead of drifting.
        let sampled = matches!(self.sampler, SamplerChoice::Sampled { .. });
        SolverOptions {
            construction: match self.start_order() {
                StartOrder::Greedy => Construction::Greedy,
                StartOrder::Given | StartOrder::Rcm | StartOrder::Parts => Construction::Identity,
            },
            chained: !sampled,
            seed: self.seed,
            time_limit: self.time_limit,
            // `None` asks for the solver's own default, one kick per window; the time limit, when
            // given, may stop the kicks earlier.
            max_kicks: self.max_kicks.or(Some(windows as u64)),
            ..SolverOptions::default()
        }
    }
}

/// The solver over one side's window graph, reporting its progress as the side's.
struct PathSearch<'a> {
    cands: CandidateLists,
    oracle: WindowCost<'a>,
    /// The time budget in seconds, over which the progress bar fills once.
    budget: Option<f64>,
    side: Side,
}

impl<'a> PathSearch<'a> {
    /// The search over `graph`, charging `change_cost` for each change of `lengths` (one per
    /// window) when given.
    fn new(
        graph: &'a WindowGraph<'a>,
        lengths: Option<&'a [usize]>,
        change_cost: u32,
        budget: Option<f64>,
        side: Side,
    ) -> Result<Self, ReorderError> {
        let oracle = WindowCost {
            graph,
            lengths,
            change_cost: i64::from(change_cost),
        };
        Ok(PathSearch {
            cands: candidate_lists(&oracle)?,
            oracle,
            budget,
            side,
        })
    }

    /// Solves with `opts`, pausing at `checkpoint` when given. `offset`: time the side's earlier
    /// solves took, so that the progress bar fills once over both.
    fn solve(
        &self,
        opts: &SolverOptions,
        checkpoint: Option<Checkpoint<'_>>,
        offset: Duration,
        progress: &mut (dyn FnMut(&Stage) + Send),
    ) -> Result<PathSolution, ReorderError> {
        let mut report = |p: &Progress| {
            let elapsed = (offset + p.elapsed).as_secs_f64();
            let fraction = match self.budget {
                Some(b) if b > 0.0 => (elapsed / b).min(1.0),
                _ => p.fraction,
            };
            progress(&Stage::Solving {
                side: self.side,
                fraction,
                cost: p.cost,
            })
        };
        Ok(match checkpoint {
            Some(c) => solve_path_with_checkpoint(&self.cands, &self.oracle, opts, c, &mut report)?,
            None => solve_path(&self.cands, &self.oracle, opts, &mut report)?,
        })
    }
}

/// The window graph as the TSP solver sees it: `cost(g, h) = d_w(g, h)`, plus `change_cost` when
/// `lengths` (one per window) differ.
struct WindowCost<'a> {
    graph: &'a WindowGraph<'a>,
    lengths: Option<&'a [usize]>,
    change_cost: i64,
}

impl WindowCost<'_> {
    fn length_change(&self, g: usize, h: usize) -> i64 {
        self.lengths
            .map_or(0, |l| self.change_cost * i64::from(l[g] != l[h]))
    }

    /// The cost of the windows in their own order.
    fn identity_cost(&self) -> u64 {
        let changes: i64 = (1..self.graph.len())
            .map(|g| self.length_change(g - 1, g))
            .sum();
        self.graph.windowed_distance(Parallelism::Rayon) + changes as u64
    }
}

impl CostOracle for WindowCost<'_> {
    fn cost(&self, a: usize, b: usize) -> i64 {
        self.graph.distance(a, b) as i64 + self.length_change(a, b)
    }
}

/// Each window's candidates with cost `n(g) + n(h) - 2·a(g,h)` and the oracle's length change.
fn candidate_lists(oracle: &WindowCost<'_>) -> Result<CandidateLists, ReorderError> {
    let graph = oracle.graph;
    let mut offsets = Vec::with_capacity(graph.len() + 1);
    offsets.push(0);
    let entries = (0..graph.len()).map(|g| graph.candidates(g).len()).sum();
    let mut neighbours = Vec::with_capacity(entries);
    let mut costs = Vec::with_capacity(entries);
    for g in 0..graph.len() {
        let ng = graph.footprint_len(g) as i64;
        for (h, a) in graph.candidates(g) {
            neighbours.push(h);
            costs.push(
                ng + graph.footprint_len(h as usize) as i64 - 2 * a as i64
                    + oracle.length_change(g, h as usize),
            );
        }
        offsets.push(neighbours.len());
    }
    Ok(CandidateLists::from_csr(offsets, neighbours, costs)?)
}

#[cfg(test)]
mod tests {
    use crate::testutil::{length_changes, quick};
    use crate::{Method, Reorderer, Reordering, WindowSpec};
    use spmv_reorder_gen::{poisson2d, shuffle_symmetric};

    #[test]
    fn the_path_pays_for_length_changes() {
        let (a, _) = shuffle_symmetric(
            &spmv_reorder_gen::random_geometric(3000, 8.0, 5).unwrap(),
            3,
        )
        .unwrap();
        let changes = |r: &Reordering| length_changes(r, &a);
        let path = |cost: u32, window: usize| {
            let r = quick()
                .cache_check(None)
                .length_change_cost(cost)
                .windows(WindowSpec::Fixed(window))
                .run(&a)
                .unwrap();
            let charged = r
                .report
                .rows
                .as_ref()
                .unwrap()
                .tsp
                .as_ref()
                .unwrap()
                .length_change_cost;
            (r, charged)
        };
        let (free, free_charged) = path(0, 1);
        let (priced, priced_charged) = path(4, 1);
        assert_eq!((free_charged, priced_charged), (0, 4));
        assert_eq!(
            priced.report.tsp_cost.unwrap() as usize,
            priced.report.d_after as usize + 4 * changes(&priced)
        );
        assert!(
            changes(&priced) * 5 < changes(&free) * 4,
            "{} changes priced, {} free",
            changes(&priced),
            changes(&free)
        );
        // Windows of several rows have no row length of their own: not charged.
        assert_eq!(path(4, 3).1, 0);
    }

    #[test]
    fn kicks_are_off_by_default_and_one_per_window_on_request() {
        let (a, _) = shuffle_symmetric(&poisson2d(20, 20).unwrap(), 5).unwrap();
        // Without the check, which refines (LK, kicks) only a path that may pass it.
        let kicks = |r: Reorderer| {
            let r = r.method(Method::Tsp).cache_check(None);
            r.run(&a).unwrap().report.rows.unwrap()
        };
        let plain = kicks(Reorderer::new()).tsp.unwrap();
        assert_eq!(plain.kicks, 0);
        let side = kicks(Reorderer::new().max_kicks(None));
        assert_eq!(side.tsp.unwrap().kicks, side.windows as u64);
    }
}
