//! The simulator trace source: the access stream of the traced kernels on `T` threads, through a
//! cache model, sampled like a PMU. Deterministic for a seed; works on any machine.
//!
//! `O(iterations · (nnz + nrows) · ways)`: about 5 accesses per nonzero for kernel A, 3 for
//! kernel B, each looked up in up to three cache levels. Threads own the row blocks of
//! [`crate::partition_rows`] and are interleaved one access at a time (round-robin), so they
//! compete for the shared L3 as real cores do. Only the last iteration is sampled (the thesis
//! samples the second SpMV: the first one pays compulsory misses). Called by [`crate::sample`].

use crate::{
    partition_rows, Access, Array, CacheConfig, CacheHierarchy, Latencies, Layout, Pmu, Region,
    SamplingError, Target, TraceRecord, TracedKernel,
};
use spmv_reorder_sparse::{CsrMatrix, Value};
use std::ops::Range;

/// Which accesses count as PMU events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EventFilter {
    /// Only accesses to `x` and `y`, as the thesis's Itanium EAR configured with a data-address
    /// range.
    #[default]
    XY,
    /// Every access of the kernel (`row_ptr`, `col_idx`, `val` too), as PEBS/IBS without a
    /// range filter; needed by the direct-index mode.
    All,
}

/// Options of the simulator.
#[derive(Debug, Clone, PartialEq)]
pub struct SimOptions {
    /// Threads (`None`: the caller's thread count, 1 for [`simulate`] itself).
    pub threads: Option<usize>,
    /// The simulated kernel.
    pub kernel: TracedKernel,
    /// Mean sampling period in events (1 samples every event).
    pub period: u64,
    /// Events are accesses with a latency of at least this many cycles. The default 0 makes
    /// every `x`/`y` access an event, as on the thesis's Itanium, where floating-point loads
    /// bypass L1 and `DATA_EAR_CACHE_LAT4` caught all of them; 5 or more mimics an x86 L1-miss
    /// threshold (`ldlat`).
    pub threshold: u32,
    /// Draw each period uniformly from `[P/2, 3P/2]` instead of a fixed `P`.
    pub randomize: bool,
    /// SpMV iterations run through the caches; the last one is sampled (default 2).
    pub iterations: u32,
    /// Which accesses are events.
    pub events: EventFilter,
    /// Whether stores are events (IBS op samples stores; PEBS load latency does not). Kernel B's
    /// only `y` accesses are stores, so its dual-array rule needs them.
    pub stores: bool,
    /// L1d, L2 (per thread) and L3 (shared).
    pub caches: [CacheConfig; 3],
    /// Hit latencies.
    pub latencies: Latencies,
    /// Seed of the randomised periods.
    pub seed: u64,
}

impl Default for SimOptions {
    /// This machine's caches (L1d 32 KiB 8-way, L2 1 MiB 16-way, L3 32 MiB 16-way), latencies
    /// 4/14/50/200 cycles, period 10, threshold 0, 2 iterations, kernel A, `x`/`y` loads and stores.
    fn default() -> Self {
        SimOptions {
            threads: None,
            kernel: TracedKernel::PerNonzero,
            period: 10,
            threshold: 0,
            randomize: true,
            iterations: 2,
            events: EventFilter::XY,
            stores: true,
            caches: [
                CacheConfig::new(32 << 10, 8),
                CacheConfig::new(1 << 20, 16),
                CacheConfig::new(32 << 20, 16),
            ],
            latencies: Latencies::default(),
            seed: 0,
        }
    }
}

/// One access of the kernel: element `index` of `array`.
type Step = (Array, u64, Access);

/// The access stream of one thread's row block, produced a row at a time.
struct Stream<'a, T> {
    matrix: &'a CsrMatrix<T>,
    kernel: TracedKernel,
    rows: Range<usize>,
    buf: Vec<Step>,
    pos: usize,
}

impl<'a, T: Value> Stream<'a, T> {
    fn new(matrix: &'a CsrMatrix<T>, kernel: TracedKernel, rows: Range<usize>) -> Self {
        Stream {
            matrix,
            kernel,
            rows,
            buf: Vec::new(),
            pos: 0,
        }
    }

    fn next(&mut self) -> Option<Step> {
        if self.pos == self.buf.len() {
            let i = self.rows.next()?;
            self.fill(i);
        }
        self.pos += 1;
        Some(self.buf[self.pos - 1])
    }

    /// The accesses of row `i`, in the order documented on [`TracedKernel`].
    fn fill(&mut self, i: usize) {
        use Access::{Load, Store};
        let (row_ptr, col_idx) = (self.matrix.row_ptr(), self.matrix.col_idx());
        let y = i as u64;
        self.buf.clear();
        self.pos = 0;
        self.buf.push((Array::RowPtr, y, Load));
        self.buf.push((Array::RowPtr, y + 1, Load));
        if self.kernel == TracedKernel::PerNonzero {
            self.buf.push((Array::Y, y, Store));
        }
        let nonzeros = row_ptr[i]..row_ptr[i + 1];
        for (k, &c) in nonzeros.clone().zip(&col_idx[nonzeros]) {
            self.buf.push((Array::ColIdx, k as u64, Load));
            self.buf.push((Array::Val, k as u64, Load));
            self.buf.push((Array::X, c as u64, Load));
            if self.kernel == TracedKernel::PerNonzero {
                self.buf.push((Array::Y, y, Load));
                self.buf.push((Array::Y, y, Store));
            }
        }
        if self.kernel == TracedKernel::PerRow {
            self.buf.push((Array::Y, y, Store));
        }
    }
}

