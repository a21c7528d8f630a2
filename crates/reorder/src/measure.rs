//! The figures of a [`ReorderReport`]: `D` and `D_w` before and after, and the TSP path's totals
//! over the sides (SPEC section 2). `D` after is that of the rows in their new order, since
//! relabelling columns changes no row distance; the reordered pattern is built only for windows
//! of several rows. `O(nnz)` each. Called by [`crate::pipeline`].

use crate::progress::SharedProgress;
use crate::report::{Kept, LengthRuns, ReorderReport, RowSplits, SideReport, TspReport};
use crate::windows::{windows_for, SampledLatencies};
use crate::{Method, PermuteMode, ReorderError, Reorderer, StartOrder, WindowSpec};
use spmv_reorder_locality::{distance_in_order, total_distance, windowed_distance, Parallelism};
use spmv_reorder_locality::{LineSample, ModelledCost, Windows};
use spmv_reorder_sampling::Coverage;
use spmv_reorder_sparse::{CsrMatrix, Permutation};
use spmv_reorder_tsp::relative_gap;

/// What a reordering produced, to be measured.
pub(crate) struct Ordered<'a> {
    pub(crate) mode: PermuteMode,
    /// The full pattern in the input order.
    pub(crate) full: &'a CsrMatrix<()>,
    pub(crate) rows: &'a Permutation,
    pub(crate) cols: &'a Permutation,
    /// The sampled latencies, when the sampler recorded them.
    pub(crate) latencies: Option<SampledLatencies<'a>>,
    /// The block of the length runs made, when made.
    pub(crate) run_block: Option<usize>,
    pub(crate) length_runs: Option<LengthRuns>,
    pub(crate) row_splits: Option<RowSplits>,
    pub(crate) row_report: Option<SideReport>,
    pub(crate) col_report: Option<SideReport>,
    pub(crate) coverage: Option<Coverage>,
    pub(crate) sampling_seconds: f64,
    pub(crate) reorder_seconds: f64,
}

impl Reorderer {
    /// The report of `o`; `replayed` hears the share of the cache model's two replays done.
    ///
    /// # Errors
    /// Those of the locality model and of the permutation of the pattern.
    pub(crate) fn measure(
        &self,
        o: Ordered<'_>,
        replayed: &mut (dyn FnMut(f64) + Send),
    ) -> Result<ReorderReport, ReorderError> {
        let d_before = total_distance(o.full, Parallelism::Rayon);
        let d_after = d_in_order(o.full, o.rows)?;
        let sides: Vec<&SideReport> = o.row_report.iter().chain(o.col_report.iter()).collect();
        let tsp: Vec<&TspReport> = sides.iter().filter_map(|s| s.tsp.as_ref()).collect();
        let tsp_cost = (!tsp.is_empty()).then(|| tsp.iter().map(|t| t.cost).sum::<i64>());
        let tsp_lower_bound =
            (!tsp.is_empty()).then(|| tsp.iter().map(|t| t.lower_bound).sum::<i64>());
        let d_w_before = match self.window {
            WindowSpec::Fixed(1) => Some(d_before),
            _ => self.spec_d_w(o.full, o.latencies)?,
        };
        let d_w_after = self.d_w_after(&o, d_after)?;
        let returned = returned_method(self.method, &o);
        // Only the TSP method starts from the cache windows' parts; `auto` orders by RCM whatever
        // the windows.
        let parts_kept = self.method == Method::Tsp
            && returned == Method::Rcm
            && self.start_order() == StartOrder::Parts;
        let (x_misses_before, x_misses_after) = if self.model_misses {
            let (before, after) = self.x_misses(&o, replayed);
            (Some(before), Some(after))
        } else {
            (None, None)
        };
        Ok(ReorderReport {
            windows: sides.first().map_or(0, |s| s.windows),
            tsp_cost,
            tsp_lower_bound,
            tsp_gap: tsp_cost
                .zip(tsp_lower_bound)
                .map(|(c, b)| relative_gap(c, b))
                .filter(|gap| gap.is_finite()),
            method: if parts_kept { Method::Gp } else { returned },
            requested: self.method,
            order: if parts_kept {
                "cache-window parts in METIS's order (RCM inside)".to_string()
            } else {
                self.order_in_words(returned, o.run_block, o.rows.len())
                    + spread_in_words(o.row_splits)
            },
            x_misses_before,
            x_misses_after,
            sampler: self.sampler.clone(),
            window: self.window,
            start: (self.method == Method::Tsp).then(|| self.start_order()),
            permute: o.mode,
            seed: self.seed,
            length_runs: o.length_runs,
            row_splits: o.row_splits,
            reorder_seconds: o.reorder_seconds,
            sampling_seconds: o.sampling_seconds,
            d_before,
            d_after,
            d_w_before,
            d_w_after,
            rows: o.row_report,
            cols: o.col_report,
            coverage: o.coverage,
        })
    }

