//! `reorder(csr, options)`: the options dict to a [`Reorderer`], run on the pattern on a worker
//! thread that Ctrl-C can stop.

use crate::errors::reorder_error;
use crate::interrupt::{self, Stop};
use crate::matrix::{invalid, CsrArrays};
use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use spmv_reorder_reorder::{parse_rcm_start, Reorderer, Reordering};
use spmv_reorder_sparse::Permutation;
use std::time::Duration;

/// The options of `spmv_reorder.Reorderer`, each `None` for the library's default. Text options
/// use the command line's spellings and are parsed by the library; the Python side has checked
/// that numbers are in range.
#[derive(Debug, FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct Options {
    method: Option<String>,
    sampler: Option<String>,
    window: Option<String>,
    permute: Option<String>,
    start: Option<String>,
    length_runs: Option<String>,
    seed: Option<u64>,
    threads: Option<usize>,
    time_limit: Option<f64>,
    neighbours: Option<usize>,
    hub_limit: Option<usize>,
    kicks: Option<u64>,
    cache_check: Option<bool>,
    length_change_cost: Option<u32>,
    row_split_threads: Option<usize>,
    part_rows: Option<usize>,
    symmetric_pattern: Option<bool>,
    rcm_start: Option<String>,
}

impl Options {
    /// The configured builder.
    ///
    /// # Errors
    /// `ValueError` naming an option the library cannot parse.
    fn reorderer(&self) -> PyResult<Reorderer> {
        let mut r = Reorderer::new();
        let parse = |e| reorder_error(e);
        if let Some(m) = &self.method {
            r = r.method(m.parse().map_err(parse)?);
        }
        if let Some(s) = &self.sampler {
            r = r.sampler(s.parse().map_err(parse)?);
        }
        if let Some(w) = &self.window {
            r = r.windows(w.parse().map_err(parse)?);
        }
        if let Some(p) = &self.permute {
            r = r.permute(Some(p.parse().map_err(parse)?));
        }
        if let Some(s) = &self.start {
            r = r.start(Some(s.parse().map_err(parse)?));
        }
        if let Some(b) = &self.length_runs {
            r = r.length_runs(Some(b.parse().map_err(parse)?));
        }
        if let Some(s) = &self.rcm_start {
            r = r.rcm_start(parse_rcm_start(s).map_err(parse)?);
        }
        if let Some(seed) = self.seed {
            r = r.seed(seed);
        }
        if let Some(t) = self.time_limit {
            let limit = Duration::try_from_secs_f64(t)
                .map_err(|e| PyValueError::new_err(format!("time_limit {t}: {e}")))?;
            r = r.time_limit(Some(limit));
        }
        self.numbers(r)
    }

    /// The thread pool of `threads`, `None` for the global pool (all cores): the library runs on
    /// the pool it is called from.
    ///
    /// # Errors
    /// `RuntimeError` when the threads cannot be started.
    fn pool(&self) -> PyResult<Option<rayon::ThreadPool>> {
        let Some(n) = self.threads else {
            return Ok(None);
        };
        let pool = rayon::ThreadPoolBuilder::new().num_threads(n).build();
        pool.map(Some).map_err(|e| {
            pyo3::exceptions::PyRuntimeError::new_err(format!("cannot start {n} threads: {e}"))
        })
    }

    /// The numeric and switch options on `r`.
    fn numbers(&self, mut r: Reorderer) -> PyResult<Reorderer> {
        if let Some(k) = self.neighbours {
            r = r.neighbours(k);
        }
        if let Some(h) = self.hub_limit {
            r = r.hub_limit(h);
        }
        if self.kicks.is_some() {
            r = r.max_kicks(self.kicks);
        }
        if self.cache_check == Some(false) {
            r = r.cache_check(None);
        }
        if let Some(c) = self.length_change_cost {
            r = r.length_change_cost(c);
        }
        if self.row_split_threads.is_some() {
            r = r.row_split_threads(self.row_split_threads);
        }
        if let Some(rows) = self.part_rows {
            r = r.part_rows(rows);
        }
        if let Some(known) = self.symmetric_pattern {
            r = r.symmetric_pattern(known);
        }
        Ok(r)
    }
}

/// `(rows, cols, report)`: the row and column permutations, 0-based, new → old, and the report as
/// JSON (the library's `ReorderReport`).
type Reordered<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>, String);

/// Orders the matrix whose structure is `csr`; see the package's `Reorderer`.
///
/// # Errors
/// `ValueError` for invalid arrays or options, `KeyboardInterrupt` (or what another signal handler
/// raises) when interrupted, else as the library's error.
#[pyfunction]
pub(crate) fn reorder<'py>(
    py: Python<'py>,
    csr: CsrArrays<'py>,
    options: Options,
) -> PyResult<Reordered<'py>> {
    let reorderer = options.reorderer()?;
    let pool = options.pool()?;
    let slices = csr.slices()?;
    let job = |stop: &Stop| -> Result<Result<Reordering, _>, String> {
        let pattern = slices.to_pattern()?;
        stop.check();
        let run = || reorderer.run_with_progress(&pattern, &mut |_| stop.check());
        Ok(match &pool {
            Some(pool) => pool.install(run),
            None => run(),
        })
    };
    let reordering = interrupt::run(py, job)?
        .map_err(invalid)?
        .map_err(reorder_error)?;
    let report = serde_json::to_string(&reordering.report)
        .map_err(|e| PyValueError::new_err(format!("the report cannot be written: {e}")))?;
    Ok((
        zero_based(py, &reordering.rows),
        zero_based(py, &reordering.cols),
        report,
    ))
}

/// `p` as a numpy array of 0-based old indices in new order.
fn zero_based<'py>(py: Python<'py>, p: &Permutation) -> Bound<'py, PyArray1<i64>> {
    // Indices below the matrix's dimension, itself at most u32::MAX: the casts are exact.
    let new_to_old: Vec<i64> = p.new_to_old().iter().map(|&i| i as i64).collect();
    PyArray1::from_vec(py, new_to_old)
}
