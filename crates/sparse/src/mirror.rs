//! Whether every stored entry `A[i][j]` has its mirror `A[j][i]` (symmetry of the structure, and
//! of the values by a rule the caller gives), without a transpose (which would cost a second
//! matrix).
//!
//! The check is a sweep, `O(nnz + n)` with a cursor of 4 bytes per row: visiting rows `i` in
//! increasing order meets the entries of column `j` in increasing `i`, which for a symmetric
//! structure is exactly the order of row `j`; so row `j`'s cursor must match each entry in turn.
//! Every entry consumes one cursor step and no row is overrun, so a sweep that reaches the end
//! has found a mirror for every entry. A large matrix is swept in up to 4 blocks of rows side by
//! side, each with its own cursors, started by a binary search in each row (`O(n log(row
//! length))` per block). When the sweep stops early, the first unmirrored entry in row order is
//! found by lookup: each stored `(i, j)` searched for in row `j` (sorted), `O(nnz log(row
//! length))`, parallel over rows. The lookup alone would do, but on R-MAT's hub rows each search
//! costs a dozen cache misses, where the sweep's cursor costs one (a symmetry check took 2.5x as
//! long by lookup as by the sweep when writing R-MAT scale 20).
//!
//! The sweep asks ahead for what it reads at random (a row's cursor and offsets, then the mirror
//! entry). With that and two blocks on two threads, the check of R-MAT scale 20 shuffled took
//! 0.23 s instead of 0.80 s, of the shuffled 1M-row 3D grid 0.05 s instead of 0.23 s (half of
//! RCM's time there), and of the grid as generated, read in sequence, 14 ms as before. Called by
//! the Matrix Market writer's symmetry check, `info` and the peer orderings' graph.

use crate::{prefetch, rows_cut_by_nonzeros, CsrMatrix, Value};
use rayon::prelude::*;
use std::ops::Range;

/// Rows per rayon task: enough lookups per task to amortise scheduling.
const ROWS_PER_TASK: usize = 1024;

/// The blocks of rows of `row_ptr` the sweep takes side by side: one block below
/// [`SWEEP_PARALLEL_MIN_NNZ`] entries, else up to `threads` (at most [`SWEEP_MAX_BLOCKS`]) of
/// about equal entries. Each block beyond the first costs a cursor per row.
fn sweep_blocks(row_ptr: &[usize], threads: usize) -> Vec<Range<usize>> {
    let rows = row_ptr.len().saturating_sub(1);
    let nnz = row_ptr.last().copied().unwrap_or(0);
    let blocks = threads.clamp(1, SWEEP_MAX_BLOCKS);
    if nnz < SWEEP_PARALLEL_MIN_NNZ || blocks == 1 {
        return std::iter::once(0..rows).collect();
    }
    let bounds = rows_cut_by_nonzeros(row_ptr, blocks);
    let blocks = bounds.windows(2).map(|w| w[0]..w[1]);
    blocks.filter(|b| !b.is_empty()).collect()
}

/// Below this many entries the sweep runs on the calling thread: a block's cursors cost more
/// than the sweep saves.
const SWEEP_PARALLEL_MIN_NNZ: usize = 1 << 20;

/// The most blocks the sweep takes side by side: each holds a cursor per row (4 bytes).
const SWEEP_MAX_BLOCKS: usize = 4;

/// How many entries ahead the sweep asks for each stage of what it reads
/// ([`CsrMatrix::ask_ahead_of_sweep`]).
const SWEEP_AHEAD: usize = 16;

impl<T: Value> CsrMatrix<T> {
    /// The first stored entry `(i, j)`, in row order then column order, whose mirror `(j, i)`
    /// is not stored, or for which `matches(i, j, A[i][j], A[j][i])` is false; `None` when every
    /// entry has a matching mirror. An entry of a rectangular matrix outside the leading square
    /// has no mirror. Runs on the current rayon pool.
    pub fn first_unmirrored<F>(&self, matches: F) -> Option<(usize, usize)>
    where
        F: Fn(usize, usize, T, T) -> bool + Sync,
    {
        if self.nrows() == self.ncols() && self.all_mirrored(&matches) {
            return None;
        }
        (0..self.nrows())
            .into_par_iter()
            .with_min_len(ROWS_PER_TASK)
            .find_map_first(|i| self.first_unmirrored_in_row(i, &matches))
    }

