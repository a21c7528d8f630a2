//! `Sample`: the sampled pattern every sampler returns, with latencies, uncertainty intervals and
//! the coverage statistics of thesis table 4.2.
//!
//! Built by [`crate::random_sample`] and [`crate::dast`]; read by the windows of locality
//! (latency windows use [`Sample::row_max_latency`]) and by the CLI (`--json`).

use serde::Serialize;
use spmv_reorder_sparse::{CsrMatrix, Value};

/// A sampled version of a matrix: a subset of its nonzeros, same shape.
///
/// # Invariants
/// Guaranteed by the constructors of this crate (not rechecked):
/// - `pattern` has the shape of the sampled matrix and every entry of it is a nonzero of that matrix;
/// - `entry_latency.len() == pattern.nnz()`, aligned with the pattern's entries (0 = unknown);
/// - `row_max_latency.len() == pattern.nrows()`: the largest known latency of the row's entries,
///   `None` for a row without a sampled entry with a known latency.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The sampled entries (DAST: the univocal ones).
    pub pattern: CsrMatrix<()>,
    /// Latency in cycles of each entry of `pattern` (the largest when sampled twice), 0 when unknown.
    pub entry_latency: Vec<u32>,
    /// Per row, the largest sampled latency (`None`: no sample with a latency).
    pub row_max_latency: Vec<Option<u32>>,
    /// Samples whose row is only known to lie in an interval of rows (DAST only).
    pub intervals: Vec<UncertaintyInterval>,
    /// How much of the matrix the sample covers, and how the trace was used.
    pub coverage: Coverage,
}

/// An `X[col]` sample whose row lies somewhere in `first_row..=last_row` (thesis 4.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct UncertaintyInterval {
    /// First possible row.
    pub first_row: usize,
    /// Last possible row (`> first_row`; equal rows make a univocal entry instead).
    pub last_row: usize,
    /// The column (index into `x`).
    pub col: usize,
    /// The sample's latency in cycles, when known.
    pub latency: Option<u32>,
}

/// Coverage of a sample (thesis table 4.2) and the fate of the trace's records.
///
/// The first six fields are the table's columns; the rest explain how the records were used.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Coverage {
    /// Rows of the matrix.
    pub nrows: usize,
    /// Nonzeros of the matrix.
    pub nnz: usize,
    /// Distinct sampled nonzeros (*snnz*).
    pub sampled_nnz: usize,
    /// `sampled_nnz / nnz` (0 for an empty matrix).
    pub sampled_fraction: f64,
    /// `sampled_nnz / nrows`: mean sampled entries per row.
    pub mean_per_row: f64,
    /// Rows that hold nonzeros but got no sampled entry (empty rows can not be sampled).
    pub rows_without_sample: usize,
    /// `rows_without_sample / nrows`.
    pub rows_without_sample_fraction: f64,
    /// Trace records given to DAST.
    pub records: usize,
    /// Records that map to no array of the layout (or to an array DAST does not use).
    pub unmapped: usize,
    /// Records of `X`.
    pub x_samples: usize,
    /// Records of `Y`.
    pub y_samples: usize,
    /// Records of `col_idx`/`val` used by the direct-index mode.
    pub direct_samples: usize,
    /// Candidate univocal entries (before verification and deduplication).
    pub candidates: usize,
    /// Candidates that are not nonzeros of the matrix (a wrong layout or rule; 0 when all is well).
    pub rejected: usize,
    /// `X` samples whose row is only known up to an interval of several rows.
    pub intervals: usize,
    /// `X` samples with no usable pair of `Y` samples around them (trace start or end, or an
    /// iteration boundary).
    pub unbounded: usize,
}

impl Coverage {
    /// The table columns of `pattern` against `matrix`; the trace counters stay 0.
    pub fn of<T: Value>(matrix: &CsrMatrix<T>, pattern: &CsrMatrix<()>) -> Self {
        let (a, s) = (matrix.row_ptr(), pattern.row_ptr());
        let rows_without_sample = a
            .windows(2)
            .zip(s.windows(2))
            .filter(|(a, s)| a[0] != a[1] && s[0] == s[1])
            .count();
        Coverage::with_rows_without_sample(matrix, pattern, rows_without_sample)
    }

