//! `y = A·x` for CSR `A` (`f64` values, `u32` column indices), in parallel thread blocks.
//!
//! Cost: `2·nnz` flops and the minimum traffic `12·nnz + 8·(nrows + 1) + 8·(nrows + ncols)` bytes
//! (SPEC section 6); memory-bound on every current CPU. The blocks come from a [`Partition`]
//! (static rows, nonzero-balanced rows, merge path: thesis section 2.6 for the row blocks, Merrill
//! and Garland 2016 for merge path). Each block runs one body, [`block_product`], on the thread
//! that owns it; blocks write disjoint `split_at_mut` regions of `y`, and merge path's partial
//! sums of split rows are added after the parallel phase. Called by the benchmark
//! ([`crate::bench`](mod@crate::bench)), the CLI and the reordering pipeline's evaluation.
//!
//! Rows are summed by [`row_sum`] (even and odd positions in two accumulators from -0.0, added
//! at the row's end), the function [`CsrMatrix::mul_vec_reference`] calls, so the row kernels are
//! bitwise equal to it; merge path differs only in the rounding of rows it splits. On matrices
//! larger than the caches ([`PREFETCH_MIN_BYTES`]) whose `x` reads stay near the diagonal
//! ([`PREFETCH_NEAR_COLUMNS`]) the unchecked body also prefetches `values` and `col_idx` a fixed
//! distance ahead ([`PREFETCH_AHEAD`]).

use spmv_reorder_sparse::{prefetch, row_sum, split_by_offsets, CsrMatrix};

use crate::partition::{Block, Kernel, Partition, DYNAMIC_CHUNKS_PER_THREAD};
use crate::team::{Par, Schedule};

/// A matrix with its thread blocks: build once, multiply many times.
///
/// # Invariants
/// Every column index of the matrix is `< ncols` when `unchecked_ok` is set (checked in
/// [`SpmvPlan::new`]); otherwise the bounds-checked body is used. `prefetch` is set when
/// `values` and `col_idx` together take at least [`PREFETCH_MIN_BYTES`] and most nonzeros are
/// near the diagonal ([`prefetch_pays`]).
#[derive(Debug, Clone)]
pub struct SpmvPlan<'a> {
    matrix: &'a CsrMatrix<f64>,
    partition: Partition,
    row_offsets: Vec<usize>,
    unchecked_ok: bool,
    prefetch: bool,
}

impl<'a> SpmvPlan<'a> {
    /// Splits `matrix` for `threads` threads (at least one): one block per thread, or
    /// [`DYNAMIC_CHUNKS_PER_THREAD`] chunks per thread for [`Kernel::Dynamic`]. `O(nnz)` once, to
    /// check the column indices that let the hot loop skip bounds checks. Prefetching is chosen
    /// here, from the matrix's size and how far its columns are from the diagonal, counted in
    /// the same pass ([`prefetch_pays`]).
    pub fn new(matrix: &'a CsrMatrix<f64>, kernel: Kernel, threads: usize) -> Self {
        let blocks = match kernel {
            Kernel::Dynamic if threads > 1 => threads * DYNAMIC_CHUNKS_PER_THREAD,
            _ => threads,
        };
        let partition = Partition::new(matrix.row_ptr(), kernel, blocks);
        let columns = ColumnScan::of(matrix);
        SpmvPlan {
            matrix,
            row_offsets: partition.row_offsets(),
            partition,
            unchecked_ok: columns.in_range,
            prefetch: prefetch_pays(matrix.nnz(), columns.near),
        }
    }

    /// Whether [`Self::mul_vec`] prefetches `values` and `col_idx` ([`prefetch_pays`], or the
    /// choice of [`Self::tune_prefetch`]).
    pub fn prefetches(&self) -> bool {
        self.prefetch
    }

