//! `CsrMatrix<T>`: compressed sparse rows, the one matrix type every stage of the pipeline shares.
//!
//! Column indices are `u32` (4 bytes per nonzero less traffic in SpMV than `usize`); row offsets are
//! `usize` so more than 2^32 nonzeros never overflow. Called by every other crate of the workspace.

use crate::{SparseError, Value};
use rayon::prelude::*;

/// Largest number of columns (and rows) a matrix may have: column indices are stored as `u32`.
pub const MAX_DIM: usize = u32::MAX as usize;

/// A sparse matrix in compressed sparse row form.
///
/// # Invariants
/// All checked by [`CsrMatrix::new`]; the first always checked by [`CsrMatrix::new_unchecked`] too,
/// the others there the caller's promise:
/// - `row_ptr.len() == nrows + 1`, `row_ptr[0] == 0`, `row_ptr` non-decreasing,
///   `row_ptr[nrows] == col_idx.len() == values.len()`;
/// - `nrows, ncols <= MAX_DIM`, every column index `< ncols`;
/// - within a row, column indices strictly increase (sorted, no duplicates).
#[derive(Debug, Clone, PartialEq)]
pub struct CsrMatrix<T> {
    nrows: usize,
    ncols: usize,
    row_ptr: Vec<usize>,
    col_idx: Vec<u32>,
    values: Vec<T>,
}

impl<T: Value> CsrMatrix<T> {
    /// Builds a matrix from CSR arrays, checking every invariant.
    ///
    /// # Errors
    /// [`SparseError::InvalidCsr`], [`SparseError::TooLarge`], [`SparseError::LengthMismatch`]
    /// or [`SparseError::IndexOutOfBounds`] naming the first violated invariant.
    pub fn new(
        nrows: usize,
        ncols: usize,
        row_ptr: Vec<usize>,
        col_idx: Vec<u32>,
        values: Vec<T>,
    ) -> Result<Self, SparseError> {
        check_dims(nrows, ncols)?;
        if row_ptr.len() != nrows + 1 {
            return Err(SparseError::LengthMismatch {
                what: "row_ptr",
                expected: nrows + 1,
                found: row_ptr.len(),
            });
        }
        if row_ptr[0] != 0 {
            return Err(SparseError::InvalidCsr("row_ptr[0] must be 0"));
        }
        if row_ptr.windows(2).any(|w| w[0] > w[1]) {
            return Err(SparseError::InvalidCsr("row_ptr must be non-decreasing"));
        }
        if row_ptr[nrows] != col_idx.len() || col_idx.len() != values.len() {
            return Err(SparseError::InvalidCsr(
                "row_ptr[nrows], col_idx.len() and values.len() must agree",
            ));
        }
        for i in 0..nrows {
            let cols = &col_idx[row_ptr[i]..row_ptr[i + 1]];
            if let Some(&c) = cols.iter().find(|&&c| c as usize >= ncols) {
                return Err(SparseError::IndexOutOfBounds {
                    row: i,
                    col: c as usize,
                    nrows,
                    ncols,
                });
            }
            if cols.windows(2).any(|w| w[0] >= w[1]) {
                return Err(SparseError::InvalidCsr(
                    "column indices must strictly increase within a row",
                ));
            }
        }
        Ok(Self::new_unchecked(nrows, ncols, row_ptr, col_idx, values))
    }

