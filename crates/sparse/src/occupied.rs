//! [`Occupancy`]: the rows and columns of a matrix that hold entries, so that a computation whose
//! answer on empty rows and columns is known (a description of the matrix, the measure `D`) costs
//! what the entries cost, not what the declared size costs: a file of three entries declaring
//! 2^26 rows is three entries, not 2^26 row offsets. [`Occupancy::restrict`] keeps the occupied
//! rows and columns of a matrix, [`Occupancy::expand`] puts them back in place.
//!
//! `O(nnz log nnz)` from the entries' indices ([`Occupancy::from_indices`]), `O(nrows + nnz log
//! nnz)` from a CSR matrix ([`Occupancy::of`]). A square matrix has one list for both sides, so
//! that `(i, j)` and `(j, i)` stay mirrors of each other (symmetry, triangles) once restricted.
//! Called by the Matrix Market reader (`read_path_occupied`) and `MatrixInfo`.

use crate::csr::check_len;
use crate::{CsrMatrix, SparseError, Value};
use rayon::prelude::*;

/// The occupied rows and columns of a `nrows x ncols` matrix, in increasing order.
///
/// # Invariants
/// `rows` and `cols` strictly increase, and hold indices below `nrows` and `ncols`. A square
/// matrix has one list for both (`cols` is `None`): every index that is a row or a column of an
/// entry. Otherwise `rows` holds the rows of entries and `cols` the columns of entries. Checked by
/// every constructor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Occupancy {
    nrows: usize,
    ncols: usize,
    rows: Vec<u32>,
    /// `None` when square: the columns are `rows`.
    cols: Option<Vec<u32>>,
}

impl Occupancy {
    /// The occupancy of entries at `rows[k], cols[k]` (any order, repeats allowed) of a
    /// `nrows x ncols` matrix. Takes the index vectors to sort them in place.
    ///
    /// # Errors
    /// [`SparseError::TooLarge`] for dimensions over [`MAX_DIM`](crate::MAX_DIM),
    /// [`SparseError::LengthMismatch`] when `rows` and `cols` differ in length,
    /// [`SparseError::IndexOutOfBounds`] for an index outside the matrix,
    /// [`SparseError::OutOfMemory`] when the lists cannot be merged.
    pub fn from_indices(
        nrows: usize,
        ncols: usize,
        mut rows: Vec<u32>,
        mut cols: Vec<u32>,
    ) -> Result<Self, SparseError> {
        crate::csr::check_dims(nrows, ncols)?;
        if rows.len() != cols.len() {
            return Err(SparseError::LengthMismatch {
                what: "column indices of the entries",
                expected: rows.len(),
                found: cols.len(),
            });
        }
        let outside = |r: usize, c: usize| SparseError::IndexOutOfBounds {
            row: r,
            col: c,
            nrows,
            ncols,
        };
        if let Some(k) =
            (0..rows.len()).find(|&k| rows[k] as usize >= nrows || cols[k] as usize >= ncols)
        {
            return Err(outside(rows[k] as usize, cols[k] as usize));
        }
        if nrows == ncols {
            try_reserve(&mut rows, cols.len(), "the occupied rows and columns")?;
            rows.append(&mut cols);
            return Ok(Occupancy {
                nrows,
                ncols,
                rows: sorted_distinct(rows),
                cols: None,
            });
        }
        Ok(Occupancy {
            nrows,
            ncols,
            rows: sorted_distinct(rows),
            cols: Some(sorted_distinct(cols)),
        })
    }

    /// Every row and column of a `nrows x ncols` matrix occupied (a dense matrix's occupancy).
    ///
    /// # Errors
    /// [`SparseError::TooLarge`] for dimensions over [`MAX_DIM`](crate::MAX_DIM),
    /// [`SparseError::OutOfMemory`] when the lists cannot be allocated.
    pub fn all(nrows: usize, ncols: usize) -> Result<Self, SparseError> {
        crate::csr::check_dims(nrows, ncols)?;
        let list = |n: usize| -> Result<Vec<u32>, SparseError> {
            let mut v = Vec::new();
            try_reserve(&mut v, n, "the occupied rows and columns")?;
            v.extend(0..n as u32);
            Ok(v)
        };
        Ok(Occupancy {
            nrows,
            ncols,
            rows: list(nrows)?,
            cols: if nrows == ncols {
                None
            } else {
                Some(list(ncols)?)
            },
        })
    }

    /// The occupancy of `a`'s entries.
    ///
    /// # Errors
    /// [`SparseError::OutOfMemory`] when the lists cannot be allocated.
    pub fn of<T: Value>(a: &CsrMatrix<T>) -> Result<Self, SparseError> {
        let mut rows = Vec::new();
        try_reserve(&mut rows, a.nnz(), "the occupied rows")?;
        rows.extend((0..a.nrows()).flat_map(|i| std::iter::repeat_n(i as u32, a.row_nnz(i))));
        let mut cols = Vec::new();
        try_reserve(&mut cols, a.nnz(), "the occupied columns")?;
        cols.extend_from_slice(a.col_idx());
        Self::from_indices(a.nrows(), a.ncols(), rows, cols)
    }

