//! The pipeline of SPEC sections 2-5: sample → windows → window graph → TSP path → permutation,
//! and the peer methods beside it. `Reorderer` holds the choices; `Reorderer::run` returns a
//! [`Reordering`]: the row and column permutations and a [`ReorderReport`].
//!
//! Cost: sampling `O(sample)`; windows and graph `O(nnz)` plus the candidate search; the TSP solve
//! within its budget. Called by the `spmv-reorder` main job and `evaluate`.

use crate::report::{CacheCheck, LengthRuns, ReorderReport, SideReport, StartNearBound, TspReport};
use crate::spec::RunBlocks;
use crate::windows::{windows_for, SampledLatencies};
use crate::{Method, PermuteMode, ReorderError, SamplerChoice, StartOrder, WindowSpec};
use spmv_reorder_locality::{
    distance_in_order, total_distance, windowed_distance, CacheModel, GraphOptions, ModelledCost,
    Parallelism, WindowGraph, Windows,
};
use spmv_reorder_peers::{self as peers, PeerOptions};
use spmv_reorder_sampling::{sample, Sample, SampleOptions};
use spmv_reorder_sparse::{CsrMatrix, Permutation, Value};
use spmv_reorder_tsp::{
    relative_gap, solve_path, solve_path_with_checkpoint, CandidateLists, Checkpoint, Construction,
    CostOracle, LocalSearch, PathSolution, Progress, SolverOptions,
};
use std::time::{Duration, Instant};

/// A stage of the pipeline, reported to the progress callback.
#[derive(Debug, Clone, PartialEq)]
pub enum Stage {
    /// Sampling the matrix.
    Sampling,
    /// Building windows and the window graph (`side` is `"rows"` or `"cols"`).
    Graph {
        /// Which side is being ordered.
        side: &'static str,
    },
    /// Solving the TSP path; `fraction` of the time budget used, current `cost`.
    Solving {
        /// Which side is being ordered.
        side: &'static str,
        /// Share of the solver's budget used so far, in `[0, 1]`.
        fraction: f64,
        /// Cost of the best path so far.
        cost: i64,
    },
    /// A peer ordering (RCM, Gorder, ...).
    Ordering {
        /// Which side is being ordered.
        side: &'static str,
    },
    /// Measuring the result.
    Measuring,
}

/// The configuration of a reordering. `Reorderer::new()` gives the defaults the plain command line
/// uses; each setter returns the changed configuration.
#[derive(Debug, Clone)]
pub struct Reorderer {
    method: Method,
    sampler: SamplerChoice,
    window: WindowSpec,
    permute: Option<PermuteMode>,
    seed: u64,
    threads: Option<usize>,
    time_limit: Option<Duration>,
    neighbours: usize,
    hub_limit: usize,
    max_kicks: Option<u64>,
    start: Option<StartOrder>,
    cache_check: Option<CacheModel>,
    length_runs: Option<RunBlocks>,
    length_change_cost: u32,
}

impl Default for Reorderer {
    fn default() -> Self {
        Self::new()
    }
}

impl Reorderer {
    /// The defaults: TSP over single-row windows with full information, symmetric permutation for
    /// square matrices (rows only otherwise), 8 candidates per window, seed 0.
    pub fn new() -> Self {
        Self {
            method: Method::Tsp,
            sampler: SamplerChoice::All,
            window: WindowSpec::Fixed(1),
            permute: None,
            seed: 0,
            threads: None,
            time_limit: None,
            neighbours: 8,
            hub_limit: GraphOptions::default().hub_limit,
            max_kicks: Some(0),
            start: None,
            cache_check: Some(CacheModel::default()),
            length_runs: None,
            length_change_cost: DEFAULT_LENGTH_CHANGE_COST,
        }
    }
    /// The ordering method.
    pub fn method(mut self, method: Method) -> Self {
        self.method = method;
        self
    }
    /// Where the nonzeros the ordering sees come from.
    pub fn sampler(mut self, sampler: SamplerChoice) -> Self {
        self.sampler = sampler;
        self
    }
    /// How rows are grouped into windows (TSP method).
    pub fn windows(mut self, window: WindowSpec) -> Self {
        self.window = window;
        self
    }
    /// Which sides to permute (`None`: symmetric for square matrices, rows otherwise).
    pub fn permute(mut self, mode: Option<PermuteMode>) -> Self {
        self.permute = mode;
        self
    }
    /// Seed of every random choice.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
    /// Threads (`None`: all cores).
    pub fn threads(mut self, threads: Option<usize>) -> Self {
        self.threads = threads;
        self
    }
    /// Wall-clock budget of the TSP solve (per side).
    pub fn time_limit(mut self, limit: Option<Duration>) -> Self {
        self.time_limit = limit;
        self
    }
    /// Candidate neighbours per window in the window graph.
    pub fn neighbours(mut self, k: usize) -> Self {
        self.neighbours = k;
        self
    }
    /// Windows a column may be shared by before the window graph bounds it (each of its windows
    /// then pairs only with the `limit` nearest; see [`GraphOptions::hub_limit`]).
    pub fn hub_limit(mut self, limit: usize) -> Self {
        self.hub_limit = limit;
        self
    }
    /// Kicks of Chained Lin-Kernighan after the local search (`None`: one per window). The
    /// default is `Some(0)`, Lin-Kernighan's local search alone: on the 30 bundled matrices,
    /// shuffled, one kick per window lowered `D` by 2.2% in geometric mean for about 10x the median
    /// reordering time, with no SpMV gain above the timing noise (docs/RESULTS.md). With the cache
    /// check on, kicks (like Lin-Kernighan) run only on a path that may pass it.
    pub fn max_kicks(mut self, kicks: Option<u64>) -> Self {
        self.max_kicks = kicks;
        self
    }

    /// Where the TSP path starts (`None`: the default, see [`Self::start_order`]).
    pub fn start(mut self, start: Option<StartOrder>) -> Self {
        self.start = start;
        self
    }

    /// The start order this configuration uses: the one set, else [`StartOrder::Rcm`], which
    /// measured best (docs/RESULTS.md: with full information it was as fast as a greedy start on
    /// the bundled matrices and faster on grids whose `x` exceeds L2; on a 2% sample it is the
    /// only start that does not leave a shuffled matrix shuffled).
    pub fn start_order(&self) -> StartOrder {
        self.start.unwrap_or(StartOrder::Rcm)
    }

    /// The cache check of the TSP method (default: [`CacheModel::default`], a 32 KiB 8-way L1
    /// and a 1 MiB 16-way L2): the cost of SpMV's `x` reads, with the matrix streams in the same
    /// caches, is modelled for the input order, the RCM start order and the path. The path is
    /// returned when it costs at least [`PATH_MARGIN_PERCENT`] percent less than both others, else
    /// the cheaper of those two, or the one with the lower `D` when they are priced within
    /// [`MODEL_TIE_PERCENT`] (ties to the input). `D` rewards only columns shared by consecutive
    /// rows; the check guards the reuse across many rows that RCM or the input may have and the
    /// path lost, and the margin what the model cannot see (hardware prefetching). The input and
    /// start orders are priced first, and when not even an order at the model's floor
    /// ([`CacheModel::floor`]) would pass, no window graph and no path are computed; nor is a path
    /// when the start order is within [`START_NEAR_BOUND_PERCENT`] of the window graph's lower
    /// bound. Otherwise the path is priced as the 2-opt + Or-opt descent leaves it, and refined
    /// (Lin-Kernighan, kicks) only if it may pass: see [`REFINE_HEADROOM_PERCENT`]. `None` always
    /// returns the path, refined.
    pub fn cache_check(mut self, model: Option<CacheModel>) -> Self {
        self.cache_check = model;
        self
    }

    /// After ordering, sort the rows of every block of consecutive positions by their number of
    /// nonzeros ([`RunBlocks`]). `None` is the default: [`RunBlocks::Auto`] for `tsp` over
    /// one-row windows with the cache check; off for the peers, whose orders stay as their
    /// authors define them, for windows of several rows, whose rows keep their order, and
    /// without the check, which returns the path as found. Runs of equal lengths let the branch
    /// that ends each row's loop in a CSR product be predicted; see [`crate::length_runs`]. The
    /// columns follow the rows under a symmetric permutation; under `both` they keep their own
    /// order.
    pub fn length_runs(mut self, runs: Option<RunBlocks>) -> Self {
        self.length_runs = runs;
        self
    }