    /// The modelled misses of the input order and of the new one, replayed side by side on the
    /// pool's threads; `replayed` hears the share of the two replays done.
    fn x_misses(
        &self,
        o: &Ordered<'_>,
        replayed: &mut (dyn FnMut(f64) + Send),
    ) -> (ModelledCost, ModelledCost) {
        let model = self.cache_check.unwrap_or_default();
        let identity = (
            Permutation::identity(o.full.nrows()),
            Permutation::identity(o.full.ncols()),
        );
        let replays = SharedProgress::new(2 * o.full.nrows(), replayed);
        let rows_done = |rows| replays.add(rows);
        let price =
            |rows, cols| model.cost_with_progress(o.full, rows, cols, LineSample::ALL, &rows_done);
        rayon::join(|| price(&identity.0, &identity.1), || price(o.rows, o.cols))
    }

    /// The order that came back (`returned`, a method's name), in words, with its length runs.
    fn order_in_words(&self, returned: Method, run_block: Option<usize>, rows: usize) -> String {
        let order = match returned {
            Method::Tsp => format!("TSP path over {}", windows_in_words(self.window)),
            Method::Rcm => "RCM".to_string(),
            Method::Gp => format!("METIS partition order (parts of {} rows)", self.part_rows),
            Method::Nd => "METIS nested dissection".to_string(),
            Method::Gorder => "Gorder".to_string(),
            Method::Degree => "rows by decreasing length".to_string(),
            Method::Random => "a random order".to_string(),
            Method::Identity | Method::Auto => "the input order".to_string(),
        };
        match run_block {
            Some(b) if b >= rows => format!("{order} + length runs (all rows)"),
            Some(b) => format!("{order} + length runs (blocks of {b})"),
            None => order,
        }
    }

    /// `D_w` after: for TSP under the windows the path moved as units, else under the window
    /// spec on the new order (`None` for latency windows).
    fn d_w_after(&self, o: &Ordered<'_>, d_after: u64) -> Result<Option<u64>, ReorderError> {
        let after = || o.full.permute(o.rows, o.cols);
        let single_rows = |lengths: &[usize]| lengths.iter().all(|&l| l == 1);
        Ok(match (&o.row_report, self.method) {
            // Rows sorted into runs of lengths no longer keep their windows together.
            (Some(r), Method::Tsp)
                if o.run_block.is_none()
                    && let Some(lengths) = &r.window_lengths_in_order =>
            {
                if single_rows(lengths) {
                    Some(d_after)
                } else {
                    Some(carried_d_w(&after()?, o.rows, r)?)
                }
            }
            _ if matches!(self.window, WindowSpec::Latency { .. }) => None,
            _ if self.window == WindowSpec::Fixed(1) => Some(d_after),
            _ => self.spec_d_w(&after()?, None)?,
        })
    }

