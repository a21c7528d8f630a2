//! Window footprints `F_g` (sorted distinct columns of a window's rows), `n(g) = |F_g|`,
//! `d_w(g,h) = n(g) + n(h) - 2a(g,h)` and `D_w = Σ_g d_w(g, g+1)`.
//!
//! Building is free for one row per window (the footprints borrow the matrix's rows), `O(nnz)`
//! for windows of one or two rows (a copy or a merge) plus a sort per window of three rows or
//! more (`O(nnz log w)` at most), parallel over windows; memory `O(nnz + windows)` (none when
//! borrowed). A distance is a merge, `O(n(g) + n(h))`. SPEC section 2
//! (thesis 4.2, equations 4.3-4.4). Called by [`crate::WindowGraph`] and by the CLI's `info` (D_w).

use crate::distance::set_distance;
use crate::error::LocalityError;
use crate::par::{balanced_ranges, even_ranges, offset_bounds, split_mut_at, Parallelism};
use crate::windows::{check_window_order, Windows};
use spmv_reorder_sparse::{CsrMatrix, Value};
use std::borrow::Cow;

/// The footprints of a partition into windows, stored as a CSR of columns: window `g`'s columns
/// are `cols[ptr[g]..ptr[g+1]]`. With one row per window the footprints are the rows themselves
/// and borrow the matrix's arrays (no copy); otherwise they own their arrays.
///
/// # Invariants
/// `ptr.len() == windows + 1`, `ptr[0] == 0`, non-decreasing, `ptr[windows] == cols.len()`; each
/// window's columns strictly increase and are `< ncols`. Upheld by construction (a borrowed
/// matrix upholds them as a [`CsrMatrix`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Footprints<'a> {
    ncols: usize,
    ptr: Cow<'a, [usize]>,
    cols: Cow<'a, [u32]>,
}

impl<'a> Footprints<'a> {
    /// The footprints of `windows` over the rows of `a` (values are ignored). One row per window
    /// borrows `a`'s row offsets and columns; other windows merge (two rows) or sort (more) their
    /// rows' columns into new arrays.
    ///
    /// # Errors
    /// [`LocalityError::RowCountMismatch`] when the windows do not partition `a`'s rows.
    pub fn new<T: Value>(
        a: &'a CsrMatrix<T>,
        windows: &Windows,
        par: Parallelism,
    ) -> Result<Self, LocalityError> {
        windows.check_rows(a)?;
        if windows.len() == a.nrows() {
            return Ok(Self::rows_of(a));
        }
        let row_ptr = a.row_ptr();
        // Window g's entries are at most entry_ptr[g+1] - entry_ptr[g]: each chunk of windows
        // writes its footprints at the front of its region of `cols`, then the regions are packed.
        let entry_ptr: Vec<usize> = windows.starts().iter().map(|&r| row_ptr[r]).collect();
        let mut cols = vec![0u32; a.nnz()];
        let ranges = balanced_ranges(&entry_ptr, 4 * par.threads());
        let bounds = offset_bounds(&ranges, &entry_ptr);
        let pieces = split_mut_at(&mut cols, &bounds);
        let items = ranges.into_iter().zip(pieces).collect();
        let lengths_per_chunk = par.map(items, |(range, piece)| {
            let mut write = 0;
            range
                .map(|g| {
                    let len = union_into(a, windows.rows(g), &mut piece[write..]);
                    write += len;
                    len
                })
                .collect::<Vec<usize>>()
        });
        // Pack the chunks' fronts together; chunk k starts at bounds[k] in `cols`.
        let mut ptr = Vec::with_capacity(windows.len() + 1);
        ptr.push(0usize);
        for (&chunk_start, lengths) in bounds.iter().zip(lengths_per_chunk) {
            let used: usize = lengths.iter().sum();
            let packed = ptr[ptr.len() - 1];
            if packed != chunk_start {
                cols.copy_within(chunk_start..chunk_start + used, packed);
            }
            for len in lengths {
                ptr.push(ptr[ptr.len() - 1] + len);
            }
        }
        cols.truncate(ptr[ptr.len() - 1]);
        cols.shrink_to_fit();
        Ok(Self {
            ncols: a.ncols(),
            ptr: Cow::Owned(ptr),
            cols: Cow::Owned(cols),
        })
    }