    /// What the TSP path pays, on top of `d(g, h)`, for each pair of consecutive rows of different
    /// lengths (one-row windows on the row side only; 0: the path minimises `D` alone, as the
    /// thesis's). A CSR product mispredicts where a row's length differs from the last one's, at
    /// about the cost of the `x` miss a changed column may bring; see
    /// [`DEFAULT_LENGTH_CHANGE_COST`].
    pub fn length_change_cost(mut self, cost: u32) -> Self {
        self.length_change_cost = cost;
        self
    }

    /// The block of [`Self::length_runs`] in effect for a matrix of `nrows` x `ncols`, `None`
    /// when off.
    fn run_block(&self, nrows: usize, ncols: usize) -> Option<usize> {
        let runs = self.length_runs.unwrap_or(
            if self.method == Method::Tsp
                && self.window == WindowSpec::Fixed(1)
                && self.cache_check.is_some()
            {
                RunBlocks::Auto
            } else {
                RunBlocks::Off
            },
        );
        runs.block(nrows, ncols)
    }

    /// Reorders `a`: see [`Self::run_with_progress`].
    ///
    /// # Errors
    /// As [`Self::run_with_progress`].
    pub fn run<T: Value>(&self, a: &CsrMatrix<T>) -> Result<Reordering, ReorderError> {
        self.run_with_progress(a, &mut |_| {})
    }

