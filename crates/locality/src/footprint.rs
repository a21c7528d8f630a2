//! Window footprints `F_g` (sorted distinct columns of a window's rows), `n(g) = |F_g|`,
//! `d_w(g,h) = n(g) + n(h) - 2a(g,h)` and `D_w = Σ_g d_w(g, g+1)`.
//!
//! Building is free for one row per window (the footprints borrow the matrix's rows). Other
//! partitions borrow the rows of their one-row windows too and store only the windows of two rows
//! or more (a merge, or a sort for three rows or more: `O(nnz log w)` at most), parallel over
//! windows; memory `O(windows)` plus the merged windows' entries. A distance is a merge,
//! `O(n(g) + n(h))`. SPEC section 2 (thesis 4.2, equations 4.3-4.4). Called by
//! [`crate::WindowGraph`] and by the CLI's `info` (D_w).

use crate::distance::set_distance;
use crate::error::LocalityError;
use crate::par::{balanced_ranges, even_ranges, range_bounds, split_mut_at, Parallelism};
use crate::windows::{check_window_order, Windows};
use spmv_reorder_sparse::{prefetch, short_union, CsrMatrix, Value};
use std::borrow::Cow;

/// The footprints of a partition into windows: window `g` has `n(g) = ptr[g+1] - ptr[g]` columns.
/// With one row per window they are the rows themselves and borrow the matrix's arrays (no
/// copy). Otherwise a one-row window still borrows its row, and only the windows of two rows or
/// more store their columns, apart.
///
/// # Invariants
/// `ptr.len() == windows + 1`, `ptr[0] == 0`, non-decreasing; every window has `n(g)` columns,
/// strictly increasing and `< ncols`. Upheld by construction (a borrowed
/// matrix upholds them as a [`CsrMatrix`]).
#[derive(Debug, Clone)]
pub struct Footprints<'a> {
    ncols: usize,
    ptr: Cow<'a, [usize]>,
    columns: Columns<'a>,
}

/// Where the footprints' columns are.
#[derive(Debug, Clone)]
enum Columns<'a> {
    /// Window `g`'s columns are `cols[ptr[g]..ptr[g+1]]` (the matrix's, for one row per window).
    Packed(Cow<'a, [u32]>),
    /// Window `g`'s `n(g)` columns start at `at[g]` in `rows` (the matrix's columns: a one-row
    /// window's row) when `at[g] < rows.len()`, else at `at[g] - rows.len()` in `merged` (the
    /// windows of two rows or more, one after the other). On the shuffled 1M-row grid's variable
    /// windows (93% of them one row) a packed copy held 28 MB more: a first build took 24.6k
    /// fresh pages instead of 29.6k. (Building took about 9 ms either way: the time is in the
    /// per-window work and the merges, not the copy.)
    Borrowed {
        rows: &'a [u32],
        merged: Vec<u32>,
        at: Vec<usize>,
    },
}

/// Equal footprints: the same windows with the same columns, however they are stored.
impl PartialEq for Footprints<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.ncols == other.ncols
            && self.ptr == other.ptr
            && (0..self.len()).all(|g| self.get(g) == other.get(g))
    }
}

impl Eq for Footprints<'_> {}