    /// Builds a matrix from CSR arrays whose column indices the caller guarantees in range and
    /// increasing within each row (see the type's invariants), checking only the offsets, in
    /// `O(nrows)`: the structure that the kernels without bounds checks rely on to stay inside
    /// the arrays is always verified, whatever the build. The columns are not: a kernel that
    /// indexes `x` by them without checks verifies them itself (`SpmvPlan::new`), and wrong
    /// ones give wrong results, never reads outside an array.
    ///
    /// # Panics
    /// When `row_ptr` does not hold `nrows + 1` offsets from 0, non-decreasing, ending at
    /// `col_idx.len()`, or `values` is not as long as `col_idx`: a caller's bug.
    pub fn new_unchecked(
        nrows: usize,
        ncols: usize,
        row_ptr: Vec<usize>,
        col_idx: Vec<u32>,
        values: Vec<T>,
    ) -> Self {
        assert_eq!(
            row_ptr.len(),
            nrows + 1,
            "row_ptr must hold nrows + 1 offsets"
        );
        assert_eq!(row_ptr[0], 0, "row_ptr[0] must be 0");
        assert!(
            row_ptr.windows(2).all(|w| w[0] <= w[1]),
            "row_ptr must be non-decreasing"
        );
        assert_eq!(
            row_ptr[nrows],
            col_idx.len(),
            "row_ptr[nrows] must be col_idx.len()"
        );
        assert_eq!(
            col_idx.len(),
            values.len(),
            "values and col_idx must be as long"
        );
        Self {
            nrows,
            ncols,
            row_ptr,
            col_idx,
            values,
        }
    }

    /// Builds a matrix from `(row, col, value)` triplets (0-based) in any order.
    /// Duplicated positions are summed with [`Value::accumulate`], as scipy does.
    ///
    /// # Errors
    /// [`SparseError::IndexOutOfBounds`] for a triplet outside the matrix, [`SparseError::TooLarge`]
    /// for dimensions over [`MAX_DIM`], [`SparseError::OutOfMemory`] when the row offsets cannot
    /// be allocated (billions of rows).
    pub fn from_triplets<I>(nrows: usize, ncols: usize, triplets: I) -> Result<Self, SparseError>
    where
        I: IntoIterator<Item = (usize, usize, T)>,
    {
        check_dims(nrows, ncols)?;
        let mut rows = Vec::new();
        let mut cols = Vec::new();
        let mut vals = Vec::new();
        for (r, c, v) in triplets {
            if r >= nrows || c >= ncols {
                return Err(SparseError::IndexOutOfBounds {
                    row: r,
                    col: c,
                    nrows,
                    ncols,
                });
            }
            rows.push(r as u32);
            cols.push(c as u32);
            vals.push(v);
        }
        // The assembly holds two arrays of `nrows + 1` offsets, allocated infallibly.
        let offsets = 2 * (nrows as u64 + 1) * std::mem::size_of::<usize>() as u64;
        if !crate::can_allocate(offsets) {
            return Err(SparseError::OutOfMemory {
                what: "row offsets",
                bytes: offsets,
            });
        }
        Ok(Self::from_coo_unchecked(nrows, ncols, &rows, &cols, &vals))
    }