    /// Times the product with and without the software prefetch of `values` and `col_idx`,
    /// alternating, `rounds` times each (an untimed product before each timed one), and keeps the
    /// faster. Returns the best seconds of one product `(with, without)`, or `None` when there is
    /// nothing to choose: a matrix under [`PREFETCH_MIN_BYTES`] (never prefetched: the hints only
    /// cost there) or one whose column indices were not all in range (the checked body never
    /// prefetches). Results do not depend on the choice, only the time does.
    ///
    /// Whether the prefetch pays depends on more than what [`prefetch_pays`] sees: matrices whose
    /// columns are mostly far from the diagonal went either way when measured (docs/results.md,
    /// "SpMV kernels"). Call this once before a long run of products.
    ///
    /// # Panics
    /// As [`Self::mul_vec`].
    pub fn tune_prefetch(
        &mut self,
        x: &[f64],
        y: &mut [f64],
        par: Par<'_>,
        rounds: usize,
    ) -> Option<(f64, f64)> {
        if !self.unchecked_ok || !streams_reach_prefetch_size(self.matrix.nnz()) {
            return None;
        }
        let mut best = [f64::INFINITY; 2];
        for _ in 0..rounds.max(1) {
            for (variant, prefetch) in [true, false].into_iter().enumerate() {
                self.prefetch = prefetch;
                self.mul_vec(x, y, par);
                let start = std::time::Instant::now();
                self.mul_vec(x, y, par);
                best[variant] = best[variant].min(start.elapsed().as_secs_f64());
            }
        }
        self.prefetch = best[0] < best[1];
        Some((best[0], best[1]))
    }

    /// The matrix.
    pub fn matrix(&self) -> &'a CsrMatrix<f64> {
        self.matrix
    }

    /// The thread blocks.
    pub fn partition(&self) -> &Partition {
        &self.partition
    }

    /// `y = A·x`. Block `b` runs on thread `b % par.threads()` (on the first free thread for
    /// [`Kernel::Dynamic`]).
    ///
    /// # Panics
    /// If `x.len() != ncols` or `y.len() != nrows` (a caller bug).
    pub fn mul_vec(&self, x: &[f64], y: &mut [f64], par: Par<'_>) {
        match (self.unchecked_ok, self.prefetch) {
            (false, _) => self.run::<true, false>(x, y, par),
            (true, false) => self.run::<false, false>(x, y, par),
            (true, true) => self.run::<false, true>(x, y, par),
        }
    }

    /// `y = A·x` with every access bounds-checked and no prefetch hints: the safe twin of
    /// [`Self::mul_vec`] (same summation order, same result bits), kept for tests and for
    /// measuring what the unsafe hot loop gains.
    ///
    /// # Panics
    /// As [`Self::mul_vec`].
    pub fn mul_vec_checked(&self, x: &[f64], y: &mut [f64], par: Par<'_>) {
        self.run::<true, false>(x, y, par);
    }

    fn run<const CHECKED: bool, const PREFETCH: bool>(
        &self,
        x: &[f64],
        y: &mut [f64],
        par: Par<'_>,
    ) {
        let a = self.matrix;
        assert_eq!(
            x.len(),
            a.ncols(),
            "x length must equal the number of columns"
        );
        assert_eq!(y.len(), a.nrows(), "y length must equal the number of rows");
        let blocks = self.partition.blocks();
        let chunks = split_by_offsets(y, &self.row_offsets);
        let schedule = match self.partition.kernel() {
            Kernel::Dynamic => Schedule::Dynamic,
            _ => Schedule::Static,
        };
        let carries = par.for_each_block_scheduled(chunks, schedule, |b, y_block| {
            block_product::<CHECKED, PREFETCH>(a, &blocks[b], x, y_block)
        });
        for (row, partial) in carries.into_iter().flatten() {
            y[row] += partial;
        }
    }
}

/// `y = A·x` with a plan made for this call (`par.threads()` blocks of `kernel`).
///
/// # Panics
/// If `x.len() != ncols` or `y.len() != nrows` (a caller bug).
pub fn mul_vec(a: &CsrMatrix<f64>, x: &[f64], y: &mut [f64], kernel: Kernel, par: Par<'_>) {
    SpmvPlan::new(a, kernel, par.threads()).mul_vec(x, y, par);
}

