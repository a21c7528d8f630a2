//! STREAM triad `a[i] = b[i] + s·c[i]` with the team's threads and pinning: the memory bandwidth
//! SpMV is compared with (SPEC section 6; McCalpin's STREAM as used with pinning by
//! Papadogiannakis et al. 2012).
//!
//! `O(n)` per repetition, 2 flops and 24 counted bytes per element (`b`, `c` read, `a` written).
//! The write-allocate read of `a` that a cache without streaming stores adds is **not** counted,
//! as in STREAM's own figures. Arrays are placed like the SpMV arrays (each thread first-touches
//! the block it updates) and sized well beyond the last-level cache by default. Called by
//! [`crate::bench`](mod@crate::bench) and `spmv-reorder stream`.

use serde::Serialize;
use std::time::Instant;

use crate::placement::{fill_placed, Placement};
use crate::{Par, SpmvError, Topology};
use spmv_reorder_sparse::split_by_offsets;

/// Bytes counted per triad element: read `b` and `c`, write `a`, 8 bytes each.
pub const BYTES_PER_ELEMENT: usize = 24;

/// STREAM triad settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StreamConfig {
    /// Elements per array (each array is `8 · elements` bytes).
    pub elements: usize,
    /// Timed repetitions; the best one is reported, as STREAM does.
    pub reps: usize,
}

impl Default for StreamConfig {
    /// Three arrays of 80 MB (10 million `f64`), 10 repetitions.
    fn default() -> Self {
        StreamConfig {
            elements: 10_000_000,
            reps: 10,
        }
    }
}

/// The result of a triad run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StreamReport {
    /// Threads that ran it.
    pub threads: usize,
    /// Elements per array.
    pub elements: usize,
    /// Bytes of one array.
    pub array_bytes: usize,
    /// Timed repetitions.
    pub reps: usize,
    /// Placement of the arrays.
    pub placement: String,
    /// Fastest repetition, seconds.
    pub best_s: f64,
    /// Median repetition, seconds.
    pub median_s: f64,
    /// Bandwidth of the fastest repetition: `24 · elements / best_s / 1e9`.
    pub triad_gbytes_per_s: f64,
    /// Bandwidth of the median repetition.
    pub median_gbytes_per_s: f64,
    /// Bytes counted per element (24).
    pub bytes_per_element: usize,
    /// Whether the write-allocate traffic of `a` is counted (it is not).
    pub write_allocate_counted: bool,
}

/// Runs the triad: one untimed repetition, then `config.reps` timed ones.
///
/// # Errors
/// [`SpmvError::InvalidSetting`] for zero elements or repetitions; the placement errors of
/// [`fill_placed`].
pub fn triad(
    config: &StreamConfig,
    par: Par<'_>,
    placement: &Placement,
    topology: &Topology,
) -> Result<StreamReport, SpmvError> {
    let mut arrays = TriadArrays::new(config, par, placement, topology)?;
    arrays.run(par);
    let times: Vec<f64> = (0..config.reps).map(|_| arrays.run(par)).collect();
    Ok(arrays.report(times))
}

/// The three placed arrays of a triad, kept so that repetitions can be interleaved with other
/// measurements (the benchmark alternates triad and SpMV repetitions).
#[derive(Debug)]
pub struct TriadArrays {
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
    offsets: Vec<usize>,
    placement: String,
}

/// The triad's scalar `s`.
const SCALAR: f64 = 3.0;

impl TriadArrays {
    /// Allocates and places the arrays (`config.elements` each), blocks as `par`'s threads.
    ///
    /// # Errors
    /// As [`triad`].
    pub fn new(
        config: &StreamConfig,
        par: Par<'_>,
        placement: &Placement,
        topology: &Topology,
    ) -> Result<Self, SpmvError> {
        let n = config.elements;
        check_positive("stream elements", n)?;
        check_positive("stream reps", config.reps)?;
        // Reserved (and given back) before any is filled: too large is an error, not an abort.
        let bytes = (n as u64).saturating_mul(3 * std::mem::size_of::<f64>() as u64);
        if !spmv_reorder_sparse::can_allocate(bytes) {
            return Err(SpmvError::OutOfMemory {
                what: "the STREAM triad's three arrays",
                bytes,
            });
        }
        let blocks = par.threads();
        let offsets: Vec<usize> = (0..=blocks).map(|t| t * n / blocks).collect();
        let fill =
            |what, f: fn(usize) -> f64| fill_placed(what, n, &offsets, f, par, placement, topology);
        Ok(TriadArrays {
            a: fill("a", |_| 0.0)?,
            b: fill("b", |i| (i % 1024) as f64)?,
            c: fill("c", |i| (i % 7) as f64 + 0.5)?,
            placement: placement.to_string(),
            offsets,
        })
    }