    /// Builds a matrix from coordinate arrays whose indices are known to be in range.
    /// Duplicates are summed. `O(nnz + nrows)` plus a per-row sort, parallel over rows.
    ///
    /// # Panics
    /// If the three slices differ in length or an index is out of range (a caller bug).
    pub fn from_coo_unchecked(
        nrows: usize,
        ncols: usize,
        rows: &[u32],
        cols: &[u32],
        vals: &[T],
    ) -> Self {
        assert!(rows.len() == cols.len() && cols.len() == vals.len());
        let mut row_ptr = vec![0usize; nrows + 1];
        for &r in rows {
            row_ptr[r as usize + 1] += 1;
        }
        for i in 0..nrows {
            row_ptr[i + 1] += row_ptr[i];
        }
        let nnz = rows.len();
        let mut next = row_ptr.clone();
        let mut entries: Vec<(u32, T)> = Vec::with_capacity(nnz);
        // Scatter into row buckets; every slot is written exactly once below.
        if nnz > 0 {
            entries.resize(nnz, (0, vals[0]));
        }
        for k in 0..nnz {
            let r = rows[k] as usize;
            assert!((cols[k] as usize) < ncols, "column index out of range");
            entries[next[r]] = (cols[k], vals[k]);
            next[r] += 1;
        }
        // Sort each row and merge duplicates in place; record the merged length per row.
        let mut lens = vec![0usize; nrows];
        {
            let mut slices: Vec<&mut [(u32, T)]> = Vec::with_capacity(nrows);
            let mut rest: &mut [(u32, T)] = &mut entries;
            for i in 0..nrows {
                let (head, tail) = rest.split_at_mut(row_ptr[i + 1] - row_ptr[i]);
                slices.push(head);
                rest = tail;
            }
            slices
                .into_par_iter()
                .zip(lens.par_iter_mut())
                .for_each(|(row, len)| {
                    row.sort_unstable_by_key(|e| e.0);
                    *len = merge_sorted_duplicates(row);
                });
        }
        let mut new_ptr = Vec::with_capacity(nrows + 1);
        new_ptr.push(0usize);
        let mut col_idx = Vec::with_capacity(nnz);
        let mut values = Vec::with_capacity(nnz);
        for i in 0..nrows {
            for &(c, v) in &entries[row_ptr[i]..row_ptr[i] + lens[i]] {
                col_idx.push(c);
                values.push(v);
            }
            new_ptr.push(col_idx.len());
        }
        Self::new_unchecked(nrows, ncols, new_ptr, col_idx, values)
    }

    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.nrows
    }
    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.ncols
    }
    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.col_idx.len()
    }
    /// Row offsets, `nrows + 1` of them.
    pub fn row_ptr(&self) -> &[usize] {
        &self.row_ptr
    }
    /// Column indices, row by row.
    pub fn col_idx(&self) -> &[u32] {
        &self.col_idx
    }
    /// Values, in the order of [`Self::col_idx`].
    pub fn values(&self) -> &[T] {
        &self.values
    }
    /// Mutable values (the structure stays fixed).
    pub fn values_mut(&mut self) -> &mut [T] {
        &mut self.values
    }
    /// The column indices and values of row `i`.
    ///
    /// # Panics
    /// If `i >= nrows`.
    pub fn row(&self, i: usize) -> (&[u32], &[T]) {
        let (a, b) = (self.row_ptr[i], self.row_ptr[i + 1]);
        (&self.col_idx[a..b], &self.values[a..b])
    }
    /// Number of entries in row `i`.
    pub fn row_nnz(&self, i: usize) -> usize {
        self.row_ptr[i + 1] - self.row_ptr[i]
    }
    /// Consumes the matrix into `(nrows, ncols, row_ptr, col_idx, values)`.
    pub fn into_parts(self) -> (usize, usize, Vec<usize>, Vec<u32>, Vec<T>) {
        (
            self.nrows,
            self.ncols,
            self.row_ptr,
            self.col_idx,
            self.values,
        )
    }

    /// `Aᵀ`, by a counting sort over columns: `O(nnz + nrows + ncols)`; rows of the result stay sorted.
    ///
    /// # Panics
    /// When the transpose cannot be allocated ([`Self::try_transpose`] returns an error instead).
    pub fn transpose(&self) -> CsrMatrix<T> {
        self.try_transpose().unwrap_or_else(|e| {
            panic!("transpose of a {} x {} matrix: {e}", self.nrows, self.ncols)
        })
    }

    /// [`Self::transpose`], its arrays allocated fallibly: the row offsets of `Aᵀ` are one per
    /// column of `A`, which a tiny matrix may declare by the billion.
    ///
    /// # Errors
    /// [`SparseError::OutOfMemory`] when an array cannot be allocated.
    pub fn try_transpose(&self) -> Result<CsrMatrix<T>, SparseError> {
        self.transposed_with(|v| v)
    }

    /// The structure of `Aᵀ` alone: [`Self::pattern`] of [`Self::transpose`] without copying the
    /// structure of `A` first (on a 10M-nonzero matrix that copy took as long as the transpose).
    ///
    /// # Panics
    /// When the transpose cannot be allocated, as [`Self::transpose`].
    pub fn pattern_transpose(&self) -> CsrMatrix<()> {
        self.transposed_with(|_| ()).unwrap_or_else(|e| {
            panic!("transpose of a {} x {} matrix: {e}", self.nrows, self.ncols)
        })
    }

    /// `Aᵀ` with each value mapped by `value`, by a counting sort over columns (on the pool's
    /// threads for large matrices: [`crate::transpose`]).
    fn transposed_with<U: Value>(
        &self,
        value: impl Fn(T) -> U + Sync,
    ) -> Result<CsrMatrix<U>, SparseError> {
        crate::transpose::transposed_with(self, value)
    }

    /// The structure alone (a pattern matrix).
    pub fn pattern(&self) -> CsrMatrix<()> {
        CsrMatrix::new_unchecked(
            self.nrows,
            self.ncols,
            self.row_ptr.clone(),
            self.col_idx.clone(),
            vec![(); self.nnz()],
        )
    }

    /// [`Self::pattern`], borrowed when the matrix is a pattern already (no copy of a large
    /// structure).
    pub fn as_pattern(&self) -> std::borrow::Cow<'_, CsrMatrix<()>> {
        match (self as &dyn std::any::Any).downcast_ref::<CsrMatrix<()>>() {
            Some(pattern) => std::borrow::Cow::Borrowed(pattern),
            None => std::borrow::Cow::Owned(self.pattern()),
        }
    }

    /// The structure and the values, apart, without a copy of either:
    /// [`CsrMatrix::with_values`] puts them back together.
    pub fn into_pattern_and_values(self) -> (CsrMatrix<()>, Vec<T>) {
        let nnz = self.nnz();
        let pattern = CsrMatrix::new_unchecked(
            self.nrows,
            self.ncols,
            self.row_ptr,
            self.col_idx,
            vec![(); nnz],
        );
        (pattern, self.values)
    }

    /// Runs `f` on the structure of this matrix without copying it: the index arrays move into
    /// a pattern matrix for the call and back after it. A structure of a million rows and ten
    /// million entries is 48 MB; [`Self::pattern`] would copy it.
    pub fn with_pattern_lent<R>(&mut self, f: impl FnOnce(&CsrMatrix<()>) -> R) -> R {
        let empty = CsrMatrix::new_unchecked(0, 0, vec![0], Vec::new(), Vec::new());
        let (pattern, values) = std::mem::replace(self, empty).into_pattern_and_values();
        let result = f(&pattern);
        *self = pattern.with_values(values);
        result
    }

    /// The same structure with every value mapped by `f`.
    pub fn map_values<U: Value>(&self, f: impl Fn(T) -> U) -> CsrMatrix<U> {
        CsrMatrix::new_unchecked(
            self.nrows,
            self.ncols,
            self.row_ptr.clone(),
            self.col_idx.clone(),
            self.values.iter().map(|&v| f(v)).collect(),
        )
    }

    /// The real matrix used for computation (see [`Value::to_f64`]).
    pub fn to_real(&self) -> CsrMatrix<f64> {
        self.map_values(Value::to_f64)
    }

    /// [`Self::to_real`], borrowed when the matrix is real already (no copy of a large matrix).
    pub fn as_real(&self) -> std::borrow::Cow<'_, CsrMatrix<f64>> {
        match (self as &dyn std::any::Any).downcast_ref::<CsrMatrix<f64>>() {
            Some(real) => std::borrow::Cow::Borrowed(real),
            None => std::borrow::Cow::Owned(self.to_real()),
        }
    }

    /// The entries on or below the diagonal (`row >= col`), the part Matrix Market stores for
    /// symmetric, skew-symmetric and Hermitian matrices.
    pub fn lower_triangle(&self) -> Self {
        self.filter(|i, j| i >= j)
    }

    /// The entries whose position satisfies `keep(row, col)`.
    pub fn filter(&self, keep: impl Fn(usize, usize) -> bool) -> Self {
        let mut row_ptr = Vec::with_capacity(self.nrows + 1);
        row_ptr.push(0);
        let mut col_idx = Vec::new();
        let mut values = Vec::new();
        for i in 0..self.nrows {
            let (c, v) = self.row(i);
            for (&c, &v) in c.iter().zip(v) {
                if keep(i, c as usize) {
                    col_idx.push(c);
                    values.push(v);
                }
            }
            row_ptr.push(col_idx.len());
        }
        Self::new_unchecked(self.nrows, self.ncols, row_ptr, col_idx, values)
    }

    /// Reference product `y = A·x` on one thread, in the plainest loop: the oracle every kernel is
    /// tested against. Values enter through [`Value::to_f64`]. Each row is summed in the order of
    /// [`row_sum`](crate::row_sum) (even and odd positions in two accumulators from -0.0), the
    /// order the row kernels of `spmv-reorder-spmv` use too, so they agree with it bitwise.
    ///
    /// # Panics
    /// If `x.len() != ncols` or `y.len() != nrows`.
    pub fn mul_vec_reference(&self, x: &[f64], y: &mut [f64]) {
        assert_eq!(x.len(), self.ncols, "x length");
        assert_eq!(y.len(), self.nrows, "y length");
        let (cols, vals) = (&self.col_idx, &self.values);
        for (i, yi) in y.iter_mut().enumerate() {
            let row = self.row_ptr[i]..self.row_ptr[i + 1];
            *yi = crate::row_sum(row, |k| vals[k].to_f64() * x[cols[k] as usize]);
        }
    }
}