/// How far ahead of the row being summed the unchecked body prefetches `values` and `col_idx`, in
/// bytes of each array (256 nonzeros of `values`, 512 of `col_idx`): far enough ahead that a
/// bandwidth-bound product keeps enough lines of these streams in flight, which the hardware
/// prefetcher measured did not do alone; 1 KiB measured slower, 4 KiB no faster
/// (docs/results.md, "SpMV kernels").
pub const PREFETCH_AHEAD: usize = 2048;

/// The size of `values` plus `col_idx` (bytes) from which [`SpmvPlan::mul_vec`] prefetches: on
/// matrices that stay in the caches the prefetch instructions only cost, and the measured gains
/// began between 10 and 18 MB (half a 32 MiB L3).
pub const PREFETCH_MIN_BYTES: usize = 16 << 20;

/// How far from the diagonal (in columns, after scaling the row to the columns' range) a nonzero
/// may be and still count as near for [`prefetch_pays`]: the `x` band of `±32768` elements is
/// 512 KiB, half the L2 of the machine measured, so the `x` reads of rows whose columns are near
/// mostly hit the caches and the streams of `values` and `col_idx` bound the product.
pub const PREFETCH_NEAR_COLUMNS: usize = 32 << 10;

/// Whether prefetching `values` and `col_idx` makes the product faster, for a matrix of `nnz`
/// nonzeros of which `near` are within [`PREFETCH_NEAR_COLUMNS`] of the diagonal: it must have at
/// least [`PREFETCH_MIN_BYTES`] of them, and 7/8 of its nonzeros near. Where the columns are
/// scattered, `x`'s reads miss the caches and bound the product, and the prefetches compete with
/// them for the core's outstanding misses.
///
/// Measured side by side (`spmv-reorder bench`, 2 threads, medians of the four kernels, two runs
/// each), on the 1M-row 3D Poisson grid (6.9M nonzeros) in four orders, with and without
/// prefetching:
/// - natural order, every nonzero near: 2.74-3.24 ms against 3.64-3.97 ms;
/// - RCM's order, every nonzero near: 2.96-3.28 ms against 3.69-3.90 ms;
/// - a TSP path's order, 84% near: 4.15-4.44 ms against 3.89-4.51 ms (level);
/// - shuffled by a random symmetric permutation, 20% near: 7.85-8.66 ms against 6.20-6.96 ms.
pub fn prefetch_pays(nnz: usize, near: usize) -> bool {
    streams_reach_prefetch_size(nnz) && 8 * near >= 7 * nnz
}

/// Whether `values` and `col_idx` of `nnz` nonzeros take at least [`PREFETCH_MIN_BYTES`]: below,
/// the prefetch is never used ([`prefetch_pays`]) nor tuned ([`SpmvPlan::tune_prefetch`]).
fn streams_reach_prefetch_size(nnz: usize) -> bool {
    nnz * (std::mem::size_of::<f64>() + std::mem::size_of::<u32>()) >= PREFETCH_MIN_BYTES
}

/// What [`SpmvPlan::new`] learns from one pass over the column indices.
struct ColumnScan {
    /// Every column index is `< ncols`.
    in_range: bool,
    /// Nonzeros within [`PREFETCH_NEAR_COLUMNS`] of the diagonal (row `i`'s diagonal column is
    /// `i·ncols/nrows`, so that rectangular matrices are measured along their diagonal).
    near: usize,
}

impl ColumnScan {
    fn of(a: &CsrMatrix<f64>) -> Self {
        let (nrows, ncols) = (a.nrows(), a.ncols());
        let mut scan = ColumnScan {
            in_range: true,
            near: 0,
        };
        // Columns per row along the diagonal (a heuristic's scale: rounding does not matter).
        let slope = ncols as f64 / nrows.max(1) as f64;
        for (i, row) in a.row_ptr().windows(2).enumerate() {
            let diagonal = if nrows == ncols {
                i
            } else {
                (i as f64 * slope) as usize
            };
            for &c in &a.col_idx()[row[0]..row[1]] {
                let c = c as usize;
                scan.in_range &= c < ncols;
                scan.near += usize::from(c.abs_diff(diagonal) <= PREFETCH_NEAR_COLUMNS);
            }
        }
        scan
    }
}

