//! `spmv_reorder._native`: the Rust half of the `spmv_reorder` Python package.
//!
//! The Python half (`python/spmv_reorder/__init__.py`) turns scipy matrices into CSR index arrays
//! and options into a dict; this module turns those into the library's types, runs the library
//! with the GIL released and turns its errors into Python exceptions:
//!
//! - `reorder(csr, options)`: [`Reorderer`](spmv_reorder_reorder::Reorderer) on the pattern,
//!   returning the row and column permutations (0-based, new → old) and the report as JSON.
//!   Ctrl-C stops it (module `interrupt`).
//! - `mmread(path, threads)` / `mmwrite(path, csr, data, symmetry, comment, threads)`: the
//!   project's Matrix Market reader and writer.
//! - `spmv_bench(csr, data, perm, options)` (cargo feature `bench`): the SpMV benchmark, as JSON
//!   in the shape of `spmv-reorder bench --json`.
//!
//! `csr` is always the tuple `(indptr, indices, nrows, ncols)`, with `int32` or `int64` index
//! arrays as scipy keeps them.
//!
//! # Crate features
//! - `bench` (default): `spmv_bench`, through spmv-reorder-spmv, which links the hwloc C library.
//!   Without it nothing here needs a system library, and `spmv_bench` raises `RuntimeError`.
//!
//! # Design decisions
//! - **Scipy stays in Python.** Formats, dtypes, duplicates and sorting are scipy's business and
//!   are settled there (`tocsr`, `sum_duplicates`); this side sees canonical CSR arrays and checks
//!   them again with [`CsrMatrix::new`](spmv_reorder_sparse::CsrMatrix::new), so a bad array is a
//!   `ValueError`, never a panic.
//! - **One copy of the indices, none of the values.** The library's matrix owns `usize` offsets
//!   and `u32` columns, so scipy's `int32`/`int64` arrays are converted once; the ordering only
//!   needs the pattern, so values are never passed to `reorder`.
//! - **Long work runs on a worker thread** while the calling thread, without the GIL, polls for
//!   signals: Ctrl-C raises `KeyboardInterrupt` within a stage or a tenth of a second of solving.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "bench")]
mod bench;
mod errors;
mod interrupt;
mod io;
mod matrix;
mod reorder;

use pyo3::prelude::*;

/// Large arrays on transparent huge pages, as numpy asks for its own and as the `spmv-reorder`
/// binary has them.
#[global_allocator]
static ALLOC: spmv_reorder_sparse::HugePageAlloc = spmv_reorder_sparse::HugePageAlloc;

/// The module `spmv_reorder._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(reorder::reorder, m)?)?;
    m.add_function(wrap_pyfunction!(io::mmread, m)?)?;
    m.add_function(wrap_pyfunction!(io::mmwrite, m)?)?;
    #[cfg(feature = "bench")]
    m.add_function(wrap_pyfunction!(bench::spmv_bench, m)?)?;
    m.add("HAS_BENCH", cfg!(feature = "bench"))?;
    Ok(())
}
