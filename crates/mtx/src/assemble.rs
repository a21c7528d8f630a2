//! Building the expanded CSR matrix (both triangles) from the parsed chunks.
//!
//! Coordinate: `A[i][j] += v` for every stored entry, and `A[j][i] += mirror(v)` for off-diagonal
//! entries of triangular storage (mirror = identity, negation or conjugation). `O(nnz · parts +
//! nrows)`: one counting pass, then each of `parts` (one per thread) scans all entries and fills the
//! rows it owns, a disjoint `split_at_mut` region, so no locks; then rows are sorted (only when not
//! already sorted) and duplicates summed, as scipy does. Entries already in row-major order (no
//! duplicates, general storage) skip all that: their arrays are concatenated. Array: a dense
//! `m x n` CSR, `O(m·n)`.
//! Called by `read.rs`.

use crate::binary_error::BinaryError;
use crate::body::Chunk;
use crate::error::ParseError;
use crate::header::Symmetry;
use crate::value::MtxValue;
use rayon::prelude::*;
use spmv_reorder_sparse::{rows_cut_by_nonzeros, CsrMatrix, Value};
use std::ops::Range;

/// The value stored at `(j, i)` of a matrix with `symmetry`, given the one at `(i, j)`.
pub(crate) fn mirror<T: Value>(symmetry: Symmetry) -> fn(T) -> T {
    match symmetry {
        Symmetry::General | Symmetry::Symmetric => |v| v,
        Symmetry::SkewSymmetric => T::negate,
        Symmetry::Hermitian => T::conjugate,
    }
}

/// A vector of `len` copies of `value`, or [`ParseError::OutOfMemory`] instead of an abort.
/// Reserving first turns an impossible size into that error; `vec!` then takes memory the
/// system zeroed when `value`'s bytes are all zero, so its pages are first touched where they
/// are written (often by several threads), not all here.
pub(crate) fn try_filled<E: Clone>(
    len: usize,
    value: E,
    what: &'static str,
) -> Result<Vec<E>, ParseError> {
    reserve(&mut Vec::<E>::new(), len, what)?;
    Ok(vec![value; len])
}

/// The expanded CSR matrix of the coordinate entries in `chunks`.
///
/// # Errors
/// [`ParseError::OutOfMemory`] when the arrays cannot be allocated.
pub(crate) fn coordinate<T: MtxValue>(
    nrows: usize,
    ncols: usize,
    chunks: Vec<Chunk<T>>,
    symmetry: Symmetry,
) -> Result<CsrMatrix<T>, ParseError> {
    let mirror = symmetry.is_triangular().then(|| mirror::<T>(symmetry));
    if mirror.is_none() && is_row_major(&chunks) {
        return concatenate(nrows, ncols, chunks);
    }
    let row_ptr = count_rows(nrows, &chunks, mirror.is_some())?;
    let chunks = &chunks[..];
    let nnz = row_ptr[nrows];
    let mut col_idx = try_filled(nnz, 0u32, "column indices")?;
    let mut values = try_filled(nnz, T::zero(), "values")?;
    let parts = balanced_parts(&row_ptr, rayon::current_num_threads());
    let lens: Vec<Vec<usize>> = split_parts(&mut col_idx, &mut values, &row_ptr, &parts)
        .into_par_iter()
        .zip(parts.par_iter())
        .map(|((cols, vals), rows)| fill_rows(rows.clone(), &row_ptr, chunks, mirror, cols, vals))
        .collect::<Result<_, _>>()?;
    let lens: Vec<usize> = lens.into_iter().flatten().collect();
    let (row_ptr, col_idx, values) = compact(row_ptr, col_idx, values, &lens);
    Ok(CsrMatrix::new_unchecked(
        nrows, ncols, row_ptr, col_idx, values,
    ))
}