impl<'a> Footprints<'a> {
    /// The footprints of `windows` over the rows of `a` (values are ignored). One row per window
    /// borrows `a`'s row offsets and columns; other windows borrow the rows of their one-row
    /// windows and merge (two rows) or sort (more) the others' columns into a new array.
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
        let (nw, nnz, row_ptr) = (windows.len(), a.nnz(), a.row_ptr());
        // Each chunk of windows writes their start and their `n(g)` counted from the chunk's
        // first window, and merges its multi-row windows into its own array; the second pass
        // adds the chunks' bases.
        let mut ptr = vec![0usize; nw + 1];
        let mut at = vec![0usize; nw];
        let chunks = balanced_ranges(windows.starts(), 4 * par.threads());
        let bounds = range_bounds(&chunks, 1);
        let items: Vec<_> = chunks
            .iter()
            .cloned()
            .zip(split_mut_at(&mut ptr[1..], &bounds))
            .zip(split_mut_at(&mut at, &bounds))
            .collect();
        // Columns that fit in a core's L2 cache are read from it: there the lookahead's own
        // reads cost more than it saves (the grid's 2% sample, 0.6 MB of columns: footprints
        // 1.3 -> 1.7 ms).
        let ask_ahead = nnz * std::mem::size_of::<u32>() > MERGE_AHEAD_MIN_BYTES;
        let merged_of_chunks = par.map(items, |((range, ends), at)| {
            let mut merged = Vec::new();
            let mut end = 0;
            for ((g, end_of_g), at_g) in range.zip(ends).zip(at) {
                if ask_ahead {
                    prefetch_rows_to_merge(a, windows, g + MERGE_AHEAD);
                }
                let rows = windows.rows(g);
                if rows.len() == 1 {
                    *at_g = row_ptr[rows.start];
                    end += a.row_nnz(rows.start);
                } else {
                    *at_g = nnz + merged.len();
                    end += append_union(a, rows, &mut merged);
                }
                *end_of_g = end;
            }
            (end, merged)
        });
        let merged_len = add_chunk_bases(&merged_of_chunks, chunks, (&mut ptr, &mut at), nnz, par);
        let mut merged = Vec::with_capacity(merged_len);
        for (_, chunk) in merged_of_chunks {
            merged.extend_from_slice(&chunk);
        }
        Ok(Self {
            ncols: a.ncols(),
            ptr: Cow::Owned(ptr),
            columns: Columns::Borrowed {
                rows: a.col_idx(),
                merged,
                at,
            },
        })
    }

    /// The footprints of one row per window: the rows themselves, borrowed.
    pub(crate) fn rows_of<T: Value>(a: &'a CsrMatrix<T>) -> Self {
        Self {
            ncols: a.ncols(),
            ptr: Cow::Borrowed(a.row_ptr()),
            columns: Columns::Packed(Cow::Borrowed(a.col_idx())),
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
        let (start, end) = (self.ptr[g], self.ptr[g + 1]);
        match &self.columns {
            Columns::Packed(cols) => &cols[start..end],
            Columns::Borrowed { rows, merged, at } => {
                let (at, len) = (at[g], end - start);
                match at.checked_sub(rows.len()) {
                    None => &rows[at..at + len],
                    Some(at) => &merged[at..at + len],
                }
            }
        }
    }

    /// `n(g) = |F_g|`.
    ///
    /// # Panics
    /// If `g >= len()` (a caller bug).
    pub fn footprint_len(&self, g: usize) -> usize {
        self.ptr[g + 1] - self.ptr[g]
    }

    /// `Σ n(g)` up to each window (`len() + 1` entries): window `g` has `offsets()[g + 1] -
    /// offsets()[g]` columns, and in a concatenation of the footprints in window order it would
    /// start at `offsets()[g]`.
    pub fn offsets(&self) -> &[usize] {
        &self.ptr
    }

    /// Calls `f` with every column of the windows of `range`, in window order: one pass over an
    /// array where the footprints are packed. (A 2% sample's windows are mostly empty: a call of
    /// [`Self::get`] per window took its one-row build on the shuffled 1M-row grid from
    /// 1.37-1.48 to 1.68-1.70 SpMVs.)
    pub(crate) fn for_each_column(&self, range: std::ops::Range<usize>, mut f: impl FnMut(u32)) {
        match &self.columns {
            Columns::Packed(cols) => {
                for &c in &cols[self.ptr[range.start]..self.ptr[range.end]] {
                    f(c);
                }
            }
            Columns::Borrowed { .. } => {
                for g in range {
                    for &c in self.get(g) {
                        f(c);
                    }
                }
            }
        }
    }

    /// `Σ n(g)`: the footprints' entries in all.
    pub fn entries(&self) -> usize {
        self.ptr[self.len()]
    }

    /// Whether the footprints are `a`'s rows, borrowed (one row per window).
    #[cfg(test)]
    pub(crate) fn are_rows_of<T: Value>(&self, a: &CsrMatrix<T>) -> bool {
        matches!(&self.columns, Columns::Packed(cols) if std::ptr::eq(&cols[..], a.col_idx()))
            && std::ptr::eq(&self.ptr[..], a.row_ptr())
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

/// How many windows ahead [`Footprints::new`] asks for the rows it will merge. The shuffled 1M-row
/// grid's variable windows merge one window in about 16, whose rows are far apart in memory, and
/// about 3 such windows are merged in the time a row takes to arrive.
const MERGE_AHEAD: usize = 64;

/// Columns (`4·nnz` bytes) from which [`Footprints::new`] asks ahead for the rows it will merge:
/// twice the L2 cache of a core of the machine measured.
const MERGE_AHEAD_MIN_BYTES: usize = 2 << 20;

/// Asks for the first and last cache lines of the rows of window `g` when it has several rows
/// (its footprint will be merged from them), and for nothing beyond the last window. The rows
/// of one-row windows are borrowed, not read.
fn prefetch_rows_to_merge<T: Value>(a: &CsrMatrix<T>, windows: &Windows, g: usize) {
    if g < windows.len() {
        let rows = windows.rows(g);
        if rows.len() > 1 {
            let row_ptr = a.row_ptr();
            prefetch(a.col_idx(), row_ptr[rows.start]);
            prefetch(a.col_idx(), row_ptr[rows.end].wrapping_sub(1));
        }
    }
}

/// Appends `F_g`, the sorted distinct columns of `rows`, to `merged`; returns `n(g)`. Two rows
/// are merged; up to four short rows (at most 8 entries each) are merged in AVX-512 registers
/// where the machine has them ([`spmv_reorder_sparse::short_union`]: a 3D 7-point grid's
/// three-row windows, copied and insertion-sorted, took about 150 ns each); the others are
/// copied, sorted and deduplicated: `O(entries log entries)`.
fn append_union<T: Value>(
    a: &CsrMatrix<T>,
    rows: std::ops::Range<usize>,
    merged: &mut Vec<u32>,
) -> usize {
    let start = merged.len();
    if (3..=short_union::MAX_LISTS).contains(&rows.len()) {
        let mut lists: [&[u32]; short_union::MAX_LISTS] = [&[]; short_union::MAX_LISTS];
        for (list, r) in lists.iter_mut().zip(rows.clone()) {
            *list = a.row(r).0;
        }
        let mut union = [0; 32];
        if let Some(len) = short_union::union_into(&lists[..rows.len()], &mut union) {
            merged.extend_from_slice(&union[..len]);
            return len;
        }
    }
    merged.resize(start + a.row_ptr()[rows.end] - a.row_ptr()[rows.start], 0);
    let out = &mut merged[start..];
    let len = if rows.len() == 2 {
        merge_union(a.row(rows.start).0, a.row(rows.start + 1).0, out)
    } else {
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
    };
    merged.truncate(start + len);
    len
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

/// The second pass of [`Footprints::new`]: adds to each chunk's window ends (`ptr[1..]`) the
/// entries of the chunks before it, and to its merged windows' starts (`at`, from `nnz` on) the
/// merged entries before it. Returns the merged entries of all chunks.
fn add_chunk_bases(
    merged_of_chunks: &[(usize, Vec<u32>)],
    chunks: Vec<std::ops::Range<usize>>,
    (ptr, at): (&mut [usize], &mut [usize]),
    nnz: usize,
    par: Parallelism,
) -> usize {
    // The chunks' bases: entries before them, and merged entries before them.
    let mut bases = Vec::with_capacity(chunks.len());
    let (mut entries, mut merged_len) = (0, 0);
    for (chunk_entries, merged) in merged_of_chunks {
        bases.push((entries, merged_len));
        entries += chunk_entries;
        merged_len += merged.len();
    }
    let bounds = range_bounds(&chunks, 1);
    let items: Vec<_> = chunks
        .into_iter()
        .zip(bases)
        .zip(split_mut_at(&mut ptr[1..], &bounds))
        .zip(split_mut_at(at, &bounds))
        .collect();
    par.map(items, |(((_, (entries, merged)), ends), at)| {
        for end in ends {
            *end += entries;
        }
        // Merged windows start at `nnz` and beyond (so does an empty row at the matrix's end,
        // which reads as empty wherever it points).
        for at_g in at.iter_mut().filter(|at_g| **at_g >= nnz) {
            *at_g += merged;
        }
    });
    merged_len
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

    /// One-row windows borrow their rows and the others are stored apart; empty rows at the end
    /// (whose row starts at `nnz`) must still read as empty, in every chunk.
    #[test]
    fn borrowed_and_merged_windows_with_empty_rows() {
        // 30 rows; rows 26.. are empty.
        let t: Vec<(usize, usize, f64)> = (0..26)
            .flat_map(|i| [(i, i % 5, 1.0), (i, 5 + i % 3, 1.0)])
            .collect();
        let a = CsrMatrix::from_triplets(30, 8, t).unwrap();
        // Windows of 2 rows are merged, of 3 in registers, of 5 and 9 sorted.
        let w = Windows::from_lengths(&[1, 2, 1, 3, 1, 5, 1, 9, 2, 1, 1, 1, 2]).unwrap();
        assert_eq!(w.nrows(), 30);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let par = pool.install(|| Footprints::new(&a, &w, Parallelism::Rayon).unwrap());
        let seq = Footprints::new(&a, &w, Parallelism::Sequential).unwrap();
        assert_eq!(seq, par);
        for f in [&seq, &par] {
            assert_eq!(f.entries(), *f.offsets().last().unwrap());
            for g in 0..w.len() {
                let mut expect: Vec<u32> = w.rows(g).flat_map(|i| a.row(i).0.to_vec()).collect();
                expect.sort_unstable();
                expect.dedup();
                assert_eq!(f.get(g), &expect[..], "window {g}");
                assert_eq!(f.footprint_len(g), expect.len());
            }
        }
        // The same windows stored in one array compare equal: equality is of the columns.
        let packed = Footprints {
            ncols: seq.ncols,
            ptr: seq.ptr.clone(),
            columns: Columns::Packed(Cow::Owned(
                (0..w.len()).flat_map(|g| seq.get(g).to_vec()).collect(),
            )),
        };
        assert_eq!(packed, seq);
    }

    #[test]
    fn many_chunks_give_the_same_footprints() {
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
