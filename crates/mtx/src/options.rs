//! Options of reading and writing, and the thread pool a job runs on.

use crate::error::{MtxError, ParseError};
use crate::header::{Format, Symmetry};
use spmv_reorder_sparse::can_allocate;

/// Told how far a long read or write has come: `(done, total)` units, bytes of the file for
/// reading (`total` 0 when unknown, as for stdin), entries for writing. Called often: it should
/// only store or draw.
pub type Progress<'a> = &'a (dyn Fn(u64, u64) + Sync);

/// A [`Progress`] that ignores what it is told.
pub(crate) fn no_progress(_: u64, _: u64) {}

/// How to read a Matrix Market file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Worker threads: `None` uses the current rayon pool (all cores by default), `Some(n)` runs in
    /// a pool of `n` threads (`Some(1)` is sequential; `Some(0)` means all cores).
    pub threads: Option<usize>,
    /// Bytes per parsing chunk; `None` picks a size from the file size and thread count. Small
    /// values exercise the chunk boundaries in tests; results never depend on it.
    pub chunk_bytes: Option<usize>,
    /// What the caller's job will hold per row, column and nonzero of the matrix. When given, a
    /// Matrix Market text is refused at its size line ([`ParseError::JobTooLarge`]) when that
    /// much memory for the declared sizes cannot be allocated, before the reader allocates
    /// anything in proportion to them: a short file declaring a vast matrix costs nothing.
    ///
    /// [`ParseError::JobTooLarge`]: crate::ParseError::JobTooLarge
    pub footprint: Option<Footprint>,
}

/// The memory a job holds at its peak, per row plus column and per nonzero of its matrix.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Footprint {
    /// Bytes per row and per column (row offsets, permutations, per-row scratch).
    pub per_dim: u64,
    /// Bytes per stored nonzero (indices, values, copies).
    pub per_nnz: u64,
}

impl Footprint {
    /// Bytes for a matrix of `nrows` x `ncols` with `nnz` nonzeros (saturating).
    pub fn bytes(&self, nrows: usize, ncols: usize, nnz: u64) -> u64 {
        let dims = (nrows as u64).saturating_add(ncols as u64);
        self.per_dim
            .saturating_mul(dims)
            .saturating_add(self.per_nnz.saturating_mul(nnz))
    }

    /// Whether [`Footprint::bytes`] [can be allocated](can_allocate) now.
    pub fn fits(&self, nrows: usize, ncols: usize, nnz: u64) -> bool {
        can_allocate(self.bytes(nrows, ncols, nnz))
    }

    /// [`ParseError::JobTooLarge`](crate::ParseError::JobTooLarge) unless it
    /// [fits](Footprint::fits).
    pub(crate) fn admit(&self, nrows: usize, ncols: usize, nnz: u64) -> Result<(), ParseError> {
        match self.fits(nrows, ncols, nnz) {
            true => Ok(()),
            false => Err(ParseError::JobTooLarge {
                bytes: self.bytes(nrows, ncols, nnz),
            }),
        }
    }
}

/// How to write a Matrix Market file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// Worker threads, as [`ReadOptions::threads`].
    pub threads: Option<usize>,
    /// The format to write; `None` keeps the header's.
    pub format: Option<Format>,
    /// The symmetry (stored part) to write; `None` keeps the header's. A triangular symmetry is
    /// checked against the values.
    pub symmetry: Option<Symmetry>,
    /// Lines per formatting chunk; `None` picks a default. Results never depend on it.
    pub chunk_lines: Option<usize>,
}

/// The rayon pool a job runs on: the current one, or one of its own.
pub(crate) enum Pool {
    Current,
    Own(rayon::ThreadPool),
}

impl Pool {
    /// The pool for `threads` (`None`: the current pool).
    ///
    /// # Errors
    /// [`MtxError::ThreadPool`] when the threads cannot be started.
    pub(crate) fn new(threads: Option<usize>) -> Result<Self, MtxError> {
        let Some(n) = threads else {
            return Ok(Pool::Current);
        };
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map(Pool::Own)
            .map_err(|e| MtxError::ThreadPool {
                threads: n,
                message: e.to_string(),
            })
    }

    /// Runs `job` on the pool and returns its result.
    pub(crate) fn install<R: Send>(&self, job: impl FnOnce() -> R + Send) -> R {
        match self {
            Pool::Current => job(),
            Pool::Own(pool) => pool.install(job),
        }
    }

    /// Runs `job` on the calling thread with a scope whose spawned tasks run on the pool.
    pub(crate) fn in_place_scope<'scope, R>(
        &self,
        job: impl FnOnce(&rayon::Scope<'scope>) -> R,
    ) -> R {
        match self {
            Pool::Current => rayon::in_place_scope(job),
            Pool::Own(pool) => pool.in_place_scope(job),
        }
    }

    /// Threads of the pool.
    pub(crate) fn threads(&self) -> usize {
        self.install(rayon::current_num_threads)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_on_the_requested_threads() {
        for n in [1, 2, 3] {
            assert_eq!(Pool::new(Some(n)).unwrap().threads(), n);
        }
        assert_eq!(
            Pool::new(None).unwrap().threads(),
            rayon::current_num_threads()
        );
    }
}