/// The CSR matrix of arrays that are CSR but for their order within rows: rows not sorted by
/// column are sorted (stably) and their duplicates summed, as scipy's `sum_duplicates` does.
/// `row_ptr` must be valid offsets into `col_idx` and `values`, and every column below `ncols`
/// (the binary readers check both first). Parallel over balanced row ranges, `O(nnz)` when
/// sorted.
pub(crate) fn canonical<T: MtxValue>(
    nrows: usize,
    ncols: usize,
    row_ptr: Vec<usize>,
    mut col_idx: Vec<u32>,
    mut values: Vec<T>,
) -> Result<CsrMatrix<T>, BinaryError> {
    let parts = balanced_parts(&row_ptr, rayon::current_num_threads());
    let lens: Vec<Vec<usize>> = split_parts(&mut col_idx, &mut values, &row_ptr, &parts)
        .into_par_iter()
        .zip(parts.par_iter())
        .map(|((cols, vals), rows)| {
            let base = row_ptr[rows.start];
            let mut scratch = Vec::new();
            rows.clone()
                .map(|i| {
                    let span = row_ptr[i] - base..row_ptr[i + 1] - base;
                    sort_row(&mut cols[span.clone()], &mut vals[span], &mut scratch).map_err(
                        |col| BinaryError::IntegerOverflow {
                            row: i as u64,
                            col: u64::from(col),
                        },
                    )
                })
                .collect()
        })
        .collect::<Result<_, _>>()?;
    let lens: Vec<usize> = lens.into_iter().flatten().collect();
    let (row_ptr, col_idx, values) = compact(row_ptr, col_idx, values, &lens);
    Ok(CsrMatrix::new_unchecked(
        nrows, ncols, row_ptr, col_idx, values,
    ))
}

/// True when the entries, in file order, are sorted by row then column without repeats: then
/// the CSR arrays are the entries as they are (files written by CSR codes usually are).
fn is_row_major<T: Sync>(chunks: &[Chunk<T>]) -> bool {
    const PIECE: usize = 1 << 16;
    // In overlapping pieces, so that one chunk holding every entry is checked in parallel too.
    let each_sorted = chunks.iter().all(|c| {
        c.row_major.unwrap_or_else(|| {
            (0..c.len().div_ceil(PIECE)).into_par_iter().all(|p| {
                let piece = p * PIECE..(p * PIECE + PIECE + 1).min(c.len());
                row_major(&c.rows[piece.clone()], &c.cols[piece])
            })
        })
    });
    let key = |c: &Chunk<T>, k: usize| (c.rows[k], c.cols[k]);
    let nonempty: Vec<&Chunk<T>> = chunks.iter().filter(|c| c.len() > 0).collect();
    each_sorted
        && nonempty
            .windows(2)
            .all(|w| key(w[0], w[0].len() - 1) < key(w[1], 0))
}

/// True when the entries `(rows[k], cols[k])` increase strictly, by row then column. Without
/// an early exit, so that the compiler can compare many at once.
pub(crate) fn row_major(rows: &[u32], cols: &[u32]) -> bool {
    let next = rows.iter().zip(cols).skip(1);
    rows.iter()
        .zip(cols)
        .zip(next)
        .fold(true, |ok, ((&r0, &c0), (&r1, &c1))| {
            ok & ((r0 < r1) | ((r0 == r1) & (c0 < c1)))
        })
}

/// The CSR matrix of row-major sorted entries: their columns and values concatenated (moved,
/// not copied, when they are in one chunk).
fn concatenate<T: MtxValue>(
    nrows: usize,
    ncols: usize,
    chunks: Vec<Chunk<T>>,
) -> Result<CsrMatrix<T>, ParseError> {
    let mut chunks: Vec<Chunk<T>> = chunks.into_iter().filter(|c| c.len() > 0).collect();
    if chunks.len() <= 1 {
        let c = chunks.pop().unwrap_or_else(Chunk::empty);
        let row_ptr = sorted_row_offsets(nrows, &c.rows)?;
        return Ok(CsrMatrix::new_unchecked(
            nrows, ncols, row_ptr, c.cols, c.vals,
        ));
    }
    let row_ptr = count_rows(nrows, &chunks, false)?;
    let nnz = row_ptr[nrows];
    let mut col_idx = Vec::new();
    let mut values = Vec::new();
    reserve(&mut col_idx, nnz, "column indices")?;
    reserve(&mut values, nnz, "values")?;
    for c in chunks {
        col_idx.extend_from_slice(&c.cols);
        values.extend_from_slice(&c.vals);
    }
    Ok(CsrMatrix::new_unchecked(
        nrows, ncols, row_ptr, col_idx, values,
    ))
}

/// Row offsets of `rows`, sorted: offset `i` is the number of entries in the rows before `i`.
/// Parallel over blocks of rows, each finding where its rows start by a binary search.
fn sorted_row_offsets(nrows: usize, rows: &[u32]) -> Result<Vec<usize>, ParseError> {
    const BLOCK: usize = 1 << 14;
    let mut ptr = try_filled(nrows + 1, 0usize, "row offsets")?;
    ptr.par_chunks_mut(BLOCK)
        .enumerate()
        .for_each(|(block, offsets)| {
            let first = block * BLOCK;
            let mut k = rows.partition_point(|&r| (r as usize) < first);
            for (row, offset) in (first..).zip(offsets) {
                while rows.get(k).is_some_and(|&r| (r as usize) < row) {
                    k += 1;
                }
                *offset = k;
            }
        });
    Ok(ptr)
}

