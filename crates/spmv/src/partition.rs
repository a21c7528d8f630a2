//! Thread blocks of `y = A·x`: which rows (and which nonzeros) each block of a product handles.
//!
//! Three decompositions, one per [`Kernel`], each `O(blocks · log nrows)` on `row_ptr`:
//! equal row counts (OpenMP `schedule(static)`, the thesis's block distribution, section 2.6),
//! equal nonzero counts (a `row_ptr` prefix-sum split), and the merge-path split of Merrill and
//! Garland (2016), which cuts the `nrows + nnz` merge of row ends and nonzeros into equal pieces
//! and may split a long row between blocks. Called by [`crate::SpmvPlan`], the placement and the
//! benchmark (load imbalance, thesis table 2.4).

use serde::{Deserialize, Serialize};
use std::ops::Range;
use std::str::FromStr;

use crate::SpmvError;

/// The decomposition of a product into thread blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kernel {
    /// Equal numbers of rows per block (OpenMP `static`).
    StaticRows,
    /// Equal numbers of nonzeros per block, whole rows (split on the `row_ptr` prefix sum).
    NnzBalanced,
    /// Equal shares of `nrows + nnz` (merge path); rows may be split between blocks.
    MergePath,
}

impl Kernel {
    /// Every kernel, in the order reports list them.
    pub const ALL: [Kernel; 3] = [Kernel::StaticRows, Kernel::NnzBalanced, Kernel::MergePath];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::StaticRows => "static-rows",
            Kernel::NnzBalanced => "nnz-balanced",
            Kernel::MergePath => "merge-path",
        }
    }
}

impl std::fmt::Display for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Kernel {
    type Err = SpmvError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "static" | "static-rows" | "rows" => Ok(Kernel::StaticRows),
            "nnz" | "nnz-balanced" | "balanced" => Ok(Kernel::NnzBalanced),
            "merge" | "merge-path" => Ok(Kernel::MergePath),
            _ => Err(SpmvError::Parse {
                what: "kernel",
                input: s.to_owned(),
                expected: "static-rows, nnz-balanced or merge-path",
            }),
        }
    }
}

/// One thread block: the rows whose `y` entries it writes and the nonzeros it reads.
///
/// For the row kernels `nnz == row_ptr[rows.start]..row_ptr[rows.end]`. For merge path, `nnz` may
/// start inside row `rows.start` (the earlier part belongs to previous blocks) and end inside row
/// `rows.end` (a partial sum carried to the block that finishes that row).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Block {
    /// Rows whose results this block writes.
    pub rows: Range<usize>,
    /// Nonzeros this block multiplies.
    pub nnz: Range<usize>,
}

/// The blocks of one product, in order; consecutive blocks tile rows and nonzeros.
///
/// # Invariants
/// `blocks[0].rows.start == 0`, `blocks[last].rows.end == nrows`, the same for `nnz`, and each block
/// starts where the previous one ends (guaranteed by the constructors).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Partition {
    kernel: Kernel,
    blocks: Vec<Block>,
}

impl Partition {
    /// Splits a matrix given by its `row_ptr` into `blocks` blocks (at least one) for `kernel`.
    ///
    /// # Panics
    /// If `row_ptr` is empty (a CSR `row_ptr` has `nrows + 1 >= 1` entries).
    pub fn new(row_ptr: &[usize], kernel: Kernel, blocks: usize) -> Self {
        assert!(!row_ptr.is_empty(), "row_ptr has nrows + 1 entries");
        let blocks = blocks.max(1);
        let nrows = row_ptr.len() - 1;
        let nnz = row_ptr[nrows];
        let starts: Vec<(usize, usize)> = (0..=blocks)
            .map(|t| match kernel {
                _ if t == 0 => (0, 0),
                _ if t == blocks => (nrows, nnz),
                Kernel::StaticRows => {
                    let row = split_point(nrows, t, blocks);
                    (row, row_ptr[row])
                }
                Kernel::NnzBalanced => {
                    let row = nearest_row_with_offset(row_ptr, split_point(nnz, t, blocks));
                    (row, row_ptr[row])
                }
                Kernel::MergePath => {
                    merge_path_coordinate(row_ptr, split_point(nrows + nnz, t, blocks))
                }
            })
            .collect();
        let blocks = starts
            .windows(2)
            .map(|w| Block {
                rows: w[0].0..w[1].0.max(w[0].0),
                nnz: w[0].1..w[1].1.max(w[0].1),
            })
            .collect();
        Partition { kernel, blocks }
    }

