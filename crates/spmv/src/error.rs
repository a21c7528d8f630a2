//! The one error type of this crate.

use std::path::PathBuf;

/// Errors of the SpMV engine: bad thread or pinning requests, topology loading, memory placement
/// and benchmark inputs. User input never panics; it ends here.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SpmvError {
    /// `--threads 0`.
    #[error("the number of threads must be at least 1")]
    ZeroThreads,
    /// More threads requested than the topology has processing units.
    #[error(
        "{requested} threads requested but the topology has only {available} processing units"
    )]
    TooManyThreads {
        /// Threads requested.
        requested: usize,
        /// Processing units (PUs) of the topology.
        available: usize,
    },
    /// A CPU list names a CPU (OS index) the topology does not have.
    #[error("CPU {cpu} does not exist (this topology has CPUs {available:?})")]
    NoSuchCpu {
        /// The OS index asked for.
        cpu: usize,
        /// The OS indices that exist.
        available: Vec<usize>,
    },
    /// A NUMA node (OS index) the topology does not have.
    #[error("NUMA node {node} does not exist (this topology has nodes {available:?})")]
    NoSuchNumaNode {
        /// The OS index asked for.
        node: usize,
        /// The OS indices that exist.
        available: Vec<usize>,
    },
    /// A CPU list whose length differs from the thread count.
    #[error("the CPU list names {listed} CPUs but {threads} threads were requested")]
    CpuListLength {
        /// CPUs in the list.
        listed: usize,
        /// Threads requested.
        threads: usize,
    },
    /// A pinning or placement specification that does not parse.
    #[error("invalid {what} {input:?}: expected {expected}")]
    Parse {
        /// What was being parsed (`"pinning"`, `"placement"`, `"kernel"`).
        what: &'static str,
        /// The text given.
        input: String,
        /// What would have been accepted.
        expected: &'static str,
    },
    /// hwloc could not build or load a topology.
    #[error("cannot load the topology{}: {message}", path.as_ref().map(|p| format!(" from {}", p.display())).unwrap_or_default())]
    Topology {
        /// The XML file, when loading from one.
        path: Option<PathBuf>,
        /// hwloc's explanation.
        message: String,
    },
    /// Threads can only be pinned with the topology of the machine we run on (not an XML one).
    #[error(
        "cannot pin threads with a topology that does not describe this machine (loaded from XML?)"
    )]
    NotThisSystem,
    /// The operating system refused to bind a thread.
    #[error("binding thread {thread} to CPU {cpu} failed: {message}")]
    BindFailed {
        /// Team thread index.
        thread: usize,
        /// The CPU (OS index) requested.
        cpu: usize,
        /// The operating system's explanation.
        message: String,
    },
    /// A thread's binding read back differs from the one requested: the mask was silently ignored.
    #[error(
        "thread {thread} was pinned to CPU {requested} but its binding reads back as {found:?}"
    )]
    PinningIgnored {
        /// Team thread index.
        thread: usize,
        /// The CPU (OS index) requested.
        requested: usize,
        /// The CPUs of the binding read back.
        found: Vec<usize>,
    },
    /// The operating system refused a memory binding.
    #[error("binding {what} to NUMA node(s) {nodes:?} failed: {message}")]
    MemoryBindFailed {
        /// The array being placed.
        what: &'static str,
        /// The nodes requested.
        nodes: Vec<usize>,
        /// The operating system's explanation.
        message: String,
    },
    /// A thread pool could not be created.
    #[error("cannot start the thread team: {0}")]
    ThreadPool(String),
    /// Two matrices or vectors that must agree in size do not.
    #[error("{what}: expected {expected}, found {found}")]
    DimensionMismatch {
        /// What was compared.
        what: &'static str,
        /// The size required.
        expected: usize,
        /// The size given.
        found: usize,
    },
    /// Arrays that this process cannot allocate (checked before any is filled).
    #[error(
        "{what} would need {} GiB of memory, more than this process can allocate",
        format!("{:.1}", *bytes as f64 / (1u64 << 30) as f64)
    )]
    OutOfMemory {
        /// What was to be allocated.
        what: &'static str,
        /// How many bytes.
        bytes: u64,
    },
    /// A benchmark setting out of range (e.g. zero repetitions).
    #[error("invalid benchmark setting {name} = {value}: {reason}")]
    InvalidSetting {
        /// The setting.
        name: &'static str,
        /// Its value.
        value: String,
        /// Why it is rejected.
        reason: &'static str,
    },
}
