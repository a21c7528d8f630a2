//! `B = P·A·Qᵀ` and `B = P·A`: a matrix with its rows and columns permuted.
//!
//! `O(nnz log(row length) + nrows)` for [`CsrMatrix::permute`] (each row's columns are renumbered
//! and sorted), `O(nnz + nrows)` for [`CsrMatrix::permute_rows`]; parallel over blocks of
//! [`ROWS_PER_TASK`] rows, each block writing its own region of the result. The result is the only
//! whole-matrix allocation: a row is sorted in a scratch list of its own length, one per thread,
//! so the peak is the two matrices, not a third list as long as the matrix. The list holds one
//! `u64` per entry, its new column above its place in the old row, so that the sort compares
//! plain integers and the values are gathered after it (`docs/results.md`, "Permuting the
//! matrix"). SPEC section 1 (the permutation convention). Called by the main job (the reordered
//! matrix), the benchmark and the evaluation.

use crate::csr::check_len;
use crate::{split_by_offsets, CsrMatrix, Permutation, SparseError, Value};
use rayon::prelude::*;

/// Rows per rayon task of the row-parallel copies: enough work per task to amortise scheduling.
const ROWS_PER_TASK: usize = 1024;

impl<T: Value> CsrMatrix<T> {
    /// `B = P·A·Qᵀ`: row `i` of `B` is row `rows.new_to_old()[i]` of `A`, and column `j` of `B` is
    /// column `cols.new_to_old()[j]` of `A`. Parallel over rows, `O(nnz log(row length))`.
    ///
    /// # Errors
    /// [`SparseError::LengthMismatch`] when a permutation's length differs from the dimension.
    pub fn permute(&self, rows: &Permutation, cols: &Permutation) -> Result<Self, SparseError> {
        self.permute_with_progress(rows, cols, &|_| {})
    }

    /// [`Self::permute`], calling `rows_done(k)` each time another block of `k` rows of `B` is
    /// written, on any thread of the pool (the calls add up to the rows).
    ///
    /// # Errors
    /// As [`Self::permute`].
    pub fn permute_with_progress(
        &self,
        rows: &Permutation,
        cols: &Permutation,
        rows_done: &(dyn Fn(usize) + Sync),
    ) -> Result<Self, SparseError> {
        check_len("row permutation", self.nrows(), rows.len())?;
        check_len("column permutation", self.ncols(), cols.len())?;
        let old_to_new_col = cols.old_to_new();
        let b = self.with_rows_of(
            rows,
            rows_done,
            |keys: &mut Vec<u64>, (c, v), (c_dst, v_dst)| {
                // Each entry's new column above its place in the old row: the sort compares
                // plain integers, and moves 8 bytes an entry whatever the values.
                keys.clear();
                keys.extend(
                    c.iter()
                        .enumerate()
                        .map(|(k, &c)| (old_to_new_col[c as usize] as u64) << 32 | k as u64),
                );
                keys.sort_unstable();
                for ((c_dst, v_dst), &key) in c_dst.iter_mut().zip(v_dst).zip(keys.iter()) {
                    *c_dst = (key >> 32) as u32;
                    *v_dst = v[(key & u64::from(u32::MAX)) as usize];
                }
            },
        );
        Ok(b)
    }

    /// `B = P·A`: row `i` of `B` is row `rows.new_to_old()[i]` of `A`, the columns as they are.
    /// [`Self::permute`] with the identity as the column permutation, without its column remap and
    /// row sort: each row is copied as it is, in parallel (on the shuffled 1M-row grid, 7M
    /// nonzeros, the permutation the reordering pipeline makes of its input for the RCM start order
    /// took 0.21 s through [`Self::permute`]).
    ///
    /// # Errors
    /// [`SparseError::LengthMismatch`] when the permutation's length differs from the row count.
    pub fn permute_rows(&self, rows: &Permutation) -> Result<Self, SparseError> {
        check_len("row permutation", self.nrows(), rows.len())?;
        Ok(
            self.with_rows_of(rows, &|_| {}, |_: &mut (), (c, v), (c_dst, v_dst)| {
                c_dst.copy_from_slice(c);
                v_dst.copy_from_slice(v);
            }),
        )
    }

    /// `B = P·A·Pᵀ`, the symmetric permutation that keeps a symmetric matrix symmetric.
    ///
    /// # Errors
    /// [`SparseError::NotSquare`] for a rectangular matrix, [`SparseError::LengthMismatch`] for a
    /// permutation of the wrong length.
    pub fn permute_symmetric(&self, p: &Permutation) -> Result<Self, SparseError> {
        if self.nrows() != self.ncols() {
            return Err(SparseError::NotSquare {
                nrows: self.nrows(),
                ncols: self.ncols(),
            });
        }
        self.permute(p, p)
    }

