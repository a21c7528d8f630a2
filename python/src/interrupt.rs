//! Long work that Ctrl-C can stop: the job runs on a worker thread while the calling thread,
//! without the GIL, waits for it and every [`POLL`] asks Python whether a signal handler raised.
//!
//! Python runs signal handlers only on its main thread, between bytecodes; a call into Rust that
//! holds that thread for minutes would leave Ctrl-C pending until it returned. Here the calling
//! thread stays free to run the handler. When it raises (`KeyboardInterrupt`), the job is asked to
//! stop through its [`Stop`], and the error is raised once the worker has returned.
//!
//! A job stops by calling [`Stop::check`] where it can stop: the reordering does so in its
//! progress callback (every stage, and about every 100 ms of the TSP solve). `check` unwinds the
//! worker's stack with [`std::panic::resume_unwind`], which skips the panic hook (nothing is
//! printed) and is caught at the worker's top; every value the job built is dropped on the way.

// `Stop::check` unwinds; with `panic = "abort"` it would end the process instead.
#[cfg(panic = "abort")]
compile_error!("the spmv_reorder module needs panic = \"unwind\" to stop a job on Ctrl-C");

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

/// How often the waiting thread looks for signals.
pub(crate) const POLL: Duration = Duration::from_millis(50);

/// The request to stop, set by the waiting thread and checked by the job.
#[derive(Debug, Default)]
pub(crate) struct Stop(AtomicBool);

/// What [`Stop::check`] unwinds with.
struct Stopped;

impl Stop {
    /// Asks the job to stop.
    fn request(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was asked for.
    pub(crate) fn requested(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Unwinds the job when a stop was asked for; returns otherwise.
    pub(crate) fn check(&self) {
        if self.requested() {
            resume_unwind(Box::new(Stopped));
        }
    }
}

/// Runs `job` on a worker thread with the GIL released and returns its result, or the exception a
/// signal handler raised while it ran (then the job was asked to stop, and has stopped).
///
/// # Errors
/// The signal handler's exception (`KeyboardInterrupt` for Ctrl-C).
///
/// # Panics
/// Resumes a panic of the job on the calling thread (PyO3 raises it as `PanicException`).
pub(crate) fn run<T: Send>(py: Python<'_>, job: impl FnOnce(&Stop) -> T + Send) -> PyResult<T> {
    let stop = Stop::default();
    std::thread::scope(|scope| {
        let (done, mut outcome) = mpsc::channel();
        let stop = &stop;
        scope.spawn(move || {
            // The receiver lives until this thread has been joined: the send cannot fail.
            let _ = done.send(catch_unwind(AssertUnwindSafe(|| job(stop))));
        });
        let mut raised = None;
        loop {
            let (received, rx) = py.detach(move || (outcome.recv_timeout(POLL), outcome));
            outcome = rx;
            match received {
                Ok(result) => return finish(result, raised),
                Err(RecvTimeoutError::Timeout) if raised.is_none() => {
                    if let Err(e) = py.check_signals() {
                        stop.request();
                        raised = Some(e);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(PyRuntimeError::new_err(
                        "the worker thread ended without a result",
                    ))
                }
            }
        }
    })
}

/// The job's result, unless a signal handler raised while it ran.
fn finish<T>(result: Result<T, Box<dyn Any + Send>>, raised: Option<PyErr>) -> PyResult<T> {
    match (result, raised) {
        (_, Some(e)) => Err(e),
        (Ok(value), None) => Ok(value),
        (Err(payload), None) if payload.is::<Stopped>() => Err(PyRuntimeError::new_err(
            "the job stopped without being asked to",
        )),
        (Err(payload), None) => resume_unwind(payload),
    }
}