    /// Rows of the whole matrix.
    pub fn nrows(&self) -> usize {
        self.nrows
    }

    /// Columns of the whole matrix.
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// The occupied rows, increasing: row `k` of the restricted matrix is row `rows()[k]`.
    pub fn rows(&self) -> &[u32] {
        &self.rows
    }

    /// The occupied columns, increasing (the same list as [`Self::rows`] for a square matrix).
    pub fn cols(&self) -> &[u32] {
        self.cols.as_deref().unwrap_or(&self.rows)
    }

    /// True when rows and columns share one list (the matrix is square).
    pub fn is_shared(&self) -> bool {
        self.cols.is_none()
    }

    /// The row of the restricted matrix that row `i` of the whole one became, if occupied.
    pub fn compact_row(&self, i: u32) -> Option<u32> {
        self.rows.binary_search(&i).ok().map(|k| k as u32)
    }

    /// The column of the restricted matrix that column `j` of the whole one became, if occupied.
    pub fn compact_col(&self, j: u32) -> Option<u32> {
        self.cols().binary_search(&j).ok().map(|k| k as u32)
    }

    /// `a` (`nrows x ncols`) without its unoccupied rows and columns: `rows().len() x
    /// cols().len()`, entry `(k, l)` being `a[rows()[k]][cols()[l]]`.
    ///
    /// # Errors
    /// [`SparseError::LengthMismatch`] when `a` is not `nrows x ncols`,
    /// [`SparseError::IndexOutOfBounds`] for an entry of `a` outside the occupancy,
    /// [`SparseError::OutOfMemory`] when the result cannot be allocated.
    pub fn restrict<T: Value>(&self, a: &CsrMatrix<T>) -> Result<CsrMatrix<T>, SparseError> {
        self.check_shape(a.nrows(), a.ncols())?;
        let outside = |i: usize, c: u32| SparseError::IndexOutOfBounds {
            row: i,
            col: c as usize,
            nrows: self.nrows,
            ncols: self.ncols,
        };
        let kept: usize = self.rows.iter().map(|&r| a.row_nnz(r as usize)).sum();
        if kept != a.nnz() {
            let i = (0..a.nrows())
                .find(|&i| a.row_nnz(i) > 0 && self.compact_row(i as u32).is_none())
                .expect("a row with entries outside the occupied rows");
            return Err(outside(i, a.row(i).0[0]));
        }
        let mut row_ptr = Vec::new();
        try_reserve(&mut row_ptr, self.rows.len() + 1, "row offsets")?;
        row_ptr.push(0);
        let mut col_idx = Vec::new();
        try_reserve(&mut col_idx, a.nnz(), "column indices")?;
        for &r in &self.rows {
            for &c in a.row(r as usize).0 {
                col_idx.push(self.compact_col(c).ok_or_else(|| outside(r as usize, c))?);
            }
            row_ptr.push(col_idx.len());
        }
        // Every row with entries is kept, in order: the values are `a`'s as they are.
        let mut values = Vec::new();
        try_reserve(&mut values, a.nnz(), "values")?;
        values.extend_from_slice(a.values());
        Ok(CsrMatrix::new_unchecked(
            self.rows.len(),
            self.cols().len(),
            row_ptr,
            col_idx,
            values,
        ))
    }

    /// The whole `nrows x ncols` matrix whose occupied part is `compact`: the inverse of
    /// [`Self::restrict`]. `O(nrows + nnz)`, the row offsets allocated fallibly.
    ///
    /// # Errors
    /// [`SparseError::LengthMismatch`] when `compact` is not `rows().len() x cols().len()`,
    /// [`SparseError::OutOfMemory`] when the result cannot be allocated.
    pub fn expand<T: Value>(&self, compact: &CsrMatrix<T>) -> Result<CsrMatrix<T>, SparseError> {
        check_len(
            "rows of the occupied part",
            self.rows.len(),
            compact.nrows(),
        )?;
        check_len(
            "columns of the occupied part",
            self.cols().len(),
            compact.ncols(),
        )?;
        let mut row_ptr = Vec::new();
        try_reserve(&mut row_ptr, self.nrows + 1, "row offsets")?;
        row_ptr.push(0);
        for (k, &r) in self.rows.iter().enumerate() {
            row_ptr.resize(r as usize + 1, compact.row_ptr()[k]);
            row_ptr.push(compact.row_ptr()[k + 1]);
        }
        row_ptr.resize(self.nrows + 1, compact.nnz());
        let cols = self.cols();
        let mut col_idx = Vec::new();
        try_reserve(&mut col_idx, compact.nnz(), "column indices")?;
        col_idx.extend(compact.col_idx().iter().map(|&l| cols[l as usize]));
        let mut values = Vec::new();
        try_reserve(&mut values, compact.nnz(), "values")?;
        values.extend_from_slice(compact.values());
        Ok(CsrMatrix::new_unchecked(
            self.nrows, self.ncols, row_ptr, col_idx, values,
        ))
    }

