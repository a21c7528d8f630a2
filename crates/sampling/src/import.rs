//! Recorded traces, shared parts: which iteration to keep, and line-by-line reading. The formats
//! live in `lackey.rs` (valgrind) and `perf_script.rs` (`perf script`); `resample.rs` passes a
//! recorded trace through the cache and PMU models. Called by [`crate::sample`] for `trace:`
//! samplers.
//!
//! # Recording
//! ```text
//! # Intel PEBS (AMD: perf mem record works the same way with IBS):
//! perf record -e cpu/mem-loads,ldlat=30/P -d -W -k CLOCK_MONOTONIC -o spmv.data -- \
//!     spmv-reorder trace-kernel A.mtx --emit-layout A.layout.json --iterations 3
//! perf script -i spmv.data --ns -F tid,time,event,addr,weight > A.perf.txt
//! # valgrind (any machine; single thread, no latencies):
//! valgrind --tool=lackey --trace-mem=yes --log-file=A.lackey.txt -- \
//!     spmv-reorder trace-kernel A.mtx --emit-layout A.layout.json --iterations 2
//! ```

use crate::SamplingError;
use std::io::{BufRead, Read};
use std::path::Path;

/// Which SpMV iteration of a recorded run to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IterationSelect {
    /// The second iteration when the run has two or more (the first pays compulsory misses),
    /// else the only one.
    #[default]
    Auto,
    /// This 0-based iteration.
    Index(u32),
    /// Every record, whatever its iteration.
    All,
}

impl IterationSelect {
    /// The chosen 0-based iteration, `None` for all.
    ///
    /// # Errors
    /// [`SamplingError::NoSuchIteration`] for an index past the run's iterations.
    pub fn resolve(self, iterations: u32) -> Result<Option<u32>, SamplingError> {
        match self {
            IterationSelect::All => Ok(None),
            IterationSelect::Auto => Ok(Some(u32::from(iterations >= 2))),
            IterationSelect::Index(i) if i < iterations => Ok(Some(i)),
            IterationSelect::Index(requested) => Err(SamplingError::NoSuchIteration {
                requested,
                available: iterations,
            }),
        }
    }
}

pub(crate) fn open(path: &Path) -> Result<std::io::BufReader<std::fs::File>, SamplingError> {
    let f = std::fs::File::open(path).map_err(|e| SamplingError::io(path, e))?;
    Ok(std::io::BufReader::with_capacity(1 << 20, f))
}

/// Calls `each(line_number, line)` for every line of `reader` (1-based numbers).
pub(crate) fn for_each_line(
    mut reader: impl BufRead,
    path: &Path,
    mut each: impl FnMut(usize, &str) -> Result<(), SamplingError>,
) -> Result<(), SamplingError> {
    // The longest line read: trace lines are about a hundred bytes.
    const MAX_LINE: u64 = 1 << 20;
    let mut line = String::new();
    let mut number = 0;
    loop {
        line.clear();
        let n = (&mut reader)
            .take(MAX_LINE)
            .read_line(&mut line)
            .map_err(|e| SamplingError::io(path, e))?;
        if n == 0 {
            return Ok(());
        }
        number += 1;
        if n as u64 == MAX_LINE && !line.ends_with('\n') {
            return Err(SamplingError::Parse {
                path: path.to_owned(),
                line: number,
                expected: "a line of at most 1 MiB",
                found: line.chars().take(40).collect(),
            });
        }
        each(number, line.trim_end_matches(['\n', '\r']))?;
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    use crate::{Array, Layout, Region, TracedKernel};

    /// A small layout (`row_ptr`, `x`, `y`, optionally the marker), 2 iterations.
    pub(crate) fn layout(with_marker: bool) -> Layout {
        let mut regions = vec![
            Region {
                array: Array::RowPtr,
                base: 0x1000,
                elem_size: 8,
                len: 3,
            },
            Region {
                array: Array::X,
                base: 0x4000,
                elem_size: 8,
                len: 4,
            },
            Region {
                array: Array::Y,
                base: 0x5000,
                elem_size: 8,
                len: 2,
            },
        ];
        if with_marker {
            regions.push(Region {
                array: Array::Marker,
                base: 0x6000,
                elem_size: 8,
                len: 3,
            });
        }
        Layout {
            kernel: TracedKernel::PerNonzero,
            nrows: 2,
            ncols: 4,
            nnz: 3,
            regions,
            partition: vec![0, 2],
            iterations: 2,
            iteration_times_ns: vec![],
        }
    }
}