/// Reserves room for `len` elements, or [`ParseError::OutOfMemory`] instead of an abort.
fn reserve<E>(v: &mut Vec<E>, len: usize, what: &'static str) -> Result<(), ParseError> {
    v.try_reserve_exact(len)
        .map_err(|_| ParseError::OutOfMemory {
            what,
            bytes: (len as u64).saturating_mul(std::mem::size_of::<E>() as u64),
        })
}

/// Row offsets of the expanded matrix (before duplicates are merged).
fn count_rows<T>(
    nrows: usize,
    chunks: &[Chunk<T>],
    mirrored: bool,
) -> Result<Vec<usize>, ParseError> {
    let mut ptr = try_filled(nrows + 1, 0usize, "row offsets")?;
    for chunk in chunks {
        for (&r, &c) in chunk.rows.iter().zip(&chunk.cols) {
            ptr[r as usize + 1] += 1;
            if mirrored && r != c {
                ptr[c as usize + 1] += 1;
            }
        }
    }
    for i in 0..nrows {
        ptr[i + 1] += ptr[i];
    }
    Ok(ptr)
}

/// Splits `0..nrows` into at most `parts` ranges of about equal entry counts.
fn balanced_parts(row_ptr: &[usize], parts: usize) -> Vec<Range<usize>> {
    let nrows = row_ptr.len() - 1;
    let bounds = rows_cut_by_nonzeros(row_ptr, parts.clamp(1, nrows.max(1)));
    bounds.windows(2).map(|w| w[0]..w[1]).collect()
}

/// The disjoint regions of `col_idx` and `values` owned by each part.
fn split_parts<'a, T>(
    mut col_idx: &'a mut [u32],
    mut values: &'a mut [T],
    row_ptr: &[usize],
    parts: &[Range<usize>],
) -> Vec<(&'a mut [u32], &'a mut [T])> {
    let mut out = Vec::with_capacity(parts.len());
    for rows in parts {
        let len = row_ptr[rows.end] - row_ptr[rows.start];
        let (c, c_rest) = col_idx.split_at_mut(len);
        let (v, v_rest) = values.split_at_mut(len);
        out.push((c, v));
        col_idx = c_rest;
        values = v_rest;
    }
    out
}

/// Fills the rows `rows` (whose entries are `cols`/`vals`), sorts them and merges duplicates;
/// returns the merged length of each row.
fn fill_rows<T: MtxValue>(
    rows: Range<usize>,
    row_ptr: &[usize],
    chunks: &[Chunk<T>],
    mirror: Option<fn(T) -> T>,
    cols: &mut [u32],
    vals: &mut [T],
) -> Result<Vec<usize>, ParseError> {
    let base = row_ptr[rows.start];
    let mut next: Vec<usize> = row_ptr[rows.clone()].iter().map(|&p| p - base).collect();
    let mut place = |r: u32, c: u32, v: T| {
        let r = r as usize;
        if rows.contains(&r) {
            let slot = &mut next[r - rows.start];
            cols[*slot] = c;
            vals[*slot] = v;
            *slot += 1;
        }
    };
    for chunk in chunks {
        for ((&r, &c), &v) in chunk.rows.iter().zip(&chunk.cols).zip(&chunk.vals) {
            place(r, c, v);
            if let Some(m) = mirror {
                if r != c {
                    place(c, r, m(v));
                }
            }
        }
    }
    let mut scratch = Vec::new();
    rows.map(|i| {
        let span = row_ptr[i] - base..row_ptr[i + 1] - base;
        sort_row(&mut cols[span.clone()], &mut vals[span], &mut scratch).map_err(|col| {
            ParseError::IntegerOverflow {
                what: "the sum of the duplicate entries",
                row: i as u64 + 1,
                col: u64::from(col) + 1,
            }
        })
    })
    .collect()
}

/// Sorts one row by column (stable, so duplicates are summed in file order) and sums duplicates
/// into the front; returns the merged length, or the column whose sum does not fit the type.
fn sort_row<T: MtxValue>(
    cols: &mut [u32],
    vals: &mut [T],
    scratch: &mut Vec<(u32, T)>,
) -> Result<usize, u32> {
    if cols.windows(2).all(|w| w[0] < w[1]) {
        return Ok(cols.len());
    }
    scratch.clear();
    scratch.extend(cols.iter().copied().zip(vals.iter().copied()));
    scratch.sort_by_key(|e| e.0);
    let mut len = 0;
    for &(c, v) in scratch.iter() {
        if len > 0 && cols[len - 1] == c {
            vals[len - 1] = vals[len - 1].checked_accumulate(v).ok_or(c)?;
        } else {
            cols[len] = c;
            vals[len] = v;
            len += 1;
        }
    }
    Ok(len)
}