    /// Reorders `a`, reporting each stage to `progress`.
    ///
    /// # Errors
    /// [`ReorderError::Incompatible`] for a symmetric permutation of a rectangular matrix or latency
    /// windows without latencies; the errors of the sampler, the locality model and the solver.
    pub fn run_with_progress<T: Value>(
        &self,
        a: &CsrMatrix<T>,
        progress: &mut (dyn FnMut(&Stage) + Send),
    ) -> Result<Reordering, ReorderError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads.unwrap_or(0))
            .build()
            .map_err(|e| ReorderError::Incompatible(format!("cannot start threads: {e}")))?;
        pool.install(|| self.run_on_pool(a, progress))
    }

    fn run_on_pool<T: Value>(
        &self,
        a: &CsrMatrix<T>,
        progress: &mut (dyn FnMut(&Stage) + Send),
    ) -> Result<Reordering, ReorderError> {
        let mode = self.resolve_mode(a)?;
        let start = Instant::now();
        let full = a.pattern();
        let sample = self.sample(a, progress)?;
        let sampling_seconds = start.elapsed().as_secs_f64();
        let seen = sample.as_ref().map_or(&full, |s| &s.pattern);
        let latencies = sample.as_ref().map(|s| SampledLatencies {
            entries: &s.entry_latency,
            row_max: &s.row_max_latency,
        });
        let (rows, row_report) = match mode {
            PermuteMode::Cols => (Permutation::identity(a.nrows()), None),
            _ => {
                let symmetric = mode == PermuteMode::Symmetric;
                let (p, r) =
                    self.order_side(seen, &full, symmetric, latencies, "rows", progress)?;
                (p, Some(r))
            }
        };
        let run_block = self
            .run_block(a.nrows(), a.ncols())
            .filter(|_| mode != PermuteMode::Cols);
        let (rows, length_runs) = match run_block {
            Some(block) => {
                let runs = LengthRuns {
                    block,
                    d_without: d_in_order(&full, &rows)?,
                };
                let sorted =
                    crate::length_runs::sort_lengths_in_blocks(&rows, block, |r| a.row_nnz(r))?;
                (sorted, Some(runs))
            }
            None => (rows, None),
        };
        let (cols, col_report) = match mode {
            PermuteMode::Symmetric => (rows.clone(), None),
            PermuteMode::Rows => (Permutation::identity(a.ncols()), None),
            PermuteMode::Cols | PermuteMode::Both => {
                let seen_t = seen.transpose();
                // Without a sample the seen pattern is the full one: no second transpose.
                let full_t = sample.is_some().then(|| full.transpose());
                let structure_t = full_t.as_ref().unwrap_or(&seen_t);
                let col_max = sample.as_ref().map(column_max_latency);
                let col_lat =
                    sample
                        .as_ref()
                        .zip(col_max.as_ref())
                        .map(|(s, m)| SampledLatencies {
                            entries: &s.entry_latency,
                            row_max: m,
                        });
                let (q, r) =
                    self.order_side(&seen_t, structure_t, false, col_lat, "cols", progress)?;
                (q, Some(r))
            }
        };
        let reorder_seconds = start.elapsed().as_secs_f64();
        progress(&Stage::Measuring);
        // `D` after is that of the rows in their new order: relabelling columns changes no row
        // distance. The reordered pattern is built only for windows of several rows (without
        // it, `--method rcm` on the shuffled 1M-row grid took 0.1 s less).
        let d_before = total_distance(&full, Parallelism::Rayon);
        let d_after = d_in_order(&full, &rows)?;
        let after = || full.permute(&rows, &cols);
        let single_rows = |lengths: &[usize]| lengths.iter().all(|&l| l == 1);
        let sides: Vec<&SideReport> = row_report.iter().chain(col_report.iter()).collect();
        let tsp: Vec<&TspReport> = sides.iter().filter_map(|s| s.tsp.as_ref()).collect();
        let tsp_cost = (!tsp.is_empty()).then(|| tsp.iter().map(|t| t.cost).sum::<i64>());
        let tsp_lower_bound =
            (!tsp.is_empty()).then(|| tsp.iter().map(|t| t.lower_bound).sum::<i64>());
        let report = ReorderReport {
            windows: sides.first().map_or(0, |s| s.windows),
            tsp_cost,
            tsp_lower_bound,
            tsp_gap: tsp_cost
                .zip(tsp_lower_bound)
                .map(|(c, b)| relative_gap(c, b))
                .filter(|gap| gap.is_finite()),
            method: self.method.to_string(),
            sampler: self.sampler.to_string(),
            window: self.window.to_string(),
            start: (self.method == Method::Tsp).then(|| self.start_order().to_string()),
            permute: mode.to_string(),
            seed: self.seed,
            length_runs,
            reorder_seconds,
            sampling_seconds,
            d_before,
            d_after,
            d_w_before: match self.window {
                WindowSpec::Fixed(1) => Some(d_before),
                _ => self.spec_d_w(&full, latencies)?,
            },
            d_w_after: match (&row_report, self.method) {
                // Rows sorted into runs of lengths no longer keep their windows together.
                (Some(r), Method::Tsp)
                    if run_block.is_none()
                        && let Some(lengths) = &r.window_lengths_in_order =>
                {
                    if single_rows(lengths) {
                        Some(d_after)
                    } else {
                        Some(carried_d_w(&after()?, &rows, r)?)
                    }
                }
                _ if matches!(self.window, WindowSpec::Latency { .. }) => None,
                _ if self.window == WindowSpec::Fixed(1) => Some(d_after),
                _ => self.spec_d_w(&after()?, None)?,
            },
            rows: row_report,
            cols: col_report,
            coverage: sample.map(|s| s.coverage),
        };
        Ok(Reordering { rows, cols, report })
    }

    /// The permutation mode for `a`, checking that a symmetric permutation gets a square matrix.
    fn resolve_mode<T: Value>(&self, a: &CsrMatrix<T>) -> Result<PermuteMode, ReorderError> {
        let square = a.nrows() == a.ncols();
        match self.permute {
            None if square => Ok(PermuteMode::Symmetric),
            None => Ok(PermuteMode::Rows),
            Some(PermuteMode::Symmetric) if !square => Err(ReorderError::Incompatible(format!(
                "a symmetric permutation needs a square matrix, this one is {} x {}; \
                 use --permute rows, cols or both",
                a.nrows(),
                a.ncols()
            ))),
            Some(m) => Ok(m),
        }
    }

    fn sample<T: Value>(
        &self,
        a: &CsrMatrix<T>,
        progress: &mut (dyn FnMut(&Stage) + Send),
    ) -> Result<Option<Sample>, ReorderError> {
        let SamplerChoice::Sampled { spec, .. } = &self.sampler else {
            return Ok(None);
        };
        progress(&Stage::Sampling);
        let opts = SampleOptions {
            seed: self.seed,
            threads: self.threads.unwrap_or_else(rayon::current_num_threads),
        };
        Ok(Some(sample(&a.to_real(), spec, &opts)?))
    }

    /// `D_w` of `pattern` under this configuration's window spec (`None` for latency windows
    /// without latencies).
    fn spec_d_w(
        &self,
        pattern: &CsrMatrix<()>,
        latencies: Option<SampledLatencies<'_>>,
    ) -> Result<Option<u64>, ReorderError> {
        if matches!(self.window, WindowSpec::Latency { .. }) && latencies.is_none() {
            return Ok(None);
        }
        let w = windows_for(self.window, pattern, latencies)?;
        Ok(Some(windowed_distance(pattern, &w, Parallelism::Rayon)?))
    }

    /// Orders the rows of `pattern` (the rows of `Aᵀ` for the column side); `structure` is the
    /// full pattern of the same side, which an RCM start order and the cache check are computed
    /// from; `symmetric` says the row order will also order the columns (`x`).
    fn order_side(
        &self,
        pattern: &CsrMatrix<()>,
        structure: &CsrMatrix<()>,
        symmetric: bool,
        latencies: Option<SampledLatencies<'_>>,
        side: &'static str,
        progress: &mut (dyn FnMut(&Stage) + Send),
    ) -> Result<(Permutation, SideReport), ReorderError> {
        let start = Instant::now();
        let peer = match self.method {
            Method::Tsp => None,
            Method::Rcm => Some(peers::Method::Rcm),
            Method::Gorder => Some(peers::Method::Gorder),
            Method::Degree => Some(peers::Method::DegreeDescending),
            Method::Identity => Some(peers::Method::Identity),
            Method::Random => Some(peers::Method::Random),
        };
        if let Some(m) = peer {
            progress(&Stage::Ordering { side });
            let opts = PeerOptions {
                seed: self.seed,
                ..PeerOptions::default()
            };
            let p = peers::order(pattern, m, &opts)?;
            return Ok((p, SideReport::peer(side, start.elapsed().as_secs_f64())));
        }
        progress(&Stage::Graph { side });
        let start_order = self.start_order();
        let first = match start_order {
            StartOrder::Rcm => Some(peers::order(
                structure,
                peers::Method::Rcm,
                &PeerOptions::default(),
            )?),
            StartOrder::Greedy | StartOrder::Given => None,
        };
        let reordered;
        let row_max;
        let (pattern, latencies) = match &first {
            None => (pattern, latencies),
            Some(p) => {
                reordered = pattern.permute_rows(p)?;
                row_max = latencies.map(|l| p.apply(l.row_max));
                let lat = latencies
                    .zip(row_max.as_deref())
                    .map(|(l, m)| SampledLatencies {
                        entries: l.entries,
                        row_max: m,
                    });
                (&reordered, lat)
            }
        };
        let windows = windows_for(self.window, pattern, latencies)?;
        // The input and start orders are priced first: when not even an order at the model's
        // floor would pass the check against them, neither the graph nor the path is computed.
        let pricing = self
            .cache_check
            .as_ref()
            .map(|model| Pricing::new(model, structure, symmetric));
        let mut priced = pricing.as_ref().map(|p| p.price_others(first.as_ref()));
        let lower_d =
            |start: &Permutation, input: &Permutation| start_has_lower_d(structure, start, input);
        // The order returned without a path: the input's or the start's, as the check prefers.
        // `built`: why no path was computed once the graph had been, its build time and its
        // bounded columns.
        let without_path =
            |priced: Priced,
             first: Option<Permutation>,
             built: Option<(StartNearBound, f64, usize)>| {
                let (perm, mut check) = priced.choose(first, None, lower_d)?;
                let (graph_seconds, bounded_columns) = built.map_or((0.0, 0), |(_, s, b)| (s, b));
                check.start_near_bound = built.map(|(near, _, _)| near);
                let report = SideReport {
                    side,
                    windows: windows.len(),
                    window_lengths_in_order: moved_windows(check.kept, &windows, start_order, None),
                    graph_seconds,
                    order_seconds: start.elapsed().as_secs_f64() - graph_seconds,
                    bounded_columns,
                    tsp: None,
                    cache_check: Some(check),
                };
                Ok::<_, ReorderError>((perm, report))
            };
        if let Some(priced) = priced.take_if(|priced| !priced.path_can_pass()) {
            return without_path(priced, first, None);
        }
        let opts = GraphOptions::default()
            .with_neighbours(self.neighbours)
            .with_hub_limit(self.hub_limit);
        let graph = WindowGraph::build(pattern, &windows, &opts)?;
        let graph_seconds = start.elapsed().as_secs_f64();
        if priced.is_some() {
            let near = StartNearBound::of(&graph);
            if let Some(priced) = priced.take_if(|_| near.holds()) {
                let built = (near, graph_seconds, graph.bounded_columns());
                return without_path(priced, first, Some(built));
            }
        }
        // Rows' lengths in the graph's numbering, for the price of a length change.
        let lengths =
            (self.length_change_cost > 0 && side == "rows" && self.window == WindowSpec::Fixed(1))
                .then(|| {
                    (0..windows.len())
                        .map(|g| structure.row_nnz(first.as_ref().map_or(g, |p| p.new_to_old()[g])))
                        .collect::<Vec<_>>()
                });
        let oracle = WindowCost {
            graph: &graph,
            lengths: lengths.as_deref(),
            change_cost: i64::from(self.length_change_cost),
        };
        let cands = candidate_lists(&oracle)?;
        // On a sample, windows without sampled nonzeros carry no information: keep the start
        // order and only make moves the sample shows to be strict improvements (no kicks, which
        // accept equal-cost moves), so that such windows keep their place instead of drifting.
        let sampled = matches!(self.sampler, SamplerChoice::Sampled { .. });
        let solver = SolverOptions {
            construction: match start_order {
                StartOrder::Greedy => Construction::Greedy,
                StartOrder::Given | StartOrder::Rcm => Construction::Identity,
            },
            chained: !sampled,
            seed: self.seed,
            time_limit: self.time_limit,
            // `None` asks for the solver's own default, one kick per window; the time limit, when
            // given, may stop the kicks earlier.
            max_kicks: self.max_kicks.or(Some(windows.len() as u64)),
            ..SolverOptions::default()
        };
        let budget = self.time_limit.map(|d| d.as_secs_f64());
        // `offset`: time the side's earlier solves took, so that the bar fills once over both.
        // `checkpoint`: a look partway through the first descent ([`solve_path_with_checkpoint`]).
        let solve_checked =
            |opts: &SolverOptions,
             checkpoint: Option<Checkpoint<'_>>,
             offset: Duration,
             progress: &mut (dyn FnMut(&Stage) + Send)| {
                let mut report = |p: &Progress| {
                    let elapsed = (offset + p.elapsed).as_secs_f64();
                    let fraction = match budget {
                        Some(b) if b > 0.0 => (elapsed / b).min(1.0),
                        _ => p.fraction,
                    };
                    progress(&Stage::Solving {
                        side,
                        fraction,
                        cost: p.cost,
                    })
                };
                match checkpoint {
                    Some(c) => solve_path_with_checkpoint(&cands, &oracle, opts, c, &mut report),
                    None => solve_path(&cands, &oracle, opts, &mut report),
                }
            };
        let solve =
            |opts: &SolverOptions, offset: Duration, progress: &mut (dyn FnMut(&Stage) + Send)| {
                solve_checked(opts, None, offset, progress)
            };
        let rows_of = |order: &[usize]| -> Result<Permutation, ReorderError> {
            let path_rows = windows.row_order(order)?;
            Ok(match &first {
                Some(p) => p.then(&path_rows)?,
                None => path_rows,
            })
        };
        let (solution, perm, cache_check) = match pricing.as_ref().zip(priced) {
            None => {
                let solution = solve(&solver, Duration::ZERO, progress)?;
                let path = rows_of(&solution.order)?;
                (solution, path, None)
            }
            Some((pricing, mut priced)) => {
                // The 2-opt + Or-opt path first: Lin-Kernighan and the kicks refine it only if
                // it may pass the check (most of a default run's time went into refining paths
                // the check then set aside).
                let draft_opts = SolverOptions {
                    local_search: LocalSearch::TwoOptOrOpt,
                    chained: false,
                    ..solver.clone()
                };
                let solve_start = Instant::now();
                // The descent pauses at a checkpoint, where a path already priced far behind is
                // set aside unfinished; otherwise it goes on as if it had not paused.
                let mut at_checkpoint = None;
                let mut look = |order: &[usize]| {
                    // A path the solver made is a permutation: on the impossible error, go on.
                    let Ok(rows) = rows_of(order) else {
                        return true;
                    };
                    let cost = pricing.cost(&rows);
                    at_checkpoint = Some(cost);
                    !priced.hopeless(cost)
                };
                let checkpoint = Checkpoint {
                    pops: windows.len().div_ceil(DRAFT_CHECKPOINT_DIVISOR) as u64,
                    go_on: &mut look,
                };
                let draft = solve_checked(&draft_opts, Some(checkpoint), Duration::ZERO, progress)?;
                let draft_path = rows_of(&draft.order)?;
                priced.draft_abandoned = at_checkpoint.is_some_and(|c| priced.hopeless(c));
                priced.draft = Some(match at_checkpoint {
                    Some(cost) if priced.draft_abandoned => cost,
                    _ => pricing.cost(&draft_path),
                });
                let (solution, path) = if priced.path_may_pass() {
                    let spent = solve_start.elapsed();
                    let refine_opts = SolverOptions {
                        initial_order: Some(draft.order),
                        time_limit: self.time_limit.map(|t| t.saturating_sub(spent)),
                        ..solver
                    };
                    let refined = solve(&refine_opts, spent, progress)?;
                    let path = rows_of(&refined.order)?;
                    priced.refined = Some(pricing.cost(&path));
                    let stats = draft.stats.then(&refined.stats);
                    (PathSolution { stats, ..refined }, path)
                } else {
                    (draft, draft_path)
                };
                let (perm, check) = priced.choose(first, Some(path), lower_d)?;
                (solution, perm, Some(check))
            }
        };
        let kept = cache_check.as_ref().map_or("path", |c| c.kept);
        let report = SideReport {
            side,
            windows: windows.len(),
            window_lengths_in_order: moved_windows(
                kept,
                &windows,
                start_order,
                Some(&solution.order),
            ),
            graph_seconds,
            order_seconds: start.elapsed().as_secs_f64() - graph_seconds,
            bounded_columns: graph.bounded_columns(),
            tsp: Some(TspReport::from_solution(
                &solution,
                graph.path_lower_bound(),
                oracle.identity_cost(),
                if oracle.lengths.is_some() {
                    self.length_change_cost
                } else {
                    0
                },
            )),
            cache_check,
        };
        Ok((perm, report))
    }
}

