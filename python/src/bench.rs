//! `spmv_bench(csr, data, perm, options)`: the SpMV benchmark of `spmv-reorder bench`, on a matrix
//! from scipy, alone or before and after a symmetric permutation, as the same JSON as
//! `spmv-reorder bench --json` (a `BenchReport`, or a `Comparison` with a permutation).

use crate::errors::{spmv_error, value_error};
use crate::matrix::{invalid, CsrArrays};
use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use spmv_reorder_sparse::{CsrMatrix, Permutation};
use spmv_reorder_spmv::bench::{self, BenchConfig};
use spmv_reorder_spmv::stream::StreamConfig;
use spmv_reorder_spmv::{Kernel, Pinning, Topology};

/// The largest `stream_mb` and `stream_reps`, as `spmv-reorder bench` has them.
const MAX_STREAM_MB: usize = 1_000_000;
const MAX_STREAM_REPS: usize = 1000;

/// The options of `spmv_reorder.spmv_bench`, each `None` for the command line's default.
#[derive(Debug, FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct BenchOptions {
    threads: Option<usize>,
    kernel: Option<String>,
    reps: Option<usize>,
    warmup: Option<usize>,
    stream_mb: Option<usize>,
    stream_reps: Option<usize>,
    pin: Option<String>,
    place: Option<String>,
    reorder_seconds: Option<f64>,
}

impl BenchOptions {
    /// The benchmark's configuration on this machine, as `spmv-reorder bench` builds it.
    fn config(&self) -> PyResult<BenchConfig> {
        let defaults = BenchConfig::default();
        let pinning: Pinning = match &self.pin {
            Some(p) => p.parse().map_err(spmv_error)?,
            None => defaults.pinning.clone(),
        };
        let threads = match (self.threads, &pinning) {
            (Some(t), _) => t,
            (None, Pinning::List(cpus)) => cpus.len(),
            (None, _) => Topology::this_system().map_err(spmv_error)?.pus.len(),
        };
        let kernels = match self.kernel.as_deref() {
            None | Some("all") => Kernel::ALL.to_vec(),
            Some(k) => vec![k.parse::<Kernel>().map_err(spmv_error)?],
        };
        // The command line's ranges: a product beyond them would wrap.
        let stream_mb = self.stream_mb.unwrap_or(80);
        if stream_mb > MAX_STREAM_MB {
            return Err(PyValueError::new_err(format!(
                "stream_mb {stream_mb}: at most {MAX_STREAM_MB} (0 skips the triad)"
            )));
        }
        let stream_reps = self.stream_reps.unwrap_or(StreamConfig::default().reps);
        if !(1..=MAX_STREAM_REPS).contains(&stream_reps) {
            return Err(PyValueError::new_err(format!(
                "stream_reps {stream_reps}: expected 1 to {MAX_STREAM_REPS}"
            )));
        }
        Ok(BenchConfig {
            threads,
            pinning,
            placement: match &self.place {
                Some(p) => p.parse().map_err(spmv_error)?,
                None => defaults.placement.clone(),
            },
            kernels,
            warmup: self.warmup.unwrap_or(defaults.warmup),
            reps: self.reps.unwrap_or(defaults.reps),
            stream: (stream_mb > 0).then(|| StreamConfig {
                elements: stream_mb * 1_000_000 / 8,
                reps: stream_reps,
            }),
            reorder_seconds: self.reorder_seconds,
            ..defaults
        })
    }
}

/// Benchmarks the real matrix `csr` with values `data`, and with `perm` (0-based, new → old) also
/// `P·A·Pᵀ` side by side; returns the JSON of `spmv-reorder bench --json`.
///
/// # Errors
/// `ValueError` for invalid arrays, a permutation of the wrong length or bad options,
/// `RuntimeError` when this machine refuses the threads or their binding.
#[pyfunction]
#[pyo3(signature = (csr, data, perm, options))]
pub(crate) fn spmv_bench<'py>(
    py: Python<'py>,
    csr: CsrArrays<'py>,
    data: PyReadonlyArray1<'py, f64>,
    perm: Option<PyReadonlyArray1<'py, i64>>,
    options: BenchOptions,
) -> PyResult<String> {
    let config = options.config()?;
    let values = data.as_slice().map_err(value_error)?.to_vec();
    let before: CsrMatrix<f64> = csr.slices()?.to_matrix(values).map_err(invalid)?;
    let after = match perm {
        Some(p) => Some(permuted(&before, p.as_slice().map_err(value_error)?)?),
        None => None,
    };
    let json = py.detach(|| match &after {
        None => bench::run(&before, &config).map(|r| serde_json::to_string(&r)),
        Some(after) => bench::compare(&before, after, &config).map(|c| serde_json::to_string(&c)),
    });
    json.map_err(spmv_error)?
        .map_err(|e| PyValueError::new_err(format!("the report cannot be written: {e}")))
}

/// `P·A·Pᵀ` for the 0-based new → old indices `perm`.
fn permuted(a: &CsrMatrix<f64>, perm: &[i64]) -> PyResult<CsrMatrix<f64>> {
    let new_to_old = perm
        .iter()
        .map(|&i| {
            usize::try_from(i)
                .map_err(|_| PyValueError::new_err(format!("perm holds a negative index {i}")))
        })
        .collect::<PyResult<Vec<usize>>>()?;
    let p = Permutation::from_new_to_old(new_to_old).map_err(value_error)?;
    a.permute_symmetric(&p).map_err(value_error)
}