    /// The footprints of one row per window: the rows themselves, borrowed.
    pub(crate) fn rows_of<T: Value>(a: &'a CsrMatrix<T>) -> Self {
        Self {
            ncols: a.ncols(),
            ptr: Cow::Borrowed(a.row_ptr()),
            cols: Cow::Borrowed(a.col_idx()),
        }
    }

    /// Number of windows.
    pub fn len(&self) -> usize {
        self.ptr.len() - 1
    }

    /// True when there is no window.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of columns of the matrix (footprint entries are `< ncols`).
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// `F_g`, strictly increasing.
    ///
    /// # Panics
    /// If `g >= len()` (a caller bug).
    pub fn get(&self, g: usize) -> &[u32] {
        &self.cols[self.ptr[g]..self.ptr[g + 1]]
    }

    /// `n(g) = |F_g|`.
    ///
    /// # Panics
    /// If `g >= len()` (a caller bug).
    pub fn footprint_len(&self, g: usize) -> usize {
        self.ptr[g + 1] - self.ptr[g]
    }

    /// Offsets of the footprints in [`Self::columns`] (`len() + 1` entries).
    pub fn offsets(&self) -> &[usize] {
        &self.ptr
    }

    /// Every footprint, concatenated in window order.
    pub fn columns(&self) -> &[u32] {
        &self.cols
    }

    /// `d_w(g,h) = n(g) + n(h) - 2a(g,h)`, exact, by a merge: `O(n(g) + n(h))`.
    ///
    /// # Panics
    /// If `g` or `h` is not a window (a caller bug).
    pub fn distance(&self, g: usize, h: usize) -> u64 {
        set_distance(self.get(g), self.get(h))
    }

    /// `D_w = Σ_g d_w(g, g+1)` in window order (0 for fewer than two windows).
    pub fn windowed_distance(&self, par: Parallelism) -> u64 {
        let pairs = self.len().saturating_sub(1);
        let ranges = balanced_ranges(&self.ptr[..=pairs], 4 * par.threads());
        self.sum_over(ranges, par, |g| self.distance(g, g + 1))
    }

    /// `Σ_k d_w(order[k], order[k+1])`: the cost of the path visiting windows in `order`, which is
    /// `D_w` of the matrix reordered by [`Windows::row_order`]`(order)` with its windows.
    ///
    /// # Errors
    /// [`LocalityError::InvalidWindowOrder`] when `order` is not a permutation of `0..len()`.
    pub fn path_cost(&self, order: &[usize], par: Parallelism) -> Result<u64, LocalityError> {
        check_window_order(self.len(), order)?;
        let ranges = even_ranges(order.len().saturating_sub(1), 4 * par.threads());
        Ok(self.sum_over(ranges, par, |k| self.distance(order[k], order[k + 1])))
    }

    fn sum_over(
        &self,
        ranges: Vec<std::ops::Range<usize>>,
        par: Parallelism,
        term: impl Fn(usize) -> u64 + Sync + Send,
    ) -> u64 {
        par.map(ranges, |range| range.map(&term).sum::<u64>())
            .into_iter()
            .sum()
    }
}

/// `D_w` of `a` for `windows`: `Σ_g d_w(g, g+1)`. Equals [`crate::total_distance`] for
/// [`Windows::single_rows`]. `O(nnz)` time and memory (builds the footprints).
///
/// # Errors
/// [`LocalityError::RowCountMismatch`] when the windows do not partition `a`'s rows.
pub fn windowed_distance<T: Value>(
    a: &CsrMatrix<T>,
    windows: &Windows,
    par: Parallelism,
) -> Result<u64, LocalityError> {
    Ok(Footprints::new(a, windows, par)?.windowed_distance(par))
}

/// Writes `F_g`, the sorted distinct columns of `rows`, at the front of `out` (which has room for
/// all their entries); returns `n(g)`. One row is copied, two rows are merged (the common case
/// of variable windows), more rows are copied, sorted and deduplicated: `O(entries log entries)`.
fn union_into<T: Value>(a: &CsrMatrix<T>, rows: std::ops::Range<usize>, out: &mut [u32]) -> usize {
    match rows.len() {
        1 => {
            let row = a.row(rows.start).0;
            out[..row.len()].copy_from_slice(row);
            row.len()
        }
        2 => merge_union(a.row(rows.start).0, a.row(rows.start + 1).0, out),
        _ => {
            let entries = a.row_ptr()[rows.end] - a.row_ptr()[rows.start];
            let out = &mut out[..entries];
            out.copy_from_slice(&a.col_idx()[a.row_ptr()[rows.start]..a.row_ptr()[rows.end]]);
            out.sort_unstable();
            let mut len = 0;
            for k in 0..out.len() {
                let c = out[k];
                if len == 0 || out[len - 1] != c {
                    out[len] = c;
                    len += 1;
                }
            }
            len
        }
    }
}

