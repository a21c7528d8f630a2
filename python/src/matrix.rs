//! CSR arrays between numpy and the library: scipy's `int32`/`int64` index arrays to the
//! library's `usize` offsets and `u32` columns (checked), and a matrix read from a file back to
//! numpy arrays (values moved, not copied).

use crate::errors::value_error;
use numpy::{Complex64, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use spmv_reorder_sparse::{AnyCsr, CsrMatrix, Value};

/// An index array as scipy keeps it.
#[derive(FromPyObject)]
pub(crate) enum IndexArray<'py> {
    /// `int32`, scipy's choice while the sizes fit.
    I32(PyReadonlyArray1<'py, i32>),
    /// `int64`.
    I64(PyReadonlyArray1<'py, i64>),
}

/// The contents of an [`IndexArray`], which a worker thread may read.
#[derive(Clone, Copy)]
pub(crate) enum IndexSlice<'a> {
    I32(&'a [i32]),
    I64(&'a [i64]),
}

/// `(indptr, indices, nrows, ncols)`: a CSR matrix's structure from scipy.
#[derive(FromPyObject)]
pub(crate) struct CsrArrays<'py>(
    pub IndexArray<'py>,
    pub IndexArray<'py>,
    pub usize,
    pub usize,
);

/// The structure of [`CsrArrays`], readable without the GIL.
#[derive(Clone, Copy)]
pub(crate) struct CsrSlices<'a> {
    indptr: IndexSlice<'a>,
    indices: IndexSlice<'a>,
    nrows: usize,
    ncols: usize,
}

impl IndexArray<'_> {
    /// The elements.
    ///
    /// # Errors
    /// `ValueError` when the array is not contiguous.
    fn as_slice(&self) -> PyResult<IndexSlice<'_>> {
        Ok(match self {
            IndexArray::I32(a) => IndexSlice::I32(a.as_slice().map_err(value_error)?),
            IndexArray::I64(a) => IndexSlice::I64(a.as_slice().map_err(value_error)?),
        })
    }
}

impl CsrArrays<'_> {
    /// The arrays' elements, to be read on another thread.
    ///
    /// # Errors
    /// `ValueError` when an array is not contiguous.
    pub(crate) fn slices(&self) -> PyResult<CsrSlices<'_>> {
        Ok(CsrSlices {
            indptr: self.0.as_slice()?,
            indices: self.1.as_slice()?,
            nrows: self.2,
            ncols: self.3,
        })
    }
}

impl IndexSlice<'_> {
    /// Each element as `T`, or an error naming the first that does not fit.
    fn convert<T: TryFrom<i64>>(self, name: &str) -> Result<Vec<T>, String> {
        let convert_one = |(i, v): (usize, i64)| {
            T::try_from(v).map_err(|_| format!("{name}[{i}] = {v} is out of range"))
        };
        match self {
            IndexSlice::I32(s) => s
                .iter()
                .map(|&v| i64::from(v))
                .enumerate()
                .map(convert_one)
                .collect(),
            IndexSlice::I64(s) => s.iter().copied().enumerate().map(convert_one).collect(),
        }
    }
}

impl CsrSlices<'_> {
    /// The matrix with these arrays and `values`, every invariant checked.
    ///
    /// # Errors
    /// A message naming the first negative or too large index, or the invariant violated.
    pub(crate) fn to_matrix<T: Value>(self, values: Vec<T>) -> Result<CsrMatrix<T>, String> {
        let row_ptr = self.indptr.convert::<usize>("indptr")?;
        let col_idx = self.indices.convert::<u32>("indices")?;
        CsrMatrix::new(self.nrows, self.ncols, row_ptr, col_idx, values)
            .map_err(|e| format!("invalid CSR arrays: {e}"))
    }

    /// The structure alone.
    ///
    /// # Errors
    /// As [`Self::to_matrix`].
    pub(crate) fn to_pattern(self) -> Result<CsrMatrix<()>, String> {
        let nnz = match self.indices {
            IndexSlice::I32(s) => s.len(),
            IndexSlice::I64(s) => s.len(),
        };
        self.to_matrix(vec![(); nnz])
    }
}

