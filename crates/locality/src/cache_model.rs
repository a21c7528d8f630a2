//! A deterministic model of what the order of rows and columns costs in cache: the misses of the
//! `x[col]` reads of one CSR SpMV under a set-associative LRU cache (by default a 32 KiB, 8-way L1
//! data cache with 64-byte lines holding `f64`s).
//!
//! `D` (SPEC section 2) only sees columns shared by *consecutive* rows; the cache reuses `x` across
//! every row whose accesses fit in it. Under cachegrind (`scripts/cache_misses.py`) paths that
//! minimise `D` had 5-15% more L1 misses than RCM on the bundled matrices whose `x` exceeds L1, so
//! the pipeline uses this model to choose between its start order and the path. Only `x` is
//! modelled: the matrix arrays and `y` are streamed in the same amount whatever the order.
//! Cost `O(nnz · ways)`, sequential, no allocation beyond the cache's tags.

use spmv_reorder_sparse::{CsrMatrix, Permutation, Value};

/// The shape of the modelled cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheShape {
    /// Capacity in bytes.
    pub bytes: usize,
    /// Associativity (lines per set).
    pub ways: usize,
    /// Line size in bytes.
    pub line_bytes: usize,
    /// Size of one `x` element in bytes.
    pub element_bytes: usize,
}

impl Default for CacheShape {
    /// A 32 KiB, 8-way L1 data cache with 64-byte lines, `f64` elements: every x86-64 core of the
    /// last decade.
    fn default() -> Self {
        Self {
            bytes: 32 * 1024,
            ways: 8,
            line_bytes: 64,
            element_bytes: 8,
        }
    }
}

impl CacheShape {
    fn sets(&self) -> usize {
        (self.bytes / (self.ways.max(1) * self.line_bytes.max(1))).max(1)
    }

    fn elements_per_line(&self) -> usize {
        (self.line_bytes / self.element_bytes.max(1)).max(1)
    }
}

/// Misses of the `x` reads of `y = B·x` for `B = P·A·Qᵀ`, where `rows` is `P` and `cols` is `Q`
/// (`x` is laid out in `Q`'s new order), under an LRU cache of `shape` that starts empty.
///
/// # Panics
/// If the permutations' lengths differ from `a`'s shape (a caller bug).
pub fn x_misses<T: Value>(
    a: &CsrMatrix<T>,
    rows: &Permutation,
    cols: &Permutation,
    shape: &CacheShape,
) -> u64 {
    assert_eq!(rows.len(), a.nrows(), "row permutation length");
    assert_eq!(cols.len(), a.ncols(), "column permutation length");
    let mut cache = LruCache::new(shape);
    let per_line = shape.elements_per_line();
    let col_pos = cols.old_to_new();
    let mut misses = 0u64;
    for &old_row in rows.new_to_old() {
        for &c in a.row(old_row).0 {
            let line = col_pos[c as usize] / per_line;
            misses += u64::from(!cache.access(line));
        }
    }
    misses
}

/// Set-associative LRU tags: each set keeps its lines most recent first.
struct LruCache {
    ways: usize,
    sets: usize,
    /// `sets × ways` line numbers plus one (0 = empty), most recently used first in each set.
    tags: Vec<usize>,
}

impl LruCache {
    fn new(shape: &CacheShape) -> Self {
        let (sets, ways) = (shape.sets(), shape.ways.max(1));
        Self {
            ways,
            sets,
            tags: vec![0; sets * ways],
        }
    }

    /// Touches `line`; true on a hit.
    fn access(&mut self, line: usize) -> bool {
        let set = line % self.sets;
        let slots = &mut self.tags[set * self.ways..(set + 1) * self.ways];
        let tag = line + 1;
        match slots.iter().position(|&t| t == tag) {
            Some(k) => {
                slots[..=k].rotate_right(1);
                true
            }
            None => {
                slots.rotate_right(1);
                slots[0] = tag;
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(bytes: usize, ways: usize) -> CacheShape {
        CacheShape {
            bytes,
            ways,
            line_bytes: 64,
            element_bytes: 8,
        }
    }

    #[test]
    fn lru_evicts_the_least_recent_line_of_a_set() {
        // One set of two ways.
        let mut c = LruCache::new(&shape(128, 2));
        assert!(!c.access(1));
        assert!(!c.access(2));
        assert!(c.access(1)); // 1 is now the most recent
        assert!(!c.access(3)); // evicts 2
        assert!(c.access(1));
        assert!(!c.access(2));
        assert!(!c.access(3)); // 2 evicted 3, which was older than 1
    }

    #[test]
    fn counts_match_a_hand_trace() {
        // Columns 0..8 share line 0, 8..16 line 1, 16.. line 2. Cache: one set, one way.
        let a = CsrMatrix::from_triplets(
            3,
            24,
            vec![(0, 0, ()), (0, 9, ()), (1, 1, ()), (1, 2, ()), (2, 17, ())],
        )
        .unwrap();
        let id = |n| Permutation::identity(n);
        let s = shape(64, 1);
        // Row 0: line 0 miss, line 1 miss; row 1: line 0 miss, hit; row 2: line 2 miss.
        assert_eq!(x_misses(&a, &id(3), &id(24), &s), 4);
        // Rows 1, 0, 2: line 0 miss, hit, hit (row 0's column 0), line 1 miss, line 2 miss.
        let p = Permutation::from_new_to_old(vec![1, 0, 2]).unwrap();
        assert_eq!(x_misses(&a, &p, &id(24), &s), 3);
        // A larger cache only has the three compulsory misses.
        assert_eq!(x_misses(&a, &id(3), &id(24), &shape(1024, 4)), 3);
    }

    #[test]
    fn column_order_decides_which_line_an_x_entry_is_in() {
        // Row 0 reads columns 0 and 8 (two lines); moving column 8 next to column 0 makes one.
        let a = CsrMatrix::from_triplets(1, 16, vec![(0, 0, ()), (0, 8, ())]).unwrap();
        let rows = Permutation::identity(1);
        let s = CacheShape::default();
        assert_eq!(x_misses(&a, &rows, &Permutation::identity(16), &s), 2);
        let mut order: Vec<usize> = (0..16).collect();
        order.swap(1, 8);
        let q = Permutation::from_new_to_old(order).unwrap();
        assert_eq!(x_misses(&a, &rows, &q, &s), 1);
    }

    #[test]
    fn empty_matrix_has_no_misses() {
        let a: CsrMatrix<()> = CsrMatrix::from_triplets(0, 0, vec![]).unwrap();
        let id = Permutation::identity(0);
        assert_eq!(x_misses(&a, &id, &id, &CacheShape::default()), 0);
    }
}