/// Removes the gaps left by merged duplicates (`lens[i]` entries kept at the front of row `i`).
fn compact<T: Copy>(
    row_ptr: Vec<usize>,
    mut col_idx: Vec<u32>,
    mut values: Vec<T>,
    lens: &[usize],
) -> (Vec<usize>, Vec<u32>, Vec<T>) {
    if lens.iter().sum::<usize>() == col_idx.len() {
        return (row_ptr, col_idx, values);
    }
    let mut new_ptr = Vec::with_capacity(row_ptr.len());
    new_ptr.push(0);
    let mut write = 0;
    for (i, &len) in lens.iter().enumerate() {
        let read = row_ptr[i];
        col_idx.copy_within(read..read + len, write);
        values.copy_within(read..read + len, write);
        write += len;
        new_ptr.push(write);
    }
    col_idx.truncate(write);
    values.truncate(write);
    (new_ptr, col_idx, values)
}

/// The dense CSR matrix of an `array` body whose values, column by column, are `values`
/// (all of them, or the lower triangle, or the strictly lower one, as `symmetry` says).
///
/// # Errors
/// [`ArrayError::Parse`] when the matrix is too large to allocate, [`ArrayError::HermitianDiagonal`]
/// for a non-real diagonal value of a Hermitian matrix.
pub(crate) fn array<T: MtxValue>(
    nrows: usize,
    ncols: usize,
    values: &[T],
    symmetry: Symmetry,
) -> Result<CsrMatrix<T>, ArrayError> {
    let len = nrows
        .checked_mul(ncols)
        .ok_or(ArrayError::Parse(ParseError::TooLarge {
            what: "array entries",
            value: u64::MAX,
            max: usize::MAX as u64,
        }))?;
    let mut dense = try_filled(len, T::zero(), "values")?;
    let mirror = mirror::<T>(symmetry);
    let mut k = 0;
    for j in 0..ncols {
        let first = match symmetry {
            Symmetry::General => 0,
            Symmetry::Symmetric | Symmetry::Hermitian => j,
            Symmetry::SkewSymmetric => j + 1,
        };
        for i in first..nrows {
            let v = values[k];
            if i == j && symmetry == Symmetry::Hermitian && !v.is_real() {
                return Err(ArrayError::HermitianDiagonal { entry: k, index: i });
            }
            dense[i * ncols + j] = v;
            if symmetry.is_triangular() && i != j {
                dense[j * ncols + i] = mirror(v);
            }
            k += 1;
        }
    }
    let row_ptr = (0..=nrows).map(|i| i * ncols).collect();
    let mut col_idx = try_filled(len, 0u32, "column indices")?;
    for row in col_idx.chunks_mut(ncols.max(1)) {
        for (j, c) in row.iter_mut().enumerate() {
            *c = j as u32;
        }
    }
    Ok(CsrMatrix::new_unchecked(
        nrows, ncols, row_ptr, col_idx, dense,
    ))
}

/// Why an `array` body cannot be assembled.
#[derive(Debug)]
pub(crate) enum ArrayError {
    /// Size or memory.
    Parse(ParseError),
    /// The `entry`-th value (0-based), on the diagonal at 0-based `index`, is not real.
    HermitianDiagonal { entry: usize, index: usize },
}