/// `ValueError` from a message of [`CsrSlices::to_matrix`].
pub(crate) fn invalid(message: String) -> PyErr {
    PyValueError::new_err(message)
}

/// The values of a matrix given to the library, in the dtypes it computes with.
#[derive(FromPyObject)]
pub(crate) enum ValueArray<'py> {
    /// `float64`.
    Real(PyReadonlyArray1<'py, f64>),
    /// `int64`.
    Integer(PyReadonlyArray1<'py, i64>),
    /// `complex128`.
    Complex(PyReadonlyArray1<'py, Complex64>),
}

impl ValueArray<'_> {
    /// The matrix with the structure `csr` and these values (`None`: a pattern).
    ///
    /// # Errors
    /// `ValueError` for a non-contiguous array or invalid CSR arrays.
    pub(crate) fn matrix(
        values: Option<&Self>,
        csr: CsrSlices<'_>,
    ) -> PyResult<Result<AnyCsr, String>> {
        Ok(match values {
            None => csr.to_pattern().map(AnyCsr::Pattern),
            Some(ValueArray::Real(v)) => csr
                .to_matrix(v.as_slice().map_err(value_error)?.to_vec())
                .map(AnyCsr::Real),
            Some(ValueArray::Integer(v)) => csr
                .to_matrix(v.as_slice().map_err(value_error)?.to_vec())
                .map(AnyCsr::Integer),
            Some(ValueArray::Complex(v)) => csr
                .to_matrix(v.as_slice().map_err(value_error)?.to_vec())
                .map(AnyCsr::Complex),
        })
    }
}

/// A matrix as numpy arrays: `(indptr, indices, data)`, the index arrays `int32` when every
/// offset and column fits (as scipy would choose), else `int64`; `data` is `None` for a pattern.
pub(crate) type NumpyCsr<'py> = (
    Bound<'py, PyAny>,
    Bound<'py, PyAny>,
    Option<Bound<'py, PyAny>>,
);

/// `a` as [`NumpyCsr`]; the values are moved into numpy, not copied.
pub(crate) fn to_numpy(py: Python<'_>, a: AnyCsr) -> NumpyCsr<'_> {
    fn with_values<T: Value + numpy::Element>(py: Python<'_>, m: CsrMatrix<T>) -> NumpyCsr<'_> {
        let (_, ncols, row_ptr, col_idx, values) = m.into_parts();
        let (indptr, indices) = index_arrays(py, ncols, &row_ptr, &col_idx);
        (
            indptr,
            indices,
            Some(PyArray1::from_vec(py, values).into_any()),
        )
    }
    match a {
        AnyCsr::Real(m) => with_values(py, m),
        AnyCsr::Integer(m) => with_values(py, m),
        AnyCsr::Complex(m) => with_values(py, m),
        AnyCsr::Pattern(m) => {
            let (indptr, indices) = index_arrays(py, m.ncols(), m.row_ptr(), m.col_idx());
            (indptr, indices, None)
        }
    }
}

/// `(indptr, indices)` in `int32` when the nonzeros and columns fit, else `int64`.
fn index_arrays<'py>(
    py: Python<'py>,
    ncols: usize,
    row_ptr: &[usize],
    col_idx: &[u32],
) -> (Bound<'py, PyAny>, Bound<'py, PyAny>) {
    fn arrays<'py, I: numpy::Element>(
        py: Python<'py>,
        row_ptr: &[usize],
        col_idx: &[u32],
        cast: impl Fn(usize) -> I,
    ) -> (Bound<'py, PyAny>, Bound<'py, PyAny>) {
        let offsets: Vec<I> = row_ptr.iter().map(|&o| cast(o)).collect();
        let columns: Vec<I> = col_idx.iter().map(|&c| cast(c as usize)).collect();
        (
            PyArray1::from_vec(py, offsets).into_any(),
            PyArray1::from_vec(py, columns).into_any(),
        )
    }
    let fits = |n: usize| i32::try_from(n).is_ok();
    if fits(col_idx.len()) && fits(ncols) {
        // Every offset is at most nnz and every column below ncols: the casts are exact.
        arrays(py, row_ptr, col_idx, |v| v as i32)
    } else {
        arrays(py, row_ptr, col_idx, |v| v as i64)
    }
}