    /// One repetition of `a = b + s·c`; returns its seconds.
    ///
    /// # Panics
    /// If `par` has another thread count than the one the arrays were placed for (a caller bug).
    pub fn run(&mut self, par: Par<'_>) -> f64 {
        assert_eq!(
            par.threads() + 1,
            self.offsets.len(),
            "same threads as at placement"
        );
        let (b, c, offsets) = (&self.b, &self.c, &self.offsets);
        let start = Instant::now();
        let chunks = split_by_offsets(&mut self.a, offsets);
        par.for_each_block(chunks, |blk, out| {
            let lo = offsets[blk];
            let (b, c) = (&b[lo..lo + out.len()], &c[lo..lo + out.len()]);
            for ((ai, &bi), &ci) in out.iter_mut().zip(b).zip(c) {
                *ai = bi + SCALAR * ci;
            }
        });
        start.elapsed().as_secs_f64()
    }

    /// Checks the result and summarises repetition times (seconds, at least one).
    ///
    /// # Panics
    /// If `times` is empty, or the triad computed a wrong value (a bug).
    pub fn report(&self, mut times: Vec<f64>) -> StreamReport {
        let n = self.a.len();
        let (a, b, c) = (&self.a, &self.b, &self.c);
        let wrong = (0..n)
            .step_by((n / 1000).max(1))
            .find(|&i| a[i] != b[i] + SCALAR * c[i]);
        assert!(wrong.is_none(), "triad result wrong at {wrong:?}");
        times.sort_by(f64::total_cmp);
        let (best, median) = (times[0], times[times.len() / 2]);
        let bytes = (BYTES_PER_ELEMENT * n) as f64;
        StreamReport {
            threads: self.offsets.len() - 1,
            elements: n,
            array_bytes: 8 * n,
            reps: times.len(),
            placement: self.placement.clone(),
            best_s: best,
            median_s: median,
            triad_gbytes_per_s: bytes / best / 1e9,
            median_gbytes_per_s: bytes / median / 1e9,
            bytes_per_element: BYTES_PER_ELEMENT,
            write_allocate_counted: false,
        }
    }
}

pub(crate) fn check_positive(name: &'static str, value: usize) -> Result<(), SpmvError> {
    if value == 0 {
        Err(SpmvError::InvalidSetting {
            name,
            value: value.to_string(),
            reason: "must be at least 1",
        })
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Pinning, ThreadTeam};

    #[test]
    fn arrays_beyond_memory_are_an_error_not_an_abort() {
        let topology = Topology::this_system().unwrap();
        let config = StreamConfig {
            elements: usize::MAX / 4,
            reps: 1,
        };
        let err = TriadArrays::new(&config, Par::Sequential, &Placement::FirstTouch, &topology)
            .unwrap_err();
        assert!(matches!(err, SpmvError::OutOfMemory { .. }), "{err}");
    }

    #[test]
    fn triad_reports_a_plausible_bandwidth() {
        let topo = Topology::this_system().unwrap();
        let team = ThreadTeam::new(&topo, topo.pus.len().min(2), &Pinning::Scatter).unwrap();
        let cfg = StreamConfig {
            elements: 1_000_000,
            reps: 3,
        };
        let r = triad(&cfg, Par::Team(&team), &Placement::FirstTouch, &topo).unwrap();
        assert_eq!(r.array_bytes, 8_000_000);
        assert!(r.best_s <= r.median_s);
        assert!(
            r.triad_gbytes_per_s > 0.1 && r.triad_gbytes_per_s < 10_000.0,
            "{r:?}"
        );
    }

    #[test]
    fn zero_sizes_are_rejected() {
        let topo = Topology::this_system().unwrap();
        let cfg = StreamConfig {
            elements: 0,
            reps: 3,
        };
        let e = triad(&cfg, Par::Sequential, &Placement::Master, &topo).unwrap_err();
        assert!(matches!(
            e,
            SpmvError::InvalidSetting {
                name: "stream elements",
                ..
            }
        ));
    }
}