/// The window lengths in the order the returned order `kept` moves them as units (see
/// [`SideReport::window_lengths_in_order`]): the path's (`path_order`) or the windows as cut in
/// the start order, which is the input order unless it is RCM (`None` for the input order then).
fn moved_windows(
    kept: &str,
    windows: &Windows,
    start_order: StartOrder,
    path_order: Option<&[usize]>,
) -> Option<Vec<usize>> {
    let lengths = windows.lengths();
    match (kept, path_order) {
        ("path", Some(order)) => Some(order.iter().map(|&g| lengths[g]).collect()),
        ("start", _) => Some(lengths),
        _ if start_order != StartOrder::Rcm => Some(lengths),
        _ => None,
    }
}

/// `D` of `pattern`'s rows in the order of `rows`: that of `P·A·Qᵀ` for any column order `Q`.
fn d_in_order(pattern: &CsrMatrix<()>, rows: &Permutation) -> Result<u64, ReorderError> {
    Ok(distance_in_order(
        pattern,
        rows.new_to_old(),
        Parallelism::Rayon,
    )?)
}

/// Whether the rows of `structure` have a lower `D` in order `start` than in order `input`.
fn start_has_lower_d(
    structure: &CsrMatrix<()>,
    start: &Permutation,
    input: &Permutation,
) -> Result<bool, ReorderError> {
    Ok(d_in_order(structure, start)? < d_in_order(structure, input)?)
}

/// How much cheaper than the input and start orders the cache model must price the TSP path for
/// the check to return it, in percent. The model (like cachegrind) has no hardware prefetcher and
/// favours the path: with the unbiased benchmark, a shuffled 700² Poisson grid whose path it
/// priced 7% below RCM ran 12-15% slower than RCM (1 and 2 threads, `bench --after`; cachegrind
/// also had the path at 3.8% fewer L1 and equal LL misses), astro-ph's path, priced 6.7% below,
/// ran 3-5% slower at 1 thread, and over the bundled matrices where the check kept the path, it
/// ran 0.99x / 0.97x RCM's speed in geometric mean (docs/RESULTS.md).
pub const PATH_MARGIN_PERCENT: u64 = 15;

/// How close, in percent, the cache check's prices of the input order and the start order (RCM)
/// must be for the model to count them as tied; the one with the lower `D` is then returned.
/// Where `x` fits the modelled caches, both cost their compulsory misses (or a few more, as the
/// matrix streams evict a line or two), and the model cannot tell them apart. On the 30 bundled
/// matrices, shuffled, the check then kept the shuffled input on 8 (6 exact ties, cage8 3.1%
/// apart, mcfe 1.0%), where RCM's order ran 1.020x / 1.008x (1 / 2 threads, ninth session's
/// evaluation) and 1.010x / 1.007x (eighth session's) as fast; on the 14 natural-order
/// matrices where it kept the input, RCM's order had the lower `D` on 4 and ran 0.99-1.05x as
/// fast there, and the higher `D` on the 10 others, among them bayer10 and west2021, where it
/// ran 0.88-0.94x (docs/RESULTS.md, tenth session).
pub const MODEL_TIE_PERCENT: u64 = 5;

/// How much the refinement of the 2-opt path (Lin-Kernighan, kicks) may lower its modelled cost,
/// in percent, for the check to let it try: the path is refined only when its 2-opt version,
/// priced this much lower, would pass the check. On the 30 bundled matrices, shuffled,
/// Lin-Kernighan lowered the modelled cost of the 2-opt path by at most 11% (crack, wing), and
/// the check returned the path on none of them.
pub const REFINE_HEADROOM_PERCENT: u64 = 15;

/// How close, in percent, the start order's cost in the window graph (`D_w` of the windows in
/// their order) must be to the graph's lower bound of any path for the cache check to compute no
/// path: the path could then lower `D_w` by at most this much, and the orders a solver finds at
/// nearly the same `D_w` are the start order rearranged. On shuffled Poisson grids RCM's order
/// is within 0.3-1.9% of the bound (700², 60³, 100³), and the default spent 0.17-7.3 s of
/// 0.44-8.1 s refining or descending to paths the check then set aside; the eighth session
/// measured the 700² grid's path, RCM's order in a snake, 0.78-0.84x as fast as RCM's. On the
/// 30 bundled matrices the start order was at least 1.43x the bound wherever a path was
/// computed (docs/RESULTS.md, twelfth session).
pub const START_NEAR_BOUND_PERCENT: u64 = 5;

