//! [`Reorderer`]: the choices of a reordering, set one by one from the defaults the plain command
//! line uses. [`crate::pipeline`] runs them.

use crate::tuning::DEFAULT_LENGTH_CHANGE_COST;
use crate::{Method, PermuteMode, RunBlocks, SamplerChoice, StartOrder, WindowSpec};
use spmv_reorder_locality::{CacheModel, GraphOptions};
use std::time::Duration;

/// The configuration of a reordering. `Reorderer::new()` gives the defaults the plain command line
/// uses; each setter returns the changed configuration.
#[derive(Debug, Clone)]
pub struct Reorderer {
    pub(crate) method: Method,
    pub(crate) sampler: SamplerChoice,
    pub(crate) window: WindowSpec,
    pub(crate) permute: Option<PermuteMode>,
    pub(crate) seed: u64,
    pub(crate) threads: Option<usize>,
    pub(crate) time_limit: Option<Duration>,
    pub(crate) neighbours: usize,
    pub(crate) hub_limit: usize,
    pub(crate) max_kicks: Option<u64>,
    pub(crate) start: Option<StartOrder>,
    pub(crate) cache_check: Option<CacheModel>,
    pub(crate) length_runs: Option<RunBlocks>,
    pub(crate) length_change_cost: u32,
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
    /// returned when it costs at least [`crate::PATH_MARGIN_PERCENT`] percent less than both others, else
    /// the cheaper of those two, or the one with the lower `D` when they are priced within
    /// [`crate::MODEL_TIE_PERCENT`] (ties to the input). `D` rewards only columns shared by consecutive
    /// rows; the check guards the reuse across many rows that RCM or the input may have and the
    /// path lost, and the margin what the model cannot see (hardware prefetching). The input and
    /// start orders are priced first, and when not even an order at the model's floor
    /// ([`CacheModel::floor`]) would pass, no window graph and no path are computed; nor is a path
    /// when the start order is within [`crate::START_NEAR_BOUND_PERCENT`] of the window graph's lower
    /// bound. Otherwise the path is priced as the 2-opt + Or-opt descent leaves it, and refined
    /// (Lin-Kernighan, kicks) only if it may pass: see [`crate::REFINE_HEADROOM_PERCENT`]. `None` always
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
    pub(crate) fn run_block(&self, nrows: usize, ncols: usize) -> Option<usize> {
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
}
