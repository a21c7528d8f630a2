//! `Aᵀ` by a counting sort over columns, in two passes on the pool's threads for large matrices.
//!
//! The one-pass sort counts each column's entries, turns the counts into offsets and scatters each
//! entry to its column's next slot. On a shuffled matrix that scatter writes at random over the
//! whole result: it was most of the time RCM took to build the graph of `A + Aᵀ` of a shuffled
//! 10M-nonzero unsymmetric matrix. The two-pass sort cuts the rows into one stretch per thread and
//! the columns into blocks whose part of the result fits in L2. The first pass deals each
//! stretch's entries, in row order, to its blocks' parts of the result (a range per stretch in
//! each part, written in sequence); the second sorts each block's part by column, its random
//! writes within a part in cache. The result is the one-pass sort's, entry for entry. Memory
//! beyond the result: each entry's column within its block (2 bytes a nonzero) and a copy of one
//! part per thread, against the one-pass sort's offset per column. `O(nnz + ncols)` work either
//! way. Called by [`CsrMatrix::try_transpose`] and [`CsrMatrix::pattern_transpose`].

use crate::occupied::try_filled;
use crate::{rows_cut_by_nonzeros, split_by_offsets, CsrMatrix, SparseError, Value};
use rayon::prelude::*;

/// From this many nonzeros on the two-pass sort runs, on any number of threads: on one thread it
/// transposed a shuffled 10M-nonzero banded matrix in 0.086 s where the one-pass sort took 0.15 s,
/// and the same matrix in its banded order in 0.081-0.082 s against 0.072-0.083 s
/// (`docs/results.md`).
const TWO_PASS_MIN_NNZ: usize = 1 << 20;
/// The fewest nonzeros a stretch gets.
const STRETCH_MIN_NNZ: usize = 1 << 18;

/// `Aᵀ` with each value mapped by `value`.
pub(crate) fn transposed_with<T: Value, U: Value>(
    a: &CsrMatrix<T>,
    value: impl Fn(T) -> U + Sync,
) -> Result<CsrMatrix<U>, SparseError> {
    if a.nnz() < TWO_PASS_MIN_NNZ {
        return one_pass(a, value);
    }
    let stretches = stretch_count(a.nnz(), rayon::current_num_threads());
    two_pass(a, value, stretches, ColumnBlocks::of(a.ncols(), a.nnz()))
}

/// How many stretches of rows the two-pass sort uses: one per thread, at least
/// [`STRETCH_MIN_NNZ`] nonzeros each.
fn stretch_count(nnz: usize, threads: usize) -> usize {
    threads.min(nnz / STRETCH_MIN_NNZ).max(1)
}

/// The one-pass counting sort, on the calling thread.
fn one_pass<T: Value, U: Value>(
    a: &CsrMatrix<T>,
    value: impl Fn(T) -> U,
) -> Result<CsrMatrix<U>, SparseError> {
    let ncols = a.ncols();
    let mut ptr = try_filled(ncols + 1, 0usize, "row offsets")?;
    for &c in a.col_idx() {
        ptr[c as usize + 1] += 1;
    }
    for j in 0..ncols {
        ptr[j + 1] += ptr[j];
    }
    let mut next = try_filled(ncols, 0usize, "row offsets")?;
    next.copy_from_slice(&ptr[..ncols]);
    let (mut col_idx, mut values) = result_arrays(a, &value)?;
    for i in 0..a.nrows() {
        let (cols, vals) = a.row(i);
        for (&c, &v) in cols.iter().zip(vals) {
            let dst = next[c as usize];
            col_idx[dst] = i as u32;
            values[dst] = value(v);
            next[c as usize] += 1;
        }
    }
    Ok(CsrMatrix::new_unchecked(
        ncols,
        a.nrows(),
        ptr,
        col_idx,
        values,
    ))
}

/// The result's column indices and values, every slot to be written by the sort.
fn result_arrays<T: Value, U: Value>(
    a: &CsrMatrix<T>,
    value: &impl Fn(T) -> U,
) -> Result<(Vec<u32>, Vec<U>), SparseError> {
    let col_idx = try_filled(a.nnz(), 0u32, "column indices")?;
    let values = match a.values().first() {
        Some(&v) => try_filled(a.nnz(), value(v), "values")?,
        None => Vec::new(),
    };
    Ok((col_idx, values))
}