    /// The matrix whose row `i` is `fill`ed from row `rows.new_to_old()[i]` of `self`: `fill`
    /// gets a scratch of its thread (an `S`, kept from row to row), the old row's columns and
    /// values, and the new row's slots (as long as the old row), which it must fill with strictly
    /// increasing columns.
    /// `rows_done` hears of each block of rows once filled.
    fn with_rows_of<S, F>(
        &self,
        rows: &Permutation,
        rows_done: &(dyn Fn(usize) + Sync),
        fill: F,
    ) -> Self
    where
        S: Default + Send,
        F: Fn(&mut S, (&[u32], &[T]), (&mut [u32], &mut [T])) + Sync,
    {
        let row_ptr = self.permuted_row_ptr(rows);
        let nnz = self.nnz();
        let mut col_idx = vec![0u32; nnz];
        // Zeros the fill overwrites, their pages faulted in by the threads that fill them: one
        // thread writing every value first made the permutation 1.25-1.5x as long (R-MAT scale
        // 20, 250 MB of values: 1.02 s against 0.80 s; the 1M-row geometric graph 0.40 s
        // against 0.26 s).
        let mut values = T::zeros(nnz);
        let blocks: Vec<usize> = (0..self.nrows())
            .step_by(ROWS_PER_TASK)
            .chain([self.nrows()])
            .collect();
        let block_ptr: Vec<usize> = blocks.iter().map(|&r| row_ptr[r]).collect();
        split_by_offsets(&mut col_idx, &block_ptr)
            .into_par_iter()
            .zip(split_by_offsets(&mut values, &block_ptr))
            .zip(blocks.par_windows(2))
            .for_each_init(S::default, |scratch, ((c_block, v_block), w)| {
                let base = row_ptr[w[0]];
                for new in w[0]..w[1] {
                    let slots = row_ptr[new] - base..row_ptr[new + 1] - base;
                    let old = self.row(rows.new_to_old()[new]);
                    let dst = (&mut c_block[slots.clone()], &mut v_block[slots]);
                    fill(scratch, old, dst);
                }
                rows_done(w[1] - w[0]);
            });
        Self::new_unchecked(self.nrows(), self.ncols(), row_ptr, col_idx, values)
    }

    /// The row offsets of `P·A`: row `i` as long as row `rows.new_to_old()[i]` of `A`.
    fn permuted_row_ptr(&self, rows: &Permutation) -> Vec<usize> {
        let mut row_ptr = Vec::with_capacity(self.nrows() + 1);
        row_ptr.push(0usize);
        for &old in rows.new_to_old() {
            row_ptr.push(row_ptr.last().unwrap() + self.row_nnz(old));
        }
        row_ptr
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A matrix of `n` rows whose rows are long enough to span several blocks of rows, with
    /// values that say where each entry came from.
    fn spread(n: usize) -> CsrMatrix<f64> {
        let t = (0..n)
            .flat_map(|i| (0..(i % 5)).map(move |k| (i, (i * 7 + k * 13) % n, (i * n) as f64)));
        CsrMatrix::from_triplets(n, n, t).unwrap()
    }

    /// The naive `P·A·Qᵀ`: every entry moved to its new place, then assembled from triplets.
    fn naive(a: &CsrMatrix<f64>, p: &Permutation, q: &Permutation) -> CsrMatrix<f64> {
        let t = (0..a.nrows()).flat_map(|i| {
            let (c, v) = a.row(i);
            let entries: Vec<_> = c.iter().zip(v).collect();
            entries
                .into_iter()
                .map(move |(&j, &x)| (p.old_to_new()[i], q.old_to_new()[j as usize], x))
        });
        CsrMatrix::from_triplets(a.nrows(), a.ncols(), t.collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn permute_matches_the_naive_one_across_blocks_and_threads() {
        let n = 3 * ROWS_PER_TASK + 17;
        let a = spread(n);
        let (p, q) = (Permutation::random(n, 1), Permutation::random(n, 2));
        let expected = naive(&a, &p, &q);
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let b = pool.install(|| a.permute(&p, &q)).unwrap();
            assert_eq!(b, expected);
            // The blocks written add up to the rows, one report a block.
            let blocks = std::sync::Mutex::new(Vec::new());
            let record = |k: usize| blocks.lock().unwrap().push(k);
            let c = pool.install(|| a.permute_with_progress(&p, &q, &record));
            assert_eq!(c.unwrap(), expected);
            let mut blocks = blocks.into_inner().unwrap();
            blocks.sort_unstable();
            assert_eq!(blocks, [17, ROWS_PER_TASK, ROWS_PER_TASK, ROWS_PER_TASK]);
            let rows_only = pool.install(|| a.permute_rows(&p)).unwrap();
            assert_eq!(rows_only, naive(&a, &p, &Permutation::identity(n)));
        }
    }

    #[test]
    fn patterns_and_empty_matrices_permute() {
        let a = spread(40).pattern();
        let p = Permutation::random(40, 3);
        let b = a.permute(&p, &p).unwrap();
        assert_eq!(b.permute(&p.inverse(), &p.inverse()).unwrap(), a);
        let e: CsrMatrix<f64> = CsrMatrix::from_triplets(0, 0, vec![]).unwrap();
        assert_eq!(e.permute_symmetric(&Permutation::identity(0)).unwrap(), e);
    }

    #[test]
    fn wrong_lengths_and_rectangles_are_errors() {
        let a: CsrMatrix<f64> = CsrMatrix::from_triplets(2, 3, vec![(0, 2, 1.0)]).unwrap();
        let (p2, p3) = (Permutation::identity(2), Permutation::identity(3));
        assert!(matches!(
            a.permute(&p3, &p3),
            Err(SparseError::LengthMismatch { .. })
        ));
        assert!(matches!(
            a.permute_rows(&p3),
            Err(SparseError::LengthMismatch { .. })
        ));
        assert!(matches!(
            a.permute_symmetric(&p2),
            Err(SparseError::NotSquare { .. })
        ));
        assert_eq!(a.permute(&p2, &p3).unwrap(), a);
    }
}
