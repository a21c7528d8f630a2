//! The trace model: `TraceRecord` (one sampled or traced memory access) and `Layout` (where the
//! arrays of a traced SpMV run live, so an address maps back to `X[j]`, `Y[i]`, `col_idx[k]`, ...).
//!
//! Mapping an address is `O(regions)` (six regions). Every trace source (simulator, live perf,
//! `perf script`, lackey) produces `TraceRecord`s; [`crate::dast`] consumes them.

use crate::{SamplingError, TracedKernel};
use serde::{Deserialize, Serialize};
use spmv_reorder_sparse::{CsrMatrix, Value};
use std::path::Path;

/// The array of a traced SpMV run an address belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Array {
    /// `row_ptr` (`usize`, `nrows + 1` elements).
    RowPtr,
    /// `col_idx` (`u32`, `nnz` elements).
    ColIdx,
    /// `val` (`f64`, `nnz` elements).
    Val,
    /// `x`, the input vector (`f64`, `ncols` elements).
    X,
    /// `y`, the output vector (`f64`, `nrows` elements).
    Y,
    /// The iteration marker: `marker[it]` is stored just before iteration `it` starts
    /// (`marker[iterations]` after the last), so a full trace can be cut per iteration.
    Marker,
}

/// A load or a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// A read.
    Load,
    /// A write.
    Store,
}

/// Element `index` of `array`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Target {
    /// The array.
    pub array: Array,
    /// Element index in it.
    pub index: u64,
}

/// One memory access of a trace: sampled by a PMU or simulator, or traced by valgrind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceRecord {
    /// Thread (kernel tid, or the simulated thread's index).
    pub thread: u32,
    /// Time stamp or sequence number; only the order within one thread matters.
    pub time: u64,
    /// The data address.
    pub addr: u64,
    /// Load or store.
    pub access: Access,
    /// Latency in cycles, when the source measures it.
    pub latency: Option<u32>,
    /// The array element the address maps to (`None`: no array of the layout).
    pub target: Option<Target>,
}

/// One array of a traced run: `len` elements of `elem_size` bytes from `base`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Region {
    /// Which array.
    pub array: Array,
    /// Address of element 0.
    pub base: u64,
    /// Bytes per element.
    pub elem_size: u64,
    /// Number of elements.
    pub len: u64,
}

impl Region {
    /// The element holding byte `addr`, if inside.
    pub fn index_of(&self, addr: u64) -> Option<u64> {
        let off = addr.checked_sub(self.base)?;
        let index = off / self.elem_size;
        (index < self.len).then_some(index)
    }
}

/// Where the arrays of a traced SpMV run live, and how the run went: the key from addresses to
/// matrix positions. Written by `spmv-reorder trace-kernel --emit-layout` as JSON.
///
/// # Invariants
/// Checked by [`Layout::validate`] (called by [`Layout::read`]): one region per array at most,
/// `RowPtr`, `X` and `Y` present, regions disjoint, element sizes non-zero; `partition` starts at
/// 0, ends at `nrows` and does not decrease.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// The traced kernel (it fixes the DAST rule).
    pub kernel: TracedKernel,
    /// Rows of the matrix.
    pub nrows: usize,
    /// Columns of the matrix.
    pub ncols: usize,
    /// Nonzeros of the matrix.
    pub nnz: usize,
    /// The arrays.
    pub regions: Vec<Region>,
    /// Row blocks of the threads: thread `t` owns rows `partition[t]..partition[t + 1]`.
    pub partition: Vec<usize>,
    /// SpMV iterations the run performs.
    pub iterations: u32,
    /// `[start, end)` of each iteration in `CLOCK_MONOTONIC` nanoseconds, when the run recorded
    /// them (the run rewrites the layout after its iterations).
    #[serde(default)]
    pub iteration_times_ns: Vec<(u64, u64)>,
}

impl Layout {
    /// The array element holding `addr`, if any.
    pub fn resolve(&self, addr: u64) -> Option<Target> {
        self.regions.iter().find_map(|r| {
            r.index_of(addr).map(|index| Target {
                array: r.array,
                index,
            })
        })
    }

    /// The region of `array`, if the layout has one.
    pub fn region(&self, array: Array) -> Option<&Region> {
        self.regions.iter().find(|r| r.array == array)
    }

    /// Checks the invariants (see the type).
    ///
    /// # Errors
    /// [`SamplingError::InvalidLayout`] naming the first broken one.
    pub fn validate(&self) -> Result<(), SamplingError> {
        let bad = |reason| Err(SamplingError::InvalidLayout { reason });
        for a in [Array::RowPtr, Array::X, Array::Y] {
            if self.region(a).is_none() {
                return bad("the row_ptr, x and y regions are required");
            }
        }
        let mut spans: Vec<(u64, u64)> = Vec::new();
        for (i, r) in self.regions.iter().enumerate() {
            if r.elem_size == 0 {
                return bad("an element size is 0");
            }
            if self.regions[..i].iter().any(|o| o.array == r.array) {
                return bad("an array has two regions");
            }
            let Some(end) = r
                .len
                .checked_mul(r.elem_size)
                .and_then(|b| r.base.checked_add(b))
            else {
                return bad("a region overflows the address space");
            };
            spans.push((r.base, end));
        }
        spans.sort_unstable();
        if spans.windows(2).any(|w| w[0].1 > w[1].0) {
            return bad("regions overlap");
        }
        let p = &self.partition;
        if p.first() != Some(&0)
            || p.last() != Some(&self.nrows)
            || p.windows(2).any(|w| w[0] > w[1])
        {
            return bad("the partition must go from 0 to nrows without decreasing");
        }
        Ok(())
    }

