//! `MatrixInfo`: what `spmv-reorder info` reports of a matrix: shape, nonzeros, row lengths,
//! bandwidth, structural symmetry, the locality measures `D` and `D_w` (SPEC section 2) and the
//! cache model's misses of `x`. `O(nnz)` plus one transpose for the symmetry check, and one
//! replay of the rows through the modelled caches (`O(nnz · ways)`).
//! [`MatrixInfo::compute_occupied`] gives the same description from a matrix's occupied part,
//! without per-row work for empty rows and columns (the cache model then replays that part).

use crate::EvaluateError;
use spmv_reorder_locality::{
    row_distance, total_distance, windowed_distance, CacheModel, ModelledCost, Parallelism,
};
use spmv_reorder_mtx::{Header, MatrixMarket, Occupied};
use spmv_reorder_reorder::windows::windows_for;
use spmv_reorder_reorder::WindowSpec;
use spmv_reorder_sparse::Permutation;
use spmv_reorder_sparse::{CsrMatrix, Occupancy};

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
            banner: banner(h),
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
            x_misses: modelled_x_misses(&a),
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

impl MatrixInfo {
    /// [`Self::compute`] of the whole matrix of which `part` is the occupied part
    /// ([`read_path_occupied`](spmv_reorder_mtx::read_path_occupied)), at the cost of its
    /// entries: an empty row costs nothing, being at distance `|C_i|` from any row `i` (SPEC
    /// section 2). `D_w` depends on where the windows fall among the empty rows: with `window`,
    /// the whole matrix is built first (`O(nrows + nnz)`). `x_misses` alone is the cache model's
    /// replay of the occupied part (empty rows and columns removed), which is the whole
    /// matrix's when it has none: the model reads a row offset per row and places `x` by column.
    ///
    /// # Errors
    /// As [`Self::compute`], and [`EvaluateError::Sparse`] when the whole matrix cannot be
    /// allocated for `window`.
    pub fn compute_occupied(
        part: &Occupied,
        window: Option<WindowSpec>,
    ) -> Result<Self, EvaluateError> {
        if window.is_some() {
            return Self::compute(&part.whole()?, window);
        }
        let o = &part.occupancy;
        let a = part.file.matrix.pattern();
        let (row_nnz_min, row_nnz_max, empty_rows) = row_length_stats(&a);
        let unlisted_rows = o.nrows() - a.nrows();
        let h = &part.file.header;
        Ok(MatrixInfo {
            banner: banner(h),
            rows: o.nrows(),
            cols: o.ncols(),
            nnz: a.nnz(),
            nnz_stored: part.file.stored_nnz(),
            row_nnz_min: if unlisted_rows > 0 { 0 } else { row_nnz_min },
            row_nnz_mean: a.nnz() as f64 / o.nrows().max(1) as f64,
            row_nnz_max,
            empty_rows: empty_rows + unlisted_rows,
            bandwidth: occupied_bandwidth(&a, o),
            // A square matrix's part keeps one list for rows and columns, so mirrors stay mirrors.
            structurally_symmetric: o.nrows() == o.ncols() && a.is_structurally_symmetric(),
            d: occupied_distance(&a, o),
            x_misses: modelled_x_misses(&a),
            window: None,
            windows: None,
            d_w: None,
        })
    }
}

/// The cache model's misses of `x` for `a` in its order.
fn modelled_x_misses(a: &CsrMatrix<()>) -> ModelledCost {
    CacheModel::default().cost(
        a,
        &Permutation::identity(a.nrows()),
        &Permutation::identity(a.ncols()),
    )
}

/// The banner line of a file with header `h`.
fn banner(h: &Header) -> String {
    format!(
        "%%MatrixMarket matrix {} {} {}",
        h.format.as_str(),
        h.field.as_str(),
        h.symmetry.as_str()
    )
}

