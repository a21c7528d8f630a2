//! Sampling a sparse matrix for reordering (SPEC §5, thesis 4.3-4.4): a reordering needs only a
//! few percent of the nonzeros, and memory-access samples of SpMV hand them over almost for free.
//!
//! - [`random_sample`]: each nonzero kept with probability `p`: one random draw per kept entry
//!   (geometric skip-ahead), plus one pass over the row offsets.
//! - [`dast`]: dual-array sampling. From [`TraceRecord`]s (sampled accesses mapped to `X[j]`,
//!   `Y[i]`, `col_idx[k]`, ... through a [`Layout`]) it finds the univocal entries, the
//!   [`UncertaintyInterval`]s and the [`Coverage`] of thesis table 4.2, for each [`TracedKernel`].
//! - Trace sources: the cache and PMU simulator [`simulate`] (any machine), live PEBS/IBS sampling
//!   ([`sample_live`]), and recorded traces from `perf script` ([`read_perf_script`]) or valgrind
//!   lackey ([`read_lackey`]) of the [`TracedSpmv`] kernels that `spmv-reorder trace-kernel` runs.
//! - [`sample`]: one entry point for a [`SamplerSpec`] (`random:0.02`, `dast-sim:period=10`, ...),
//!   returning a [`Sample`].
//!
//! ```
//! use spmv_reorder_sampling::{sample, SampleOptions, SamplerSpec};
//! use spmv_reorder_sparse::CsrMatrix;
//!
//! // A 1D Laplacian with 500 rows.
//! let n: usize = 500;
//! let triplets = (0..n).flat_map(|i| {
//!     [(i, i, 2.0), (i, i.saturating_sub(1), -1.0), (i, (i + 1).min(n - 1), -1.0)]
//! });
//! let a = CsrMatrix::from_triplets(n, n, triplets).unwrap();
//!
//! let spec: SamplerSpec = "dast-sim:period=3,threads=2".parse().unwrap();
//! let s = sample(&a, &spec, &SampleOptions { seed: 1, threads: 2 }).unwrap();
//! assert_eq!(s.coverage.rejected, 0); // every univocal entry is a nonzero of `a`
//! assert!(s.coverage.sampled_nnz > 0 && s.coverage.sampled_nnz < a.nnz());
//! assert_eq!(s.row_max_latency.len(), n);
//!
//! let r = sample(&a, &"random:2%".parse().unwrap(), &SampleOptions::default()).unwrap();
//! assert!(r.pattern.nnz() < a.nnz() / 10);
//! ```
//!
//! # Crate features
//! - `live` (off by default): live hardware sampling through Linux `perf_event_open` (the
//!   `perf-event2` crate). Without it, [`sample_live`] returns
//!   [`SamplingError::LiveSamplingNotBuilt`]; with it, it fails at run time with
//!   [`SamplingError::NoSamplingPmu`] on machines without PEBS load latency or IBS.
//!
//! # Design decisions
//! - **The traced kernels live here**, not in the tuned SpMV engine: the DAST rule depends on
//!   exactly when a kernel touches `y` (kernel A in its inner loop, kernel B once per row), so the
//!   kernels are `#[inline(never)]`, force their `y` accesses with `black_box`, and document
//!   their access order; the simulator models that same order.
//! - **Precision by verification**: every univocal candidate is looked up in the matrix; the
//!   non-nonzeros are dropped and counted ([`Coverage::rejected`]), so a wrong layout or rule
//!   shows up as a number instead of silently polluting the sample.
//! - **Sources produce records, DAST consumes them**: the simulator, perf and lackey differ only
//!   in how records are made, so the rules are written and tested once.
//! - **The simulator's default threshold is 0**: on the thesis's Itanium every floating-point
//!   load missed L1, so every `x`/`y` access could be sampled; on small matrices an x86-like L1
//!   threshold would sample nothing. `threshold=5` gives L1-miss sampling.
//! - **Traces are cut per iteration** (markers for lackey, `CLOCK_MONOTONIC` windows for perf):
//!   kernel A's rule cannot tell two samples of one row in consecutive iterations apart.
//! - **Kernel A is the default**: it touches `y[i]` per nonzero, so `Y` samples are plentiful and
//!   an `X` sample is univocal when one `Y[i]` sample precedes and one follows it within the row.
//!   Kernel B (the usual register-accumulating loop) has one `y` store per row: a univocal entry
//!   needs the stores of two consecutive rows both sampled, so its coverage under sampling is far
//!   lower (a full trace still locates every nonzero).
//! - **Lackey traces must come from one thread**: lackey's output does not say which thread made
//!   an access, and interleaved threads would break the time order the rules rely on.
//! - **Unsafe code** is denied everywhere but one `clock_gettime` call in `perf.rs`; the
//!   `perf-event2` crate wraps `perf_event_open` and the ring buffer safely.
#![deny(unsafe_code)]
#![deny(missing_docs)]

mod cache;
mod dast;
mod error;
mod import;
mod kernel;
mod lackey;
mod perf;
mod perf_script;
mod random;
mod resample;
mod sample;
mod sim;
mod spec;
mod trace;