    /// The kernel this partition was made for.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// The blocks, in order.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// Row boundaries: `blocks + 1` offsets, from 0 to `nrows` (for splitting `y`).
    pub fn row_offsets(&self) -> Vec<usize> {
        offsets(self.blocks.iter().map(|b| b.rows.clone()))
    }

    /// Nonzero boundaries: `blocks + 1` offsets, from 0 to `nnz` (for placing `values`, `col_idx`).
    pub fn nnz_offsets(&self) -> Vec<usize> {
        offsets(self.blocks.iter().map(|b| b.nnz.clone()))
    }

    /// Load imbalance as in the thesis's table 2.4: `min_block_nnz / max_block_nnz` (1 is perfect
    /// balance; 1 also when no block has work).
    pub fn load_balance(&self) -> f64 {
        let sizes = self.blocks.iter().map(|b| b.nnz.len());
        let (min, max) = sizes.fold((usize::MAX, 0), |(lo, hi), s| (lo.min(s), hi.max(s)));
        if max == 0 {
            1.0
        } else {
            min as f64 / max as f64
        }
    }
}

fn offsets(ranges: impl Iterator<Item = Range<usize>>) -> Vec<usize> {
    let mut out = vec![0];
    for r in ranges {
        out.push(r.end);
    }
    out
}

/// `floor(total · t / parts)` without overflow.
fn split_point(total: usize, t: usize, parts: usize) -> usize {
    ((total as u128 * t as u128) / parts as u128) as usize
}

/// The row boundary whose offset is nearest to `target` (ties to the later row).
fn nearest_row_with_offset(row_ptr: &[usize], target: usize) -> usize {
    let after = row_ptr
        .partition_point(|&p| p < target)
        .min(row_ptr.len() - 1);
    if after > 0 && target - row_ptr[after - 1] < row_ptr[after] - target {
        after - 1
    } else {
        after
    }
}

