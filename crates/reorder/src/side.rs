//! The ordering of one side: the rows, or the columns as the rows of `Aᵀ`. A peer method orders
//! the side's pattern directly; the TSP method puts the rows in the start order ([`crate::start`]),
//! cuts windows, builds the window graph and computes a path ([`crate::path`]), and the cache
//! check chooses between the path, the start order and the input order ([`crate::choice`]),
//! skipping the graph or the path when they could not change its choice.
//!
//! Cost: a peer's own; for TSP, windows and graph `O(nnz)` plus the candidate search, then the
//! solve within its budget. Called by [`crate::pipeline`].

use crate::cache_windows::cache_parts;
use crate::choice::{start_has_lower_d, Priced, Pricing};
use crate::pipeline::{OrderingStep, Stage};
use crate::progress::{share, SharedProgress};
use crate::report::{CacheCheck, Kept, Side, SideReport, StartNearBound, TspReport};
use crate::start::Start;
use crate::windows::{windows_for, SampledLatencies};
use crate::{Method, ReorderError, Reorderer, StartOrder, WindowSpec, DEFAULT_CACHE_WINDOW_BYTES};
use spmv_reorder_locality::{GraphOptions, WindowGraph, Windows};
use spmv_reorder_peers::{
    default_hub_threshold, gorder_with_progress, nested_dissection, partition_order,
    reverse_cuthill_mckee_with_options, rows_by_degree, DegreeOrder, RcmOptions, RcmStart,
};
use spmv_reorder_sparse::{CsrMatrix, Permutation};
use std::time::Instant;

/// One side to order.
pub(crate) struct SideInput<'a> {
    /// The pattern the ordering sees: the sample's, or the full one.
    pub(crate) pattern: &'a CsrMatrix<()>,
    /// The full pattern of the same side, which an RCM start order and the cache check are
    /// computed from.
    pub(crate) structure: &'a CsrMatrix<()>,
    /// Whether the row order will also order the columns (`x`).
    pub(crate) symmetric: bool,
    /// The sampled latencies of `pattern`'s rows, when the sampler recorded them.
    pub(crate) latencies: Option<SampledLatencies<'a>>,
    /// Which side.
    pub(crate) side: Side,
}

impl SideInput<'_> {
    /// Whether the ordering sees every nonzero: `pattern` is the whole `structure`, not a sample
    /// of it (a sample is a subset, so as many entries means the same ones).
    pub(crate) fn sees_every_nonzero(&self) -> bool {
        self.pattern.nnz() >= self.structure.nnz()
    }
}

impl Reorderer {
    /// Orders the rows of `input.pattern`.
    ///
    /// # Errors
    /// Those of the peer ordering, the windows, the window graph, the solver and the check.
    pub(crate) fn order_side(
        &self,
        input: SideInput<'_>,
        progress: &mut (dyn FnMut(&Stage) + Send),
    ) -> Result<(Permutation, SideReport), ReorderError> {
        let clock = Instant::now();
        let side = input.side;
        let mut done = |step, fraction| {
            progress(&Stage::Ordering {
                side,
                step,
                fraction,
            })
        };
        if self.method == Method::Auto {
            return self.order_auto(input, &mut done);
        }
        // The stage is announced before the peer's order is computed, so that its time shows
        // under its own bar, not under the stage before.
        let peer = !matches!(self.method, Method::Tsp | Method::Auto);
        if peer {
            done(OrderingStep::Whole, 0.0);
        }
        let order = peer_order(self, &input, &mut done);
        if let Some(p) = order {
            let p = p?;
            let seconds = clock.elapsed().as_secs_f64();
            return Ok((p, SideReport::peer(input.side, seconds)));
        }
        progress(&Stage::Graph {
            side,
            fraction: 0.0,
        });
        let start_order = self.start_order();
        let (start, windows) = match self.window {
            WindowSpec::Cache { bytes } => {
                let bytes = bytes.unwrap_or(DEFAULT_CACHE_WINDOW_BYTES);
                let parts = cache_parts(input.structure, bytes, self.rcm_start)?;
                let start = Start::with_order(Some(parts.order), input.pattern, input.latencies)?;
                (start, parts.windows)
            }
            _ => {
                let start = Start::new(
                    start_order,
                    self.rcm_start,
                    input.structure,
                    input.pattern,
                    input.latencies,
                )?;
                let windows = windows_for(self.window, &start.pattern, start.latencies())?;
                (start, windows)
            }
        };
        let work = SideWork {
            config: self,
            side: input.side,
            structure: input.structure,
            symmetric: input.symmetric,
            start_order,
            windows,
            clock,
        };
        work.order(start, progress)
    }
}

