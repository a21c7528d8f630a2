//! [`ReorderReport`]: what a reordering did and measured, serialised as `--report FILE.json`.

use crate::{Method, PermuteMode, SamplerChoice, StartOrder, Tuning, WindowSpec};
use spmv_reorder_locality::ModelledCost;
use spmv_reorder_sampling::Coverage;
use spmv_reorder_tsp::PathSolution;
use std::fmt;

/// The report of one reordering. JSON keys follow the field names (`D_before` etc. as spelled in
/// the SPEC).
#[derive(Debug, Clone, serde::Serialize)]
pub struct ReorderReport {
    /// The method whose order came back: `tsp` (the path), `rcm`, `gp`, `nd`, `gorder`,
    /// `degree`, `identity` (the order as read) or `random`. The default `auto`, and `tsp` with
    /// the cache check, return `rcm` or `identity` when those are priced lower than a path.
    pub method: Method,
    /// The method asked for ([`crate::Reorderer::method`]).
    pub requested: Method,
    /// The order that came back, in words: `"RCM + length runs (blocks of 128)"`,
    /// `"TSP path over windows of 1 row"`, `"the input order"`…
    pub order: String,
    /// The modelled misses of SpMV's `x` reads in the input order
    /// ([`spmv_reorder_locality::CacheModel`], full pattern): the locality figure that predicts
    /// speed where `D` does not. `None` when not measured ([`crate::Reorderer::model_misses`]).
    pub x_misses_before: Option<ModelledCost>,
    /// The same in the new order.
    pub x_misses_after: Option<ModelledCost>,
    /// Where the nonzeros the ordering saw came from (`all`, or the sampler's spelling).
    pub sampler: SamplerChoice,
    /// The windows of locality.
    pub window: WindowSpec,
    /// Where the TSP path started; `None` for the peer methods.
    pub start: Option<StartOrder>,
    /// Which sides were permuted.
    pub permute: PermuteMode,
    /// Seed of every random choice.
    pub seed: u64,
    /// The length runs made after ordering ([`crate::Reorderer::length_runs`]); `None`: none.
    pub length_runs: Option<LengthRuns>,
    /// How evenly kernels splitting the rows evenly share the nonzeros, before and after the even
    /// row splits ([`crate::Reorderer::row_split_threads`]); `None`: not asked.
    pub row_splits: Option<RowSplits>,
    /// Wall-clock seconds of the whole reordering (sampling, windows, graph, ordering).
    pub reorder_seconds: f64,
    /// Seconds of the sampling stage alone.
    pub sampling_seconds: f64,
    /// `D` of the original matrix.
    #[serde(rename = "D_before")]
    pub d_before: u64,
    /// `D` of the reordered matrix.
    #[serde(rename = "D_after")]
    pub d_after: u64,
    /// `D_w` of the original matrix under the window spec (full matrix).
    #[serde(rename = "D_w_before")]
    pub d_w_before: Option<u64>,
    /// `D_w` of the reordered matrix: for TSP under the windows it moved as units; for the other
    /// methods under the window spec recomputed on the new order; `None` for latency windows.
    #[serde(rename = "D_w_after")]
    pub d_w_after: Option<u64>,
    /// Windows of locality of the ordered side (rows, else columns); 0 for the peer methods.
    pub windows: usize,
    /// Cost of the TSP path (sum over sides), when the method is `tsp`.
    pub tsp_cost: Option<i64>,
    /// The path lower bound of SPEC section 4 (sum over sides).
    pub tsp_lower_bound: Option<i64>,
    /// `(cost - bound) / bound`.
    pub tsp_gap: Option<f64>,
    /// The row side, when rows were ordered.
    pub rows: Option<SideReport>,
    /// The column side, when columns were ordered independently.
    pub cols: Option<SideReport>,
    /// Coverage of the sample, when a sampler was used.
    pub coverage: Option<Coverage>,
}