    fn check_shape(&self, nrows: usize, ncols: usize) -> Result<(), SparseError> {
        check_len("rows", self.nrows, nrows)?;
        check_len("columns", self.ncols, ncols)
    }
}

/// `v` sorted, without repeats (parallel sort).
fn sorted_distinct(mut v: Vec<u32>) -> Vec<u32> {
    v.par_sort_unstable();
    v.dedup();
    v.shrink_to_fit();
    v
}

/// A vector of `len` copies of `value`, or [`SparseError::OutOfMemory`] instead of an abort.
pub(crate) fn try_filled<E: Clone>(
    len: usize,
    value: E,
    what: &'static str,
) -> Result<Vec<E>, SparseError> {
    let mut v = Vec::new();
    try_reserve(&mut v, len, what)?;
    v.resize(len, value);
    Ok(v)
}

/// Room for `more` elements in `v`, or [`SparseError::OutOfMemory`] instead of an abort.
pub(crate) fn try_reserve<E>(
    v: &mut Vec<E>,
    more: usize,
    what: &'static str,
) -> Result<(), SparseError> {
    v.try_reserve_exact(more)
        .map_err(|_| SparseError::OutOfMemory {
            what,
            bytes: (more as u64).saturating_mul(std::mem::size_of::<E>() as u64),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> CsrMatrix<f64> {
        // Rows 1 and 4 empty, column 2 empty; (5, 0) makes row 5 and column 0 occupied.
        CsrMatrix::from_triplets(
            6,
            6,
            [
                (0, 1, 1.0),
                (2, 3, 2.0),
                (3, 3, 3.0),
                (5, 0, 4.0),
                (0, 5, 5.0),
            ],
        )
        .unwrap()
    }

    #[test]
    fn a_square_matrix_has_one_list_and_keeps_its_mirrors() {
        let a = example();
        let o = Occupancy::of(&a).unwrap();
        assert!(o.is_shared());
        // Rows 0, 2, 3, 5 and columns 0, 1, 3, 5: one list of both.
        assert_eq!(o.rows(), &[0, 1, 2, 3, 5]);
        assert_eq!(o.cols(), o.rows());
        let c = o.restrict(&a).unwrap();
        assert_eq!((c.nrows(), c.ncols(), c.nnz()), (5, 5, 5));
        assert_eq!(c.row(0), (&[1, 4][..], &[1.0, 5.0][..]));
        assert_eq!(
            c.row(1).0.len(),
            0,
            "row 1 is a column of an entry, and empty"
        );
        assert_eq!(o.expand(&c).unwrap(), a);
        assert_eq!((o.compact_row(5), o.compact_col(4)), (Some(4), None));
    }

    #[test]
    fn a_rectangular_matrix_has_two_lists() {
        let a = CsrMatrix::from_triplets(4, 9, [(1, 8, 1i64), (3, 2, 2), (3, 8, 3)]).unwrap();
        let o = Occupancy::of(&a).unwrap();
        assert!(!o.is_shared());
        assert_eq!((o.rows(), o.cols()), (&[1, 3][..], &[2, 8][..]));
        let c = o.restrict(&a).unwrap();
        assert_eq!(c.row(1), (&[0, 1][..], &[2, 3][..]));
        assert_eq!(o.expand(&c).unwrap(), a);
    }

    #[test]
    fn empty_and_huge_declared_matrices_cost_their_entries() {
        let o = Occupancy::from_indices(u32::MAX as usize, 3, vec![7, 7], vec![2, 0]).unwrap();
        assert_eq!((o.rows(), o.cols()), (&[7][..], &[0, 2][..]));
        let none = Occupancy::of(&CsrMatrix::<()>::from_triplets(0, 0, []).unwrap()).unwrap();
        assert!(none.rows().is_empty());
    }

    #[test]
    fn indices_outside_the_matrix_and_wrong_shapes_are_errors() {
        let e = Occupancy::from_indices(3, 3, vec![0, 3], vec![0, 0]).unwrap_err();
        assert!(
            matches!(e, SparseError::IndexOutOfBounds { row: 3, .. }),
            "{e}"
        );
        let e = Occupancy::from_indices(3, 3, vec![0], vec![]).unwrap_err();
        assert!(matches!(e, SparseError::LengthMismatch { .. }), "{e}");
        let o = Occupancy::from_indices(6, 6, vec![0], vec![1]).unwrap();
        let e = o.restrict(&example()).unwrap_err();
        assert!(matches!(e, SparseError::IndexOutOfBounds { .. }), "{e}");
        // `o` is 6 x 6 with an occupied part of 2 x 2 (rows and columns 0 and 1).
        let small = CsrMatrix::<f64>::from_triplets(3, 3, []).unwrap();
        assert!(matches!(
            o.restrict(&small),
            Err(SparseError::LengthMismatch { .. })
        ));
        assert!(matches!(
            o.expand(&small),
            Err(SparseError::LengthMismatch { .. })
        ));
        assert_eq!(
            o.expand(&CsrMatrix::<f64>::from_triplets(2, 2, []).unwrap())
                .unwrap()
                .nrows(),
            6
        );
    }
}