impl CsrMatrix<()> {
    /// This structure with `values`, one per entry in storage order, without a copy of the
    /// structure ([`CsrMatrix::into_pattern_and_values`] takes them apart).
    ///
    /// # Panics
    /// When `values` does not hold one value per entry (a caller bug).
    pub fn with_values<T: Value>(self, values: Vec<T>) -> CsrMatrix<T> {
        assert_eq!(values.len(), self.nnz(), "one value per entry");
        CsrMatrix::new_unchecked(self.nrows, self.ncols, self.row_ptr, self.col_idx, values)
    }
}

/// The rows of `row_ptr` cut into `parts` stretches of about equal entries: `parts + 1` row
/// bounds (the first 0, the last the row count, never decreasing; a stretch may be empty), cut
/// where the entries before a bound pass `t / parts` of the whole. The way parallel jobs over
/// rows share the entries, not the rows.
pub fn rows_cut_by_nonzeros(row_ptr: &[usize], parts: usize) -> Vec<usize> {
    let rows = row_ptr.len().saturating_sub(1);
    let nnz = row_ptr.last().copied().unwrap_or(0);
    let parts = parts.max(1);
    let mut bounds: Vec<usize> = (0..parts)
        .map(|t| {
            let target = (nnz as u128 * t as u128 / parts as u128) as usize;
            row_ptr.partition_point(|&p| p < target).min(rows)
        })
        .collect();
    bounds.push(rows);
    bounds
}

