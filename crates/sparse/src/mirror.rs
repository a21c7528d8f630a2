//! Whether every stored entry `A[i][j]` has its mirror `A[j][i]` (symmetry of the structure, and
//! of the values by a rule the caller gives), without a transpose (which would cost a second
//! matrix).
//!
//! The check is one sequential sweep, `O(nnz + n)` with a cursor of 4 bytes per row: visiting
//! rows `i` in increasing order meets the entries of column `j` in increasing `i`, which for a
//! symmetric structure is exactly the order of row `j`; so row `j`'s cursor must match each
//! entry in turn. Every entry consumes one cursor step and no row is overrun, so a sweep that
//! reaches the end has found a mirror for every entry. When it stops early, the first unmirrored
//! entry in row order is found by lookup: each stored `(i, j)` searched for in row `j` (sorted),
//! `O(nnz log(row length))`, parallel over rows. The lookup alone would do, but on R-MAT's hub
//! rows each search costs a dozen cache misses, where the sweep's cursor costs one (a symmetry
//! check took 2.5x as long by lookup as by the sweep when writing R-MAT scale 20). The sweep asks
//! ahead for what it reads at random (a row's cursor and offsets, then the mirror entry): on
//! R-MAT scale 20 and on shuffled 1M-row grids and geometric graphs that halved its time (0.80 s
//! to 0.42 s on R-MAT shuffled, 0.23 s to 0.10 s on the grid), and cost 6 ms on the grid as
//! generated, which it reads in sequence. Called by the Matrix Market writer's symmetry check,
//! `info` and the peer orderings' graph.

use crate::{prefetch, CsrMatrix, Value};
use rayon::prelude::*;

/// Rows per rayon task: enough lookups per task to amortise scheduling.
const ROWS_PER_TASK: usize = 1024;

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
    /// that `matches`.
    fn all_mirrored<F>(&self, matches: &F) -> bool
    where
        F: Fn(usize, usize, T, T) -> bool,
    {
        let (row_ptr, col_idx, values) = (self.row_ptr(), self.col_idx(), self.values());
        // A row's length is at most `ncols <= u32::MAX`, so an offset within it fits a u32.
        let mut cursor = vec![0u32; self.nrows()];
        for i in 0..self.nrows() {
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
