//! DAST, dual-array sampling (thesis 4.4, SPEC §5): from `X[j]`/`Y[i]` samples in time order per
//! thread, the nonzeros whose row is known exactly (univocal entries) and the uncertainty
//! intervals; plus the direct-index mode, where a sample of `col_idx[k]` or `val[k]` names nonzero
//! `k` itself.
//!
//! Cost `O(r log r)` for `r` records (sorting by thread and time) plus `O(log)` per candidate to
//! verify it against the matrix. Called by [`crate::sample`].
//!
//! # The rules, derived
//! In one thread and one iteration, the kernel processes its rows in increasing order, and every
//! access made for row `i` (its `x` loads and its `y` accesses) happens in the time span `S_i` of
//! that row; spans of different rows do not overlap and follow the row order.
//!
//! - **Kernel A** ([`TracedKernel::PerNonzero`]) touches `y[i]` inside `S_i` (at the row's start and
//!   per nonzero). Let `X[j]` at time `t` belong to row `r`, between samples `Y[i]` at `t1 < t`
//!   and `Y[i']` at `t2 > t`. If `i > r`, all of `S_i` follows `S_r`, so `t1 > t`: impossible;
//!   hence `i <= r`, and symmetrically `r <= i'`: **`r ∈ [i, i']`**, univocal when `i = i'`.
//!   This holds whatever the order of the loads inside one nonzero.
//! - **Kernel B** ([`TracedKernel::PerRow`]) stores `y[i]` once, as the last access of `S_i`. An `X`
//!   sample after the store of `y[i]` comes from a later row, `r > i`; one before the store of
//!   `y[i']` comes from row `i'` or earlier: **`r ∈ (i, i'] = [i + 1, i']`**, univocal when
//!   `i' = i + 1`.
//!
//! Both need the two `Y` samples in the same iteration. Rows only increase within an iteration,
//! so a `Y` row smaller than the previous one (or, for kernel B, not larger) marks an iteration
//! boundary, and the `X` samples in between are dropped (counted as `unbounded`). Sources that can
//! cut a trace per iteration do so (the simulator samples one iteration; the lackey and perf
//! importers use the run's markers and time windows), because two samples of the same row in
//! consecutive iterations would look like one row to kernel A.
//!
//! Every univocal candidate is then checked against the matrix; a candidate that is not a
//! nonzero is counted in [`Coverage::rejected`] and dropped, so the sample's precision is 100% by
//! construction and `rejected > 0` flags a wrong layout or rule.

use crate::{Access, Array, Coverage, Sample, TraceRecord, TracedKernel, UncertaintyInterval};
use serde::{Deserialize, Serialize};
use spmv_reorder_sparse::{CsrMatrix, Value};

/// Which samples DAST uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DastMode {
    /// The thesis's rule: `X` samples located by the `Y` samples around them.
    #[default]
    DualArray,
    /// Samples of `col_idx[k]` or `val[k]`: nonzero `k` exactly (row by binary search in `row_ptr`).
    DirectIndex,
    /// Both.
    Both,
}

impl std::str::FromStr for DastMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "dual" | "dual-array" => Ok(DastMode::DualArray),
            "direct" | "direct-index" => Ok(DastMode::DirectIndex),
            "both" => Ok(DastMode::Both),
            _ => Err(format!("unknown DAST mode '{s}' (dual, direct or both)")),
        }
    }
}

impl DastMode {
    fn dual(self) -> bool {
        matches!(self, DastMode::DualArray | DastMode::Both)
    }
    fn direct(self) -> bool {
        matches!(self, DastMode::DirectIndex | DastMode::Both)
    }
}

/// How to read a trace.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DastOptions {
    /// The kernel that produced the trace (fixes the dual-array rule).
    pub kernel: TracedKernel,
    /// Which samples to use.
    pub mode: DastMode,
    /// The threads' row blocks ([`crate::Layout::partition`]), given only when the trace holds
    /// exactly one iteration from its start: then the `X` samples before a thread's first `Y`
    /// sample are bounded below by the first row of that sample's block (without it they are
    /// `unbounded`).
    pub partition: Option<Vec<usize>>,
}