    /// True when the positions of the entries are symmetric (`(i,j)` stored iff `(j,i)` stored).
    pub fn is_structurally_symmetric(&self) -> bool {
        self.nrows() == self.ncols() && self.all_mirrored(&|_, _, _, _| true)
    }

    /// The sweep of the module's doc: true when every entry of this square matrix has a mirror
    /// that `matches`. Large matrices are swept in blocks of rows side by side
    /// ([`sweep_blocks`]).
    fn all_mirrored<F>(&self, matches: &F) -> bool
    where
        F: Fn(usize, usize, T, T) -> bool + Sync,
    {
        let blocks = sweep_blocks(self.row_ptr(), rayon::current_num_threads());
        match blocks.as_slice() {
            [rows] => self.rows_mirrored(rows.clone(), matches),
            _ => blocks
                .into_par_iter()
                .all(|rows| self.rows_mirrored(rows, matches)),
        }
    }

    /// The sweep over `rows`: true when each of their entries has a mirror that `matches`. Each
    /// row's cursor starts where the rows before `rows` leave it in a symmetric matrix, at the
    /// row's first column at or after `rows.start`. An entry `(i, j)` is then matched against the
    /// next entry of row `j` from there, so a block that ends has found a mirror for each of its
    /// entries, whatever the other blocks hold.
    fn rows_mirrored<F>(&self, rows: Range<usize>, matches: &F) -> bool
    where
        F: Fn(usize, usize, T, T) -> bool,
    {
        let (row_ptr, col_idx, values) = (self.row_ptr(), self.col_idx(), self.values());
        let first = rows.start;
        // A row's length is at most `ncols <= u32::MAX`, so an offset within it fits a u32.
        let mut cursor: Vec<u32> = match first {
            0 => vec![0; self.nrows()],
            _ => (0..self.nrows())
                .map(|j| self.row(j).0.partition_point(|&c| (c as usize) < first) as u32)
                .collect(),
        };
        for i in rows {
            for e in row_ptr[i]..row_ptr[i + 1] {
                self.ask_ahead_of_sweep(&cursor, e);
                let j = col_idx[e] as usize;
                let k = row_ptr[j] + cursor[j] as usize;
                let found = k < row_ptr[j + 1] && col_idx[k] == i as u32;
                if !found || !matches(i, j, values[e], values[k]) {
                    return false;
                }
                cursor[j] += 1;
            }
        }
        true
    }

    /// Asks for what the sweep reads at random while it is at entry `e`: the cursor and offsets
    /// of the row `2 · SWEEP_AHEAD` entries on, and the mirror entry (index and value) the row
    /// `SWEEP_AHEAD` entries on expects, whose cursor and offset were asked for before. On a
    /// shuffled matrix each is a cache miss the sweep would otherwise wait for in turn.
    #[inline]
    fn ask_ahead_of_sweep(&self, cursor: &[u32], e: usize) {
        let (row_ptr, col_idx) = (self.row_ptr(), self.col_idx());
        if let Some(&j) = col_idx.get(e + 2 * SWEEP_AHEAD) {
            prefetch(cursor, j as usize);
            prefetch(row_ptr, j as usize);
        }
        if let Some(&j) = col_idx.get(e + SWEEP_AHEAD) {
            let k = row_ptr[j as usize] + cursor[j as usize] as usize;
            prefetch(col_idx, k);
            // A pattern's values take no memory (`size_of::<T>()` is a constant).
            if std::mem::size_of::<T>() > 0 {
                prefetch(self.values(), k);
            }
        }
    }