/// Splits `data` into consecutive disjoint mutable chunks at `offsets` (`offsets[0] == 0`, the
/// last equal to `data.len()`): chunk `b` is `data[offsets[b]..offsets[b + 1]]`. The way parallel
/// jobs get their own region of an output (e.g. the rows of `y` of one thread block) without locks.
///
/// # Panics
/// If `offsets` decrease or run past `data.len()` (a caller bug).
pub fn split_by_offsets<'a, E>(mut data: &'a mut [E], offsets: &[usize]) -> Vec<&'a mut [E]> {
    let mut out = Vec::with_capacity(offsets.len().saturating_sub(1));
    for w in offsets.windows(2) {
        let (head, tail) = data.split_at_mut(w[1] - w[0]);
        out.push(head);
        data = tail;
    }
    out
}

/// Merges runs of equal column in a sorted row; returns the merged length (front of `row`).
fn merge_sorted_duplicates<T: Value>(row: &mut [(u32, T)]) -> usize {
    if row.is_empty() {
        return 0;
    }
    let mut w = 0;
    for r in 1..row.len() {
        if row[r].0 == row[w].0 {
            row[w].1 = row[w].1.accumulate(row[r].1);
        } else {
            w += 1;
            row[w] = row[r];
        }
    }
    w + 1
}