/// How one side (rows, or columns from `Aᵀ`) was ordered.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SideReport {
    /// Which side.
    pub side: Side,
    /// Windows of locality (TSP), or rows (peers).
    pub windows: usize,
    /// Window lengths in the order the path visits them (TSP only; omitted from JSON).
    #[serde(skip)]
    pub window_lengths_in_order: Option<Vec<usize>>,
    /// Seconds to build windows and graph.
    pub graph_seconds: f64,
    /// Seconds of the ordering itself (TSP solve or peer method).
    pub order_seconds: f64,
    /// Hub columns whose pair enumeration was bounded in the window graph.
    pub bounded_columns: usize,
    /// The TSP solution's figures.
    pub tsp: Option<TspReport>,
    /// The cache check of a TSP side (`None` when off).
    pub cache_check: Option<CacheCheck>,
}

/// The TSP side's cache check ([`crate::Reorderer::cache_check`]): the modelled cost of SpMV's
/// `x` reads ([`spmv_reorder_locality::CacheModel`]) in the input order, the start order and the
/// path's order, and the order returned.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CacheCheck {
    /// The order as read.
    pub input: ModelledCost,
    /// The RCM start order (`None` for the other starts).
    pub start: Option<ModelledCost>,
    /// What no order can cost less than ([`spmv_reorder_locality::CacheModel::floor`]: every
    /// line of `x` read missed once by both levels).
    pub floor: ModelledCost,
    /// Set when the window graph was built but no path computed: the start order was within
    /// [`Tuning::start_near_bound_percent`] of the graph's lower bound.
    pub start_near_bound: Option<StartNearBound>,
    /// The path's order; `None` when no path was computed: not even an order at the floor would
    /// have passed the check against the input and start orders, or `start_near_bound`.
    pub path: Option<ModelledCost>,
    /// The path after the 2-opt + Or-opt descent, before any refinement (`None` as `path`); at
    /// the descent's checkpoint when `draft_abandoned`.
    pub draft: Option<ModelledCost>,
    /// Whether the descent was set aside at its checkpoint, its path priced at least
    /// [`Tuning::draft_abandon_percent`] of the cheaper other order.
    pub draft_abandoned: bool,
    /// Whether the path was refined (Lin-Kernighan, kicks) after the 2-opt + Or-opt descent: only
    /// when the draft, priced [`Tuning::refine_headroom_percent`] lower, would have passed the
    /// check. When not, `path` is `draft` and the TSP figures are the draft's.
    pub refined: bool,
    /// Whether the model priced the input and start orders within [`Tuning::model_tie_percent`]
    /// of each other (and the path did not pass), so that the one with the lower `D` was returned.
    pub tied: bool,
    /// The order returned.
    pub kept: Kept,
}

/// A side of the matrix: its rows, or its columns (ordered as the rows of `Aᵀ`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The rows (`P`).
    Rows,
    /// The columns (`Q`).
    Cols,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Rows => "rows",
            Side::Cols => "cols",
        })
    }
}

/// The order the cache check returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kept {
    /// The TSP path.
    Path,
    /// The start order (RCM's).
    Start,
    /// The order as read.
    Input,
}

/// The order a path would start from, against the window graph's lower bound of any path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct StartNearBound {
    /// `D_w` of the windows in the start order.
    pub start_cost: u64,
    /// The graph's lower bound of a path's cost.
    pub lower_bound: u64,
}

impl StartNearBound {
    /// The start order's cost in `graph` (its windows in their order) and the graph's bound.
    pub(crate) fn of(graph: &spmv_reorder_locality::WindowGraph<'_>) -> Self {
        Self {
            start_cost: graph.windowed_distance(spmv_reorder_locality::Parallelism::Rayon),
            lower_bound: graph.path_lower_bound(),
        }
    }

    /// Whether the start's cost is within [`Tuning::start_near_bound_percent`] of the bound.
    pub fn holds(&self, tuning: &Tuning) -> bool {
        let near = (100 + tuning.start_near_bound_percent) as u128;
        self.start_cost as u128 * 100 <= self.lower_bound as u128 * near
    }
}