    /// `D_w` of `pattern` under this configuration's window spec (`None` for latency windows
    /// without latencies).
    fn spec_d_w(
        &self,
        pattern: &CsrMatrix<()>,
        latencies: Option<SampledLatencies<'_>>,
    ) -> Result<Option<u64>, ReorderError> {
        if matches!(self.window, WindowSpec::Latency { .. })
            && SampledLatencies::known(latencies).is_none()
        {
            return Ok(None);
        }
        let w = windows_for(self.window, pattern, latencies)?;
        Ok(Some(windowed_distance(pattern, &w, Parallelism::Rayon)?))
    }
}

/// `", pieces spread over even row splits"` when the even row splits moved the pieces.
fn spread_in_words(splits: Option<RowSplits>) -> &'static str {
    match splits {
        Some(s) if s.spread => ", pieces spread over even row splits",
        _ => "",
    }
}

/// The windows of `spec`, in words.
fn windows_in_words(spec: WindowSpec) -> String {
    match spec {
        WindowSpec::Fixed(1) => "rows".to_string(),
        WindowSpec::Fixed(w) => format!("windows of {w} rows"),
        WindowSpec::Variable => "variable windows".to_string(),
        WindowSpec::Latency { .. } => "latency windows".to_string(),
        WindowSpec::Cache { bytes } => format!(
            "cache windows of {} KiB",
            bytes.unwrap_or(crate::DEFAULT_CACHE_WINDOW_BYTES) / 1024
        ),
    }
}

/// The method whose order the rows came back in: the cache check's choice for `auto` and `tsp`
/// (the path, RCM's order or the input's), else the method asked for.
fn returned_method(requested: Method, o: &Ordered<'_>) -> Method {
    let side = o.row_report.as_ref().or(o.col_report.as_ref());
    match side.and_then(|s| s.cache_check.as_ref()).map(|c| c.kept) {
        Some(Kept::Path) => Method::Tsp,
        Some(Kept::Start) => Method::Rcm,
        Some(Kept::Input) => Method::Identity,
        None if requested == Method::Auto => Method::Rcm,
        None => requested,
    }
}

/// `D` of `pattern`'s rows in the order of `rows`: that of `P·A·Qᵀ` for any column order `Q`.
pub(crate) fn d_in_order(pattern: &CsrMatrix<()>, rows: &Permutation) -> Result<u64, ReorderError> {
    Ok(distance_in_order(
        pattern,
        rows.new_to_old(),
        Parallelism::Rayon,
    )?)
}

/// `D_w` of the reordered matrix under the windows the TSP moved as units.
fn carried_d_w(
    after: &CsrMatrix<()>,
    rows: &Permutation,
    side: &SideReport,
) -> Result<u64, ReorderError> {
    let lengths = side
        .window_lengths_in_order
        .as_deref()
        .expect("TSP sides record their window lengths");
    debug_assert_eq!(lengths.iter().sum::<usize>(), rows.len());
    let w = Windows::from_lengths(lengths)?;
    Ok(windowed_distance(after, &w, Parallelism::Rayon)?)
}

#[cfg(test)]
mod tests {
    use crate::testutil::quick;
    use spmv_reorder_gen::{poisson2d, shuffle_symmetric};
    use spmv_reorder_locality::CacheModel;
    use spmv_reorder_sparse::Permutation;

    #[test]
    fn modelled_misses_are_measured_unless_turned_off() {
        let (a, _) = shuffle_symmetric(&poisson2d(30, 30).unwrap(), 2).unwrap();
        let model = CacheModel::default();
        let on = quick().run(&a).unwrap();
        let identity = Permutation::identity(a.nrows());
        assert_eq!(
            on.report.x_misses_before,
            Some(model.cost(&a, &identity, &identity))
        );
        assert_eq!(
            on.report.x_misses_after,
            Some(model.cost(&a, &on.rows, &on.cols))
        );
        let off = quick().model_misses(false).run(&a).unwrap();
        assert_eq!(
            (off.report.x_misses_before, off.report.x_misses_after),
            (None, None)
        );
        assert_eq!((&off.rows, &off.cols), (&on.rows, &on.cols));
        assert_eq!(
            (off.report.d_before, off.report.d_after),
            (on.report.d_before, on.report.d_after)
        );
    }
}