pub(crate) fn check_dims(nrows: usize, ncols: usize) -> Result<(), SparseError> {
    for (what, v) in [("rows", nrows), ("columns", ncols)] {
        if v > MAX_DIM {
            return Err(SparseError::TooLarge {
                what,
                value: v as u64,
                max: MAX_DIM as u64,
            });
        }
    }
    Ok(())
}

pub(crate) fn check_len(
    what: &'static str,
    expected: usize,
    found: usize,
) -> Result<(), SparseError> {
    if expected != found {
        return Err(SparseError::LengthMismatch {
            what,
            expected,
            found,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Permutation;

    /// Rows by the billion: their offsets are an error when memory cannot hold them.
    #[test]
    fn offsets_beyond_memory_are_an_error_not_an_abort() {
        // 64 GiB of offsets: refused where the machine cannot hold them (not built where it can).
        if !crate::can_allocate(1 << 36) {
            let huge = CsrMatrix::<f64>::from_triplets(MAX_DIM, 1, Vec::new());
            assert!(matches!(huge, Err(SparseError::OutOfMemory { .. })));
        }
    }

    /// The offsets that the unchecked kernels rely on are checked in every build (tests run in
    /// release): a matrix with fewer values than column indices, or an offset past the arrays,
    /// would otherwise be read outside its arrays.
    #[test]
    fn unchecked_construction_still_checks_the_offsets() {
        let built = |row_ptr: Vec<usize>, cols: Vec<u32>, values: Vec<f64>| {
            std::panic::catch_unwind(|| CsrMatrix::new_unchecked(2, 2, row_ptr, cols, values))
                .is_ok()
        };
        assert!(built(vec![0, 1, 2], vec![0, 1], vec![1.0, 2.0]));
        assert!(!built(vec![0, 1, 2], vec![0, 1], vec![1.0]));
        assert!(!built(vec![0, 5, 2], vec![0, 1], vec![1.0, 2.0]));
        assert!(!built(vec![1, 1, 2], vec![0, 1], vec![1.0, 2.0]));
        assert!(!built(vec![0, 2], vec![0, 1], vec![1.0, 2.0]));
        assert!(!built(vec![0, 1, 1], vec![0, 1], vec![1.0, 2.0]));
    }

    fn example() -> CsrMatrix<f64> {
        // SPEC section 2 worked example, values = 1..
        CsrMatrix::from_triplets(
            4,
            6,
            vec![
                (0, 0, 1.0),
                (0, 1, 2.0),
                (1, 1, 3.0),
                (1, 2, 4.0),
                (2, 5, 5.0),
                (3, 0, 6.0),
                (3, 1, 7.0),
                (3, 2, 8.0),
            ],
        )
        .unwrap()
    }

    #[test]
    fn the_structure_is_lent_and_given_back_without_a_copy() {
        let a = example();
        let mut lent = a.clone();
        let col_idx = lent.col_idx().as_ptr();
        let seen = lent.with_pattern_lent(|p| {
            // The same index array, moved, not copied.
            assert_eq!(p.col_idx().as_ptr(), col_idx);
            p.clone()
        });
        assert_eq!(seen, a.pattern());
        assert_eq!(lent, a);
        let (pattern, values) = a.clone().into_pattern_and_values();
        assert_eq!(pattern.with_values(values), a);
    }

    #[test]
    fn as_pattern_borrows_only_a_pattern() {
        let a = example();
        assert!(matches!(a.as_pattern(), std::borrow::Cow::Owned(p) if p == a.pattern()));
        let p = a.pattern();
        assert!(matches!(p.as_pattern(), std::borrow::Cow::Borrowed(b) if std::ptr::eq(b, &p)));
    }

    #[test]
    #[should_panic(expected = "one value per entry")]
    fn values_must_match_the_entries() {
        let _ = example().pattern().with_values(vec![1.0; 3]);
    }

    #[test]
    fn triplets_sum_duplicates_and_sort() {
        let a = CsrMatrix::from_triplets(
            2,
            3,
            vec![(1, 2, 1.0), (0, 1, 2.0), (1, 2, 3.0), (1, 0, 4.0)],
        )
        .unwrap();
        assert_eq!(a.row_ptr(), &[0, 1, 3]);
        assert_eq!(a.col_idx(), &[1, 0, 2]);
        assert_eq!(a.values(), &[2.0, 4.0, 4.0]);
    }

    #[test]
    fn as_real_borrows_a_real_matrix_and_converts_others() {
        use std::borrow::Cow;
        let a = example();
        assert!(matches!(a.as_real(), Cow::Borrowed(m) if std::ptr::eq(m, &a)));
        let p = a.pattern();
        let real = p.as_real();
        assert!(matches!(real, Cow::Owned(_)));
        assert_eq!(real.col_idx(), a.col_idx());
        assert!(real.values().iter().all(|&v| v == 1.0));
    }

    #[test]
    fn out_of_range_triplet_is_an_error() {
        let e = CsrMatrix::from_triplets(2, 2, vec![(2, 0, 1.0)]).unwrap_err();
        assert!(matches!(e, SparseError::IndexOutOfBounds { row: 2, .. }));
    }

    #[test]
    fn new_rejects_unsorted_rows() {
        let e = CsrMatrix::new(1, 3, vec![0, 2], vec![2, 1], vec![1.0, 1.0]).unwrap_err();
        assert!(matches!(e, SparseError::InvalidCsr(_)));
        let e = CsrMatrix::new(1, 3, vec![0, 1], vec![3], vec![1.0]).unwrap_err();
        assert!(matches!(e, SparseError::IndexOutOfBounds { col: 3, .. }));
    }

    #[test]
    fn transpose_twice_is_identity() {
        let a = example();
        let t = a.transpose();
        assert_eq!(t.nrows(), 6);
        assert_eq!(t.row(1).0, &[0, 1, 3]);
        assert_eq!(t.transpose(), a);
    }

    #[test]
    fn permute_moves_rows_and_columns() {
        let a = example();
        let p = Permutation::from_new_to_old(vec![3, 0, 1, 2]).unwrap();
        let q = Permutation::identity(6);
        let b = a.permute(&p, &q).unwrap();
        assert_eq!(b.row(0).0, &[0, 1, 2]);
        assert_eq!(b.row(0).1, &[6.0, 7.0, 8.0]);
        assert_eq!(b.row(3).0, &[5]);
    }

    #[test]
    fn split_by_offsets_gives_disjoint_chunks() {
        let mut v = [1, 2, 3, 4, 5];
        let chunks = split_by_offsets(&mut v, &[0, 2, 2, 5]);
        assert_eq!(
            chunks.iter().map(|c| c.len()).collect::<Vec<_>>(),
            [2, 0, 3]
        );
        for c in chunks {
            c.iter_mut().for_each(|x| *x *= 10);
        }
        assert_eq!(v, [10, 20, 30, 40, 50]);
    }

    #[test]
    fn empty_matrix_operations() {
        let a: CsrMatrix<f64> = CsrMatrix::from_triplets(3, 3, vec![]).unwrap();
        assert_eq!(a.nnz(), 0);
        assert_eq!(a.transpose().nnz(), 0);
        let p = Permutation::identity(3);
        assert_eq!(a.permute_symmetric(&p).unwrap(), a);
    }
}