    /// Checks that the layout was recorded for a matrix of `matrix`'s shape and nonzero count.
    ///
    /// # Errors
    /// [`SamplingError::LayoutMismatch`] naming the first differing dimension.
    pub fn check_matrix<T: Value>(&self, matrix: &CsrMatrix<T>) -> Result<(), SamplingError> {
        for (what, layout, m) in [
            ("rows", self.nrows, matrix.nrows()),
            ("columns", self.ncols, matrix.ncols()),
            ("nonzeros", self.nnz, matrix.nnz()),
        ] {
            if layout != m {
                return Err(SamplingError::LayoutMismatch {
                    what,
                    layout: layout as u64,
                    matrix: m as u64,
                });
            }
        }
        Ok(())
    }

    /// Reads and validates a layout JSON file.
    ///
    /// # Errors
    /// [`SamplingError::Io`], [`SamplingError::LayoutFormat`] (with JSON line and column), or
    /// [`SamplingError::InvalidLayout`].
    pub fn read(path: &Path) -> Result<Layout, SamplingError> {
        let text = std::fs::read_to_string(path).map_err(|e| SamplingError::io(path, e))?;
        let layout: Layout =
            serde_json::from_str(&text).map_err(|source| SamplingError::LayoutFormat {
                path: path.to_owned(),
                source,
            })?;
        layout.validate()?;
        Ok(layout)
    }

    /// The layout as pretty JSON text, ending with a line break (what [`Layout::read`] reads).
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("a layout always serialises");
        text.push('\n');
        text
    }

    /// Maps every record's address through the layout (sets [`TraceRecord::target`]).
    pub fn resolve_all(&self, records: &mut [TraceRecord]) {
        for r in records {
            r.target = self.resolve(r.addr);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn layout() -> Layout {
        let region = |array, base, elem_size, len| Region {
            array,
            base,
            elem_size,
            len,
        };
        Layout {
            kernel: TracedKernel::PerNonzero,
            nrows: 3,
            ncols: 4,
            nnz: 5,
            regions: vec![
                region(Array::RowPtr, 0x1000, 8, 4),
                region(Array::ColIdx, 0x2000, 4, 5),
                region(Array::Val, 0x3000, 8, 5),
                region(Array::X, 0x4000, 8, 4),
                region(Array::Y, 0x5000, 8, 3),
            ],
            partition: vec![0, 3],
            iterations: 2,
            iteration_times_ns: vec![],
        }
    }

    #[test]
    fn resolves_addresses_to_elements() {
        let l = layout();
        let t = |array, index| Some(Target { array, index });
        assert_eq!(l.resolve(0x4000), t(Array::X, 0));
        assert_eq!(l.resolve(0x4013), t(Array::X, 2)); // inside element 2
        assert_eq!(l.resolve(0x2010), t(Array::ColIdx, 4));
        assert_eq!(l.resolve(0x2014), None); // one past col_idx
        assert_eq!(l.resolve(0x5010), t(Array::Y, 2));
        assert_eq!(l.resolve(0x10), None);
    }

    #[test]
    fn json_round_trip_and_validation() {
        let l = layout();
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("l.json");
        std::fs::write(&p, l.to_json()).unwrap();
        assert_eq!(Layout::read(&p).unwrap(), l);

        let mut bad = l.clone();
        bad.regions[4].base = 0x4008; // y overlaps x
        assert!(matches!(
            bad.validate(),
            Err(SamplingError::InvalidLayout { .. })
        ));
        let mut bad = l.clone();
        bad.partition = vec![0, 2];
        assert!(bad.validate().is_err());
        let mut bad = l;
        bad.regions.remove(3);
        assert!(bad.validate().is_err());

        std::fs::write(&p, "{\"kernel\": \"per-nonzero\",\n \"nrows\": x}").unwrap();
        assert!(matches!(
            Layout::read(&p),
            Err(SamplingError::LayoutFormat { .. })
        ));
    }

    #[test]
    fn detects_matrix_mismatch() {
        let a = CsrMatrix::from_triplets(3, 4, vec![(0, 0, 1.0)]).unwrap();
        let e = layout().check_matrix(&a).unwrap_err();
        assert!(matches!(
            e,
            SamplingError::LayoutMismatch {
                what: "nonzeros",
                layout: 5,
                matrix: 1
            }
        ));
    }
}
