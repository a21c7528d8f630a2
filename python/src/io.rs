//! `mmread` and `mmwrite`: the project's Matrix Market reader and writer (every format, field and
//! symmetry, gzip, parallel parsing, atomic output), with the GIL released while they work.

use crate::errors::mtx_error;
use crate::matrix::{invalid, to_numpy, CsrArrays, NumpyCsr, ValueArray};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use spmv_reorder_mtx::{Format, Header, MatrixMarket, ReadOptions, Symmetry, WriteOptions};
use std::path::PathBuf;

/// `((indptr, indices, data), nrows, ncols)` of a file: the expanded matrix (both triangles) as
/// numpy arrays ([`NumpyCsr`]; `data` is `None` for a pattern) and its shape.
type ReadMatrix<'py> = (NumpyCsr<'py>, usize, usize);

/// Reads a Matrix Market file (plain or gzipped) on `threads` threads (`None`: all cores).
///
/// # Errors
/// `OSError` when the file cannot be read, `ValueError` naming the file and line of the first
/// problem in it.
#[pyfunction]
#[pyo3(signature = (path, threads=None))]
pub(crate) fn mmread(
    py: Python<'_>,
    path: PathBuf,
    threads: Option<usize>,
) -> PyResult<ReadMatrix<'_>> {
    let opts = ReadOptions {
        threads,
        ..ReadOptions::default()
    };
    let m = py
        .detach(|| spmv_reorder_mtx::read_path(&path, &opts))
        .map_err(mtx_error)?;
    let (nrows, ncols) = (m.matrix.nrows(), m.matrix.ncols());
    Ok((to_numpy(py, m.matrix), nrows, ncols))
}

/// The symmetry spelled `text`, as Matrix Market spells it.
fn symmetry(text: &str) -> PyResult<Symmetry> {
    [
        Symmetry::General,
        Symmetry::Symmetric,
        Symmetry::SkewSymmetric,
        Symmetry::Hermitian,
    ]
    .into_iter()
    .find(|s| s.as_str().eq_ignore_ascii_case(text.trim()))
    .ok_or_else(|| {
        PyValueError::new_err(format!(
            "invalid symmetry '{text}': expected general, symmetric, skew-symmetric or hermitian"
        ))
    })
}

/// Writes the matrix `csr` with values `data` (`None`: a pattern) to `path` in coordinate format,
/// atomically (a temporary file renamed), gzipped when `path` ends in `.gz`. `symmetry` (default
/// `general`) is checked against the values; `comment` lines go into the header.
///
/// # Errors
/// `ValueError` for invalid arrays, an unknown symmetry or a matrix without it, `OSError` when
/// the file cannot be written (nothing is left behind then).
#[pyfunction]
#[pyo3(signature = (path, csr, data, symmetry=None, comment=None, threads=None))]
pub(crate) fn mmwrite<'py>(
    py: Python<'py>,
    path: PathBuf,
    csr: CsrArrays<'py>,
    data: Option<ValueArray<'py>>,
    symmetry: Option<&str>,
    comment: Option<&str>,
    threads: Option<usize>,
) -> PyResult<()> {
    let symmetry = symmetry.map(self::symmetry).transpose()?;
    let slices = csr.slices()?;
    let matrix = ValueArray::matrix(data.as_ref(), slices)?.map_err(invalid)?;
    let m = MatrixMarket {
        header: Header {
            format: Format::Coordinate,
            field: matrix.field(),
            symmetry: symmetry.unwrap_or(Symmetry::General),
        },
        comments: comment
            .map(|c| c.lines().map(str::to_owned).collect())
            .unwrap_or_default(),
        matrix,
    };
    let opts = WriteOptions {
        threads,
        ..WriteOptions::default()
    };
    py.detach(|| spmv_reorder_mtx::write_path(&path, &m, &opts))
        .map_err(mtx_error)
}
