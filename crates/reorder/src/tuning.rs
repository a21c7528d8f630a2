//! The tuning constants of the pipeline: the cache check's margins, the draft's checkpoint, the
//! length runs' blocks and the path's price of a change of row length.

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
/// of `d` (changed columns): [`crate::Reorderer::length_change_cost`]. A mispredicted row end costs about
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
/// ([`crate::Reorderer::length_runs`]). Measured against RCM's order on two machines (docs/RESULTS.md,
/// thirteenth and fourteenth sessions):
/// - On an Intel Xeon (L2 2 MiB), the 30 bundled matrices, shuffled, ran 1.12-1.13x as fast at
///   one thread with blocks of 32, 1.16x with 64, 1.16-1.18x with 128 and 1.22x with 1024. A
///   shuffled random geometric graph of 400k rows, whose `x` exceeds L2, peaked at 128-256
///   (1.24-1.31x; 64: 1.16x, 512: 1.23-1.26x, the whole matrix 1.14x).
/// - On an AMD EPYC (L2 1 MiB) the geometric graph ran 1.42-1.50x with 32, 1.42x with 128 and
///   1.16x with 512; the bundled matrices gave the same with 16, 32 and 64.
///
/// 128 is the block that neither machine's large graph punished. [`crate::RunBlocks::Auto`] uses it for
/// matrices of more than [`SORT_ALL_MAX_COLUMNS`] columns.
pub const DEFAULT_RUN_BLOCK: usize = 128;

/// Up to this many columns ([`crate::RunBlocks::Auto`]: `x` of 256 KiB in `f64`, a quarter of the
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
