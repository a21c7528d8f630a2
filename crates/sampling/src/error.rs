//! The one error type of this crate.

use std::path::PathBuf;

/// Errors from sampling a matrix, reading traces and layouts, or opening hardware samplers.
///
/// Parser variants carry the file and 1-based line; none holds a preformatted message.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SamplingError {
    /// A sampling probability outside `[0, 1]` (or not a number).
    #[error("sampling probability {value} is not in [0, 1]")]
    InvalidProbability {
        /// The rejected value.
        value: f64,
    },
    /// A sampler specification (`--sampler SPEC`) that does not parse.
    #[error("invalid sampler specification '{spec}': {kind}")]
    Spec {
        /// The whole specification as given.
        spec: String,
        /// What is wrong with it.
        kind: SpecError,
    },
    /// An option with a value it cannot take (e.g. a cache whose size is not `sets * ways * line`).
    #[error("invalid option {name} = {value}: expected {expected}")]
    InvalidOption {
        /// Option name.
        name: &'static str,
        /// The rejected value.
        value: String,
        /// What would be accepted.
        expected: &'static str,
    },
    /// Reading or writing a file failed.
    #[error("cannot read {}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A line of a trace file that does not have the expected format.
    #[error("{}:{line}: expected {expected}, found '{found}'", path.display())]
    Parse {
        /// The trace file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What the parser expected.
        expected: &'static str,
        /// The offending text (the line or token).
        found: String,
    },
    /// A layout file that is not valid layout JSON.
    #[error("{}: not a layout file", path.display())]
    LayoutFormat {
        /// The layout file.
        path: PathBuf,
        /// The JSON error (with its line and column).
        source: serde_json::Error,
    },
    /// The layout describes a different matrix than the one being sampled.
    #[error(
        "the layout was recorded for a matrix with {what} = {layout}, this matrix has {matrix}"
    )]
    LayoutMismatch {
        /// Which dimension differs (`rows`, `columns`, `nonzeros`).
        what: &'static str,
        /// The value in the layout.
        layout: u64,
        /// The value of the matrix.
        matrix: u64,
    },
    /// A layout whose regions are inconsistent (overlapping, missing an array, zero element size).
    #[error("invalid layout: {reason}")]
    InvalidLayout {
        /// The broken invariant.
        reason: &'static str,
    },
    /// None of the trace's records fell inside the iteration windows of the layout: the trace and
    /// the layout use different clocks.
    #[error(
        "no record of the trace lies inside the traced iterations' time windows: record with \
         `perf record -k CLOCK_MONOTONIC` or pass iteration=all"
    )]
    ClockMismatch,
    /// A trace that lacks the run's complete sequence of marker stores (`marker[0]`, ...,
    /// `marker[iterations]`): it was not recorded from the run that wrote the layout, or was cut.
    #[error("{}: the trace does not contain the run's iteration markers 0..={iterations} in order", path.display())]
    MarkersNotFound {
        /// The trace file.
        path: PathBuf,
        /// Iterations of the run.
        iterations: u32,
    },
    /// The simulated caches' line tags need more memory than this process can allocate (many
    /// threads, or levels of gigabytes).
    #[error(
        "the simulated caches of {threads} thread(s) need {bytes} bytes of line tags, more than \
         this process can allocate: use fewer threads or smaller levels"
    )]
    CacheStateTooLarge {
        /// Threads with a private L1 and L2.
        threads: usize,
        /// Bytes of tags the hierarchy needs.
        bytes: u64,
    },
    /// The requested iteration was not traced.
    #[error("iteration {requested} was not traced (the run has {available} iterations)")]
    NoSuchIteration {
        /// Requested 0-based iteration.
        requested: u32,
        /// Iterations in the run.
        available: u32,
    },
    /// No PMU able to sample load addresses with latencies exists on this machine.
    #[error(
        "live hardware sampling needs Intel PEBS load latency ({intel} with format/ldlat) or AMD \
         IBS op ({amd}); neither exists on this machine (virtual machines usually expose no such \
         PMU). Use `dast-sim` (cache simulator), `trace:lackey=FILE,layout=FILE` (valgrind) or \
         `trace:perf-script=FILE,layout=FILE` (a trace recorded elsewhere) instead",
        intel = intel.display(),
        amd = amd.display()
    )]
    NoSamplingPmu {
        /// The Intel event file looked for.
        intel: PathBuf,
        /// The AMD PMU directory looked for.
        amd: PathBuf,
    },
    /// A sysfs PMU file with unexpected content.
    #[error("{}: expected {expected}, found '{found}'", path.display())]
    Sysfs {
        /// The file.
        path: PathBuf,
        /// What was expected.
        expected: &'static str,
        /// Its content.
        found: String,
    },
    /// Live hardware sampling was asked for, but this build has no `perf_event_open` support.
    #[error(
        "live hardware sampling (dast-perf) is not in this build: build spmv-reorder-sampling with \
         its `live` feature (the spmv-reorder command line has it), or use `dast-sim` or a \
         recorded trace instead"
    )]
    LiveSamplingNotBuilt,
    /// A `perf_event_open` call or ring-buffer operation failed.
    #[error("perf_event_open ({what}) failed")]
    Perf {
        /// The failing step.
        what: &'static str,
        /// The OS error.
        source: std::io::Error,
    },
    /// A sample record from the kernel shorter than its sample type requires.
    #[error("truncated perf sample record: {found} bytes, need {expected}")]
    TruncatedRecord {
        /// Bytes needed.
        expected: usize,
        /// Bytes present.
        found: usize,
    },
}

/// What is wrong with a sampler specification.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpecError {
    /// The part before `:` names no sampler.
    #[error(
        "unknown sampler '{0}' (expected random:P, dast-sim[:...], dast-perf[:...] or trace:...)"
    )]
    UnknownSampler(String),
    /// An option this sampler does not have.
    #[error("unknown option '{0}'")]
    UnknownOption(String),
    /// An option given without `=value`.
    #[error("option '{0}' needs a value (key=value)")]
    MissingValue(String),
    /// An option value that does not parse.
    #[error("option {key} = '{value}': expected {expected}")]
    InvalidValue {
        /// Option name.
        key: String,
        /// Its value.
        value: String,
        /// What would be accepted.
        expected: &'static str,
    },
    /// A required option is absent.
    #[error("missing option '{0}'")]
    MissingOption(&'static str),
    /// An option given twice (which one was meant is not for the parser to guess).
    #[error("option '{0}' is given twice")]
    RepeatedOption(String),
    /// Two options of which one at most may be given.
    #[error("options '{0}' and '{1}' exclude each other: give one")]
    ExclusiveOptions(&'static str, &'static str),
}

impl SamplingError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        SamplingError::Io {
            path: path.into(),
            source,
        }
    }
}