/// The two-pass sort over `stretches` stretches of rows and the column `blocks`. Block `b`'s
/// entries take one part of the result, and in it stretch `t`'s entries take a range of their
/// own, after those of the stretches before. The first pass, a thread of the pool per stretch,
/// deals each entry's row and value to its block's range for the stretch, in row order, and its
/// column within the block to a side array. The second, a thread of the pool per block, sorts
/// each block's part by column in cache.
fn two_pass<T: Value, U: Value>(
    a: &CsrMatrix<T>,
    value: impl Fn(T) -> U + Sync,
    stretches: usize,
    blocks: ColumnBlocks,
) -> Result<CsrMatrix<U>, SparseError> {
    let bounds = rows_cut_by_nonzeros(a.row_ptr(), stretches);
    let ranges = dealt_ranges(a, &bounds, blocks);
    let (mut col_idx, mut values) = result_arrays(a, &value)?;
    let mut columns = try_filled(a.nnz(), 0u16, "columns within blocks")?;
    {
        let rows = by_stretch(split_by_offsets(&mut col_idx, &ranges), stretches);
        let vals = by_stretch(split_by_offsets(&mut values, &ranges), stretches);
        let cols = by_stretch(split_by_offsets(&mut columns, &ranges), stretches);
        let dealt = rows.into_iter().zip(vals).zip(cols).enumerate();
        dealt
            .collect::<Vec<_>>()
            .into_par_iter()
            .for_each(|(t, ((rows, vals), cols))| {
                deal(
                    a,
                    &value,
                    (bounds[t], bounds[t + 1]),
                    blocks,
                    rows,
                    vals,
                    cols,
                );
            });
    }
    // Block `b`'s part of the result is `parts[b]..parts[b + 1]`.
    let parts: Vec<usize> = ranges.iter().step_by(stretches).copied().collect();
    let mut ptr = try_filled(a.ncols() + 1, 0usize, "row offsets")?;
    let rows = split_by_offsets(&mut col_idx, &parts);
    let vals = split_by_offsets(&mut values, &parts);
    let cols = split_by_offsets(&mut columns, &parts);
    let ends = ptr[1..].chunks_mut(blocks.columns);
    let sorted = ends.zip(rows).zip(vals).zip(cols).enumerate();
    sorted
        .collect::<Vec<_>>()
        .into_par_iter()
        .for_each(|(b, (((ends, rows), vals), cols))| {
            sort_block(parts[b], ends, rows, vals, cols);
        });
    Ok(CsrMatrix::new_unchecked(
        a.ncols(),
        a.nrows(),
        ptr,
        col_idx,
        values,
    ))
}

/// The columns of `A` cut into blocks whose part of the result (their entries' rows) fits in a
/// core's L2 when the columns are read about evenly, so that sorting a block writes at random
/// only within it; at most 65,536 columns, so that a column within its block fits a `u16`.
#[derive(Clone, Copy)]
struct ColumnBlocks {
    /// Columns per block (a power of two) and its log.
    columns: usize,
    shift: u32,
    count: usize,
}

impl ColumnBlocks {
    /// About [`RESULT_BYTES_PER_BLOCK`] of rows per block, from [`COLUMNS_PER_BLOCK_MIN`] to
    /// 65,536 columns.
    fn of(ncols: usize, nnz: usize) -> Self {
        let blocks = (nnz * 4 / RESULT_BYTES_PER_BLOCK).max(1);
        Self::of_columns(ncols, (ncols / blocks).max(COLUMNS_PER_BLOCK_MIN))
    }

    /// Blocks of `columns` columns (rounded up to a power of two, at most 65,536) over `ncols`.
    fn of_columns(ncols: usize, columns: usize) -> Self {
        let columns = columns.clamp(1, 1 << 16).next_power_of_two();
        Self {
            columns,
            shift: columns.trailing_zeros(),
            count: ncols.div_ceil(columns).max(1),
        }
    }