/// The rows an `X` sample between `Y[prev]` and `Y[next]` can belong to, or `None` when the two
/// `Y` samples are not in the same iteration (see the module docs).
pub fn row_interval(kernel: TracedKernel, prev: usize, next: usize) -> Option<(usize, usize)> {
    match kernel {
        TracedKernel::PerNonzero => (prev <= next).then_some((prev, next)),
        TracedKernel::PerRow => (prev < next).then_some((prev + 1, next)),
    }
}

/// A candidate entry `(row, col, latency)` before verification.
type Candidate = (usize, usize, Option<u32>);

/// Applies DAST to `records` of a run on `matrix` (records must carry their
/// [`TraceRecord::target`]; see [`crate::Layout::resolve_all`]).
pub fn dast<T: Value>(
    matrix: &CsrMatrix<T>,
    records: &[TraceRecord],
    opts: &DastOptions,
) -> Sample {
    let mut cov = Coverage {
        records: records.len(),
        ..Coverage::default()
    };
    let mut order: Vec<usize> = (0..records.len()).collect();
    order.sort_by_key(|&r| (records[r].thread, records[r].time)); // stable: ties keep file order
    let mut candidates = Vec::new();
    let mut intervals = Vec::new();
    let partition = opts.partition.as_deref();
    let mut walker = Walker::new(opts.kernel, partition);
    let mut thread = None;
    for &r in &order {
        let rec = &records[r];
        if thread != Some(rec.thread) {
            walker.finish(&mut cov);
            walker = Walker::new(opts.kernel, partition);
            thread = Some(rec.thread);
        }
        let Some(target) = rec.target else {
            cov.unmapped += 1;
            continue;
        };
        match target.array {
            Array::X if opts.mode.dual() && target.index < matrix.ncols() as u64 => {
                cov.x_samples += 1;
                walker.pending.push((target.index as usize, rec.latency));
            }
            Array::Y if opts.mode.dual() && target.index < matrix.nrows() as u64 => {
                cov.y_samples += 1;
                walker.y_sample(
                    target.index as usize,
                    &mut candidates,
                    &mut intervals,
                    &mut cov,
                );
            }
            Array::ColIdx | Array::Val
                if opts.mode.direct()
                    && rec.access == Access::Load
                    && target.index < matrix.nnz() as u64 =>
            {
                cov.direct_samples += 1;
                let k = target.index as usize;
                let row = matrix.row_ptr()[1..].partition_point(|&end| end <= k);
                candidates.push((row, matrix.col_idx()[k] as usize, rec.latency));
            }
            _ => cov.unmapped += 1,
        }
    }
    walker.finish(&mut cov);
    cov.candidates = candidates.len();
    cov.intervals = intervals.len();
    let entries = verify(matrix, candidates, &mut cov.rejected);
    let mut sample = Sample::from_sorted_entries(matrix, &entries);
    let table = sample.coverage.clone();
    sample.coverage = Coverage {
        nrows: table.nrows,
        nnz: table.nnz,
        sampled_nnz: table.sampled_nnz,
        sampled_fraction: table.sampled_fraction,
        mean_per_row: table.mean_per_row,
        rows_without_sample: table.rows_without_sample,
        rows_without_sample_fraction: table.rows_without_sample_fraction,
        ..cov
    };
    sample.intervals = intervals;
    sample
}

/// The state of one thread's walk: the smallest row the next `X` sample can belong to (from the
/// last `Y` sample: `i` for kernel A, `i + 1` for kernel B) and the `X` samples seen since.
struct Walker<'a> {
    kernel: TracedKernel,
    partition: Option<&'a [usize]>,
    lower: Option<usize>,
    pending: Vec<(usize, Option<u32>)>,
}

impl<'a> Walker<'a> {
    fn new(kernel: TracedKernel, partition: Option<&'a [usize]>) -> Self {
        Walker {
            kernel,
            partition,
            lower: None,
            pending: Vec::new(),
        }
    }

    /// The first row of the block holding `row`, when the partition is known.
    fn block_start(&self, row: usize) -> Option<usize> {
        let p = self.partition?;
        let b = p.partition_point(|&start| start <= row);
        (b > 0).then(|| p[b - 1])
    }