    /// [`Self::first_unmirrored`] within row `i`.
    fn first_unmirrored_in_row<F>(&self, i: usize, matches: &F) -> Option<(usize, usize)>
    where
        F: Fn(usize, usize, T, T) -> bool,
    {
        let (cols, vals) = self.row(i);
        cols.iter().zip(vals).find_map(|(&j, &v)| {
            let j = j as usize;
            let mirror = (j < self.nrows()).then(|| self.row(j)).and_then(|(c, w)| {
                let k = c.binary_search(&(i as u32)).ok()?;
                Some(w[k])
            });
            match mirror {
                Some(w) if matches(i, j, v, w) => None,
                _ => Some((i, j)),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first unmirrored entry by the transpose: the oracle of the lookup.
    fn by_transpose(a: &CsrMatrix<i64>) -> Option<(usize, usize)> {
        let t = a.transpose();
        (0..a.nrows()).find_map(|i| {
            let (c, v) = a.row(i);
            c.iter().zip(v).find_map(|(&j, &x)| {
                let mirrored = (i < t.nrows())
                    .then(|| t.row(i))
                    .is_some_and(|(tc, tv)| tc.binary_search(&j).is_ok_and(|k| tv[k] == x));
                (!mirrored).then_some((i, j as usize))
            })
        })
    }

    fn m(nrows: usize, ncols: usize, t: &[(usize, usize, i64)]) -> CsrMatrix<i64> {
        CsrMatrix::from_triplets(nrows, ncols, t.iter().copied()).unwrap()
    }

    #[test]
    fn lookup_matches_the_transpose() {
        let cases = [
            vec![(0, 1, 1), (1, 0, 1), (2, 2, 5)],
            vec![(0, 1, 1), (1, 2, 1), (2, 1, 1)],
            vec![(0, 2, 1), (1, 1, 1), (2, 0, 1), (2, 1, 1)],
            vec![(0, 1, 1), (1, 0, 2)],
            vec![
                (1, 0, 1),
                (0, 1, 1),
                (0, 2, 3),
                (2, 0, 3),
                (1, 2, 4),
                (2, 1, 4),
            ],
            vec![],
        ];
        for t in cases {
            let a = m(3, 3, &t);
            let equal = |_, _, x: i64, y: i64| x == y;
            assert_eq!(a.first_unmirrored(equal), by_transpose(&a), "{t:?}");
            let structural = a.pattern().transpose() == a.pattern();
            assert_eq!(a.is_structurally_symmetric(), structural, "{t:?}");
        }
    }

    #[test]
    fn the_rule_sees_both_values_and_the_position() {
        let a = m(2, 2, &[(0, 1, 3), (1, 0, -3), (1, 1, 0)]);
        let skew = |i, j, x: i64, y: i64| x == -y && (i != j || x == 0);
        assert_eq!(a.first_unmirrored(skew), None);
        assert_eq!(a.first_unmirrored(|_, _, x, y| x == y), Some((0, 1)));
        let b = m(2, 2, &[(1, 1, 2)]);
        assert_eq!(b.first_unmirrored(skew), Some((1, 1)));
    }

    #[test]
    fn rectangles_have_no_mirror_outside_the_square() {
        let a = m(2, 3, &[(0, 0, 1), (1, 2, 1)]);
        assert_eq!(a.first_unmirrored(|_, _, _, _| true), Some((1, 2)));
        assert!(!a.is_structurally_symmetric());
        assert!(!m(3, 2, &[]).is_structurally_symmetric());
    }

    /// Many rows, so that several tasks run: the first entry in row order is found whatever the
    /// number of threads, and a symmetric matrix has none.
    #[test]
    fn first_in_row_order_on_any_thread_count() {
        let n = 5 * ROWS_PER_TASK;
        let sym: Vec<_> = (0..n)
            .flat_map(|i| [(i, (i * 31) % n, 1), ((i * 31) % n, i, 1)])
            .collect();
        let mut broken = sym.clone();
        broken.extend([(4000, 7, 1), (3000, 9, 1)]);
        let (a, b) = (m(n, n, &sym), m(n, n, &broken));
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let equal = |_, _, x: i64, y: i64| x == y;
            assert_eq!(pool.install(|| a.first_unmirrored(equal)), None);
            assert_eq!(pool.install(|| b.first_unmirrored(equal)), Some((3000, 9)));
        }
    }

    #[test]
    fn blocks_split_the_entries_evenly_and_cover_every_row() {
        // Rows of 1, 2, ..., 2,000 entries: about 2M entries in 4 blocks of about 500,000.
        let mut row_ptr = vec![0];
        for len in 1..=2000 {
            row_ptr.push(row_ptr.last().unwrap() + len);
        }
        let blocks = sweep_blocks(&row_ptr, 8);
        assert_eq!(blocks.len(), SWEEP_MAX_BLOCKS);
        assert_eq!((blocks[0].start, blocks[3].end), (0, 2000));
        for pair in blocks.windows(2) {
            assert_eq!(pair[0].end, pair[1].start);
        }
        let nnz = |r: &Range<usize>| row_ptr[r.end] - row_ptr[r.start];
        assert!(blocks
            .iter()
            .all(|b| nnz(b).abs_diff(row_ptr[2000] / 4) < 2000));
        let whole = |rows: usize| {
            vec![Range {
                start: 0,
                end: rows,
            }]
        };
        assert_eq!(sweep_blocks(&row_ptr, 1), whole(2000));
        assert_eq!(
            sweep_blocks(&row_ptr[..1001], 4),
            whole(1000),
            "500,500 entries"
        );
        assert_eq!(sweep_blocks(&[0], 4), whole(0));
    }

    /// Over a million entries, so that the sweep runs in blocks: an entry without its mirror
    /// or with a value that breaks the rule is found in any block, and a symmetric matrix passes.
    #[test]
    fn the_sweep_in_blocks_finds_what_the_transpose_finds() {
        let n = 200_000;
        let sym: Vec<_> = (0..n)
            .flat_map(|i| (1..4).map(move |s| (i, (i * 7919 * s) % n, s as i64)))
            .flat_map(|(i, j, v)| [(i, j, v), (j, i, v)])
            .collect();
        let a = m(n, n, &sym);
        assert!(a.nnz() >= SWEEP_PARALLEL_MIN_NNZ);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let equal = |_, _, x: i64, y: i64| x == y;
        assert_eq!(pool.install(|| a.first_unmirrored(equal)), None);
        assert!(pool.install(|| a.is_structurally_symmetric()));
        for row in [10, n / 2 + 3, n - 5] {
            let mut extra = sym.clone();
            extra.push((row, (row + 1) % n, 9));
            let b = m(n, n, &extra);
            let expected = by_transpose(&b);
            assert!(expected.is_some());
            assert_eq!(pool.install(|| b.first_unmirrored(equal)), expected);
            let structural = b.pattern_transpose() == b.pattern();
            assert_eq!(pool.install(|| b.is_structurally_symmetric()), structural);
        }
    }

    proptest::proptest! {
        /// The sweep, with the lookup behind it, finds what the transpose finds, on matrices
        /// that are often symmetric (a random matrix plus its transpose, an entry or value
        /// sometimes changed).
        #[test]
        fn sweep_and_lookup_agree_with_the_transpose(
            n in 1usize..9,
            t in proptest::collection::vec((0usize..9, 0usize..9, -2i64..3), 0..20),
            change in proptest::option::of((0usize..9, 0usize..9, -2i64..3)),
        ) {
            let mut all: Vec<_> = t.iter().map(|&(i, j, v)| (i % n, j % n, v)).collect();
            all.extend(t.iter().map(|&(i, j, v)| (j % n, i % n, v)));
            all.extend(change.map(|(i, j, v)| (i % n, j % n, v)));
            let a = m(n, n, &all);
            let equal = |_, _, x: i64, y: i64| x == y;
            proptest::prop_assert_eq!(a.first_unmirrored(equal), by_transpose(&a));
            let structural = a.pattern().transpose() == a.pattern();
            proptest::prop_assert_eq!(a.is_structurally_symmetric(), structural);
        }
    }
}
