//! The traced SpMV kernels `y = A·x` and the run that owns their arrays (`TracedSpmv`).
//!
//! `O(nnz + nrows)` per iteration. The DAST rule depends on the exact order in which a kernel
//! touches `y`, so this crate owns its kernels instead of calling the tuned engine: both are
//! `#[inline(never)]` (a profiler or valgrind sees them as functions) and force their `y` accesses
//! to memory with [`std::hint::black_box`]. They sum each row left to right from +0.0 (kernel A's
//! accumulator is `y[i]` in memory), not in the engine's order ([`spmv_reorder_sparse::row_sum`]),
//! so they agree with the reference product to rounding, not bitwise. Used by
//! `spmv-reorder trace-kernel`, the live perf sampler, and (as a model of their access order) the
//! simulator. SPEC §5, thesis algorithm 1.

use crate::{Array, Layout, Region};
use serde::{Deserialize, Serialize};
use spmv_reorder_sparse::CsrMatrix;
use std::hint::black_box;
use std::ops::Range;

/// Which traced kernel runs; it fixes the DAST rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TracedKernel {
    /// Kernel A (thesis algorithm 1): `y[i]` lives in memory inside the inner loop.
    ///
    /// Access order, row `i`: load `row_ptr[i]`, `row_ptr[i+1]`; store `y[i] = 0`; then per
    /// nonzero `k`: load `col_idx[k]`, `val[k]`, `x[col_idx[k]]`, load `y[i]`, store `y[i]`.
    /// The compiler may reorder the loads of one nonzero; the DAST rule does not depend on it.
    #[default]
    PerNonzero,
    /// Kernel B: the row sum is accumulated in a register and `y[i]` is stored once at the end.
    ///
    /// Access order, row `i`: load `row_ptr[i]`, `row_ptr[i+1]`; per nonzero `k`: load
    /// `col_idx[k]`, `val[k]`, `x[col_idx[k]]`; store `y[i]`.
    PerRow,
}

impl TracedKernel {
    /// The CLI spelling (`per-nonzero`, `per-row`).
    pub fn as_str(self) -> &'static str {
        match self {
            TracedKernel::PerNonzero => "per-nonzero",
            TracedKernel::PerRow => "per-row",
        }
    }
}

impl std::fmt::Display for TracedKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for TracedKernel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "per-nonzero" | "a" | "A" => Ok(TracedKernel::PerNonzero),
            "per-row" | "b" | "B" => Ok(TracedKernel::PerRow),
            _ => Err(format!("unknown kernel '{s}' (per-nonzero or per-row)")),
        }
    }
}

/// Row blocks of `threads` threads, contiguous and balanced by nonzeros: thread `t` owns rows
/// `bounds[t]..bounds[t + 1]`, where `bounds[t]` is the first row whose start offset reaches
/// `t * nnz / threads`. `O(threads log nrows)`.
///
/// # Panics
/// If `threads == 0` or `row_ptr` is empty.
pub fn partition_rows(row_ptr: &[usize], threads: usize) -> Vec<usize> {
    assert!(threads > 0, "at least one thread");
    let nrows = row_ptr.len() - 1;
    let nnz = row_ptr[nrows];
    let mut bounds = Vec::with_capacity(threads + 1);
    bounds.push(0);
    for t in 1..threads {
        let target = (nnz as u128 * t as u128 / threads as u128) as usize;
        let row = row_ptr[..nrows].partition_point(|&s| s < target);
        bounds.push(row.max(*bounds.last().unwrap()));
    }
    bounds.push(nrows);
    bounds
}

/// Kernel A on rows `rows` (`y` holds exactly those rows): see [`TracedKernel::PerNonzero`].
///
/// # Panics
/// If the arrays are inconsistent with `rows` (a caller bug).
#[inline(never)]
pub fn spmv_per_nonzero(
    row_ptr: &[usize],
    col_idx: &[u32],
    val: &[f64],
    x: &[f64],
    y: &mut [f64],
    rows: Range<usize>,
) {
    for (yi, i) in y.iter_mut().zip(rows) {
        *yi = 0.0;
        black_box(&mut *yi); // the store of y[i] happens here
        for k in row_ptr[i]..row_ptr[i + 1] {
            *yi += val[k] * x[col_idx[k] as usize];
            black_box(&mut *yi); // load and store of y[i] per nonzero
        }
    }
}

/// Kernel B on rows `rows` (`y` holds exactly those rows): see [`TracedKernel::PerRow`].
///
/// # Panics
/// If the arrays are inconsistent with `rows` (a caller bug).
#[inline(never)]
pub fn spmv_per_row(
    row_ptr: &[usize],
    col_idx: &[u32],
    val: &[f64],
    x: &[f64],
    y: &mut [f64],
    rows: Range<usize>,
) {
    for (yi, i) in y.iter_mut().zip(rows) {
        let mut acc = 0.0;
        for k in row_ptr[i]..row_ptr[i + 1] {
            acc += val[k] * x[col_idx[k] as usize];
        }
        *yi = acc;
        black_box(&mut *yi); // the store is not moved past the next row's loads
    }
}