/// The one body of every kernel: writes `y` for the block's rows (`y_block[r - rows.start]`) from
/// the block's nonzeros, and returns the partial sum of the row it leaves unfinished (merge path
/// only) as `(row, partial)`. `CHECKED` selects the bounds-checked row sum (the safe twin, which
/// never prefetches) and `PREFETCH` the prefetch hints of the unchecked body; they are constants
/// so that the choice is made once per block, not once per row.
fn block_product<const CHECKED: bool, const PREFETCH: bool>(
    a: &CsrMatrix<f64>,
    block: &Block,
    x: &[f64],
    y_block: &mut [f64],
) -> Option<(usize, f64)> {
    let (row_ptr, cols, vals) = (a.row_ptr(), a.col_idx(), a.values());
    debug_assert!(block.rows.end < row_ptr.len() && block.nnz.end <= cols.len());
    let dot = |range: std::ops::Range<usize>| {
        if CHECKED {
            row_sum(range, |k| vals[k] * x[cols[k] as usize])
        } else {
            // SAFETY: `CHECKED` is false only when `SpmvPlan::new` verified every column index
            // `< ncols` and `run` asserted `x.len() == ncols`; every range is a row's (or a merge
            // path block's) part of `row_ptr[0]..=row_ptr[nrows]` = `0..=nnz`, inside `cols` and
            // `vals` (CSR invariant, and the partition's blocks lie inside the matrix).
            unsafe { dot_unchecked(cols, vals, range, x) }
        }
    };
    let mut k = block.nnz.start;
    for (row, y_row) in block.rows.clone().zip(y_block.iter_mut()) {
        let end = if CHECKED {
            row_ptr[row + 1]
        } else {
            // SAFETY: `row < block.rows.end <= nrows`, and `row_ptr` has `nrows + 1` entries.
            unsafe { *row_ptr.get_unchecked(row + 1) }
        };
        if PREFETCH && !CHECKED {
            prefetch_ahead(vals, cols, k..end);
        }
        *y_row = dot(k..end);
        k = end;
    }
    (k < block.nnz.end).then(|| (block.rows.end, dot(k..block.nnz.end)))
}

/// `Σ vals[k]·x[cols[k]]` for `k` in `range`, in [`row_sum`]'s order, without bounds checks.
/// An index loop over the whole arrays instead of zipped sub-slices: the slicing's checks and the
/// zip measured a few percent of a bandwidth-bound product.
///
/// # Safety
/// `range.end <= cols.len()`, `range.end <= vals.len()`, `range.start <= range.end`, and every
/// `cols[k] as usize < x.len()` for `k` in `range`.
#[inline(always)]
unsafe fn dot_unchecked(
    cols: &[u32],
    vals: &[f64],
    range: std::ops::Range<usize>,
    x: &[f64],
) -> f64 {
    debug_assert!(range.start <= range.end && range.end <= cols.len().min(vals.len()));
    debug_assert!(cols[range.clone()].iter().all(|&c| (c as usize) < x.len()));
    row_sum(range, |k| {
        // SAFETY: `row_sum` calls this only for `k` in `range`, which the caller guarantees is
        // inside `cols` and `vals`, with the column inside `x`.
        unsafe { *vals.get_unchecked(k) * *x.get_unchecked(*cols.get_unchecked(k) as usize) }
    })
}

/// Bytes of a cache line on the targets we prefetch on.
const LINE_BYTES: usize = 64;

