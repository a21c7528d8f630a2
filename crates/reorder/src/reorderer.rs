//! [`Reorderer`]: the choices of a reordering, set one by one from the defaults the plain command
//! line uses. [`crate::pipeline`] runs them. Each default is explained in `docs/tuning.md`.

use crate::tuning::{
    Tuning, DEFAULT_LENGTH_CHANGE_COST, DEFAULT_RCM_START, DEFAULT_ROW_SPLIT_THREADS,
};
use crate::{Method, PermuteMode, RunBlocks, SamplerChoice, StartOrder, WindowSpec};
use spmv_reorder_locality::{CacheModel, GraphOptions};
use spmv_reorder_peers::{RcmStart, DEFAULT_PART_ROWS};
use std::time::Duration;

/// The configuration of a reordering. `Reorderer::new()` gives the defaults the plain command line
/// uses; each setter returns the changed configuration, and [`Reorderer::run`] reorders a matrix.
///
/// The reordering runs on the current rayon thread pool (all cores unless the caller installs
/// another): `pool.install(|| reorderer.run(&a))` chooses its threads. The sampled SpMV of the
/// DAST samplers runs on as many threads as that pool has.
#[derive(Debug, Clone)]
pub struct Reorderer {
    pub(crate) method: Method,
    pub(crate) sampler: SamplerChoice,
    pub(crate) window: WindowSpec,
    pub(crate) permute: Option<PermuteMode>,
    pub(crate) seed: u64,
    pub(crate) time_limit: Option<Duration>,
    pub(crate) neighbours: usize,
    pub(crate) hub_limit: usize,
    pub(crate) max_kicks: Option<u64>,
    pub(crate) start: Option<StartOrder>,
    pub(crate) cache_check: Option<CacheModel>,
    pub(crate) length_runs: Option<RunBlocks>,
    pub(crate) row_split_threads: Option<usize>,
    pub(crate) length_change_cost: u32,
    pub(crate) tuning: Tuning,
    pub(crate) part_rows: usize,
    pub(crate) symmetric_pattern: bool,
    pub(crate) rcm_start: RcmStart,
    pub(crate) model_misses: bool,
}

impl Default for Reorderer {
    fn default() -> Self {
        Self::new()
    }
}

impl Reorderer {
    /// The defaults: the [`Method::Auto`] route (RCM's order or the input's, then length runs);
    /// for the TSP method, one-row windows with full information, its path started from RCM's
    /// order and checked by the cache model; a symmetric permutation for square matrices (rows
    /// only otherwise), seed 0.
    pub fn new() -> Self {
        Self {
            method: Method::Auto,
            sampler: SamplerChoice::All,
            window: WindowSpec::Fixed(1),
            permute: None,
            seed: 0,
            time_limit: None,
            neighbours: 8,
            hub_limit: GraphOptions::default().hub_limit,
            max_kicks: Some(0),
            start: None,
            cache_check: Some(CacheModel::default()),
            length_runs: None,
            row_split_threads: None,
            length_change_cost: DEFAULT_LENGTH_CHANGE_COST,
            tuning: Tuning::default(),
            part_rows: DEFAULT_PART_ROWS,
            symmetric_pattern: false,
            rcm_start: DEFAULT_RCM_START,
            model_misses: true,
        }
    }

    /// The ordering method (default: [`Method::Auto`]).
    pub fn method(mut self, method: Method) -> Self {
        self.method = method;
        self
    }

    /// Where the nonzeros the ordering sees come from (default: all of them).
    pub fn sampler(mut self, sampler: SamplerChoice) -> Self {
        self.sampler = sampler;
        self
    }

    /// How rows are grouped into windows for the TSP method (default: one row per window).
    pub fn windows(mut self, window: WindowSpec) -> Self {
        self.window = window;
        self
    }

    /// Which sides to permute (default `None`: symmetric for square matrices, rows otherwise).
    pub fn permute(mut self, mode: Option<PermuteMode>) -> Self {
        self.permute = mode;
        self
    }

    /// Seed of every random choice (default 0).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Wall-clock budget of the TSP solve, per side (default `None`: no limit).
    pub fn time_limit(mut self, limit: Option<Duration>) -> Self {
        self.time_limit = limit;
        self
    }

    /// Candidate neighbours per window in the window graph (default 8).
    pub fn neighbours(mut self, k: usize) -> Self {
        self.neighbours = k;
        self
    }

    /// Windows a column may be shared by before the window graph bounds it: each of its windows
    /// then pairs only with the `limit` nearest (default 256; see [`GraphOptions::hub_limit`]).
    pub fn hub_limit(mut self, limit: usize) -> Self {
        self.hub_limit = limit;
        self
    }

    /// Chained Lin-Kernighan kicks after the local search (default `Some(0)`: none, as they cost
    /// about ten times the reordering time for little gain; `None`: one per window).
    pub fn max_kicks(mut self, kicks: Option<u64>) -> Self {
        self.max_kicks = kicks;
        self
    }

    /// Where the TSP path starts (default `None`: [`StartOrder::Rcm`], see
    /// [`Self::start_order`]).
    pub fn start(mut self, start: Option<StartOrder>) -> Self {
        self.start = start;
        self
    }