    /// A `Y[row]` sample closes the pending `X` samples: they lie in rows `lower..=row` (see
    /// [`row_interval`]), or nowhere known when `lower > row` (an iteration boundary).
    fn y_sample(
        &mut self,
        row: usize,
        candidates: &mut Vec<Candidate>,
        intervals: &mut Vec<UncertaintyInterval>,
        cov: &mut Coverage,
    ) {
        let lower = self.lower.or_else(|| self.block_start(row));
        let interval = lower.filter(|&l| l <= row).map(|l| (l, row));
        for (col, latency) in self.pending.drain(..) {
            match interval {
                Some((first, last)) if first == last => candidates.push((first, col, latency)),
                Some((first_row, last_row)) => intervals.push(UncertaintyInterval {
                    first_row,
                    last_row,
                    col,
                    latency,
                }),
                None => cov.unbounded += 1,
            }
        }
        self.lower = Some(match self.kernel {
            TracedKernel::PerNonzero => row,
            TracedKernel::PerRow => row + 1,
        });
    }

    /// `X` samples after the thread's last `Y` sample have no upper bound.
    fn finish(&mut self, cov: &mut Coverage) {
        cov.unbounded += self.pending.len();
        self.pending.clear();
    }
}

/// Keeps the candidates that are nonzeros of `matrix`, sorted, deduplicated (largest latency
/// kept; 0 = unknown); counts the others in `rejected`.
fn verify<T: Value>(
    matrix: &CsrMatrix<T>,
    mut candidates: Vec<Candidate>,
    rejected: &mut usize,
) -> Vec<(usize, u32, u32)> {
    candidates.sort_unstable_by_key(|&(i, j, _)| (i, j));
    let mut out: Vec<(usize, u32, u32)> = Vec::with_capacity(candidates.len());
    for (i, j, lat) in candidates {
        let real = i < matrix.nrows() && matrix.row(i).0.binary_search(&(j as u32)).is_ok();
        if !real {
            *rejected += 1;
            continue;
        }
        let lat = lat.unwrap_or(0);
        match out.last_mut() {
            Some(last) if (last.0, last.1) == (i, j as u32) => last.2 = last.2.max(lat),
            _ => out.push((i, j as u32, lat)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Target;

    fn rec(thread: u32, time: u64, array: Array, index: u64, latency: u32) -> TraceRecord {
        TraceRecord {
            thread,
            time,
            addr: 0,
            access: Access::Load,
            latency: Some(latency),
            target: Some(Target { array, index }),
        }
    }

    /// Records `Y[0], X[23], Y[1], Y[2], X[12], X[19], Y[2]` on one thread.
    fn thesis_trace() -> Vec<TraceRecord> {
        use Array::{X, Y};
        [(Y, 0), (X, 23), (Y, 1), (Y, 2), (X, 12), (X, 19), (Y, 2)]
            .iter()
            .enumerate()
            .map(|(t, &(a, i))| rec(0, t as u64, a, i, 10 + t as u32))
            .collect()
    }

    fn thesis_matrix() -> CsrMatrix<f64> {
        CsrMatrix::from_triplets(
            3,
            30,
            vec![(0, 23, 1.0), (2, 12, 1.0), (2, 19, 1.0), (1, 5, 1.0)],
        )
        .unwrap()
    }

    #[test]
    fn thesis_example() {
        let s = dast(&thesis_matrix(), &thesis_trace(), &DastOptions::default());
        assert_eq!(
            s.intervals,
            vec![UncertaintyInterval {
                first_row: 0,
                last_row: 1,
                col: 23,
                latency: Some(11)
            }]
        );
        assert_eq!(s.pattern.row(2).0, &[12, 19]);
        assert_eq!(s.pattern.nnz(), 2);
        assert_eq!(s.entry_latency, vec![14, 15]);
        assert_eq!(s.row_max_latency, vec![None, None, Some(15)]);
        assert_eq!((s.coverage.x_samples, s.coverage.y_samples), (3, 4));
        assert_eq!((s.coverage.candidates, s.coverage.rejected), (2, 0));
        assert_eq!(s.coverage.rows_without_sample, 2);
    }

    #[test]
    fn kernel_b_interval_is_half_open() {
        assert_eq!(row_interval(TracedKernel::PerRow, 3, 4), Some((4, 4)));
        assert_eq!(row_interval(TracedKernel::PerRow, 3, 6), Some((4, 6)));
        assert_eq!(row_interval(TracedKernel::PerRow, 3, 3), None);
        assert_eq!(row_interval(TracedKernel::PerNonzero, 3, 3), Some((3, 3)));
        assert_eq!(row_interval(TracedKernel::PerNonzero, 4, 3), None);
        // Stores of y[0], y[1] around X[5]: the X belongs to row 1.
        use Array::{X, Y};
        let t = vec![rec(0, 0, Y, 0, 0), rec(0, 1, X, 5, 0), rec(0, 2, Y, 1, 0)];
        let opts = DastOptions {
            kernel: TracedKernel::PerRow,
            ..DastOptions::default()
        };
        let s = dast(&thesis_matrix(), &t, &opts);
        assert_eq!(s.pattern.row(1).0, &[5]);
        // Under kernel A's rule the same trace is ambiguous.
        let s = dast(&thesis_matrix(), &t, &DastOptions::default());
        assert_eq!(s.pattern.nnz(), 0);
        assert_eq!(s.intervals.len(), 1);
    }

    #[test]
    fn threads_are_separated_and_time_ordered() {
        use Array::{X, Y};
        // Thread 1's records interleave with thread 0's and arrive out of order.
        let mut t = thesis_trace();
        t.push(rec(1, 5, X, 5, 0));
        t.push(rec(1, 9, Y, 1, 0));
        t.push(rec(1, 1, Y, 1, 0));
        t.reverse();
        let s = dast(&thesis_matrix(), &t, &DastOptions::default());
        assert_eq!(s.pattern.row(1).0, &[5]);
        assert_eq!(s.pattern.row(2).0, &[12, 19]);
    }

    #[test]
    fn iteration_boundary_and_trace_ends_are_unbounded() {
        use Array::{X, Y};
        let t = vec![
            rec(0, 0, X, 1, 0), // before any Y
            rec(0, 1, Y, 2, 0),
            rec(0, 2, X, 12, 0), // between Y[2] and Y[0]: next iteration
            rec(0, 3, Y, 0, 0),
            rec(0, 4, X, 23, 0), // after the last Y
        ];
        let s = dast(&thesis_matrix(), &t, &DastOptions::default());
        assert_eq!(s.pattern.nnz(), 0);
        assert_eq!(s.coverage.unbounded, 3);
    }

    #[test]
    fn partition_bounds_the_first_samples_of_a_thread() {
        use Array::{X, Y};
        // Thread 0 owns rows 0..2 and thread 1 rows 2..3; kernel B, one iteration.
        let t = vec![
            rec(0, 0, X, 23, 0),
            rec(0, 1, Y, 0, 0),
            rec(1, 0, X, 12, 0),
            rec(1, 1, Y, 2, 0),
        ];
        let mut opts = DastOptions {
            kernel: TracedKernel::PerRow,
            ..DastOptions::default()
        };
        assert_eq!(dast(&thesis_matrix(), &t, &opts).coverage.unbounded, 2);
        opts.partition = Some(vec![0, 2, 3]);
        let s = dast(&thesis_matrix(), &t, &opts);
        assert_eq!(s.pattern.row(0).0, &[23]);
        assert_eq!(s.pattern.row(2).0, &[12]);
    }

    #[test]
    fn wrong_candidates_are_rejected_and_counted() {
        use Array::{X, Y};
        let t = vec![rec(0, 0, Y, 0, 0), rec(0, 1, X, 7, 0), rec(0, 2, Y, 0, 0)];
        let s = dast(&thesis_matrix(), &t, &DastOptions::default());
        assert_eq!(s.pattern.nnz(), 0);
        assert_eq!((s.coverage.candidates, s.coverage.rejected), (1, 1));
        assert!(s.coverage.precision() < 1.0);
    }

    #[test]
    fn direct_index_names_the_nonzero() {
        let a = thesis_matrix(); // nonzeros: (0,23) (1,5) (2,12) (2,19)
        let t = vec![
            rec(0, 0, Array::ColIdx, 3, 40),
            rec(0, 1, Array::Val, 1, 30),
            rec(0, 2, Array::Val, 3, 90),
            rec(0, 3, Array::X, 4, 0),
        ];
        let opts = DastOptions {
            mode: DastMode::DirectIndex,
            ..DastOptions::default()
        };
        let s = dast(&a, &t, &opts);
        assert_eq!(s.pattern.row(1).0, &[5]);
        assert_eq!(s.pattern.row(2).0, &[19]);
        assert_eq!(s.entry_latency, vec![30, 90]);
        assert_eq!(s.coverage.direct_samples, 3);
        assert_eq!(s.coverage.unmapped, 1); // X is not used in direct mode
    }
}