/// The rows of `input.pattern` in the order of `config`'s peer method (`None` for the TSP
/// method), with the peers' published parameters: RCM from `config`'s start (without a
/// symmetry check where `config` vouches for the pattern), Gorder's window of 5 and its default
/// hub threshold, degree by decreasing row length, METIS parts of `part_rows` rows. RCM and
/// Gorder, which can take a while on large matrices, tell `done` the share of their work done.
fn peer_order(
    config: &Reorderer,
    input: &SideInput<'_>,
    done: &mut (dyn FnMut(OrderingStep, f64) + Send),
) -> Option<Result<Permutation, ReorderError>> {
    let (method, pattern, seed, part_rows) =
        (config.method, input.pattern, config.seed, config.part_rows);
    let n = pattern.nrows();
    let by_degree = || rows_by_degree(pattern, DegreeOrder::Decreasing);
    let order = match method {
        Method::Tsp | Method::Auto => return None,
        Method::Identity => Ok(Permutation::identity(n)),
        Method::Random => Ok(Permutation::random(n, seed)),
        Method::Degree => Permutation::from_new_to_old(by_degree()).map_err(ReorderError::from),
        Method::Rcm => rcm_with_progress(
            pattern,
            config.rcm_start,
            config.vouches_symmetric(input),
            done,
        ),
        Method::Gorder => {
            let mut swept = |work, total| done(OrderingStep::Whole, share(work, total));
            gorder_with_progress(pattern, GORDER_WINDOW, default_hub_threshold(n), &mut swept)
                .map_err(Into::into)
        }
        Method::Gp => partition_order(pattern, part_rows).map_err(Into::into),
        Method::Nd => nested_dissection(pattern).map_err(Into::into),
    };
    Some(order)
}

/// Gorder's window: the rows a candidate is scored against (the paper's 5).
const GORDER_WINDOW: usize = 5;

/// Reverse Cuthill-McKee from `start`, telling `done` each of its steps' share.
pub(crate) fn rcm_with_progress(
    pattern: &CsrMatrix<()>,
    start: RcmStart,
    symmetric_mode: bool,
    done: &mut (dyn FnMut(OrderingStep, f64) + Send),
) -> Result<Permutation, ReorderError> {
    let mut stepped = |step, work, total| done(OrderingStep::Rcm(step), share(work, total));
    let options = RcmOptions {
        start,
        symmetric_mode,
    };
    Ok(reverse_cuthill_mckee_with_options(
        pattern,
        options,
        &mut stepped,
    )?)
}

impl Reorderer {
    /// Whether RCM may take `input.pattern` as symmetric without a check: the caller vouched
    /// for the matrix ([`Reorderer::symmetric_pattern`]) and the pattern is the whole of it
    /// (a sample of a symmetric pattern is not symmetric).
    pub(crate) fn vouches_symmetric(&self, input: &SideInput<'_>) -> bool {
        self.symmetric_pattern && input.sees_every_nonzero()
    }
}