    /// [`Coverage::of`] with the rows without sample already counted.
    fn with_rows_without_sample<T: Value>(
        matrix: &CsrMatrix<T>,
        pattern: &CsrMatrix<()>,
        rows_without_sample: usize,
    ) -> Self {
        let nrows = matrix.nrows();
        let nnz = matrix.nnz();
        let sampled_nnz = pattern.nnz();
        Coverage {
            nrows,
            nnz,
            sampled_nnz,
            sampled_fraction: ratio(sampled_nnz, nnz),
            mean_per_row: ratio(sampled_nnz, nrows),
            rows_without_sample,
            rows_without_sample_fraction: ratio(rows_without_sample, nrows),
            ..Coverage::default()
        }
    }

    /// Precision of the univocal candidates: `1 - rejected / candidates` (1 when there are none).
    pub fn precision(&self) -> f64 {
        if self.candidates == 0 {
            1.0
        } else {
            1.0 - self.rejected as f64 / self.candidates as f64
        }
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

impl Sample {
    /// A sample of the given entries (sorted by row then column, distinct, all nonzeros of
    /// `matrix`), with their latencies (0 = unknown).
    pub(crate) fn from_sorted_entries<T: Value>(
        matrix: &CsrMatrix<T>,
        entries: &[(usize, u32, u32)],
    ) -> Sample {
        let n = matrix.nrows();
        let mut row_ptr = vec![0usize; n + 1];
        for &(i, _, _) in entries {
            row_ptr[i + 1] += 1;
        }
        for i in 0..n {
            row_ptr[i + 1] += row_ptr[i];
        }
        let col_idx = entries.iter().map(|e| e.1).collect();
        let entry_latency = entries.iter().map(|e| e.2).collect();
        Sample::from_csr_parts(matrix, row_ptr, col_idx, entry_latency, None)
    }

    /// A sample from the CSR arrays of its pattern (a sorted subset of `matrix`'s entries) and the
    /// entries' latencies; `rows_without_sample` when the caller already counted them.
    /// `O(nrows + sample)`.
    pub(crate) fn from_csr_parts<T: Value>(
        matrix: &CsrMatrix<T>,
        row_ptr: Vec<usize>,
        col_idx: Vec<u32>,
        entry_latency: Vec<u32>,
        rows_without_sample: Option<usize>,
    ) -> Sample {
        let n = matrix.nrows();
        let mut row_max_latency = vec![None; n];
        if entry_latency.iter().any(|&l| l > 0) {
            for (i, w) in row_ptr.windows(2).enumerate() {
                let known = entry_latency[w[0]..w[1]].iter().copied().filter(|&l| l > 0);
                row_max_latency[i] = known.max();
            }
        }
        let nnz = col_idx.len();
        let pattern = CsrMatrix::new_unchecked(n, matrix.ncols(), row_ptr, col_idx, vec![(); nnz]);
        let coverage = match rows_without_sample {
            Some(r) => Coverage::with_rows_without_sample(matrix, &pattern, r),
            None => Coverage::of(matrix, &pattern),
        };
        Sample {
            pattern,
            entry_latency,
            row_max_latency,
            intervals: Vec::new(),
            coverage,
        }
    }

    /// The sampled pattern seen from the columns: `patternᵀ`, row `j` lists the sampled rows of
    /// column `j` (column windows of locality use it, SPEC section 2).
    pub fn columns(&self) -> CsrMatrix<()> {
        self.pattern.transpose()
    }

    /// Mean of the known entry latencies (the *average* threshold of latency windows, thesis eq.
    /// 4.6), `None` when no entry has a latency.
    pub fn mean_latency(&self) -> Option<f64> {
        let known: Vec<u32> = self
            .entry_latency
            .iter()
            .copied()
            .filter(|&l| l > 0)
            .collect();
        (!known.is_empty())
            .then(|| known.iter().map(|&l| l as f64).sum::<f64>() / known.len() as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_entries_builds_pattern_and_latencies() {
        let a = CsrMatrix::from_triplets(
            3,
            4,
            vec![(0, 0, 1.0), (0, 3, 1.0), (1, 1, 1.0), (2, 2, 1.0)],
        )
        .unwrap();
        let s = Sample::from_sorted_entries(&a, &[(0, 3, 50), (2, 2, 0)]);
        assert_eq!(s.pattern.row_ptr(), &[0, 1, 1, 2]);
        assert_eq!(s.pattern.col_idx(), &[3, 2]);
        assert_eq!(s.row_max_latency, vec![Some(50), None, None]);
        assert_eq!(s.coverage.sampled_nnz, 2);
        assert_eq!(s.coverage.rows_without_sample, 1);
        assert!((s.coverage.sampled_fraction - 0.5).abs() < 1e-12);
        assert_eq!(s.mean_latency(), Some(50.0));
        assert_eq!(s.columns().row(3).0, &[0]);
    }
}