/// Unused `u64`s before the markers: the allocator writes its bookkeeping into the first bytes of
/// a freed block, and those stores must not look like marker stores in a trace.
const MARKER_PAD: usize = 8;

/// A traced SpMV run: owns a copy of the matrix and the vectors at fixed addresses, so the
/// [`Layout`] taken once stays valid for every iteration.
#[derive(Debug)]
pub struct TracedSpmv {
    matrix: CsrMatrix<f64>,
    x: Vec<f64>,
    y: Vec<f64>,
    marker: Vec<u64>,
    kernel: TracedKernel,
    partition: Vec<usize>,
    iterations: u32,
}

impl TracedSpmv {
    /// Prepares `iterations` runs of `kernel` on `threads` threads (`x[j] = 1 + j mod 7`).
    ///
    /// # Panics
    /// If `threads == 0`.
    pub fn new(
        matrix: &CsrMatrix<f64>,
        kernel: TracedKernel,
        threads: usize,
        iterations: u32,
    ) -> Self {
        let partition = partition_rows(matrix.row_ptr(), threads);
        TracedSpmv {
            x: (0..matrix.ncols()).map(|j| 1.0 + (j % 7) as f64).collect(),
            y: vec![0.0; matrix.nrows()],
            marker: vec![0; MARKER_PAD + iterations as usize + 1],
            matrix: matrix.clone(),
            kernel,
            partition,
            iterations,
        }
    }

    /// The addresses of the run's arrays.
    pub fn layout(&self) -> Layout {
        fn region<E>(array: Array, v: &[E]) -> Region {
            Region {
                array,
                base: v.as_ptr() as u64,
                elem_size: std::mem::size_of::<E>() as u64,
                len: v.len() as u64,
            }
        }
        let m = &self.matrix;
        Layout {
            kernel: self.kernel,
            nrows: m.nrows(),
            ncols: m.ncols(),
            nnz: m.nnz(),
            regions: vec![
                region(Array::RowPtr, m.row_ptr()),
                region(Array::ColIdx, m.col_idx()),
                region(Array::Val, m.values()),
                region(Array::X, &self.x),
                region(Array::Y, &self.y),
                region(Array::Marker, &self.marker[MARKER_PAD..]),
            ],
            partition: self.partition.clone(),
            iterations: self.iterations,
            iteration_times_ns: Vec::new(),
        }
    }

    /// The result of the last iteration.
    pub fn y(&self) -> &[f64] {
        &self.y
    }

    /// The input vector.
    pub fn x(&self) -> &[f64] {
        &self.x
    }

    /// Stores `marker[index]` (the trace's iteration boundary).
    pub fn mark(&mut self, index: usize) {
        let m = &mut self.marker[MARKER_PAD + index];
        *m = index as u64 + 1;
        black_box(m);
    }

