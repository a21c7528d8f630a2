//! The library's errors as Python exceptions, with the library's message: `ValueError` for bad
//! input or options, `OSError` (or its subclass for the cause, such as `FileNotFoundError`) for a
//! file the operating system refused, `RuntimeError` for what this machine cannot do (threads,
//! CPU binding).

use pyo3::exceptions::{
    PyFileExistsError, PyFileNotFoundError, PyIsADirectoryError, PyMemoryError, PyOSError,
    PyPermissionError, PyRuntimeError, PyValueError,
};
use pyo3::PyErr;
use spmv_reorder_mtx::MtxError;
use spmv_reorder_reorder::ReorderError;
use std::error::Error;
use std::io;

/// The message of `e` followed by its causes, each once (`a: b: c`).
fn message(e: &dyn Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let more = c.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        cause = c.source();
    }
    text
}

/// An `OSError` of the subclass Python uses for `kind`.
fn os_error(kind: io::ErrorKind, text: String) -> PyErr {
    match kind {
        io::ErrorKind::NotFound => PyFileNotFoundError::new_err(text),
        io::ErrorKind::PermissionDenied => PyPermissionError::new_err(text),
        io::ErrorKind::AlreadyExists => PyFileExistsError::new_err(text),
        io::ErrorKind::IsADirectory => PyIsADirectoryError::new_err(text),
        _ => PyOSError::new_err(text),
    }
}

/// A Matrix Market error: `OSError` when the operating system failed, `ValueError` otherwise (a
/// malformed file, a matrix that cannot be written as asked).
pub(crate) fn mtx_error(e: MtxError) -> PyErr {
    let text = message(&e);
    match &e {
        MtxError::Io { source, .. } => os_error(source.kind(), text),
        MtxError::ThreadPool { .. } => PyRuntimeError::new_err(text),
        _ => PyValueError::new_err(text),
    }
}

/// A reordering error: `OSError` when a file could not be read (a trace, say), else
/// `ValueError` (bad input or options, a sampler this machine does not have).
pub(crate) fn reorder_error(e: ReorderError) -> PyErr {
    match io_cause(&e) {
        Some(kind) => os_error(kind, message(&e)),
        None => PyValueError::new_err(message(&e)),
    }
}

/// The kind of the first operating-system error among the causes of `e`.
fn io_cause(e: &(dyn Error + 'static)) -> Option<io::ErrorKind> {
    let mut cause = Some(e);
    while let Some(c) = cause {
        if let Some(io) = c.downcast_ref::<io::Error>() {
            return Some(io.kind());
        }
        cause = c.source();
    }
    None
}

/// `ValueError` with the message of `e` (a matrix or permutation the library rejected).
pub(crate) fn value_error(e: impl Error) -> PyErr {
    PyValueError::new_err(message(&e))
}

#[cfg(feature = "bench")]
/// A benchmark error: `ValueError` for bad settings, `RuntimeError` for what this machine refused
/// (topology, binding, threads).
pub(crate) fn spmv_error(e: spmv_reorder_spmv::SpmvError) -> PyErr {
    use spmv_reorder_spmv::SpmvError as E;
    let text = message(&e);
    match &e {
        E::Topology { .. }
        | E::NotThisSystem
        | E::BindFailed { .. }
        | E::PinningIgnored { .. }
        | E::MemoryBindFailed { .. }
        | E::ThreadPool(_) => PyRuntimeError::new_err(text),
        E::OutOfMemory { .. } => PyMemoryError::new_err(text),
        _ => PyValueError::new_err(text),
    }
}