/// What the default TSP path pays for a change of row length between consecutive rows, in units
/// of `d` (changed columns): [`Reorderer::length_change_cost`]. A mispredicted row end costs about
/// 15 cycles on an AMD EPYC (docs/RESULTS.md, thirteenth session), about what the cache model
/// charges for an `x` read that misses L1 and hits L2 (14), and not every changed column misses.
/// On the 30 bundled matrices, shuffled, the path (`--no-cache-check`) keeps the lowest `D` on 28
/// of 30 with 2. On the AMD host it ran 1.014-1.035x as fast as RCM's order at one thread (five
/// runs; 0.993 with 0) and 0.979-1.000x at two; with 3 and 4 it kept the lowest `D` on 27, with 6
/// on 22 and with 10 on 17, for at most 1.047x at one thread and 1.005x at two. On an Intel Xeon
/// (fourteenth session) 2 ran 1.037-1.061x at one thread and 1.039-1.053x at two, 4 ran
/// 1.098-1.111x and 1.070-1.073x with the lowest `D` on 27 of 30 (exactly 90%), 8 1.131x and
/// 1.080x on 19. 2 keeps a margin in `D`.
pub const DEFAULT_LENGTH_CHANGE_COST: u32 = 2;

/// The checkpoint of the draft's 2-opt + Or-opt descent, in queue pops: one for every
/// `DRAFT_CHECKPOINT_DIVISOR` windows. From a start in RCM's order the whole descent pops two or
/// more per window, so this is a quarter of it or less. See [`DRAFT_ABANDON_PERCENT`].
pub const DRAFT_CHECKPOINT_DIVISOR: usize = 2;

/// A draft priced at least this percentage of the cheaper other order (the input's or the
/// start's) at its checkpoint ([`DRAFT_CHECKPOINT_DIVISOR`]) is not finished: the check returns
/// the other order, sooner. The check keeps a path only when its finished draft is priced below
/// the other orders ([`REFINE_HEADROOM_PERCENT`], [`PATH_MARGIN_PERCENT`]), and on the 12 bundled
/// matrices (shuffled) where a draft was computed, its price fell by at most 14% between the
/// checkpoint and the end of the descent (astro-ph: 1.11 -> 0.95 of the cheaper order; bayer10
/// 1.59 -> 1.43). At 140% the descent stops on wing (1.91 at the checkpoint), delaunay_n15
/// (1.47), e40r0100 (1.60) and bayer10 (1.59); the same orders are returned (docs/RESULTS.md,
/// fourteenth session).
pub const DRAFT_ABANDON_PERCENT: u64 = 140;

/// Rows per block that the default `tsp` ordering sorts by length after ordering
/// ([`Reorderer::length_runs`]). Measured against RCM's order on two machines (docs/RESULTS.md,
/// thirteenth and fourteenth sessions):
/// - On an Intel Xeon (L2 2 MiB), the 30 bundled matrices, shuffled, ran 1.12-1.13x as fast at
///   one thread with blocks of 32, 1.16x with 64, 1.16-1.18x with 128 and 1.22x with 1024. A
///   shuffled random geometric graph of 400k rows, whose `x` exceeds L2, peaked at 128-256
///   (1.24-1.31x; 64: 1.16x, 512: 1.23-1.26x, the whole matrix 1.14x).
/// - On an AMD EPYC (L2 1 MiB) the geometric graph ran 1.42-1.50x with 32, 1.42x with 128 and
///   1.16x with 512; the bundled matrices gave the same with 16, 32 and 64.
///
/// 128 is the block that neither machine's large graph punished. [`RunBlocks::Auto`] uses it for
/// matrices of more than [`SORT_ALL_MAX_COLUMNS`] columns.
pub const DEFAULT_RUN_BLOCK: usize = 128;

/// Up to this many columns ([`RunBlocks::Auto`]: `x` of 256 KiB in `f64`, a quarter of the
/// smaller L2 of the project's two hosts), the default length runs sort all rows together: `x`
/// then stays in L2 whatever the order, and one run per row length is fewer changes than blocks
/// make. Measured on an Intel Xeon (L2 2 MiB; docs/RESULTS.md, fourteenth session), RCM's order
/// against RCM's at one thread:
/// - the 30 bundled matrices, shuffled (28 within the limit): 1.233-1.240x with `auto`,
///   1.166-1.174x with blocks of 128 everywhere (two runs; at two threads 1.158-1.181x and
///   1.107-1.123x); the one steady loss was bcsstk13 (2,003 rows) at two threads, 0.90-0.96x;
/// - generated and shuffled, all rows sorted: random geometric graphs of 8k, 30k and 60k rows
///   2.38-2.47x, 1.92x and 2.30-2.40x (blocks of 128: 2.10-2.29x, 1.83-1.84x, 2.16-2.23x), a
///   banded matrix of 20k rows 1.38-1.42x (1.31-1.32x), an R-MAT graph of 32k rows 1.11-1.16x
///   (1.04-1.06x);
/// - beyond L2, at two threads, a geometric graph of 400k rows 1.14x against 1.24-1.31x with
///   blocks of 128.
pub const SORT_ALL_MAX_COLUMNS: usize = 32_768;

/// What the cache check prices: SpMV's `x` reads of `structure` under a row order, and the same
/// column order when symmetric, else the columns as they are.
struct Pricing<'a> {
    model: &'a CacheModel,
    structure: &'a CsrMatrix<()>,
    /// The column order of every priced order when the permutation is not symmetric (built once
    /// for the three or four orders priced).
    fixed_cols: Option<Permutation>,
}

impl<'a> Pricing<'a> {
    fn new(model: &'a CacheModel, structure: &'a CsrMatrix<()>, symmetric: bool) -> Self {
        let fixed_cols = (!symmetric).then(|| Permutation::identity(structure.ncols()));
        Self {
            model,
            structure,
            fixed_cols,
        }
    }

    fn cost(&self, rows: &Permutation) -> ModelledCost {
        let cols = self.fixed_cols.as_ref().unwrap_or(rows);
        self.model.cost(self.structure, rows, cols)
    }

    /// The input order and the start order (when there is one besides the input), priced side
    /// by side on the pool's threads (the check took about a fifth of a default run on the
    /// shuffled 1M-row grid, one replay after the other), and the model's floor.
    fn price_others(&self, start: Option<&Permutation>) -> Priced {
        let input_order = Permutation::identity(self.structure.nrows());
        let (input, start) =
            rayon::join(|| self.cost(&input_order), || start.map(|p| self.cost(p)));
        Priced {
            input_order,
            input,
            start,
            floor: self.model.floor(self.structure),
            draft: None,
            draft_abandoned: false,
            refined: None,
        }
    }
}

/// The modelled costs the cache check weighs.
struct Priced {
    /// The input order (the identity), returned when it is the cheapest.
    input_order: Permutation,
    input: ModelledCost,
    start: Option<ModelledCost>,
    /// What no order costs less than ([`CacheModel::floor`]).
    floor: ModelledCost,
    /// The path after the 2-opt + Or-opt descent, once computed (at the checkpoint when the
    /// descent was abandoned there).
    draft: Option<ModelledCost>,
    /// Whether the descent was stopped at its checkpoint ([`DRAFT_CHECKPOINT_DIVISOR`]) because
    /// the path was priced [`DRAFT_ABANDON_PERCENT`] percent of the cheaper other order or more.
    draft_abandoned: bool,
    /// The path refined from the draft, when it was.
    refined: Option<ModelledCost>,
}

impl Priced {
    /// The cheapest of the orders other than the path, in modelled cycles.
    fn cheapest_other(&self) -> u64 {
        self.start
            .iter()
            .fold(self.input.cycles, |c, s| c.min(s.cycles))
    }

    /// The cheaper other order's cost less the margin, in cycles times 100: the line a path's cost
    /// times 100 must not cross.
    fn margin_line(&self) -> u128 {
        self.cheapest_other() as u128 * (100 - PATH_MARGIN_PERCENT) as u128
    }

    /// Whether a path costing `cycles` passes the check.
    fn passes(&self, cycles: u128) -> bool {
        cycles * 100 <= self.margin_line()
    }

    /// Whether a path priced `cost` at the draft's checkpoint ([`DRAFT_CHECKPOINT_DIVISOR`]) is
    /// too far behind to finish: at least [`DRAFT_ABANDON_PERCENT`] percent of the cheaper other
    /// order.
    fn hopeless(&self, cost: ModelledCost) -> bool {
        cost.cycles as u128 * 100 >= self.cheapest_other() as u128 * DRAFT_ABANDON_PERCENT as u128
    }

