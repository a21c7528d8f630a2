//! [`Tuning`]: the constants of the pipeline's choices, in one place, and the default price of a
//! change of row length. `docs/tuning.md` gives the reason and the measurements behind each
//! default.

use spmv_reorder_peers::RcmStart;

/// The tuning constants of a reordering ([`crate::Reorderer::tuning`]). Each default is explained
/// in `docs/tuning.md`.
///
/// ```
/// use spmv_reorder_reorder::{Reorderer, Tuning};
///
/// // A path returned when priced at least 10% below the other orders (default 15%).
/// let mut tuning = Tuning::default();
/// tuning.path_margin_percent = 10;
/// let reorderer = Reorderer::new().tuning(tuning);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Tuning {
    /// How much cheaper than both the input and the start order the cache model must price the
    /// TSP path for the check to return it, in percent (15: the model has no prefetcher).
    pub path_margin_percent: u64,
    /// Within how many percent the model's prices of the input and start orders count as tied,
    /// so that the one with the lower `D` is returned (5).
    pub model_tie_percent: u64,
    /// How much refining the 2-opt path may lower its price, in percent: only a draft that would
    /// pass the check priced this much lower is refined (15).
    pub refine_headroom_percent: u64,
    /// Within how many percent of the window graph's lower bound the start order gets no path
    /// (5).
    pub start_near_bound_percent: u64,
    /// The draft's checkpoint comes after one queue pop per this many windows (2).
    pub draft_checkpoint_divisor: usize,
    /// A draft priced at least this percentage of the cheaper other order at its checkpoint is
    /// set aside (140).
    pub draft_abandon_percent: u64,
    /// Rows per block of the automatic length runs beyond `sort_all_max_columns` (128).
    pub run_block: usize,
    /// Up to this many columns the automatic length runs sort all rows together (32,768: `x` of
    /// 256 KiB).
    pub sort_all_max_columns: usize,
    /// With a sample of the nonzeros, the cache check replays one line of memory in as many as
    /// the sample is smaller than the whole, while at least this many lines of `x` stay in the
    /// sample (4,096); below, it replays every line.
    pub sampled_x_lines_min: usize,
    /// With every nonzero, the cache check replays one line of memory in up to this many (8),
    /// while at least `priced_x_lines_min` lines of `x` stay in the sample; 1 replays every line.
    pub priced_line_share: usize,
    /// The fewest lines of `x` a line sample keeps with every nonzero (16,384: `x` of 1M `f64`
    /// is replayed on one line in 4, of 4M on one in 8; below 262,144 columns, every line).
    pub priced_x_lines_min: usize,
    /// The cache check cuts each order it prices into this many equal stretches (16) and counts
    /// the first `1/priced_row_share` of each, after a warm-up of the rows before it
    /// ([`RowSample`](spmv_reorder_locality::RowSample)); on matrices too small for the
    /// warm-ups to save work, it counts every row.
    pub priced_row_segments: usize,
    /// One row in how many the cache check counts in its stretches (8); 1 counts every row.
    pub priced_row_share: usize,
    /// With a sample of the nonzeros, the stretches the cache check cuts each order into (8):
    /// half the warm-ups of `priced_row_segments`, for estimates within 3% of the whole replay's
    /// on 1M-row matrices but for RCM's order of a banded matrix at L2 (8% high) and of R-MAT at
    /// L1 (6% low).
    pub sampled_row_segments: usize,
    /// The even row splits are made only when a kernel splitting the rows evenly would give one
    /// thread more than this many percent above the mean share of nonzeros (5).
    pub split_tolerance_percent: u64,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            path_margin_percent: 15,
            model_tie_percent: 5,
            refine_headroom_percent: 15,
            start_near_bound_percent: 5,
            draft_checkpoint_divisor: 2,
            draft_abandon_percent: 140,
            run_block: 128,
            sort_all_max_columns: 32_768,
            sampled_x_lines_min: 4096,
            priced_line_share: 8,
            priced_x_lines_min: 16_384,
            priced_row_segments: 16,
            priced_row_share: 8,
            sampled_row_segments: 8,
            split_tolerance_percent: 5,
        }
    }
}

/// The threads the default's even row splits serve ([`crate::Reorderer::row_split_threads`]):
/// every count from 2 to 16 gets an even share of nonzeros within a few percent.
pub const DEFAULT_ROW_SPLIT_THREADS: usize = 16;

/// What the TSP path pays by default for a change of row length between consecutive rows, in
/// changed columns ([`crate::Reorderer::length_change_cost`]; why 2: `docs/tuning.md`).
pub const DEFAULT_LENGTH_CHANGE_COST: u32 = 2;

/// Where RCM starts by default ([`crate::Reorderer::rcm_start`]): each component's node of least
/// degree, as scipy does. The pseudo-peripheral search costs about as much as the rest of RCM on
/// 1M-row shuffled matrices and its orders ran no faster (why: `docs/tuning.md`).
pub const DEFAULT_RCM_START: RcmStart = RcmStart::MinimumDegree;