/// The merge-path coordinate `(row, nonzero)` on diagonal `diagonal`: the number of row ends and
/// of nonzeros consumed after `diagonal` steps of merging row ends `row_ptr[1..]` with the nonzero
/// indices `0..nnz` (a nonzero `k` goes before the end of row `i` when `k < row_ptr[i + 1]`).
/// Binary search, `O(log nrows)`.
fn merge_path_coordinate(row_ptr: &[usize], diagonal: usize) -> (usize, usize) {
    let nrows = row_ptr.len() - 1;
    let nnz = row_ptr[nrows];
    let (mut lo, mut hi) = (diagonal.saturating_sub(nnz), diagonal.min(nrows));
    while lo < hi {
        let pivot = lo + (hi - lo) / 2;
        // Row end `pivot` is consumed before nonzero `diagonal - pivot - 1` iff its offset is <= it.
        if row_ptr[pivot + 1] < diagonal - pivot {
            lo = pivot + 1;
        } else {
            hi = pivot;
        }
    }
    (lo, diagonal - lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The merge path walked step by step: the coordinate after `d` steps.
    fn walk(row_ptr: &[usize], d: usize) -> (usize, usize) {
        let nrows = row_ptr.len() - 1;
        let (mut i, mut k) = (0, 0);
        for _ in 0..d {
            if i < nrows && k >= row_ptr[i + 1] {
                i += 1;
            } else if k < row_ptr[nrows] {
                k += 1;
            } else {
                i += 1;
            }
        }
        (i, k)
    }

    #[test]
    fn merge_path_search_matches_walk() {
        for row_ptr in [
            vec![0, 3, 3, 4, 10, 10],
            vec![0],
            vec![0, 0, 0],
            vec![0, 100],
            vec![0, 1, 2, 3],
        ] {
            let total = row_ptr.len() - 1 + row_ptr[row_ptr.len() - 1];
            for d in 0..=total {
                assert_eq!(
                    merge_path_coordinate(&row_ptr, d),
                    walk(&row_ptr, d),
                    "{row_ptr:?} d={d}"
                );
            }
        }
    }

    fn check_tiling(p: &Partition, row_ptr: &[usize]) {
        let nrows = row_ptr.len() - 1;
        assert_eq!(p.row_offsets().first(), Some(&0));
        assert_eq!(p.row_offsets().last(), Some(&nrows));
        assert_eq!(p.nnz_offsets().last(), Some(&row_ptr[nrows]));
        for w in p.blocks().windows(2) {
            assert_eq!(w[0].rows.end, w[1].rows.start);
            assert_eq!(w[0].nnz.end, w[1].nnz.start);
        }
        for b in p.blocks() {
            assert!(row_ptr[b.rows.start] <= b.nnz.start);
            if p.kernel() != Kernel::MergePath {
                assert_eq!(b.nnz, row_ptr[b.rows.start]..row_ptr[b.rows.end]);
            }
        }
    }

    #[test]
    fn every_kernel_tiles_rows_and_nonzeros() {
        let row_ptr = vec![0, 1, 1, 50, 51, 52, 60, 60, 61];
        for kernel in Kernel::ALL {
            for blocks in [1, 2, 3, 7, 20] {
                let p = Partition::new(&row_ptr, kernel, blocks);
                assert_eq!(p.blocks().len(), blocks);
                check_tiling(&p, &row_ptr);
            }
        }
    }

    #[test]
    fn matrices_without_nonzeros_still_cover_every_row() {
        for kernel in Kernel::ALL {
            let p = Partition::new(&[0; 6], kernel, 3);
            assert_eq!(p.row_offsets().last(), Some(&5), "{kernel}");
            assert_eq!(p.load_balance(), 1.0);
        }
    }

    #[test]
    fn static_rows_split_rows_evenly_and_balance_follows_table_2_4() {
        let row_ptr = vec![0, 1, 2, 3, 10];
        let p = Partition::new(&row_ptr, Kernel::StaticRows, 2);
        assert_eq!(p.row_offsets(), vec![0, 2, 4]);
        assert_eq!(p.load_balance(), 2.0 / 8.0);
        let p = Partition::new(&row_ptr, Kernel::NnzBalanced, 2);
        assert_eq!(p.row_offsets(), vec![0, 3, 4]);
        assert_eq!(p.load_balance(), 3.0 / 7.0);
    }

    #[test]
    fn merge_path_splits_a_dense_row() {
        // One row of 100 nonzeros: merge path gives each block about a quarter of it.
        let row_ptr = vec![0, 100];
        let p = Partition::new(&row_ptr, Kernel::MergePath, 4);
        let sizes: Vec<usize> = p.blocks().iter().map(|b| b.nnz.len()).collect();
        assert_eq!(sizes.iter().sum::<usize>(), 100);
        assert!(sizes.iter().all(|&s| (24..=26).contains(&s)), "{sizes:?}");
        assert!(p.load_balance() > 0.9);
        let rows = Partition::new(&row_ptr, Kernel::NnzBalanced, 4);
        assert_eq!(rows.load_balance(), 0.0);
    }

    #[test]
    fn kernel_names_round_trip_and_reject_unknown() {
        for k in Kernel::ALL {
            assert_eq!(k.name().parse::<Kernel>().unwrap(), k);
        }
        assert!(matches!(
            "fast".parse::<Kernel>(),
            Err(SpmvError::Parse { what: "kernel", .. })
        ));
    }
}