/// `D` of the whole matrix from its occupied part `a`: between occupied rows `r < s` with empty
/// rows in between, `d(r, r+1) + ... + d(s-1, s) = |C_r| + |C_s|` replaces `d(r, s)`, and empty
/// rows before the first or after the last occupied row add that row's length.
fn occupied_distance(a: &CsrMatrix<()>, o: &Occupancy) -> u64 {
    let rows = o.rows();
    let (Some(&first), Some(&last)) = (rows.first(), rows.last()) else {
        return 0;
    };
    let len = |k: usize| a.row_nnz(k) as u64;
    let mut d = total_distance(a, Parallelism::Rayon);
    for k in 1..rows.len() {
        if rows[k] > rows[k - 1] + 1 {
            d = d + len(k - 1) + len(k) - row_distance(a, k - 1, k);
        }
    }
    if first > 0 {
        d += len(0);
    }
    if (last as usize) + 1 < o.nrows() {
        d += len(rows.len() - 1);
    }
    d
}

/// [`bandwidth`] of the whole matrix from its occupied part `a` (the compaction keeps the order
/// of rows and of columns, so each row's first and last entries stay first and last).
fn occupied_bandwidth(a: &CsrMatrix<()>, o: &Occupancy) -> usize {
    (0..a.nrows())
        .filter_map(|k| {
            let c = a.row(k).0;
            let i = o.rows()[k] as usize;
            let (first, last) = (
                o.cols()[*c.first()? as usize],
                o.cols()[*c.last()? as usize],
            );
            Some(i.abs_diff(first as usize).max(i.abs_diff(last as usize)))
        })
        .max()
        .unwrap_or(0)
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
    use spmv_reorder_sparse::Occupancy;

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

    proptest::proptest! {
        #[test]
        fn the_occupied_part_describes_the_whole_matrix(
            nrows in 0usize..40,
            ncols in 0usize..40,
            square in proptest::bool::ANY,
            entries in proptest::collection::vec((0usize..40, 0usize..40), 0..30),
            width in 1usize..5,
        ) {
            let ncols = if square { nrows } else { ncols };
            let triplets = entries
                .into_iter()
                .filter(|&(i, j)| i < nrows && j < ncols)
                .map(|(i, j)| (i, j, ()));
            let a = CsrMatrix::from_triplets(nrows, ncols, triplets).unwrap();
            let m = MatrixMarket::general(AnyCsr::Pattern(a));
            let part = Occupied::of(&m).unwrap();
            let (mut occupied, whole) = (
                MatrixInfo::compute_occupied(&part, None).unwrap(),
                MatrixInfo::compute(&m, None).unwrap(),
            );
            // The cache model replays the occupied part: the same as the whole when it is all.
            if part.file.nrows() < nrows || part.file.ncols() < ncols {
                occupied.x_misses = whole.x_misses;
            }
            proptest::prop_assert_eq!(occupied, whole);
            let window = Some(WindowSpec::Fixed(width));
            proptest::prop_assert_eq!(
                MatrixInfo::compute_occupied(&part, window).unwrap(),
                MatrixInfo::compute(&m, window).unwrap()
            );
        }
    }

    #[test]
    fn a_huge_declared_size_is_described_from_its_entries() {
        // Entries (0, 0), (5, 0), (5, 7), (n-2, 3) of an n x n matrix, n = 2^32 - 1: one list
        // of rows and columns 0, 3, 5, 7, n-2. D = d(0,1) + d(4,5) + d(5,6) + d(n-3,n-2) +
        // d(n-2,n-1) = 1 + 2 + 2 + 1 + 1.
        let n = u32::MAX as usize;
        let last = n as u32 - 2;
        let o = Occupancy::from_indices(n, n, vec![0, 5, 5, last], vec![0, 0, 7, 3]).unwrap();
        assert_eq!(o.rows(), &[0, 3, 5, 7, last]);
        let entries = [(0, 0), (2, 0), (2, 3), (4, 1)].map(|(i, j)| (i, j, ()));
        let part = Occupied {
            file: MatrixMarket::general(AnyCsr::Pattern(
                CsrMatrix::from_triplets(5, 5, entries).unwrap(),
            )),
            occupancy: o,
        };
        let info = MatrixInfo::compute_occupied(&part, None).unwrap();
        assert_eq!((info.rows, info.nnz, info.empty_rows), (n, 4, n - 3));
        assert_eq!((info.row_nnz_min, info.row_nnz_max), (0, 2));
        assert_eq!((info.d, info.bandwidth), (7, n - 5));
        assert!(!info.structurally_symmetric);
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