impl SideReport {
    pub(crate) fn peer(side: Side, seconds: f64) -> Self {
        SideReport {
            side,
            windows: 0,
            window_lengths_in_order: None,
            graph_seconds: 0.0,
            order_seconds: seconds,
            bounded_columns: 0,
            tsp: None,
            cache_check: None,
        }
    }
}

/// The TSP path's cost, its lower bound and how the solver spent its time.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TspReport {
    /// Cost of the path: the sampled pattern's `D_w` in path order, plus `length_change_cost` for
    /// each pair of consecutive rows of different lengths.
    pub cost: i64,
    /// What a change of row length added to the costs (0: they are `D_w` alone).
    pub length_change_cost: u32,
    /// The path lower bound of SPEC section 4.
    pub lower_bound: i64,
    /// `(cost - bound) / bound`.
    pub gap: f64,
    /// Cost of the windows in their original order (the identity path).
    pub identity_cost: u64,
    /// Cost after construction.
    pub initial_cost: i64,
    /// Cost after the 2-opt + Or-opt descent that opens the local search.
    pub after_two_opt_cost: i64,
    /// Cost after the first local search.
    pub after_local_search_cost: i64,
    /// Seconds of construction.
    pub construction_seconds: f64,
    /// Seconds of local search (2-opt + Or-opt, then Lin-Kernighan).
    pub local_search_seconds: f64,
    /// Seconds of the 2-opt + Or-opt descent (part of `local_search_seconds`).
    pub two_opt_seconds: f64,
    /// Costs computed by the oracle (pairs outside the candidate lists that missed the solver's
    /// cost cache, plus one per candidate entry for the up-front check).
    pub oracle_calls: u64,
    /// Seconds of Chained LK kicks.
    pub kicks_seconds: f64,
    /// Kicks made.
    pub kicks: u64,
    /// Kicks that improved the path.
    pub improving_kicks: u64,
}

impl TspReport {
    /// The report of `s`, with the window graph's path lower bound: the solver's own bound assumes
    /// each candidate list holds its node's cheapest edges, which overlap-ranked, truncated lists do
    /// not promise; the graph's bound also covers the pairs outside the lists.
    pub(crate) fn from_solution(
        s: &PathSolution,
        lower_bound: u64,
        identity_cost: u64,
        length_change_cost: u32,
    ) -> Self {
        let lower_bound = lower_bound as i64;
        TspReport {
            cost: s.cost,
            length_change_cost,
            lower_bound,
            gap: s.gap(lower_bound),
            identity_cost,
            initial_cost: s.stats.initial_cost,
            after_two_opt_cost: s.stats.after_two_opt_cost,
            after_local_search_cost: s.stats.after_local_search_cost,
            construction_seconds: s.stats.construction_s,
            local_search_seconds: s.stats.local_search_s,
            two_opt_seconds: s.stats.two_opt_s,
            oracle_calls: s.stats.oracle_calls,
            kicks_seconds: s.stats.kicks_s,
            kicks: s.stats.kicks,
            improving_kicks: s.stats.improving_kicks,
        }
    }
}

/// The even row splits after ordering ([`crate::row_split`]).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct RowSplits {
    /// The splits served: every thread count from 2 to this.
    pub threads: usize,
    /// The heaviest thread's nonzeros over the mean, over those thread counts, in the order
    /// before this step ([`crate::row_split::row_split_imbalance`]).
    pub imbalance_before: f64,
    /// The same in the order returned.
    pub imbalance_after: f64,
    /// Whether the pieces were laid down anew: the order was uneven beyond
    /// [`crate::Tuning::split_tolerance_percent`] and has rows enough for a piece per thread.
    pub spread: bool,
}

/// Rows sorted by length in blocks after ordering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct LengthRuns {
    /// Rows per block.
    pub block: usize,
    /// `D` of the order before the runs (`D_after` is that of the order with them).
    #[serde(rename = "D_without")]
    pub d_without: u64,
}