/// A TSP side once its windows are cut in the start order.
pub(crate) struct SideWork<'a> {
    pub(crate) config: &'a Reorderer,
    pub(crate) side: Side,
    /// The side's full pattern in the input order.
    pub(crate) structure: &'a CsrMatrix<()>,
    pub(crate) symmetric: bool,
    pub(crate) start_order: StartOrder,
    /// The windows, cut in the start order.
    pub(crate) windows: Windows,
    /// When the side's ordering began.
    pub(crate) clock: Instant,
}

/// Why no path was computed once the window graph had been: the start order was near its bound.
#[derive(Clone, Copy)]
struct GraphBuilt {
    near: StartNearBound,
    seconds: f64,
    bounded_columns: usize,
}

impl SideWork<'_> {
    /// The cache check's prices of the input and start orders first: when not even an order at
    /// the model's floor would pass the check against them, neither the graph nor the path is
    /// computed; nor the path when the start order is near the graph's bound.
    fn order(
        &self,
        start: Start<'_>,
        progress: &mut (dyn FnMut(&Stage) + Send),
    ) -> Result<(Permutation, SideReport), ReorderError> {
        let pricing = self
            .config
            .cache_check
            .as_ref()
            .map(|model| Pricing::new(model, self.structure, self.symmetric));
        let tuning = self.config.tuning;
        let mut priced = pricing
            .as_ref()
            .map(|p| p.price_others(start.first.as_ref(), tuning, &|_| {}));
        if let Some(priced) = priced.take_if(|priced| !priced.path_can_pass()) {
            return self.without_path(priced, start.first, None);
        }
        let opts = GraphOptions::default()
            .with_neighbours(self.config.neighbours)
            .with_hub_limit(self.config.hub_limit);
        let side = self.side;
        let mut searched = |fraction| progress(&Stage::Graph { side, fraction });
        let search = SharedProgress::new(self.windows.len(), &mut searched);
        let graph = WindowGraph::build_with_progress(&start.pattern, &self.windows, &opts, &|k| {
            search.add(k)
        })?;
        let graph_seconds = self.clock.elapsed().as_secs_f64();
        if priced.is_some() {
            let near = StartNearBound::of(&graph);
            if let Some(priced) = priced.take_if(|_| near.holds(&tuning)) {
                let built = GraphBuilt {
                    near,
                    seconds: graph_seconds,
                    bounded_columns: graph.bounded_columns(),
                };
                return self.without_path(priced, start.first, Some(built));
            }
        }
        let check = pricing.as_ref().zip(priced);
        self.with_path(start.first, &graph, graph_seconds, check, progress)
    }

    /// The order returned without a path: the input's or the start's (`first`), as the check
    /// prefers.
    fn without_path(
        &self,
        priced: Priced,
        first: Option<Permutation>,
        built: Option<GraphBuilt>,
    ) -> Result<(Permutation, SideReport), ReorderError> {
        let (perm, mut check) = priced.choose(first, None, |start, input| {
            start_has_lower_d(self.structure, start, input)
        })?;
        let (graph_seconds, bounded_columns) =
            built.map_or((0.0, 0), |b| (b.seconds, b.bounded_columns));
        check.start_near_bound = built.map(|b| b.near);
        let lengths = self.moved_windows(check.kept, None);
        let report = self.report(lengths, graph_seconds, bounded_columns, None, Some(check));
        Ok((perm, report))
    }

    /// The window lengths in the order the returned order `kept` moves them as units (see
    /// [`SideReport::window_lengths_in_order`]): the path's (`path_order`) or the windows as cut
    /// in the start order, which is the input order unless it is RCM (`None` for the input order
    /// then).
    pub(crate) fn moved_windows(
        &self,
        kept: Kept,
        path_order: Option<&[usize]>,
    ) -> Option<Vec<usize>> {
        let lengths = self.windows.lengths();
        match (kept, path_order) {
            (Kept::Path, Some(order)) => Some(order.iter().map(|&g| lengths[g]).collect()),
            (Kept::Start, _) => Some(lengths),
            _ if self.start_order != StartOrder::Rcm => Some(lengths),
            _ => None,
        }
    }

    /// The side's report; the ordering's seconds are those since the side began, less the
    /// graph's.
    pub(crate) fn report(
        &self,
        window_lengths_in_order: Option<Vec<usize>>,
        graph_seconds: f64,
        bounded_columns: usize,
        tsp: Option<TspReport>,
        cache_check: Option<CacheCheck>,
    ) -> SideReport {
        SideReport {
            side: self.side,
            windows: self.windows.len(),
            window_lengths_in_order,
            graph_seconds,
            order_seconds: self.clock.elapsed().as_secs_f64() - graph_seconds,
            bounded_columns,
            tsp,
            cache_check,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{path_cost, quick};
    use crate::{Kept, Reorderer, RunBlocks, SideReport, StartOrder};
    use crate::{Tuning, DEFAULT_RCM_START};
    use spmv_reorder_gen::{poisson2d, poisson3d, shuffle_symmetric};
    use spmv_reorder_locality::{total_distance, CacheModel, Parallelism};
    use spmv_reorder_peers::{reverse_cuthill_mckee, RcmStart};
    use spmv_reorder_sparse::{CsrMatrix, Permutation};

    #[test]
    fn a_pattern_vouched_symmetric_is_ordered_as_one_checked() {
        // RCM skips its check of a vouched pattern: the same orders, by the default, by RCM, and
        // by RCM over a sample, which the vouching does not cover (a sample of a symmetric
        // pattern is not symmetric; taken as one it gave another order here).
        let (a, _) = shuffle_symmetric(&poisson2d(30, 30).unwrap(), 6).unwrap();
        for (method, sampler) in [
            (crate::Method::Auto, "all"),
            (crate::Method::Rcm, "all"),
            (crate::Method::Rcm, "random:0.5"),
        ] {
            let r = quick().method(method).sampler(sampler.parse().unwrap());
            let checked = r.clone().run(&a).unwrap();
            let vouched = r.symmetric_pattern(true).run(&a).unwrap();
            assert_eq!(checked.rows, vouched.rows, "{method:?} {sampler}");
        }
    }

    #[test]
    fn rcm_starts_where_it_is_told() {
        // RCM's order by --method rcm and by the default without its check is that of the
        // peers' RCM from the start asked. The two starts differ on a 12 x 12 grid with one more
        // node hung from its centre: that node has the least degree, a corner is peripheral.
        let grid = poisson2d(12, 12).unwrap();
        let centre = 6 * 12 + 6;
        let mut t: Vec<(usize, usize, f64)> = (0..grid.nrows())
            .flat_map(|i| grid.row(i).0.iter().map(move |&j| (i, j as usize, 1.0)))
            .collect();
        t.extend([(144, 144, 1.0), (144, centre, 1.0), (centre, 144, 1.0)]);
        let hung = CsrMatrix::from_triplets(145, 145, t).unwrap();
        let (a, _) = shuffle_symmetric(&hung, 2).unwrap();
        let peer = |start| reverse_cuthill_mckee(&a.pattern(), start).unwrap();
        let (pp, md) = (
            peer(RcmStart::PseudoPeripheral),
            peer(RcmStart::MinimumDegree),
        );
        assert_ne!(pp, md);
        for (start, want) in [
            (RcmStart::PseudoPeripheral, &pp),
            (RcmStart::MinimumDegree, &md),
        ] {
            let r = Reorderer::new()
                .rcm_start(start)
                .length_runs(Some(RunBlocks::Off));
            let rcm = r.clone().method(crate::Method::Rcm).run(&a).unwrap();
            assert_eq!(&rcm.rows, want, "{start:?}");
            let auto = r.clone().cache_check(None).run(&a).unwrap();
            assert_eq!(&auto.rows, want, "{start:?}");
        }
    }

    #[test]
    fn cache_check_returns_the_order_whose_modelled_misses_cost_least() {
        let t = Tuning::default();
        // x of a 120 x 120 grid (115 KB) does not fit the modelled 32 KiB L1.
        let (a, _) = shuffle_symmetric(&poisson2d(120, 120).unwrap(), 3).unwrap();
        let model = CacheModel::default();
        let checked = quick().run(&a).unwrap();
        let side = checked.report.rows.as_ref().unwrap();
        let c = side.cache_check.as_ref().expect("checked by default");
        let start = c.start.expect("an RCM start").cycles;
        let got = model.cost(&a, &checked.rows, &checked.cols).cycles;
        let id = Permutation::identity(a.nrows());
        assert_eq!(c.input, model.cost(&a, &id, &id));
        let others = start.min(c.input.cycles);
        assert_eq!(c.floor, model.floor(&a));
        assert!(c.floor.cycles <= others);
        // The path is computed exactly when an order at the floor could pass.
        let floor_passes = c.floor.cycles * 100 <= others * (100 - t.path_margin_percent);
        assert_eq!(c.path.is_some(), floor_passes, "{c:?}");
        let path = c.path.map(|p| p.cycles);
        let path_wins = path.is_some_and(|p| p * 100 <= others * (100 - t.path_margin_percent));
        assert_eq!(got, if path_wins { path.unwrap() } else { others });
        let want = if path_wins {
            Kept::Path
        } else if c.input.cycles <= start {
            Kept::Input
        } else {
            Kept::Start
        };
        assert_eq!(c.kept, want);
        assert!(c.input.cycles > start, "RCM beats a shuffled input");
        assert!(!c.tied, "far apart: {c:?}");
        assert!(c.input.l1_misses >= c.input.l2_misses);
        let unchecked = quick().cache_check(None).run(&a).unwrap();
        let rows = unchecked.report.rows.as_ref().unwrap();
        assert!(rows.cache_check.is_none());
        assert_eq!(
            unchecked.report.tsp_cost.unwrap() as u64,
            path_cost(&unchecked, &a),
            "without the check the path is returned"
        );
        // A greedy start has no start order besides the input to compare with.
        let greedy = quick().start(Some(StartOrder::Greedy)).run(&a).unwrap();
        let g = greedy.report.rows.unwrap().cache_check.unwrap();
        assert!(g.start.is_none() && g.input == c.input);
    }

    #[test]
    fn no_path_is_computed_when_no_order_could_pass_the_check() {
        // x of a 20 x 20 grid (3.2 KB) fits the modelled L1: RCM's order, like the shuffled
        // input, costs just its compulsory misses, the floor.
        let (a, _) = shuffle_symmetric(&poisson2d(20, 20).unwrap(), 5).unwrap();
        let r = quick().run(&a).unwrap();
        let side = r.report.rows.as_ref().unwrap();
        let c = side.cache_check.as_ref().unwrap();
        assert_eq!(c.start, Some(c.floor), "{c:?}");
        assert!(c.path.is_none() && c.draft.is_none() && !c.refined, "{c:?}");
        assert!(side.tsp.is_none() && r.report.tsp_cost.is_none());
        assert_refined_by_the_rule(side);
        // Tied with the input in the model, RCM's order has the lower `D`.
        assert!(c.tied && c.kept == Kept::Start, "{c:?}");
        let rcm = reverse_cuthill_mckee(&a.pattern(), DEFAULT_RCM_START).unwrap();
        assert_eq!(r.rows, rcm);
        assert_eq!(
            r.report.d_after,
            total_distance(&a.permute(&rcm, &rcm).unwrap(), Parallelism::Rayon)
        );
        // Without the check the path is computed all the same.
        let unchecked = quick().cache_check(None).run(&a).unwrap();
        assert!(unchecked.report.tsp_cost.is_some());
    }

    /// Whether the check refined its draft exactly when the draft, priced the headroom lower,
    /// would have passed it, and reported the draft's figures when it did not.
    fn assert_refined_by_the_rule(side: &SideReport) {
        let t = Tuning::default();
        let c = side.cache_check.as_ref().expect("checked");
        let others = c
            .start
            .map_or(c.input.cycles, |s| s.cycles.min(c.input.cycles));
        let Some(draft) = c.draft else {
            // Not even an order at the floor would have passed, or the start order was near the
            // bound: no path at all.
            let floor_fails = c.floor.cycles * 100 > others * (100 - t.path_margin_percent);
            assert!(
                floor_fails
                    || c.start_near_bound
                        .is_some_and(|n| n.holds(&Tuning::default()))
            );
            assert!(!c.refined && c.path.is_none() && side.tsp.is_none());
            return;
        };
        assert_eq!(c.start_near_bound, None, "a path was computed");
        // A draft set aside at its checkpoint was priced far behind there.
        if c.draft_abandoned {
            assert!(
                draft.cycles * 100 >= others * t.draft_abandon_percent,
                "{c:?}"
            );
        }
        let may_pass = draft.cycles * (100 - t.refine_headroom_percent)
            < others * (100 - t.path_margin_percent);
        assert_eq!(c.refined, may_pass, "{c:?}");
        let tsp = side.tsp.as_ref().unwrap();
        if !c.refined {
            assert_eq!(c.path, c.draft);
            assert_eq!(tsp.cost, tsp.after_two_opt_cost, "the draft, not refined");
            assert_eq!(tsp.after_local_search_cost, tsp.after_two_opt_cost);
        }
        assert!(tsp.cost <= tsp.after_two_opt_cost);
    }

    #[test]
    fn no_path_is_computed_from_a_start_near_the_bound() {
        // RCM's order of a 50³ grid reads x (1 MB) with more than the floor's misses, which lets
        // a path try (a 2D grid's RCM order costs about the floor); it is within a few percent of
        // the graph's lower bound.
        let (a, _) = shuffle_symmetric(&poisson3d(50, 50, 50).unwrap(), 3).unwrap();
        let r = quick().run(&a).unwrap();
        let side = r.report.rows.as_ref().unwrap();
        let c = side.cache_check.as_ref().unwrap();
        let near = c.start_near_bound.unwrap_or_else(|| panic!("{c:?}"));
        assert!(
            near.holds(&Tuning::default()) && near.lower_bound <= near.start_cost,
            "{near:?}"
        );
        assert!(
            c.path.is_none() && c.draft.is_none() && side.tsp.is_none(),
            "{c:?}"
        );
        assert!(side.graph_seconds > 0.0);
        assert_refined_by_the_rule(side);
        let rcm = reverse_cuthill_mckee(&a.pattern(), DEFAULT_RCM_START).unwrap();
        assert_eq!((c.kept, &r.rows), (Kept::Start, &rcm), "{c:?}");
        assert_eq!(near.start_cost, r.report.d_after, "window 1: D_w = D");
        // From the shuffled input, far from the bound, a path is computed: see
        // `the_check_refines_only_a_draft_that_may_pass`.
    }

    #[test]
    fn the_check_refines_only_a_draft_that_may_pass() {
        let (a, _) = shuffle_symmetric(&poisson2d(120, 120).unwrap(), 3).unwrap();
        let model = CacheModel::default();
        for start in [StartOrder::Rcm, StartOrder::Given] {
            let r = quick().start(Some(start)).run(&a).unwrap();
            let side = r.report.rows.as_ref().unwrap();
            assert_refined_by_the_rule(side);
            let c = side.cache_check.as_ref().unwrap();
            if start == StartOrder::Given {
                // The only other order is the shuffled input, far behind any path.
                assert!(c.refined && c.kept == Kept::Path, "{c:?}");
                assert_eq!(Some(model.cost(&a, &r.rows, &r.cols)), c.path);
                let tsp = side.tsp.as_ref().unwrap();
                assert!(tsp.after_local_search_cost <= tsp.after_two_opt_cost);
                assert_eq!(r.report.tsp_cost.unwrap() as u64, path_cost(&r, &a));
            }
        }
    }
}