    /// Whether any path could pass the check: one at the model's floor would.
    fn path_can_pass(&self) -> bool {
        self.passes(self.floor.cycles as u128)
    }

    /// Whether the draft, priced [`REFINE_HEADROOM_PERCENT`] lower, would pass the check
    /// (false before the draft is priced).
    fn path_may_pass(&self) -> bool {
        self.draft.is_some_and(|draft| {
            let path = draft.cycles as u128 * (100 - REFINE_HEADROOM_PERCENT) as u128;
            path < self.margin_line()
        })
    }

    /// The path when its `x` reads cost at least [`PATH_MARGIN_PERCENT`] less than those of the
    /// input order and of the start order, else the cheaper of those two, or when the model
    /// prices them within [`MODEL_TIE_PERCENT`] of each other, the one `start_has_lower_d` (given
    /// the start order and the input order) prefers, ties to the input; with the report of the
    /// check.
    ///
    /// # Errors
    /// Those of `start_has_lower_d`.
    fn choose(
        self,
        start: Option<Permutation>,
        path: Option<Permutation>,
        start_has_lower_d: impl FnOnce(&Permutation, &Permutation) -> Result<bool, ReorderError>,
    ) -> Result<(Permutation, CacheCheck), ReorderError> {
        let path_cost = self.refined.or(self.draft);
        let path = path
            .zip(path_cost)
            .filter(|(_, cost)| self.passes(cost.cycles as u128))
            .map(|(path, _)| path);
        let path_wins = path.is_some();
        let tied = self
            .start
            .is_some_and(|s| tied(s.cycles, self.input.cycles));
        let (kept, perm) = match (start.zip(self.start), path) {
            (_, Some(path)) => ("path", path),
            (Some((order, _)), None) if tied && start_has_lower_d(&order, &self.input_order)? => {
                ("start", order)
            }
            (Some((order, cost)), None) if !tied && cost.cycles < self.input.cycles => {
                ("start", order)
            }
            _ => ("input", self.input_order),
        };
        let check = CacheCheck {
            input: self.input,
            start: self.start,
            floor: self.floor,
            start_near_bound: None,
            path: path_cost,
            draft: self.draft,
            draft_abandoned: self.draft_abandoned,
            refined: self.refined.is_some(),
            tied: tied && !path_wins,
            kept,
        };
        Ok((perm, check))
    }
}

/// Whether the model prices `a` and `b` within [`MODEL_TIE_PERCENT`] of each other.
fn tied(a: u64, b: u64) -> bool {
    a.abs_diff(b) as u128 * 100 <= a.max(b) as u128 * MODEL_TIE_PERCENT as u128
}

/// `D_w` of the reordered matrix under the windows the TSP moved as units.
fn carried_d_w(
    after: &CsrMatrix<()>,
    rows: &Permutation,
    side: &SideReport,
) -> Result<u64, ReorderError> {
    let lengths = side
        .window_lengths_in_order
        .as_deref()
        .expect("TSP sides record their window lengths");
    debug_assert_eq!(lengths.iter().sum::<usize>(), rows.len());
    let w = Windows::from_lengths(lengths)?;
    Ok(windowed_distance(after, &w, Parallelism::Rayon)?)
}