/// `S ∪ T` of two strictly increasing lists, written at the front of `out` (room for
/// `|S| + |T|`); returns its length. The merge steps are selected without branches, as in
/// [`crate::intersection_len`].
fn merge_union(s: &[u32], t: &[u32], out: &mut [u32]) -> usize {
    let (mut i, mut j, mut k) = (0, 0, 0);
    while i < s.len() && j < t.len() {
        let (a, b) = (s[i], t[j]);
        out[k] = a.min(b);
        k += 1;
        i += (a <= b) as usize;
        j += (b <= a) as usize;
    }
    let (s_rest, t_rest) = (&s[i..], &t[j..]);
    out[k..k + s_rest.len()].copy_from_slice(s_rest);
    k += s_rest.len();
    out[k..k + t_rest.len()].copy_from_slice(t_rest);
    k + t_rest.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::spec_example;

    #[test]
    fn spec_worked_example_footprints() {
        let a = spec_example();
        let w = Windows::fixed(4, 2).unwrap();
        for par in [Parallelism::Sequential, Parallelism::Rayon] {
            let f = Footprints::new(&a, &w, par).unwrap();
            assert_eq!(f.get(0), &[0, 1, 2]);
            assert_eq!(f.get(1), &[0, 1, 2, 5]);
            assert_eq!(f.distance(0, 1), 1);
            assert_eq!(f.windowed_distance(par), 1);
            assert_eq!(windowed_distance(&a, &w, par).unwrap(), 1);
            let rows = Footprints::new(&a, &Windows::single_rows(4), par).unwrap();
            assert_eq!(rows.windowed_distance(par), 9);
            assert_eq!(rows.path_cost(&[0, 3, 1, 2], par).unwrap(), 5);
        }
    }

    #[test]
    fn empty_rows_and_empty_matrices() {
        let a: CsrMatrix<f64> =
            CsrMatrix::from_triplets(5, 3, vec![(1, 2, 1.0), (4, 0, 1.0)]).unwrap();
        let w = Windows::from_lengths(&[1, 2, 2]).unwrap();
        let f = Footprints::new(&a, &w, Parallelism::Rayon).unwrap();
        assert_eq!(f.get(0), &[] as &[u32]);
        assert_eq!(f.get(1), &[2]);
        assert_eq!(f.get(2), &[0]);
        assert_eq!(f.windowed_distance(Parallelism::Rayon), 1 + 2);
        let empty: CsrMatrix<()> = CsrMatrix::from_triplets(0, 0, vec![]).unwrap();
        let f = Footprints::new(&empty, &Windows::single_rows(0), Parallelism::Rayon).unwrap();
        assert!(f.is_empty());
        assert_eq!(f.windowed_distance(Parallelism::Rayon), 0);
        assert_eq!(f.path_cost(&[], Parallelism::Rayon).unwrap(), 0);
        assert!(matches!(
            Footprints::new(&a, &Windows::single_rows(4), Parallelism::Rayon),
            Err(LocalityError::RowCountMismatch {
                expected: 5,
                found: 4,
                ..
            })
        ));
    }

    #[test]
    fn many_chunks_pack_correctly() {
        // 40 rows, windows of 3, duplicates across rows of a window.
        let t: Vec<(usize, usize, f64)> = (0..40)
            .flat_map(|i| [(i, i % 7, 1.0), (i, (i / 3) % 11, 1.0)])
            .collect();
        let a = CsrMatrix::from_triplets(40, 11, t).unwrap();
        let w = Windows::fixed(40, 3).unwrap();
        let seq = Footprints::new(&a, &w, Parallelism::Sequential).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let par = pool.install(|| Footprints::new(&a, &w, Parallelism::Rayon).unwrap());
        assert_eq!(seq, par);
        for g in 0..w.len() {
            let mut expect: Vec<u32> = w.rows(g).flat_map(|i| a.row(i).0.to_vec()).collect();
            expect.sort_unstable();
            expect.dedup();
            assert_eq!(seq.get(g), &expect[..]);
        }
    }
}