impl From<ParseError> for ArrayError {
    fn from(e: ParseError) -> Self {
        ArrayError::Parse(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::{parse_chunk, split_lines, Layout};
    use crate::header::Format;

    #[test]
    fn row_major_means_strictly_increasing_by_row_then_column() {
        assert!(row_major(&[], &[]));
        assert!(row_major(&[0, 0, 1, 3], &[2, 5, 0, 0]));
        assert!(!row_major(&[0, 0], &[5, 5]), "a repeat");
        assert!(!row_major(&[0, 1, 0], &[0, 0, 1]), "a row goes back");
        assert!(!row_major(&[2, 2], &[3, 1]), "a column goes back");
    }

    #[test]
    fn sorted_row_offsets_count_what_each_row_holds() {
        // Rows of every length from 0 to 5, and runs of empty rows across the parallel blocks.
        let nrows = 40_000;
        let rows: Vec<u32> = (0..nrows as u32)
            .filter(|r| r % 7 != 0 && !(17_000..33_000).contains(r))
            .flat_map(|r| std::iter::repeat_n(r, (r % 6) as usize))
            .collect();
        let chunk = Chunk::of_entries(
            rows.clone(),
            vec![0; rows.len()],
            vec![0.0; rows.len()],
            None,
        );
        let counted = count_rows(nrows, std::slice::from_ref(&chunk), false).unwrap();
        assert_eq!(sorted_row_offsets(nrows, &rows).unwrap(), counted);
        assert_eq!(sorted_row_offsets(3, &[]).unwrap(), vec![0; 4]);
    }

    fn coo(text: &str, symmetry: Symmetry, threads: usize, chunk: usize) -> CsrMatrix<f64> {
        let layout = Layout {
            format: Format::Coordinate,
            symmetry,
            nrows: 4,
            ncols: 4,
        };
        let chunks: Vec<Chunk<f64>> = split_lines(text.as_bytes(), chunk)
            .iter()
            .map(|b| parse_chunk(b, &layout))
            .collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| coordinate(4, 4, chunks, symmetry)).unwrap()
    }

    #[test]
    fn expands_and_sums_duplicates_for_any_parts() {
        let text = "4 1 1\n2 2 5\n3 1 2\n4 1 10\n1 1 -1\n";
        for threads in [1, 2, 3] {
            for chunk in [1, 7, 100] {
                let a = coo(text, Symmetry::Symmetric, threads, chunk);
                let t: Vec<_> = (0..4).map(|i| a.row(i).0.to_vec()).collect();
                assert_eq!(t, vec![vec![0, 2, 3], vec![1], vec![0], vec![0]]);
                assert_eq!(a.row(0).1, &[-1.0, 2.0, 11.0]);
                assert_eq!(a.row(3).1, &[11.0]);
            }
        }
    }

    #[test]
    fn sorted_and_unsorted_paths_agree() {
        let sorted = "1 1 1\n1 3 2\n2 2 3\n4 1 4\n4 4 5\n";
        let shuffled = "4 4 5\n1 3 2\n2 2 3\n1 1 1\n4 1 4\n";
        let twice = "1 1 1\n1 3 2\n2 2 3\n4 1 4\n4 4 5\n4 4 0\n";
        for chunk in [1, 7, 100] {
            let a = coo(sorted, Symmetry::General, 2, chunk);
            assert_eq!(a, coo(shuffled, Symmetry::General, 2, chunk));
            assert_eq!(a, coo(twice, Symmetry::General, 1, chunk));
            assert_eq!(a.row_ptr(), &[0, 2, 3, 3, 5]);
            assert_eq!(a.col_idx(), &[0, 2, 1, 0, 3]);
        }
    }

    #[test]
    fn canonical_sorts_rows_and_sums_duplicates() {
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let a = pool
                .install(|| {
                    canonical(
                        3,
                        4,
                        vec![0, 3, 3, 5],
                        vec![3, 0, 3, 1, 2],
                        vec![1.0, 2.0, 4.0, 5.0, 6.0],
                    )
                })
                .unwrap();
            assert_eq!(a.row_ptr(), &[0, 2, 2, 4]);
            assert_eq!(a.col_idx(), &[0, 3, 1, 2]);
            assert_eq!(a.values(), &[2.0, 5.0, 5.0, 6.0]);
        }
    }

    #[test]
    fn parts_cover_all_rows() {
        let ptr = [0, 5, 5, 6, 20, 20];
        for p in 1..8 {
            let parts = balanced_parts(&ptr, p);
            assert_eq!(parts.first().unwrap().start, 0);
            assert_eq!(parts.last().unwrap().end, 5);
            assert!(parts.windows(2).all(|w| w[0].end == w[1].start));
        }
        assert_eq!(balanced_parts(&[0], 4), vec![0..0]);
        assert_eq!(balanced_parts(&ptr, 2), vec![0..4, 4..5]);
        assert_eq!(balanced_parts(&ptr, 3), vec![0..3, 3..4, 4..5]);
    }

    #[test]
    fn array_symmetric_mirrors_lower_triangle() {
        // 3x3 skew: strictly lower values (2,1)=1, (3,1)=2, (3,2)=3, column-major.
        let a = array(3, 3, &[1.0, 2.0, 3.0], Symmetry::SkewSymmetric).unwrap();
        assert_eq!(a.row(0).1, &[0.0, -1.0, -2.0]);
        assert_eq!(a.row(2).1, &[2.0, 3.0, 0.0]);
        let g = array(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], Symmetry::General).unwrap();
        assert_eq!(g.row(0).1, &[1.0, 3.0, 5.0]);
        assert_eq!(g.row(1).0, &[0, 1, 2]);
    }
}
