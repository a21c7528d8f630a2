//! `MatrixInfo`: what `spmv-reorder info` reports of a matrix: shape, nonzeros, row lengths,
//! bandwidth, structural symmetry, the locality measures `D` and `D_w` (SPEC section 2) and the
//! cache model's misses of `x`. `O(nnz)` plus one transpose for the symmetry check, and one
//! replay of the rows through the modelled caches (`O(nnz · ways)`).

use crate::EvaluateError;
use spmv_reorder_locality::{
    total_distance, windowed_distance, CacheModel, ModelledCost, Parallelism,
};
use spmv_reorder_mtx::MatrixMarket;
use spmv_reorder_reorder::windows::windows_for;
use spmv_reorder_reorder::WindowSpec;
use spmv_reorder_sparse::CsrMatrix;
use spmv_reorder_sparse::Permutation;

/// A description of a Matrix Market matrix. Serialised as the JSON of `spmv-reorder info --json`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MatrixInfo {
    /// The banner line, e.g. `%%MatrixMarket matrix coordinate real symmetric`.
    pub banner: String,
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// Nonzeros of the expanded matrix (both triangles): what SpMV computes with.
    pub nnz: usize,
    /// Entries the file stores (the lower triangle for symmetric storage).
    pub nnz_stored: usize,
    /// Fewest nonzeros in a row.
    pub row_nnz_min: usize,
    /// Mean nonzeros per row.
    pub row_nnz_mean: f64,
    /// Most nonzeros in a row.
    pub row_nnz_max: usize,
    /// Rows without a nonzero.
    pub empty_rows: usize,
    /// `max |i - j|` over the nonzeros.
    pub bandwidth: usize,
    /// Whether `(i,j)` is a nonzero exactly when `(j,i)` is.
    pub structurally_symmetric: bool,
    /// `D = Σ d(i, i+1)`, the row-to-row distance of the matrix in its order (lower is better).
    #[serde(rename = "D")]
    pub d: u64,
    /// The modelled misses of SpMV's `x` reads in this order
    /// ([`CacheModel`]'s L1 and L2, with the matrix streams):
    /// the figure that predicts speed where `D` does not. Applies to a square matrix's symmetric
    /// reordering and a rectangular one's rows alike (the columns as stored).
    pub x_misses: ModelledCost,
    /// The window spec `D_w` was computed for, when asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    /// Number of windows, when a window spec was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub windows: Option<usize>,
    /// `D_w` for the given windows.
    #[serde(rename = "D_w", skip_serializing_if = "Option::is_none")]
    pub d_w: Option<u64>,
}

impl MatrixInfo {
    /// Describes `m`; with `window`, also its `D_w` and number of windows.
    ///
    /// # Errors
    /// [`ReorderError::Incompatible`](spmv_reorder_reorder::ReorderError::Incompatible) (in
    /// [`EvaluateError::Reorder`]) for latency windows (they need a sampled trace), and the
    /// locality model's errors.
    pub fn compute(m: &MatrixMarket, window: Option<WindowSpec>) -> Result<Self, EvaluateError> {
        let a = m.matrix.pattern();
        let par = Parallelism::Rayon;
        let (row_nnz_min, row_nnz_max, empty_rows) = row_length_stats(&a);
        let h = &m.header;
        let mut info = MatrixInfo {
            banner: format!(
                "%%MatrixMarket matrix {} {} {}",
                h.format.as_str(),
                h.field.as_str(),
                h.symmetry.as_str()
            ),
            rows: a.nrows(),
            cols: a.ncols(),
            nnz: a.nnz(),
            nnz_stored: m.stored_nnz(),
            row_nnz_min,
            row_nnz_mean: a.nnz() as f64 / a.nrows().max(1) as f64,
            row_nnz_max,
            empty_rows,
            bandwidth: bandwidth(&a),
            structurally_symmetric: a.is_structurally_symmetric(),
            d: total_distance(&a, par),
            x_misses: CacheModel::default().cost(
                &a,
                &Permutation::identity(a.nrows()),
                &Permutation::identity(a.ncols()),
            ),
            window: None,
            windows: None,
            d_w: None,
        };
        if let Some(spec) = window {
            let w = windows_for(spec, &a, None)?;
            info.d_w = Some(windowed_distance(&a, &w, par)?);
            info.windows = Some(w.len());
            info.window = Some(spec.to_string());
        }
        Ok(info)
    }
}

/// `(min, max, empty)` row lengths; `(0, 0, 0)` for a matrix without rows.
fn row_length_stats(a: &CsrMatrix<()>) -> (usize, usize, usize) {
    let lens = (0..a.nrows()).map(|i| a.row_nnz(i));
    let min = lens.clone().min().unwrap_or(0);
    let max = lens.clone().max().unwrap_or(0);
    (min, max, lens.filter(|&l| l == 0).count())
}

/// `max |i - j|` over the nonzeros: rows are sorted, so only each row's first and last entry count.
pub fn bandwidth<T: spmv_reorder_sparse::Value>(a: &CsrMatrix<T>) -> usize {
    (0..a.nrows())
        .filter_map(|i| {
            let c = a.row(i).0;
            let (first, last) = (*c.first()? as usize, *c.last()? as usize);
            Some(i.abs_diff(first).max(i.abs_diff(last)))
        })
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use spmv_reorder_reorder::ReorderError;
    use spmv_reorder_sparse::AnyCsr;

    #[test]
    fn spec_worked_example() {
        let a = CsrMatrix::from_triplets(
            4,
            6,
            [
                (0, 0),
                (0, 1),
                (1, 1),
                (1, 2),
                (2, 5),
                (3, 0),
                (3, 1),
                (3, 2),
            ]
            .map(|(i, j)| (i, j, ())),
        )
        .unwrap();
        let m = MatrixMarket::general(AnyCsr::Pattern(a));
        let info = MatrixInfo::compute(&m, Some(WindowSpec::Fixed(2))).unwrap();
        assert_eq!((info.rows, info.cols, info.nnz, info.d), (4, 6, 8, 9));
        assert_eq!((info.windows, info.d_w), (Some(2), Some(1)));
        assert_eq!(
            (info.row_nnz_min, info.row_nnz_max, info.empty_rows),
            (1, 3, 0)
        );
        assert_eq!(info.bandwidth, 3); // row 2, column 5
        assert!(!info.structurally_symmetric);
        let json = serde_json::to_string(&info).unwrap();
        assert!(
            json.contains("\"D\":9") && json.contains("\"D_w\":1"),
            "{json}"
        );
        let plain = MatrixInfo::compute(&m, None).unwrap();
        assert!(!serde_json::to_string(&plain).unwrap().contains("D_w"));
    }

    #[test]
    fn latency_windows_need_a_sample() {
        let m = MatrixMarket::general(AnyCsr::Pattern(
            CsrMatrix::from_triplets(2, 2, vec![(0, 0, ())]).unwrap(),
        ));
        let e = MatrixInfo::compute(
            &m,
            Some(WindowSpec::Latency {
                cycles: None,
                zeros: false,
            }),
        )
        .unwrap_err();
        assert!(
            matches!(e, EvaluateError::Reorder(ReorderError::Incompatible(_))),
            "{e}"
        );
    }

    #[test]
    fn empty_matrix_is_described() {
        let m = MatrixMarket::general(AnyCsr::Real(
            CsrMatrix::from_triplets(0, 0, vec![]).unwrap(),
        ));
        let info = MatrixInfo::compute(&m, Some(WindowSpec::Variable)).unwrap();
        assert_eq!((info.rows, info.nnz, info.d, info.bandwidth), (0, 0, 0, 0));
    }
}