/// A synthetic layout: each array page-aligned, one page apart, as an allocator would place them.
fn synthetic_layout<T: Value>(
    matrix: &CsrMatrix<T>,
    kernel: TracedKernel,
    partition: Vec<usize>,
    iterations: u32,
) -> Layout {
    const PAGE: u64 = 4096;
    let arrays = [
        (Array::RowPtr, 8, matrix.nrows() as u64 + 1),
        (Array::ColIdx, 4, matrix.nnz() as u64),
        (Array::Val, 8, matrix.nnz() as u64),
        (Array::X, 8, matrix.ncols() as u64),
        (Array::Y, 8, matrix.nrows() as u64),
    ];
    let mut base = 0x10_0000_0000u64;
    let regions = arrays
        .iter()
        .map(|&(array, elem_size, len)| {
            let r = Region {
                array,
                base,
                elem_size,
                len,
            };
            base += (elem_size * len).div_ceil(PAGE) * PAGE + PAGE;
            r
        })
        .collect();
    Layout {
        kernel,
        nrows: matrix.nrows(),
        ncols: matrix.ncols(),
        nnz: matrix.nnz(),
        regions,
        partition,
        iterations,
        iteration_times_ns: Vec::new(),
    }
}

/// Simulates `opts.iterations` SpMVs of `matrix` and returns the layout and the samples of the last
/// iteration (time = global access count; each record carries its target).
///
/// # Errors
/// [`SamplingError::InvalidOption`] for an invalid cache geometry, zero threads, zero period or
/// zero iterations; [`SamplingError::CacheStateTooLarge`] when the simulated caches of every
/// thread do not fit in memory.
pub fn simulate<T: Value>(
    matrix: &CsrMatrix<T>,
    opts: &SimOptions,
) -> Result<(Layout, Vec<TraceRecord>), SamplingError> {
    let threads = opts.threads.unwrap_or(1);
    for (name, value) in [
        ("threads", threads as u64),
        ("period", opts.period),
        ("iterations", opts.iterations as u64),
    ] {
        if value == 0 {
            return Err(SamplingError::InvalidOption {
                name,
                value: "0".into(),
                expected: "a positive integer",
            });
        }
    }
    let mut caches = CacheHierarchy::new(threads, opts.caches, opts.latencies)?;
    let partition = partition_rows(matrix.row_ptr(), threads);
    let layout = synthetic_layout(matrix, opts.kernel, partition.clone(), opts.iterations);
    let regions: Vec<Region> = layout.regions.clone();
    let region_of = |a: Array| {
        regions
            .iter()
            .find(|r| r.array == a)
            .expect("all arrays laid out")
    };
    let bases: [Region; 5] =
        [Array::RowPtr, Array::ColIdx, Array::Val, Array::X, Array::Y].map(|a| *region_of(a));
    let mut pmus: Vec<Pmu> = (0..threads)
        .map(|t| {
            Pmu::new(
                opts.period,
                opts.threshold,
                opts.randomize,
                opts.seed ^ (t as u64) << 32,
            )
        })
        .collect();
    let is_event = |array: Array, access: Access| {
        (opts.stores || access == Access::Load)
            && (opts.events == EventFilter::All || matches!(array, Array::X | Array::Y))
    };
    let mut records = Vec::new();
    let mut time = 0u64;
    for it in 0..opts.iterations {
        let sampled = it + 1 == opts.iterations;
        let mut streams: Vec<_> = partition
            .windows(2)
            .map(|w| Stream::new(matrix, opts.kernel, w[0]..w[1]))
            .collect();
        let mut active: Vec<usize> = (0..threads).collect();
        while !active.is_empty() {
            active.retain(|&t| {
                let Some((array, index, access)) = streams[t].next() else {
                    return false;
                };
                time += 1;
                let r = bases.iter().find(|r| r.array == array).expect("laid out");
                let addr = r.base + index * r.elem_size;
                let latency = caches.access(t, addr);
                if sampled && is_event(array, access) && pmus[t].observe(latency) {
                    records.push(TraceRecord {
                        thread: t as u32,
                        time,
                        addr,
                        access,
                        latency: Some(latency),
                        target: Some(Target { array, index }),
                    });
                }
                true
            });
        }
    }
    Ok((layout, records))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{dast, DastMode, DastOptions};

    fn banded(n: usize, half: usize) -> CsrMatrix<f64> {
        let mut t = Vec::new();
        for i in 0..n {
            for j in i.saturating_sub(half)..(i + half + 1).min(n) {
                if (i * 31 + j * 17) % 3 != 0 || i == j {
                    t.push((i, j, 1.0));
                }
            }
        }
        CsrMatrix::from_triplets(n, n, t).unwrap()
    }

    #[test]
    fn every_access_sampled_gives_every_nonzero() {
        let a = banded(300, 6);
        for kernel in [TracedKernel::PerNonzero, TracedKernel::PerRow] {
            for threads in [1, 2, 8] {
                let opts = SimOptions {
                    threads: Some(threads),
                    kernel,
                    period: 1,
                    ..SimOptions::default()
                };
                let (layout, records) = simulate(&a, &opts).unwrap();
                layout.validate().unwrap();
                let s = dast(
                    &a,
                    &records,
                    &DastOptions {
                        kernel,
                        partition: Some(layout.partition.clone()),
                        ..DastOptions::default()
                    },
                );
                assert_eq!(s.coverage.rejected, 0);
                assert!(
                    s.pattern == a.pattern(),
                    "{kernel} {threads}: {:?}",
                    s.coverage
                );
            }
        }
    }

    #[test]
    fn sampled_runs_are_precise_and_deterministic() {
        let a = banded(2000, 20);
        for kernel in [TracedKernel::PerNonzero, TracedKernel::PerRow] {
            for threads in [1, 2, 8] {
                let opts = SimOptions {
                    threads: Some(threads),
                    kernel,
                    period: 7,
                    seed: 3,
                    ..SimOptions::default()
                };
                let (_, records) = simulate(&a, &opts).unwrap();
                let d = DastOptions {
                    kernel,
                    ..DastOptions::default()
                };
                let s = dast(&a, &records, &d);
                assert_eq!(s.coverage.rejected, 0, "{kernel} {threads}");
                let f = s.coverage.sampled_fraction;
                // Kernel B has one y event per row against ~29 x events: a univocal entry needs
                // the stores of two consecutive rows sampled, so its coverage is far lower.
                let least = if kernel == TracedKernel::PerNonzero {
                    0.01
                } else {
                    0.0
                };
                assert!(f > least, "{kernel} {threads}: {:?}", s.coverage);
                assert!(f < 0.9, "{kernel} {threads}: {f}");
                assert!(s == dast(&a, &simulate(&a, &opts).unwrap().1, &d));
            }
        }
    }

    #[test]
    fn second_iteration_hits_the_cache_and_threshold_filters() {
        let a = banded(100, 2); // about 8 KiB in all: fits in L1 after the first iteration
        let opts = SimOptions {
            period: 1,
            ..SimOptions::default()
        };
        let (_, records) = simulate(&a, &opts).unwrap();
        assert!(records.iter().all(|r| r.latency == Some(4)));
        let cold = SimOptions {
            iterations: 1,
            ..opts.clone()
        };
        let (_, records) = simulate(&a, &cold).unwrap();
        assert!(records.iter().any(|r| r.latency == Some(200)));
        let missing = SimOptions {
            threshold: 5,
            ..opts
        };
        assert!(simulate(&a, &missing).unwrap().1.is_empty());
    }

    #[test]
    fn direct_index_mode_with_all_events() {
        let a = banded(400, 8);
        let opts = SimOptions {
            period: 13,
            events: EventFilter::All,
            ..SimOptions::default()
        };
        let (_, records) = simulate(&a, &opts).unwrap();
        let s = dast(
            &a,
            &records,
            &DastOptions {
                mode: DastMode::DirectIndex,
                ..DastOptions::default()
            },
        );
        assert_eq!(s.coverage.rejected, 0);
        assert!(s.coverage.direct_samples > 0 && s.pattern.nnz() > 0);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// Whatever the matrix, period, threads and kernel, every univocal entry is a nonzero.
        #[test]
        fn dast_on_simulated_traces_is_always_precise(
            n in 1usize..60,
            entries in proptest::collection::vec((0usize..60, 0usize..60), 0..400),
            period in 1u64..6,
            threads in 1usize..9,
            per_row in proptest::bool::ANY,
            seed in 0u64..1000,
        ) {
            let a = CsrMatrix::from_triplets(
                n,
                n,
                entries.into_iter().map(|(i, j)| (i % n, j % n, 1.0)),
            )
            .unwrap();
            let kernel = if per_row { TracedKernel::PerRow } else { TracedKernel::PerNonzero };
            let opts = SimOptions { threads: Some(threads), kernel, period, seed, ..SimOptions::default() };
            let (layout, records) = simulate(&a, &opts).unwrap();
            for partition in [None, Some(layout.partition.clone())] {
                let s = dast(&a, &records, &DastOptions { kernel, partition, ..DastOptions::default() });
                proptest::prop_assert_eq!(s.coverage.rejected, 0);
                for i in 0..n {
                    for c in s.pattern.row(i).0 {
                        proptest::prop_assert!(a.row(i).0.binary_search(c).is_ok());
                    }
                }
            }
        }
    }

    #[test]
    fn rejects_zero_options() {
        let a = banded(10, 1);
        let opts = SimOptions {
            period: 0,
            ..SimOptions::default()
        };
        assert!(matches!(
            simulate(&a, &opts),
            Err(SamplingError::InvalidOption { name: "period", .. })
        ));
    }
}