    /// The start order this configuration uses: the one set, else [`StartOrder::Rcm`], since a
    /// path built from pair distances alone loses the reuse of `x` across many rows that a
    /// bandwidth-reducing order gives.
    pub fn start_order(&self) -> StartOrder {
        match self.window {
            // Cache windows are the parts: their order is the start.
            WindowSpec::Cache { .. } => StartOrder::Parts,
            _ => self.start.unwrap_or(StartOrder::Rcm),
        }
    }

    /// The cache check of the TSP method (default: [`CacheModel::default`]; `None` returns the
    /// path as found). The model prices SpMV's `x` reads in the input order, the start order and
    /// the path, and the path is returned only when priced well below both; otherwise the
    /// cheaper of the two ([`Tuning`] holds the margins).
    pub fn cache_check(mut self, model: Option<CacheModel>) -> Self {
        self.cache_check = model;
        self
    }

    /// After ordering, sort the rows of every block of consecutive positions by their number of
    /// nonzeros, so that the branch ending each row's loop is predicted (default `None`:
    /// [`RunBlocks::Auto`] for `tsp` over one-row windows with the cache check, off otherwise).
    /// Under a symmetric permutation the columns follow the rows.
    pub fn length_runs(mut self, runs: Option<RunBlocks>) -> Self {
        self.length_runs = runs;
        self
    }

    /// After ordering and the length runs, lay the order's pieces down so that a kernel splitting
    /// the rows evenly between 2 to `threads` threads gives each about the same nonzeros
    /// ([`crate::row_split`]), when the order would give one thread more than
    /// [`Tuning::split_tolerance_percent`] above the mean. Default `None`:
    /// [`DEFAULT_ROW_SPLIT_THREADS`] for [`Method::Auto`], off otherwise; `Some(0)` or `Some(1)`:
    /// off; more than [`crate::row_split::MAX_SPLIT_THREADS`] are served as that many. Under a
    /// symmetric permutation the columns follow the rows.
    pub fn row_split_threads(mut self, threads: Option<usize>) -> Self {
        self.row_split_threads = threads;
        self
    }

    /// The threads the even row splits serve, `None` when off.
    pub(crate) fn split_threads(&self) -> Option<usize> {
        let default = (self.method == Method::Auto).then_some(DEFAULT_ROW_SPLIT_THREADS);
        self.row_split_threads.or(default).filter(|&t| t > 1)
    }

    /// What the TSP path pays, on top of `d(g, h)`, for each pair of consecutive rows of
    /// different lengths, in changed columns (default [`DEFAULT_LENGTH_CHANGE_COST`]; 0: the path
    /// minimises `D` alone). Charged for one-row windows on the row side only.
    pub fn length_change_cost(mut self, cost: u32) -> Self {
        self.length_change_cost = cost;
        self
    }

    /// The constants of the cache check and the length runs (default: [`Tuning::default`]).
    pub fn tuning(mut self, tuning: Tuning) -> Self {
        self.tuning = tuning;
        self
    }

    /// The block of [`Self::length_runs`] in effect for a matrix of `nrows` x `ncols`, `None`
    /// when off.
    pub(crate) fn run_block(&self, nrows: usize, ncols: usize) -> Option<usize> {
        let runs = self.length_runs.unwrap_or(
            if (self.method == Method::Auto
                || self.method == Method::Tsp && self.cache_check.is_some())
                && self.window == WindowSpec::Fixed(1)
            {
                RunBlocks::Auto
            } else {
                RunBlocks::Off
            },
        );
        runs.block(nrows, ncols, &self.tuning)
    }

    /// Vouches that the matrix's pattern equals its transpose's, as a Matrix Market file stored
    /// as symmetric, skew-symmetric or Hermitian does once expanded (default: false, checked):
    /// RCM then skips its structural symmetry check, up to a quarter of the default's time on a
    /// shuffled 1M-row matrix (R-MAT 20). Applies where RCM orders the whole pattern, not a sample of
    /// it. Vouched for wrongly, RCM still returns a permutation, in a worse order.
    pub fn symmetric_pattern(mut self, known: bool) -> Self {
        self.symmetric_pattern = known;
        self
    }

    /// Whether the report's `x_misses_before` and `x_misses_after` are measured (default: true):
    /// two replays of every nonzero through the cache model, one of the input order and one of
    /// the new order, the longest part of the measurement, which takes about twice as long as
    /// the default's ordering on R-MAT 20 (a 1M-row power-law graph). A caller that reads
    /// neither turns them off; the orders do not change.
    pub fn model_misses(mut self, on: bool) -> Self {
        self.model_misses = on;
        self
    }

    /// Rows per part of [`Method::Gp`] (default [`DEFAULT_PART_ROWS`], 256: a part's `x` entries
    /// and rows fit a 32 KiB L1 cache). Values of 0 are refused when the ordering runs.
    pub fn part_rows(mut self, rows: usize) -> Self {
        self.part_rows = rows;
        self
    }

    /// Where reverse Cuthill-McKee starts in each component, wherever RCM's order is used: by
    /// [`Method::Rcm`], by [`Method::Auto`] and as the TSP path's start (default
    /// [`DEFAULT_RCM_START`], the node of least degree).
    pub fn rcm_start(mut self, start: RcmStart) -> Self {
        self.rcm_start = start;
        self
    }
}