/// Requests the lines of `vals` and `cols` [`PREFETCH_AHEAD`] bytes past the row `range`: one
/// request per array for every row (empty rows too), then one per further 64 bytes of the row's
/// `values` (and of its `col_idx`), so no line is skipped however long the rows are. Rows of up to
/// 8 nonzeros never enter the loop, and nothing depends on where the lines begin, which keeps
/// the branches predictable on rows of varying length; a line requested twice costs little.
/// Lines past the block or the array are harmless (a prefetch never faults). Written as a plain
/// `while` loop: with `step_by`, the compiler computed a trip count and unrolled the loop, which
/// measured slower on large grids than this form.
#[inline(always)]
fn prefetch_ahead(vals: &[f64], cols: &[u32], range: std::ops::Range<usize>) {
    const VALUES_AHEAD: usize = PREFETCH_AHEAD / std::mem::size_of::<f64>();
    const COLS_AHEAD: usize = PREFETCH_AHEAD / std::mem::size_of::<u32>();
    const VALUES_PER_LINE: usize = LINE_BYTES / std::mem::size_of::<f64>();
    const COLS_PER_LINE: usize = LINE_BYTES / std::mem::size_of::<u32>();
    prefetch(vals, range.start + VALUES_AHEAD);
    prefetch(cols, range.start + COLS_AHEAD);
    let mut k = range.start + VALUES_PER_LINE;
    while k < range.end {
        prefetch(vals, k + VALUES_AHEAD);
        if (k - range.start) % COLS_PER_LINE == VALUES_PER_LINE {
            prefetch(cols, k + VALUES_PER_LINE + COLS_AHEAD);
        }
        k += VALUES_PER_LINE;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::team::ThreadTeam;
    use crate::{Pinning, Topology};
    use proptest::prelude::*;

    fn reference(a: &CsrMatrix<f64>, x: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; a.nrows()];
        a.mul_vec_reference(x, &mut y);
        y
    }

    fn team(threads: usize) -> ThreadTeam {
        ThreadTeam::new(&Topology::this_system().unwrap(), threads, &Pinning::None).unwrap()
    }

    /// A matrix with one dense row and many short ones: the case merge path exists for.
    fn skewed(n: usize) -> CsrMatrix<f64> {
        let mut t: Vec<(usize, usize, f64)> =
            (0..n).map(|j| (3, j, 0.1 + j as f64 * 1e-3)).collect();
        t.extend((0..n).map(|i| (i, (i * 7) % n, 1.0 / (i + 1) as f64)));
        CsrMatrix::from_triplets(n, n, t).unwrap()
    }

    fn arb_matrix() -> impl Strategy<Value = CsrMatrix<f64>> {
        (1usize..40, 1usize..40).prop_flat_map(|(m, n)| {
            proptest::collection::vec((0..m, 0..n, -1000i32..1000), 0..300).prop_map(move |t| {
                CsrMatrix::from_triplets(
                    m,
                    n,
                    t.into_iter().map(|(i, j, v)| (i, j, v as f64 / 7.0)),
                )
                .unwrap()
            })
        })
    }

    /// Rows of 0, 1, 2, 3 and 7 nonzeros (and one of 40), repeated, with values whose sums round
    /// differently in different orders.
    fn odd_rows(rows: usize) -> CsrMatrix<f64> {
        let lengths = [0, 1, 2, 3, 7, 40, 7, 3, 1];
        let n = 50;
        let t = (0..rows).flat_map(|i| {
            let len = lengths[i % lengths.len()];
            (0..len).map(move |j| {
                let sign = if (i + j) % 3 == 0 { -1.0 } else { 1.0 };
                (
                    i,
                    (i * 11 + j * 7) % n,
                    sign * (1.0 + j as f64 * 1e-3) / (i + 3) as f64,
                )
            })
        });
        CsrMatrix::from_triplets(rows, n, t).unwrap()
    }

    fn same_bits(p: &[f64], q: &[f64]) -> bool {
        p.len() == q.len() && p.iter().zip(q).all(|(p, q)| p.to_bits() == q.to_bits())
    }

    #[test]
    fn row_kernels_are_bitwise_equal_to_the_reference() {
        let all = Topology::this_system().unwrap().pus.len();
        let teams = [team(1), team(2), team(all)];
        for a in [skewed(500), odd_rows(300)] {
            let x: Vec<f64> = (0..a.ncols()).map(|j| (j as f64).sin()).collect();
            let want = reference(&a, &x);
            for kernel in [Kernel::StaticRows, Kernel::NnzBalanced, Kernel::Dynamic] {
                for blocks in [1, 2, 7, 64] {
                    let plan = SpmvPlan::new(&a, kernel, blocks);
                    for par in [Par::Sequential, Par::Team(&teams[0])]
                        .into_iter()
                        .chain(teams[1..].iter().map(Par::Team))
                    {
                        for checked in [false, true] {
                            let mut y = vec![f64::NAN; a.nrows()];
                            if checked {
                                plan.mul_vec_checked(&x, &mut y, par);
                            } else {
                                plan.mul_vec(&x, &mut y, par);
                            }
                            let threads = par.threads();
                            assert!(
                                same_bits(&y, &want),
                                "{kernel} blocks={blocks} threads={threads} checked={checked}"
                            );
                        }
                    }
                }
                // The plan sized for each team, as the benchmark and the CLI make it.
                for t in &teams {
                    let mut y = vec![f64::NAN; a.nrows()];
                    mul_vec(&a, &x, &mut y, kernel, Par::Team(t));
                    assert!(same_bits(&y, &want), "{kernel} threads={}", t.threads());
                }
            }
        }
    }

    #[test]
    fn rows_are_summed_in_even_and_odd_positions() {
        // Row 0: (1e16 + -1e16) + (1 + 1) = 2, where left to right gives 1; row 1 has 3 terms:
        // (1e16 + -1e16) + 1 = 1, where left to right gives 0.
        let a = CsrMatrix::from_triplets(
            2,
            4,
            vec![
                (0, 0, 1e16),
                (0, 1, 1.0),
                (0, 2, -1e16),
                (0, 3, 1.0),
                (1, 0, 1e16),
                (1, 1, -1e16),
                (1, 2, 1.0),
            ],
        )
        .unwrap();
        let x = [1.0; 4];
        assert_eq!(reference(&a, &x), [2.0, 0.0]);
        for kernel in [Kernel::StaticRows, Kernel::NnzBalanced, Kernel::Dynamic] {
            let mut y = vec![f64::NAN; 2];
            mul_vec(&a, &x, &mut y, kernel, Par::Team(&team(2)));
            assert_eq!(y, [2.0, 0.0], "{kernel}");
        }
    }

    #[test]
    fn nan_propagates_as_in_the_reference() {
        let a = odd_rows(90);
        let mut x: Vec<f64> = (0..a.ncols()).map(|j| 1.0 / (j + 1) as f64).collect();
        x[7] = f64::NAN;
        x[20] = f64::INFINITY;
        let want = reference(&a, &x);
        assert!(want.iter().any(|v| v.is_nan()) && want.iter().any(|v| v.is_finite()));
        for kernel in [Kernel::StaticRows, Kernel::NnzBalanced, Kernel::Dynamic] {
            for par in [Par::Sequential, Par::Team(&team(2))] {
                let mut y = vec![0.0; a.nrows()];
                mul_vec(&a, &x, &mut y, kernel, par);
                assert!(same_bits(&y, &want), "{kernel} threads={}", par.threads());
            }
        }
    }

    #[test]
    fn prefetching_follows_size_and_locality_and_changes_no_bit() {
        // 1.4M nonzeros (16.8 MB of values and col_idx): just above PREFETCH_MIN_BYTES; banded
        // (columns within 5862 of the row, but for the few rows that wrap around) or scattered.
        let n = 200_000;
        let big = |scatter: usize| {
            let t = (0..n).flat_map(move |i| {
                (0..7).map(move |j| (i, (i * scatter + j * 977) % n, 1.0 / (1 + i + j) as f64))
            });
            CsrMatrix::from_triplets(n, n, t).unwrap()
        };
        let (banded, scattered) = (big(1), big(13));
        assert!(streams_reach_prefetch_size(banded.nnz()));
        let small = odd_rows(300);
        for (a, prefetches) in [(&banded, true), (&scattered, false), (&small, false)] {
            let x: Vec<f64> = (0..a.ncols()).map(|j| (j as f64).cos()).collect();
            let want = reference(a, &x);
            for kernel in Kernel::ALL {
                let mut plan = SpmvPlan::new(a, kernel, 3);
                assert_eq!(plan.prefetches(), prefetches);
                let (mut y1, mut y2) = (vec![0.0; a.nrows()], vec![0.0; a.nrows()]);
                plan.mul_vec(&x, &mut y1, Par::Team(&team(2)));
                plan.mul_vec_checked(&x, &mut y2, Par::Team(&team(2)));
                assert!(same_bits(&y1, &y2), "{kernel}");
                if kernel != Kernel::MergePath {
                    assert!(same_bits(&y1, &want), "{kernel}");
                }
                // Tuning times both sides on large matrices, keeps the faster, changes no bit.
                let tuned = plan.tune_prefetch(&x, &mut y2, Par::Team(&team(2)), 2);
                match tuned {
                    Some((with, without)) => {
                        assert!(streams_reach_prefetch_size(a.nnz()));
                        assert!(with > 0.0 && without > 0.0);
                        assert_eq!(plan.prefetches(), with < without);
                    }
                    None => {
                        assert!(!streams_reach_prefetch_size(a.nnz()));
                        assert_eq!(plan.prefetches(), prefetches);
                    }
                }
                plan.mul_vec(&x, &mut y2, Par::Team(&team(2)));
                assert!(same_bits(&y1, &y2), "{kernel} after tuning");
            }
        }
    }

    #[test]
    fn the_column_scan_measures_distance_along_the_diagonal() {
        let far = PREFETCH_NEAR_COLUMNS + 1;
        // Square: row 0 reaches column `far` (far) and `far - 1` (near); row 1 its own column.
        let a = CsrMatrix::from_triplets(
            far + 1,
            far + 1,
            vec![(0, far, 1.0), (0, far - 1, 1.0), (1, 1, 1.0)],
        )
        .unwrap();
        let scan = ColumnScan::of(&a);
        assert!(scan.in_range);
        assert_eq!(scan.near, 2);
        // Rectangular, 2 rows and 4·far columns: row 1's diagonal column is 2·far.
        let wide = CsrMatrix::from_triplets(
            2,
            4 * far,
            vec![(1, 2 * far, 1.0), (1, 3 * far, 1.0), (0, 0, 1.0)],
        )
        .unwrap();
        assert_eq!(ColumnScan::of(&wide).near, 2);
    }

    #[test]
    fn prefetch_pays_on_large_matrices_with_near_columns() {
        let large = PREFETCH_MIN_BYTES.div_ceil(12);
        assert!(prefetch_pays(large, large));
        assert!(prefetch_pays(8 * large, 7 * large));
        assert!(!prefetch_pays(8 * large, 7 * large - 1));
        assert!(!prefetch_pays(large - 1, large - 1));
        assert!(!prefetch_pays(0, 0));
    }

    #[test]
    fn signed_zeros_follow_the_reference() {
        // Row 0 is empty, row 1 sums -0.0 + -0.0, row 2 is -1·0 = -0.0, rows 3 and 4 have three
        // and seven -0.0 terms: a sum from +0.0 would give +0.0 for all of them; the reference
        // and the kernels start both accumulators from -0.0.
        let mut t = vec![(1, 0, -1.0), (1, 1, 1.0), (2, 0, -1.0)];
        t.extend((0..3).map(|j| (3, j, if j % 2 == 0 { -1.0 } else { 1.0 })));
        t.extend((0..7).map(|j| (4, j, if j % 2 == 0 { -1.0 } else { 1.0 })));
        let a = CsrMatrix::from_triplets(5, 7, t).unwrap();
        let x = [0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0];
        let want = reference(&a, &x);
        assert!(want.iter().all(|v| v.to_bits() == (-0.0f64).to_bits()));
        for kernel in [Kernel::StaticRows, Kernel::NnzBalanced, Kernel::Dynamic] {
            let plan = SpmvPlan::new(&a, kernel, 2);
            for checked in [false, true] {
                for par in [Par::Sequential, Par::Team(&team(2))] {
                    let mut y = vec![f64::NAN; 5];
                    if checked {
                        plan.mul_vec_checked(&x, &mut y, par);
                    } else {
                        plan.mul_vec(&x, &mut y, par);
                    }
                    assert!(same_bits(&y, &want), "{kernel} checked={checked}");
                }
            }
        }
    }

    #[test]
    fn merge_path_matches_within_rounding_and_exactly_on_integers() {
        let a = skewed(500);
        let x: Vec<f64> = (0..500).map(|j| (j as f64).cos()).collect();
        let want = reference(&a, &x);
        let team2 = team(2);
        for blocks in [1, 2, 7, 64] {
            let plan = SpmvPlan::new(&a, Kernel::MergePath, blocks);
            let mut y = vec![f64::NAN; 500];
            plan.mul_vec(&x, &mut y, Par::Team(&team2));
            for (p, q) in y.iter().zip(&want) {
                assert!((p - q).abs() <= 1e-12 * q.abs().max(1.0), "{p} vs {q}");
            }
        }
        let ints = a.map_values(|v| (v * 1000.0).round());
        let xi: Vec<f64> = (0..500).map(|j| (j % 13) as f64 - 6.0).collect();
        let want = reference(&ints, &xi);
        let mut y = vec![f64::NAN; 500];
        SpmvPlan::new(&ints, Kernel::MergePath, 7).mul_vec(&xi, &mut y, Par::Team(&team2));
        assert_eq!(y, want);
    }

    #[test]
    fn checked_twin_agrees_with_unchecked() {
        let a = skewed(200);
        let x: Vec<f64> = (0..200).map(|j| j as f64 * 0.25).collect();
        for kernel in Kernel::ALL {
            let plan = SpmvPlan::new(&a, kernel, 3);
            let (mut y1, mut y2) = (vec![0.0; 200], vec![0.0; 200]);
            plan.mul_vec(&x, &mut y1, Par::Sequential);
            plan.mul_vec_checked(&x, &mut y2, Par::Sequential);
            assert_eq!(y1, y2);
        }
    }

    #[test]
    fn empty_matrices_and_rows() {
        let a: CsrMatrix<f64> = CsrMatrix::from_triplets(5, 3, vec![]).unwrap();
        for kernel in Kernel::ALL {
            let mut y = vec![f64::NAN; 5];
            mul_vec(&a, &[1.0; 3], &mut y, kernel, Par::Sequential);
            assert_eq!(y, reference(&a, &[1.0; 3]));
        }
        let z: CsrMatrix<f64> = CsrMatrix::from_triplets(0, 0, vec![]).unwrap();
        let mut y: Vec<f64> = vec![];
        mul_vec(&z, &[], &mut y, Kernel::MergePath, Par::Sequential);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn parallel_equals_sequential_equals_reference(a in arb_matrix(), blocks in 1usize..9) {
            let x: Vec<f64> = (0..a.ncols()).map(|j| j as f64 - 3.5).collect();
            let want = reference(&a, &x);
            let team2 = team(2);
            for kernel in Kernel::ALL {
                let plan = SpmvPlan::new(&a, kernel, blocks);
                let (mut ys, mut yp) = (vec![0.0; a.nrows()], vec![0.0; a.nrows()]);
                plan.mul_vec(&x, &mut ys, Par::Sequential);
                plan.mul_vec(&x, &mut yp, Par::Team(&team2));
                prop_assert_eq!(&ys, &yp);
                if kernel == Kernel::MergePath {
                    for (p, q) in ys.iter().zip(&want) {
                        prop_assert!((p - q).abs() <= 1e-9 * q.abs().max(1.0));
                    }
                } else {
                    prop_assert_eq!(&ys, &want);
                }
            }
        }
    }
}