    /// Runs iteration `iteration` (stores its marker first); each thread's block runs inside
    /// `around(thread, run_block)`, which returns the thread's result. One thread runs on the
    /// calling thread.
    ///
    /// # Panics
    /// If `iteration >= iterations`.
    pub fn run_iteration_with<R: Send>(
        &mut self,
        iteration: u32,
        around: impl Fn(usize, &mut dyn FnMut()) -> R + Sync,
    ) -> Vec<R> {
        assert!(iteration < self.iterations, "iteration out of range");
        self.mark(iteration as usize);
        let kernel = match self.kernel {
            TracedKernel::PerNonzero => spmv_per_nonzero,
            TracedKernel::PerRow => spmv_per_row,
        };
        let (m, x) = (&self.matrix, &self.x);
        let blocks = split_rows(&mut self.y, &self.partition);
        let job = |(t, (rows, y)): (usize, (Range<usize>, &mut [f64]))| {
            let mut run = || kernel(m.row_ptr(), m.col_idx(), m.values(), x, y, rows.clone());
            around(t, &mut run)
        };
        if blocks.len() == 1 {
            return blocks.into_iter().enumerate().map(job).collect();
        }
        std::thread::scope(|s| {
            let handles: Vec<_> = blocks
                .into_iter()
                .enumerate()
                .map(|b| s.spawn(|| job(b)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("SpMV thread panicked"))
                .collect()
        })
    }

    /// Runs iteration `iteration` with no hook.
    pub fn run_iteration(&mut self, iteration: u32) {
        self.run_iteration_with(iteration, |_, run| run());
    }

    /// The traced run of `spmv-reorder trace-kernel`: saves the layout with `save` before the
    /// first iteration (so it exists even if the run is cut short), runs every iteration between
    /// its markers, stores the end marker, then saves the layout again with each iteration's
    /// `CLOCK_MONOTONIC` window and returns it. The caller decides where and how it is written
    /// ([`Layout::to_json`]).
    ///
    /// # Errors
    /// What `save` returns.
    pub fn run_recorded<E>(
        &mut self,
        mut save: impl FnMut(&Layout) -> Result<(), E>,
    ) -> Result<Layout, E> {
        let mut layout = self.layout();
        save(&layout)?;
        for it in 0..self.iterations {
            let start = crate::monotonic_ns();
            self.run_iteration(it);
            layout
                .iteration_times_ns
                .push((start, crate::monotonic_ns()));
        }
        self.mark(self.iterations as usize);
        save(&layout)?;
        Ok(layout)
    }
}

/// `y` split into the threads' blocks, each with its rows.
fn split_rows<'a>(mut y: &'a mut [f64], bounds: &[usize]) -> Vec<(Range<usize>, &'a mut [f64])> {
    let mut out = Vec::with_capacity(bounds.len() - 1);
    for w in bounds.windows(2) {
        let (head, tail) = y.split_at_mut(w[1] - w[0]);
        out.push((w[0]..w[1], head));
        y = tail;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix() -> CsrMatrix<f64> {
        let mut t = Vec::new();
        for i in 0..40usize {
            for j in 0..(i % 5) {
                t.push((i, (i * 7 + j * 3) % 33, 1.0 + j as f64));
            }
        }
        CsrMatrix::from_triplets(40, 33, t).unwrap()
    }

    #[test]
    fn partition_is_balanced_and_covers_rows() {
        let a = matrix();
        for threads in [1, 2, 3, 8, 64] {
            let b = partition_rows(a.row_ptr(), threads);
            assert_eq!(b.len(), threads + 1);
            assert_eq!((b[0], b[threads]), (0, 40));
            assert!(b.windows(2).all(|w| w[0] <= w[1]));
        }
        let b = partition_rows(a.row_ptr(), 2);
        let nnz = |r: Range<usize>| a.row_ptr()[r.end] - a.row_ptr()[r.start];
        let (l, r) = (nnz(b[0]..b[1]), nnz(b[1]..b[2]));
        assert!(l.abs_diff(r) <= 4, "{l} vs {r}");
    }

    /// `y` equals the reference product to rounding. Not bitwise: the traced kernels sum each row
    /// left to right in one accumulator, because kernel A's accumulator is `y[i]` in memory, a
    /// load and a store per nonzero, and that access order is what its DAST rule and the
    /// simulator model; the reference sums even and odd positions apart
    /// ([`spmv_reorder_sparse::row_sum`]). The tests' matrix has integer values, so here every
    /// order is exact anyway.
    fn assert_matches_reference(a: &CsrMatrix<f64>, run: &TracedSpmv, what: &str) {
        let mut expected = vec![0.0; a.nrows()];
        a.mul_vec_reference(run.x(), &mut expected);
        for (i, (got, want)) in run.y().iter().zip(&expected).enumerate() {
            let tol = 1e-12 * want.abs().max(1.0);
            assert!(
                (got - want).abs() <= tol,
                "{what}: row {i}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn kernels_match_the_reference_on_any_thread_count() {
        let a = matrix();
        for kernel in [TracedKernel::PerNonzero, TracedKernel::PerRow] {
            for threads in [1, 2, 8] {
                let mut run = TracedSpmv::new(&a, kernel, threads, 2);
                run.run_iteration(0);
                run.run_iteration(1);
                assert_matches_reference(&a, &run, &format!("{kernel} {threads}"));
            }
        }
    }

    #[test]
    fn recorded_run_writes_its_layout_with_time_windows() {
        let a = matrix();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.layout.json");
        let mut run = TracedSpmv::new(&a, TracedKernel::PerNonzero, 2, 3);
        let mut saved = 0;
        let layout = run
            .run_recorded(|l| {
                saved += 1;
                std::fs::write(&path, l.to_json())
            })
            .unwrap();
        assert_eq!(saved, 2);
        assert_eq!(Layout::read(&path).unwrap(), layout);
        let w = &layout.iteration_times_ns;
        assert_eq!(w.len(), 3);
        assert!(w.windows(2).all(|p| p[0].0 <= p[0].1 && p[0].1 <= p[1].0));
        assert_matches_reference(&a, &run, "recorded");
    }

    #[test]
    fn layout_describes_the_arrays() {
        let a = matrix();
        let run = TracedSpmv::new(&a, TracedKernel::PerRow, 2, 3);
        let l = run.layout();
        l.validate().unwrap();
        l.check_matrix(&a).unwrap();
        let x0 = run.x().as_ptr() as u64;
        assert_eq!(
            l.resolve(x0 + 8 * 5),
            Some(crate::Target {
                array: Array::X,
                index: 5
            })
        );
        assert_eq!(l.region(Array::Marker).unwrap().len, 4);
        assert_eq!(
            "per-row".parse::<TracedKernel>().unwrap(),
            TracedKernel::PerRow
        );
        assert!("diagonal".parse::<TracedKernel>().is_err());
    }
}
