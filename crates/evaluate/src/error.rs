//! The one error type of the evaluation: the errors of the stages it calls, and its own I/O.

/// Errors from describing or evaluating matrices.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EvaluateError {
    /// A reordering could not be configured or run.
    #[error(transparent)]
    Reorder(#[from] spmv_reorder_reorder::ReorderError),
    /// The locality model rejected its input.
    #[error(transparent)]
    Locality(#[from] spmv_reorder_locality::LocalityError),
    /// Benchmarking SpMV failed.
    #[error(transparent)]
    Spmv(#[from] spmv_reorder_spmv::SpmvError),
    /// Generating (shuffling) a matrix failed.
    #[error(transparent)]
    Gen(#[from] spmv_reorder_gen::GenError),
    /// A matrix or permutation operation failed.
    #[error(transparent)]
    Sparse(#[from] spmv_reorder_sparse::SparseError),
    /// No thread count to time SpMV with.
    #[error("no thread count to time SpMV with")]
    NoThreads,
    /// A thread count given twice (each figure is given once per thread count).
    #[error("the thread count {threads} is given twice")]
    RepeatedThreads {
        /// The repeated count.
        threads: usize,
    },
    /// An ordering given twice (the tables find an ordering by its label).
    #[error("the ordering `{label}` is given twice")]
    RepeatedOrdering {
        /// The label of the repeated ordering.
        label: String,
    },
    /// The folder holds no Matrix Market file.
    #[error("{}: no .mtx or .mtx.gz files", dir.display())]
    NoMatrixFiles {
        /// The folder.
        dir: std::path::PathBuf,
    },
    /// None of the folder's Matrix Market files has the text asked for in its name.
    #[error("{}: none of its {files} matrix files has `{only}` in its name", dir.display())]
    NoMatrixNamed {
        /// The folder.
        dir: std::path::PathBuf,
        /// The text asked for.
        only: String,
        /// The Matrix Market files it holds.
        files: usize,
    },
    /// A file or directory could not be read.
    #[error("cannot read {}", path.display())]
    Io {
        /// The file or directory.
        path: std::path::PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
}