/// The per-column maximum sampled latency, for latency windows on the column side.
fn column_max_latency(s: &Sample) -> Vec<Option<u32>> {
    let mut max = vec![None; s.pattern.ncols()];
    for (k, &c) in s.pattern.col_idx().iter().enumerate() {
        let l = s.entry_latency[k];
        if l > 0 {
            let m: &mut Option<u32> = &mut max[c as usize];
            *m = Some(m.map_or(l, |v| v.max(l)));
        }
    }
    max
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

/// The result of a reordering: `B = P·A·Qᵀ` with `P = rows`, `Q = cols`.
#[derive(Debug, Clone)]
pub struct Reordering {
    /// The row permutation `P`.
    pub rows: Permutation,
    /// The column permutation `Q` (equal to `rows` for a symmetric permutation).
    pub cols: Permutation,
    /// What was done and measured.
    pub report: ReorderReport,
}

impl Reordering {
    /// `P·A·Qᵀ`, values kept exactly.
    ///
    /// # Errors
    /// [`ReorderError::Sparse`] when `a` has other dimensions than the reordered matrix.
    pub fn apply<T: Value>(&self, a: &CsrMatrix<T>) -> Result<CsrMatrix<T>, ReorderError> {
        Ok(a.permute(&self.rows, &self.cols)?)
    }

    /// `Q·x`: an input vector in the reordered column order.
    pub fn permute_input<V: Copy>(&self, x: &[V]) -> Vec<V> {
        self.cols.apply(x)
    }

    /// `Pᵀ·y`: a result of the reordered matrix back in the original row order.
    pub fn unpermute_output<V: Copy>(&self, y: &[V]) -> Vec<V> {
        self.rows.apply_inverse(y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use spmv_reorder_gen::{poisson2d, poisson3d, shuffle_symmetric};

    /// The defaults without length runs, so that the tests of the check and the path see the
    /// orders they chose; `length_runs_follow_the_ordering` tests the runs.
    fn quick() -> Reorderer {
        Reorderer::new()
            .threads(Some(2))
            .max_kicks(Some(200))
            .length_runs(Some(RunBlocks::Off))
    }

    /// Pairs of consecutive rows of different lengths in `r`'s row order.
    /// Whether every block of `block` consecutive lengths is in increasing order.
    fn sorted_in_blocks(lengths: &[usize], block: usize) -> bool {
        lengths
            .chunks(block)
            .all(|b| b.windows(2).all(|w| w[0] <= w[1]))
    }

    fn length_changes(r: &Reordering, a: &CsrMatrix<f64>) -> usize {
        r.rows
            .new_to_old()
            .windows(2)
            .filter(|w| a.row_nnz(w[0]) != a.row_nnz(w[1]))
            .count()
    }

    /// The TSP objective of the rows in `r`'s order: `D`, plus the default length change cost for
    /// each pair of consecutive rows of different lengths.
    fn path_cost(r: &Reordering, a: &CsrMatrix<f64>) -> u64 {
        let changes = length_changes(r, a) as u64;
        let tsp = r.report.rows.as_ref().unwrap().tsp.as_ref().unwrap();
        assert_eq!(tsp.length_change_cost, DEFAULT_LENGTH_CHANGE_COST);
        r.report.d_after + u64::from(DEFAULT_LENGTH_CHANGE_COST) * changes
    }

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
    fn length_runs_follow_the_ordering() {
        // A shuffled geometric graph: rows of many lengths.
        let (a, _) = shuffle_symmetric(
            &spmv_reorder_gen::random_geometric(3000, 8.0, 5).unwrap(),
            3,
        )
        .unwrap();
        let lengths = |p: &Permutation| -> Vec<usize> {
            p.new_to_old().iter().map(|&r| a.row_nnz(r)).collect()
        };
        let plain = quick().run(&a).unwrap();
        // The defaults' runs, on the same settings otherwise: this matrix has few enough
        // columns for all its rows to be sorted together.
        assert!(a.ncols() <= SORT_ALL_MAX_COLUMNS);
        let runs = quick().length_runs(None).run(&a).unwrap();
        let made = runs.report.length_runs.unwrap();
        assert_eq!(made.block, a.nrows());
        assert_eq!(made.d_without, plain.report.d_after);
        assert_eq!(plain.report.length_runs, None);
        assert!(!sorted_in_blocks(&lengths(&plain.rows), DEFAULT_RUN_BLOCK));
        assert!(sorted_in_blocks(&lengths(&runs.rows), a.nrows()));
        assert_eq!(
            runs.rows,
            crate::length_runs::sort_lengths_in_blocks(&plain.rows, a.nrows(), |r| a.row_nnz(r))
                .unwrap()
        );
        // Blocks when asked for.
        let blocks = quick()
            .length_runs(Some(RunBlocks::Fixed(DEFAULT_RUN_BLOCK)))
            .run(&a)
            .unwrap();
        assert_eq!(blocks.report.length_runs.unwrap().block, DEFAULT_RUN_BLOCK);
        assert!(sorted_in_blocks(&lengths(&blocks.rows), DEFAULT_RUN_BLOCK));
        assert!(!sorted_in_blocks(&lengths(&blocks.rows), a.nrows()));
        assert_eq!(runs.cols, runs.rows);
        assert_eq!(
            runs.report.d_after,
            d_in_order(&a.pattern(), &runs.rows).unwrap()
        );
        // Off for the peers and for windows of several rows unless asked for.
        let rcm = Reorderer::new().method(Method::Rcm);
        assert_eq!(rcm.clone().run(&a).unwrap().report.length_runs, None);
        let asked = rcm.length_runs(Some(RunBlocks::Fixed(8))).run(&a).unwrap();
        assert!(sorted_in_blocks(&lengths(&asked.rows), 8));
        let windowed = Reorderer::new()
            .windows(WindowSpec::Fixed(4))
            .time_limit(Some(Duration::from_secs(1)));
        assert_eq!(windowed.run(&a).unwrap().report.length_runs, None);
    }

    #[test]
    fn cache_check_returns_the_order_whose_modelled_misses_cost_least() {
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
        let floor_passes = c.floor.cycles * 100 <= others * (100 - PATH_MARGIN_PERCENT);
        assert_eq!(c.path.is_some(), floor_passes, "{c:?}");
        let path = c.path.map(|p| p.cycles);
        let path_wins = path.is_some_and(|p| p * 100 <= others * (100 - PATH_MARGIN_PERCENT));
        assert_eq!(got, if path_wins { path.unwrap() } else { others });
        let want = if path_wins {
            "path"
        } else if c.input.cycles <= start {
            "input"
        } else {
            "start"
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
    fn the_check_breaks_a_modelled_tie_by_d() {
        let cost = |cycles| ModelledCost {
            l1_misses: cycles,
            l2_misses: 0,
            cycles,
        };
        let priced = |input, start, path| Priced {
            input_order: Permutation::identity(3),
            input: cost(input),
            start: Some(cost(start)),
            floor: cost(0),
            draft: Some(cost(path)),
            draft_abandoned: false,
            refined: None,
        };
        let rcm = Permutation::from_new_to_old(vec![2, 1, 0]).unwrap();
        let path = Permutation::from_new_to_old(vec![1, 0, 2]).unwrap();
        let choose = |p: Priced, start_lower: bool| {
            let mut asked = false;
            let (perm, check) = p
                .choose(Some(rcm.clone()), Some(path.clone()), |start, input| {
                    asked = true;
                    assert_eq!((start, input), (&rcm, &Permutation::identity(3)));
                    Ok(start_lower)
                })
                .unwrap();
            (perm, check.kept, check.tied, asked)
        };
        // Within 5%: `D` decides, either way.
        assert_eq!(
            choose(priced(100, 104, 200), true),
            (rcm.clone(), "start", true, true)
        );
        let input = Permutation::identity(3);
        assert_eq!(
            choose(priced(104, 100, 200), false),
            (input.clone(), "input", true, true)
        );
        assert_eq!(choose(priced(100, 100, 200), true).1, "start");
        // Further apart: the model decides, and `D` is not computed.
        assert_eq!(
            choose(priced(100, 106, 200), true),
            (input, "input", false, false)
        );
        assert_eq!(
            choose(priced(106, 100, 200), false),
            (rcm.clone(), "start", false, false)
        );
        // A path 15% cheaper than both passes whatever the tie.
        let (perm, kept, tied, asked) = choose(priced(100, 100, 85), false);
        assert_eq!(
            (perm, kept, tied, asked),
            (path.clone(), "path", false, false)
        );
        let (_, kept, ..) = choose(priced(100, 100, 86), false);
        assert_eq!(kept, "input");
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
        assert!(c.tied && c.kept == "start", "{c:?}");
        let rcm = peers::order(&a.pattern(), peers::Method::Rcm, &PeerOptions::default()).unwrap();
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
        let c = side.cache_check.as_ref().expect("checked");
        let others = c
            .start
            .map_or(c.input.cycles, |s| s.cycles.min(c.input.cycles));
        let Some(draft) = c.draft else {
            // Not even an order at the floor would have passed, or the start order was near the
            // bound: no path at all.
            let floor_fails = c.floor.cycles * 100 > others * (100 - PATH_MARGIN_PERCENT);
            assert!(floor_fails || c.start_near_bound.is_some_and(|n| n.holds()));
            assert!(!c.refined && c.path.is_none() && side.tsp.is_none());
            return;
        };
        assert_eq!(c.start_near_bound, None, "a path was computed");
        // A draft set aside at its checkpoint was priced far behind there.
        if c.draft_abandoned {
            assert!(
                draft.cycles * 100 >= others * DRAFT_ABANDON_PERCENT,
                "{c:?}"
            );
        }
        let may_pass =
            draft.cycles * (100 - REFINE_HEADROOM_PERCENT) < others * (100 - PATH_MARGIN_PERCENT);
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
            near.holds() && near.lower_bound <= near.start_cost,
            "{near:?}"
        );
        assert!(
            c.path.is_none() && c.draft.is_none() && side.tsp.is_none(),
            "{c:?}"
        );
        assert!(side.graph_seconds > 0.0);
        assert_refined_by_the_rule(side);
        let rcm = peers::order(&a.pattern(), peers::Method::Rcm, &PeerOptions::default()).unwrap();
        assert_eq!((c.kept, &r.rows), ("start", &rcm), "{c:?}");
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
                assert!(c.refined && c.kept == "path", "{c:?}");
                assert_eq!(Some(model.cost(&a, &r.rows, &r.cols)), c.path);
                let tsp = side.tsp.as_ref().unwrap();
                assert!(tsp.after_local_search_cost <= tsp.after_two_opt_cost);
                assert_eq!(r.report.tsp_cost.unwrap() as u64, path_cost(&r, &a));
            }
        }
    }

    #[test]
    fn kicks_are_off_by_default_and_one_per_window_on_request() {
        let (a, _) = shuffle_symmetric(&poisson2d(20, 20).unwrap(), 5).unwrap();
        // Without the check, which refines (LK, kicks) only a path that may pass it.
        let kicks = |r: Reorderer| {
            let r = r.threads(Some(1)).cache_check(None);
            r.run(&a).unwrap().report.rows.unwrap()
        };
        let plain = kicks(Reorderer::new()).tsp.unwrap();
        assert_eq!(plain.kicks, 0);
        let side = kicks(Reorderer::new().max_kicks(None));
        assert_eq!(side.tsp.unwrap().kicks, side.windows as u64);
    }

    #[test]
    fn tsp_recovers_locality_of_a_shuffled_grid() {
        let grid = poisson2d(30, 30).unwrap();
        let natural = total_distance(&grid, Parallelism::Sequential);
        let (a, _) = shuffle_symmetric(&grid, 5).unwrap();
        // The path itself (its x fits L1, where the cache check may keep even a shuffled order).
        let r = quick().cache_check(None).run(&a).unwrap();
        let rep = &r.report;
        assert_eq!(rep.permute, "symmetric");
        // Rows of a 5-point grid share at most 2 columns, so d >= 6 per row pair: the natural order
        // is near the floor, and the TSP path must get below it from a random start.
        assert!(
            rep.d_after < natural,
            "D {} -> {} (natural {natural})",
            rep.d_before,
            rep.d_after
        );
        assert_eq!(rep.d_w_before, Some(rep.d_before), "window 1: D_w = D");
        let tsp = rep.rows.as_ref().unwrap().tsp.as_ref().unwrap();
        assert!(tsp.lower_bound <= tsp.cost);
        assert_eq!(
            tsp.cost as u64,
            path_cost(&r, &a),
            "path cost is D of the reordered matrix and its length changes"
        );
        // RCM, the classic peer, is beaten on D.
        let rcm = quick().method(Method::Rcm).run(&a).unwrap();
        assert!(
            rep.d_after < rcm.report.d_after,
            "tsp {} rcm {}",
            rep.d_after,
            rcm.report.d_after
        );
    }

    #[test]
    fn sampled_and_windowed_runs_work() {
        let (a, _) = shuffle_symmetric(&poisson2d(20, 20).unwrap(), 9).unwrap();
        for (sampler, window) in [("random:0.3", "var"), ("all", "4"), ("random:0.5", "1")] {
            let r = quick()
                .cache_check(None)
                .sampler(sampler.parse().unwrap())
                .windows(window.parse().unwrap())
                .run(&a)
                .unwrap();
            assert!(r.report.d_after < r.report.d_before, "{sampler} {window}");
            assert_eq!(r.report.coverage.is_some(), sampler != "all");
        }
        // A grid this small fits the simulated caches, so DAST sees few misses: latency windows are
        // then large, and only validity (not improvement) can be asked of them here.
        for window in ["latency:avg", "latency:avg,zeros", "latency:20"] {
            // Without the check: on a grid this small it may return the input, which has no
            // windows to report `D_w` of.
            let r = quick()
                .cache_check(None)
                .sampler("dast-sim".parse().unwrap())
                .windows(window.parse().unwrap())
                .run(&a)
                .unwrap();
            assert_eq!(r.rows.len(), a.nrows());
            assert!(
                r.report.coverage.is_some() && r.report.d_w_after.is_some(),
                "{window}"
            );
        }
    }

    #[test]
    fn latency_windows_without_sampler_is_an_error() {
        let a = poisson2d(4, 4).unwrap();
        let e = quick()
            .windows("latency".parse().unwrap())
            .run(&a)
            .unwrap_err();
        assert!(matches!(e, ReorderError::Incompatible(_)), "{e}");
    }

    #[test]
    fn distances_after_are_those_of_the_reordered_pattern() {
        // `D` after is computed from the rows in their new order, without the reordered pattern;
        // it must equal `D` of that pattern, and so must `D_w` for one row per window.
        let (sq, _) = shuffle_symmetric(&poisson2d(12, 9).unwrap(), 4).unwrap();
        let rect = CsrMatrix::from_triplets(
            4,
            6,
            vec![
                (0, 5, 1.0),
                (1, 0, 2.0),
                (2, 5, 3.0),
                (2, 1, 1.0),
                (3, 2, 1.0),
                (3, 0, 1.0),
            ],
        )
        .unwrap();
        let modes = [
            PermuteMode::Symmetric,
            PermuteMode::Rows,
            PermuteMode::Cols,
            PermuteMode::Both,
        ];
        for (a, mode) in modes
            .iter()
            .map(|&m| (&sq, m))
            .chain([(&rect, PermuteMode::Both)])
        {
            for (method, window) in [
                (Method::Tsp, "1"),
                (Method::Tsp, "var"),
                (Method::Rcm, "1"),
                (Method::Rcm, "3"),
            ] {
                let r = quick()
                    .method(method)
                    .windows(window.parse().unwrap())
                    .permute(Some(mode))
                    .run(a)
                    .unwrap();
                let after = a.pattern().permute(&r.rows, &r.cols).unwrap();
                let expect = total_distance(&after, Parallelism::Rayon);
                assert_eq!(r.report.d_after, expect, "{mode:?} {method} {window}");
                if window == "1" {
                    assert_eq!(r.report.d_w_after, Some(expect), "{mode:?} {method}");
                } else if method == Method::Rcm {
                    let w = windows_for(window.parse().unwrap(), &after, None).unwrap();
                    let d_w = windowed_distance(&after, &w, Parallelism::Rayon).unwrap();
                    assert_eq!(r.report.d_w_after, Some(d_w), "{mode:?} {window}");
                }
            }
        }
    }

    #[test]
    fn rectangular_matrices() {
        let a = CsrMatrix::from_triplets(
            3,
            5,
            vec![(0, 4, 1.0), (1, 0, 2.0), (2, 4, 3.0), (2, 1, 1.0)],
        )
        .unwrap();
        let e = quick()
            .permute(Some(PermuteMode::Symmetric))
            .run(&a)
            .unwrap_err();
        assert!(matches!(e, ReorderError::Incompatible(_)));
        let r = quick().run(&a).unwrap();
        assert_eq!(r.report.permute, "rows");
        assert!(r.cols.is_identity());
        let both = quick().permute(Some(PermuteMode::Both)).run(&a).unwrap();
        assert_eq!((both.rows.len(), both.cols.len()), (3, 5));
    }

    #[test]
    fn degenerate_matrices() {
        for (m, n) in [(0, 0), (1, 1), (3, 3)] {
            let a: CsrMatrix<f64> = CsrMatrix::from_triplets(m, n, vec![]).unwrap();
            for method in Method::ALL {
                let r = quick().method(method).run(&a).unwrap();
                assert_eq!(r.rows.len(), m, "{method}");
            }
        }
    }

    fn arb_matrix() -> impl Strategy<Value = CsrMatrix<f64>> {
        (1usize..14, 1usize..14, any::<bool>()).prop_flat_map(|(m, n, square)| {
            let n = if square { m } else { n };
            proptest::collection::vec((0..m, 0..n, -50i32..50), 0..50).prop_map(move |t| {
                CsrMatrix::from_triplets(m, n, t.into_iter().map(|(i, j, v)| (i, j, v as f64)))
                    .unwrap()
            })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The law every mode and method must keep: `SpMV(P·A·Qᵀ)(Q·x) == P·(A·x)`, exactly.
        #[test]
        fn permuted_product_law(
            a in arb_matrix(),
            method in proptest::sample::select(Method::ALL.to_vec()),
            mode in proptest::sample::select(vec![None, Some(PermuteMode::Rows), Some(PermuteMode::Cols), Some(PermuteMode::Both), Some(PermuteMode::Symmetric)]),
            window in proptest::sample::select(vec!["1", "3", "var"]),
            start in proptest::sample::select(vec![None, Some(StartOrder::Greedy), Some(StartOrder::Given), Some(StartOrder::Rcm)]),
            sampler in proptest::sample::select(vec!["all", "random:0.5"]),
            seed in 0u64..4,
            // On matrices this small the check computes no path (see `CacheModel::floor`):
            // without it the path is computed and returned.
            check in any::<bool>(),
            runs in proptest::sample::select(
                vec![None, Some(RunBlocks::Fixed(3)), Some(RunBlocks::Auto)]
            ),
        ) {
            prop_assume!(mode != Some(PermuteMode::Symmetric) || a.nrows() == a.ncols());
            let model = check.then(CacheModel::default);
            let r = quick().method(method).permute(mode).windows(window.parse().unwrap())
                .start(start).sampler(sampler.parse().unwrap()).seed(seed).cache_check(model)
                .length_runs(runs).run(&a).unwrap();
            let b = r.apply(&a).unwrap();
            let x: Vec<f64> = (0..a.ncols()).map(|j| j as f64 - 2.5).collect();
            let (mut ax, mut bqx) = (vec![0.0; a.nrows()], vec![0.0; a.nrows()]);
            a.mul_vec_reference(&x, &mut ax);
            b.mul_vec_reference(&r.permute_input(&x), &mut bqx);
            prop_assert_eq!(&bqx, &r.rows.apply(&ax));
            prop_assert_eq!(r.unpermute_output(&bqx), ax);
            prop_assert_eq!(r.report.d_after, total_distance(&b, Parallelism::Sequential));
            if let (Some(cost), Some(bound)) = (r.report.tsp_cost, r.report.tsp_lower_bound) {
                prop_assert!(bound <= cost, "bound {} above cost {}", bound, cost);
            }
            let block = runs.and_then(|r| r.block(a.nrows(), a.ncols()));
            if let (Some(block), false) = (block, mode == Some(PermuteMode::Cols)) {
                let lengths: Vec<usize> = (0..b.nrows()).map(|i| b.row_nnz(i)).collect();
                prop_assert!(sorted_in_blocks(&lengths, block), "{:?}", lengths);
            }
        }
    }
}