    /// The block of column `c`, and `c` within it.
    #[inline]
    fn of_column(self, c: u32) -> (usize, u16) {
        let c = c as usize;
        (c >> self.shift, (c & (self.columns - 1)) as u16)
    }
}

/// The bytes of the result's rows each block of columns aims at.
const RESULT_BYTES_PER_BLOCK: usize = 256 * 1024;
/// The fewest columns in a block.
const COLUMNS_PER_BLOCK_MIN: usize = 1024;

/// The bounds of the ranges the first pass deals to, block after block and within a block
/// stretch after stretch (`blocks.count · stretches + 1` offsets into the result), from each
/// stretch's count of entries per block (counted on the pool's threads).
fn dealt_ranges<T: Value>(a: &CsrMatrix<T>, bounds: &[usize], blocks: ColumnBlocks) -> Vec<usize> {
    let counts: Vec<Vec<usize>> = bounds
        .par_windows(2)
        .map(|w| {
            let mut count = vec![0usize; blocks.count];
            for &c in &a.col_idx()[a.row_ptr()[w[0]]..a.row_ptr()[w[1]]] {
                count[blocks.of_column(c).0] += 1;
            }
            count
        })
        .collect();
    let mut ranges = Vec::with_capacity(blocks.count * counts.len() + 1);
    ranges.push(0);
    for b in 0..blocks.count {
        for count in &counts {
            ranges.push(ranges[ranges.len() - 1] + count[b]);
        }
    }
    ranges
}

/// The ranges of [`dealt_ranges`] (block-major) handed to their stretches: `[t][b]`.
fn by_stretch<E>(ranges: Vec<&mut [E]>, stretches: usize) -> Vec<Vec<&mut [E]>> {
    let mut out: Vec<Vec<&mut [E]>> = (0..stretches).map(|_| Vec::new()).collect();
    for (k, range) in ranges.into_iter().enumerate() {
        out[k % stretches].push(range);
    }
    out
}

/// The first pass for the rows `from..to` of one stretch: each entry's row to `rows[b]`, its
/// value to `vals[b]` and its column within block `b` to `cols[b]`, where `b` is its column's
/// block, in row order.
fn deal<T: Value, U: Value>(
    a: &CsrMatrix<T>,
    value: &impl Fn(T) -> U,
    (from, to): (usize, usize),
    blocks: ColumnBlocks,
    mut rows: Vec<&mut [u32]>,
    mut vals: Vec<&mut [U]>,
    mut cols: Vec<&mut [u16]>,
) {
    let mut filled = vec![0usize; blocks.count];
    for i in from..to {
        let (row_cols, row_vals) = a.row(i);
        for (&c, &v) in row_cols.iter().zip(row_vals) {
            let (b, within) = blocks.of_column(c);
            let at = filled[b];
            rows[b][at] = i as u32;
            vals[b][at] = value(v);
            cols[b][at] = within;
            filled[b] += 1;
        }
    }
}

/// The second pass for one block, whose part of the result starts at slot `first_slot`: counts
/// its columns, writes each column's end offset into `ends`, and moves the rows and values by
/// column (each column's in the order dealt: rows increasing) with a copy of the part.
fn sort_block<U: Value>(
    first_slot: usize,
    ends: &mut [usize],
    rows: &mut [u32],
    vals: &mut [U],
    cols: &[u16],
) {
    let mut next = vec![0usize; ends.len()];
    for &c in cols {
        next[c as usize] += 1;
    }
    let mut slot = 0;
    for (count, end) in next.iter_mut().zip(ends.iter_mut()) {
        let entries = *count;
        *count = slot;
        slot += entries;
        *end = first_slot + slot;
    }
    let (dealt_rows, dealt_vals) = (rows.to_vec(), vals.to_vec());
    for (k, &c) in cols.iter().enumerate() {
        let at = &mut next[c as usize];
        rows[*at] = dealt_rows[k];
        if let Some(v) = dealt_vals.get(k) {
            vals[*at] = *v;
        }
        *at += 1;
    }
}

/// [`two_pass`] with `stretches` stretches and blocks of `columns` columns, for the crate's
/// property tests.
#[cfg(test)]
pub(crate) fn two_pass_with(
    a: &CsrMatrix<f64>,
    stretches: usize,
    columns: usize,
) -> CsrMatrix<f64> {
    two_pass(
        a,
        |v| v,
        stretches,
        ColumnBlocks::of_columns(a.ncols(), columns),
    )
    .unwrap()
}