pub use cache::{CacheConfig, CacheHierarchy, Latencies, Pmu};
pub use dast::{dast, row_interval, DastMode, DastOptions};
pub use error::{SamplingError, SpecError};
pub use import::IterationSelect;
pub use kernel::{partition_rows, spmv_per_nonzero, spmv_per_row, TracedKernel, TracedSpmv};
pub use lackey::{parse_lackey, parse_lackey_line, read_lackey};
pub use perf::{
    decode_sample, detect_pmu, monotonic_ns, parse_event_terms, sample_live, FormatField,
    PerfOptions, PmuEvent, PmuKind, RawSample, PERF_RECORD_SAMPLE, SAMPLE_BYTES, SYSFS_PMUS,
};
pub use perf_script::{
    parse_perf_script, parse_perf_script_line, read_perf_script, PerfScriptLine,
};
pub use random::{random_sample, sampled_positions};
pub use resample::resample;
pub use sample::{Coverage, Sample, UncertaintyInterval};
pub use sim::{simulate, EventFilter, SimOptions};
pub use spec::{SamplerSpec, TraceSource, TraceSpec};
pub use trace::{Access, Array, Layout, Region, Target, TraceRecord};

use spmv_reorder_sparse::{CsrMatrix, Value};

/// Options every sampler shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampleOptions {
    /// Seed of every random choice (random sampling, randomised PMU periods).
    pub seed: u64,
    /// Threads of the sampled SpMV (simulated or live), unless the spec sets its own.
    pub threads: usize,
}

impl Default for SampleOptions {
    /// Seed 0, one thread.
    fn default() -> Self {
        SampleOptions {
            seed: 0,
            threads: 1,
        }
    }
}

/// Samples `matrix` as `spec` says: the pipeline's entry point.
///
/// # Errors
/// Whatever the chosen source reports: [`SamplingError::InvalidProbability`],
/// [`SamplingError::InvalidOption`] (simulator), [`SamplingError::NoSamplingPmu`] (live sampling
/// on a machine without PEBS/IBS), I/O, parse and layout errors of recorded traces.
pub fn sample<T: Value>(
    matrix: &CsrMatrix<T>,
    spec: &SamplerSpec,
    opts: &SampleOptions,
) -> Result<Sample, SamplingError> {
    match spec {
        SamplerSpec::Random { probability } => random_sample(matrix, *probability, opts.seed),
        SamplerSpec::DastSim { sim, mode } => {
            let sim = SimOptions {
                threads: Some(sim.threads.unwrap_or(opts.threads)),
                seed: sim.seed ^ opts.seed,
                ..sim.clone()
            };
            let (layout, records) = simulate(matrix, &sim)?;
            Ok(dast(matrix, &records, &dast_options(&layout, *mode, true)))
        }
        SamplerSpec::DastPerf(perf) => {
            // The live run times the real product: it needs the values as numbers.
            let (layout, records) = sample_live(&matrix.as_real(), perf, opts.threads)?;
            Ok(dast(
                matrix,
                &records,
                &dast_options(&layout, perf.mode, true),
            ))
        }
        SamplerSpec::Trace(trace) => sample_trace(matrix, trace, opts),
    }
}

/// DAST options for a run of `layout`; `one_iteration` when the records hold exactly one
/// iteration from its start (then the row blocks bound each thread's first samples).
fn dast_options(layout: &Layout, mode: DastMode, one_iteration: bool) -> DastOptions {
    DastOptions {
        kernel: layout.kernel,
        mode,
        partition: one_iteration.then(|| layout.partition.clone()),
    }
}

/// DAST on a recorded trace, optionally resampled through the cache and PMU models.
fn sample_trace<T: Value>(
    matrix: &CsrMatrix<T>,
    trace: &TraceSpec,
    opts: &SampleOptions,
) -> Result<Sample, SamplingError> {
    let layout = Layout::read(&trace.layout)?;
    layout.check_matrix(matrix)?;
    let threads = layout.partition.len() - 1;
    if matches!(trace.source, TraceSource::Lackey(_)) && threads > 1 {
        return Err(SamplingError::InvalidOption {
            name: "lackey",
            value: format!("a run on {threads} threads"),
            expected: "a single-threaded run (lackey's trace does not say which thread accessed)",
        });
    }
    let mut records = match &trace.source {
        TraceSource::PerfScript(path) => read_perf_script(path, &layout, trace.iteration)?,
        TraceSource::Lackey(path) => read_lackey(path, &layout, trace.iteration)?,
    };
    if trace.cache || trace.resample.period > 1 || trace.resample.threshold > 0 {
        let resample_opts = SimOptions {
            seed: trace.resample.seed ^ opts.seed,
            ..trace.resample.clone()
        };
        records = resample(&records, &resample_opts, trace.cache)?;
    }
    let cut = match &trace.source {
        TraceSource::PerfScript(_) => !layout.iteration_times_ns.is_empty(),
        TraceSource::Lackey(_) => layout.region(Array::Marker).is_some(),
    };
    let one_iteration = cut && trace.iteration != IterationSelect::All;
    Ok(dast(
        matrix,
        &records,
        &dast_options(&layout, trace.mode, one_iteration),
    ))
}
