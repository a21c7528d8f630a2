//! What the benchmark reports: the matrix's size and minimum traffic, each kernel's timings and
//! roofline point, a matrix's report, and the comparison of two matrices (SPEC section 6).

use serde::Serialize;
use spmv_reorder_sparse::CsrMatrix;

use crate::placement::PageReport;
use crate::stream::StreamReport;
use crate::{Kernel, ThreadBinding};

/// Size and minimum traffic of the benchmarked matrix.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MatrixSummary {
    /// Rows.
    pub nrows: usize,
    /// Columns.
    pub ncols: usize,
    /// Stored entries.
    pub nnz: usize,
    /// Flops per product, `2·nnz`.
    pub flops: f64,
    /// Minimum bytes moved per product (SPEC section 6).
    pub min_traffic_bytes: f64,
}

impl MatrixSummary {
    /// Summarises `a`.
    pub fn of(a: &CsrMatrix<f64>) -> Self {
        MatrixSummary {
            nrows: a.nrows(),
            ncols: a.ncols(),
            nnz: a.nnz(),
            flops: 2.0 * a.nnz() as f64,
            min_traffic_bytes: min_traffic_bytes(a.nrows(), a.ncols(), a.nnz()),
        }
    }
}

/// `nnz·(8 + 4) + (nrows + 1)·8 + 8·(nrows + ncols)`: values, column indices, row offsets, `x`
/// and `y` each moved once (SPEC section 6, without the write-allocate of `y`).
pub fn min_traffic_bytes(nrows: usize, ncols: usize, nnz: usize) -> f64 {
    (nnz * 12 + (nrows + 1) * 8 + 8 * (nrows + ncols)) as f64
}

/// Where a kernel sits in the roofline model (thesis section 2.7).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Roofline {
    /// Flops per byte of minimum traffic (the "locality wall" of the kernel).
    pub operational_intensity: f64,
    /// `triad GB/s · intensity`: the GFLOP/s that the measured bandwidth allows.
    pub bandwidth_roof_gflops: Option<f64>,
    /// GFLOP/s reached by the fastest sample.
    pub attained_gflops: f64,
    /// `attained / roof`.
    pub roof_share: Option<f64>,
}

/// Timings and derived figures of one kernel on one matrix.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelReport {
    /// The kernel.
    pub kernel: Kernel,
    /// Fastest product, seconds.
    pub min_s: f64,
    /// Median product, seconds.
    pub median_s: f64,
    /// Slowest product, seconds.
    pub max_s: f64,
    /// Products per timed sample.
    pub products_per_sample: usize,
    /// `2·nnz / median_s / 1e9`.
    pub gflops: f64,
    /// Minimum traffic / `median_s` / 1e9.
    pub gbytes_per_s: f64,
    /// Minimum traffic / `min_s` / 1e9 (compare with the triad's best repetition).
    pub best_gbytes_per_s: f64,
    /// `best_gbytes_per_s / triad_gbytes_per_s` (best against best, as STREAM reports).
    pub triad_share: Option<f64>,
    /// `gbytes_per_s / triad median GB/s` (median against median; the triad repetitions are
    /// interleaved with the SpMV samples, so this ratio is the steadiest on a shared machine).
    pub median_triad_share: Option<f64>,
    /// `min_block_nnz / max_block_nnz` over the thread blocks (thesis table 2.4).
    pub load_balance: f64,
    /// Roofline point.
    pub roofline: Roofline,
    /// Where the pages of each array are.
    pub pages: Vec<PageReport>,
    /// Whether the kernel prefetched `values` and `col_idx` (the faster choice, timed both ways
    /// before the samples, on matrices large enough for it to matter: `SpmvPlan::tune_prefetch`).
    pub prefetch: bool,
}

/// Everything measured for one matrix.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchReport {
    /// The matrix.
    pub matrix: MatrixSummary,
    /// Threads used.
    pub threads: usize,
    /// Pinning asked for.
    pub pinning: String,
    /// Placement asked for.
    pub placement: String,
    /// Where each thread really ran.
    pub bindings: Vec<ThreadBinding>,
    /// The triad measured with the same team (all its repetitions, interleaved ones included).
    pub triad: Option<StreamReport>,
    /// The triad's best bandwidth (GB/s).
    pub triad_gbytes_per_s: Option<f64>,
    /// One report per kernel, in the order asked.
    pub kernels: Vec<KernelReport>,
    /// The kernel with the lowest median.
    pub best_kernel: Kernel,
    /// Median seconds of the best kernel.
    pub median_s: f64,
    /// GFLOP/s of the best kernel (median).
    pub gflops: f64,
    /// Effective GB/s of the best kernel (median).
    pub gbytes_per_s: f64,
    /// Whether the write-allocate of `y` is in the traffic (it is not).
    pub write_allocate_counted: bool,
}

/// Speedup of one kernel.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelSpeedup {
    /// The kernel.
    pub kernel: Kernel,
    /// Median before, seconds.
    pub before_median_s: f64,
    /// Median after, seconds.
    pub after_median_s: f64,
    /// `before / after`.
    pub speedup: f64,
}

/// A matrix before and after a reordering, measured in one run with interleaved repetitions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// The original matrix.
    pub before: BenchReport,
    /// The reordered matrix.
    pub after: BenchReport,
    /// Per-kernel speedups.
    pub kernels: Vec<KernelSpeedup>,
    /// Best kernel's median before / best kernel's median after.
    pub speedup: f64,
    /// The reordering time given in the configuration.
    pub reorder_seconds: Option<f64>,
    /// `reorder_seconds / t_before`: the reordering's cost in products.
    pub reorder_cost_in_spmvs: Option<f64>,
    /// `reorder_seconds / (t_before - t_after)`; `None` when the reordering is not measurably
    /// faster: the median after must be below the fastest product before (of its best kernel).
    pub break_even_iterations: Option<f64>,
}
