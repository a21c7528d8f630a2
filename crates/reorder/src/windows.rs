//! From a [`WindowSpec`] to the [`Windows`] of a (sampled) pattern (SPEC section 3).
//!
//! The latency threshold "average" is the mean latency of all sampled accesses, as the thesis
//! defines it (equation 4.6: `Σ latency(β_i) / snnz`), not the mean of the per-row maxima.

use crate::cache_windows::cache_runs;
use crate::{ReorderError, WindowSpec, DEFAULT_CACHE_WINDOW_BYTES};
use spmv_reorder_locality::{LatencyThreshold, Parallelism, UnsampledRows, Windows};
use spmv_reorder_sparse::CsrMatrix;

/// Latencies a sampler recorded: per sampled entry, and the maximum per row.
#[derive(Debug, Clone, Copy)]
pub struct SampledLatencies<'a> {
    /// Latency (cycles) of each sampled access.
    pub entries: &'a [u32],
    /// Maximum sampled latency of each row, `None` for a row without a sample.
    pub row_max: &'a [Option<u32>],
}

impl<'a> SampledLatencies<'a> {
    /// These latencies when some row has one (or there is no row): a random sample, or a trace
    /// read without the cache model, records none, and latency windows cannot be cut from nothing.
    pub fn known(latencies: Option<Self>) -> Option<Self> {
        latencies.filter(|l| l.row_max.is_empty() || l.row_max.iter().any(Option::is_some))
    }
}

/// The windows `spec` describes on `pattern`.
///
/// # Errors
/// [`ReorderError::Incompatible`] for latency windows without latencies, and the locality model's
/// errors (e.g. latencies for a different number of rows).
pub fn windows_for(
    spec: WindowSpec,
    pattern: &CsrMatrix<()>,
    latencies: Option<SampledLatencies<'_>>,
) -> Result<Windows, ReorderError> {
    let n = pattern.nrows();
    Ok(match spec {
        WindowSpec::Fixed(1) => Windows::single_rows(n),
        WindowSpec::Fixed(w) => Windows::fixed(n, w)?,
        WindowSpec::Variable => Windows::variable(pattern, Parallelism::Rayon),
        // Along this order; the path over cache windows cuts METIS parts instead (`side`).
        WindowSpec::Cache { bytes } => {
            cache_runs(pattern, bytes.unwrap_or(DEFAULT_CACHE_WINDOW_BYTES))?
        }
        WindowSpec::Latency { cycles, zeros } => {
            let lat = SampledLatencies::known(latencies).ok_or_else(|| {
                ReorderError::Incompatible(
                    "latency windows need sampled latencies, and this run sampled none: use a DAST \
                     sampler (dast-sim, dast-perf, trace:perf-script=... or trace:...,cache=on)"
                        .into(),
                )
            })?;
            if lat.row_max.len() != n {
                return Err(spmv_reorder_locality::LocalityError::RowCountMismatch {
                    what: "row latencies",
                    expected: n,
                    found: lat.row_max.len(),
                }
                .into());
            }
            let threshold = cycles.unwrap_or_else(|| mean_latency(lat.entries));
            let unsampled = if zeros {
                UnsampledRows::JoinPrevious
            } else {
                UnsampledRows::StartWindow
            };
            Windows::latency(lat.row_max, LatencyThreshold::Cycles(threshold), unsampled)
        }
    })
}

/// Mean of the sampled latencies, rounded down (0 when nothing was sampled).
fn mean_latency(entries: &[u32]) -> u32 {
    if entries.is_empty() {
        return 0;
    }
    let sum: u64 = entries.iter().map(|&l| l as u64).sum();
    (sum / entries.len() as u64) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn average_threshold_is_mean_of_accesses() {
        let p = CsrMatrix::from_triplets(4, 4, (0..4).map(|i| (i, i, ()))).unwrap();
        // The mean of the accesses is 20; the mean of the row maxima would be 27.5, under which
        // row 1 (25) would join instead of starting a window.
        let entries = [10, 10, 10, 10, 60];
        let row_max = [Some(10), Some(25), Some(15), Some(60)];
        let w = windows_for(
            WindowSpec::Latency {
                cycles: None,
                zeros: false,
            },
            &p,
            Some(SampledLatencies {
                entries: &entries,
                row_max: &row_max,
            }),
        )
        .unwrap();
        // mean of accesses = 20: row 1 (25) starts, row 2 (15) joins, row 3 (60) starts.
        assert_eq!(w.starts(), &[0, 1, 3, 4]);
        let fixed = windows_for(
            WindowSpec::Latency {
                cycles: Some(30),
                zeros: false,
            },
            &p,
            Some(SampledLatencies {
                entries: &entries,
                row_max: &row_max,
            }),
        )
        .unwrap();
        assert_eq!(fixed.starts(), &[0, 3, 4]);
    }

    #[test]
    fn latency_windows_refuse_a_sample_without_latencies() {
        let p = CsrMatrix::from_triplets(3, 3, (0..3).map(|i| (i, i, ()))).unwrap();
        let spec = WindowSpec::Latency {
            cycles: None,
            zeros: false,
        };
        let unknown = SampledLatencies {
            entries: &[0, 0, 0],
            row_max: &[None, None, None],
        };
        for latencies in [None, Some(unknown)] {
            let err = windows_for(spec, &p, latencies).unwrap_err();
            assert!(
                matches!(&err, ReorderError::Incompatible(m) if m.contains("sampled none")),
                "{err}"
            );
        }
    }

    #[test]
    fn fixed_and_variable() {
        let p = CsrMatrix::from_triplets(5, 5, (0..5).map(|i| (i, i, ()))).unwrap();
        assert_eq!(
            windows_for(WindowSpec::Fixed(2), &p, None).unwrap().len(),
            3
        );
        assert_eq!(
            windows_for(WindowSpec::Fixed(1), &p, None).unwrap().len(),
            5
        );
        assert_eq!(
            windows_for(WindowSpec::Variable, &p, None).unwrap().len(),
            5
        );
    }
}