/// [`one_pass`], for the crate's property tests.
#[cfg(test)]
pub(crate) fn one_pass_with(a: &CsrMatrix<f64>) -> CsrMatrix<f64> {
    one_pass(a, |v| v).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A matrix of `n` rows and columns whose rows hold columns spread by a multiplicative
    /// pattern, with values that name their position.
    fn spread(n: usize, per_row: usize) -> CsrMatrix<f64> {
        let mut triplets = Vec::with_capacity(n * per_row);
        for i in 0..n {
            for k in 0..per_row {
                let j = (i * 7919 + k * 104_729) % n;
                triplets.push((i, j, (i * n + j) as f64));
            }
        }
        CsrMatrix::from_triplets(n, n, triplets).unwrap()
    }

    #[test]
    fn two_pass_sort_gives_the_one_pass_sort_entry_for_entry() {
        let a = spread(5000, 20);
        let expected = one_pass(&a, |v| v).unwrap();
        assert_eq!(expected.transpose(), a);
        for (stretches, columns) in [(1, 1024), (2, 1024), (3, 64), (7, 1), (2, 1 << 20)] {
            let blocks = ColumnBlocks::of_columns(a.ncols(), columns);
            let got = two_pass(&a, |v| v, stretches, blocks).unwrap();
            assert_eq!(got, expected, "{stretches} stretches, blocks of {columns}");
            let pattern = two_pass(&a, |_| (), stretches, blocks).unwrap();
            assert_eq!(
                pattern,
                expected.pattern(),
                "{stretches} stretches, blocks of {columns}"
            );
        }
    }

    #[test]
    fn two_pass_sort_with_empty_rows_columns_and_blocks() {
        // Rows 0..10 empty, a band after, columns 3,000.. read by no row.
        let triplets: Vec<(usize, usize, f64)> = (10..3000)
            .flat_map(|i| (0..40).map(move |k| (i, (i + k) % 2000, 1.0 + k as f64)))
            .collect();
        let a = CsrMatrix::from_triplets(3000, 5000, triplets).unwrap();
        let expected = one_pass(&a, |v| v).unwrap();
        for (stretches, columns) in [(2, 256), (5, 1000)] {
            let blocks = ColumnBlocks::of_columns(a.ncols(), columns);
            assert_eq!(two_pass(&a, |v| v, stretches, blocks).unwrap(), expected);
        }
    }

    #[test]
    fn large_matrices_take_the_two_pass_sort_on_one_thread_or_several() {
        let a = spread(40_000, 30);
        assert!(a.nnz() >= TWO_PASS_MIN_NNZ);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let t = pool.install(|| a.pattern_transpose());
        assert_eq!(t, one_pass(&a, |_| ()).unwrap());
    }

    #[test]
    fn stretch_count_is_one_per_thread_with_enough_nonzeros_each() {
        assert_eq!(stretch_count(TWO_PASS_MIN_NNZ, 1), 1);
        assert_eq!(stretch_count(10_000_000, 2), 2);
        assert_eq!(stretch_count(10_000_000, 64), 38);
    }

    #[test]
    fn column_blocks_cover_the_columns() {
        let b = ColumnBlocks::of(1_000_000, 10_000_000);
        assert_eq!((b.columns, b.count), (8192, 123));
        let tiny = ColumnBlocks::of(10, 2_000_000);
        assert_eq!((tiny.columns, tiny.count), (1024, 1));
        let odd = ColumnBlocks::of_columns(5000, 1000);
        assert_eq!((odd.columns, odd.shift, odd.count), (1024, 10, 5));
    }

    #[test]
    fn stretches_cut_the_rows_by_nonzeros() {
        let a = spread(1000, 4);
        assert_eq!(
            rows_cut_by_nonzeros(a.row_ptr(), 4),
            [0, 250, 500, 750, 1000]
        );
        assert_eq!(rows_cut_by_nonzeros(&[0, 0, 0], 2), [0, 0, 2]);
    }
}
