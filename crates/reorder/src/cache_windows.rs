//! Windows sized to a cache ([`WindowSpec::Cache`](crate::WindowSpec::Cache)): groups of rows
//! whose reads of `x` fit a cache, so that a product reuses `x` while it is there, and the TSP
//! path then orders the groups so that consecutive ones share columns.
//!
//! Two cuts, one budget (distinct columns of the group, 8 bytes of `x` each, at most `bytes`):
//! - [`cache_parts`], the path's start: METIS k-way parts of the row graph (compact groups: few
//!   of their columns are shared with other groups), with the number of parts raised until the
//!   widest fits, rows in RCM order inside each part. `O(nnz)` per METIS level, a few rounds.
//! - [`cache_runs`], for measuring `D_w` of any order: runs of consecutive rows, each as long as
//!   its footprint fits. `O(nnz)`.
//!
//! Called by [`crate::side`] (the parts) and [`crate::windows`] (the runs).

use crate::ReorderError;
use spmv_reorder_locality::Windows;
use spmv_reorder_peers::{self as peers, reverse_cuthill_mckee, RcmStart};
use spmv_reorder_sparse::{CsrMatrix, Permutation};

/// Rounds of [`cache_parts`]: each one that leaves a part over budget shrinks the parts by the
/// overshoot and partitions again.
const PARTITION_ROUNDS: usize = 4;

/// The share of parts, in percent, whose footprint [`cache_parts`] fits to the budget.
const FITTING_PERCENTILE: usize = 90;

/// The parts of [`cache_parts`]: the rows part by part, and each part's length in that order.
pub(crate) struct CacheParts {
    /// New → old: the parts in METIS's numbering, rows in RCM order inside each.
    pub(crate) order: Permutation,
    /// The windows: each part's row count, in `order` (empty parts left out).
    pub(crate) windows: Windows,
}

/// Columns of `x` (8 bytes each) a footprint of `bytes` holds, at least one.
fn budget_columns(bytes: usize) -> usize {
    (bytes / std::mem::size_of::<f64>()).max(1)
}

/// METIS parts of `structure`'s rows whose footprints fit `bytes` where a partition achieves it:
/// the parts start at half the budget's columns in rows (a compact part of a mesh reads about
/// twice its rows in columns, less on a band) and shrink by the overshoot of the part at the
/// [`FITTING_PERCENTILE`] for up to [`PARTITION_ROUNDS`] rounds. Not the widest part: one hub row
/// of a power-law graph can read more columns than the budget alone, and chasing it would cut
/// every other part down to a few rows. Inside each part the rows keep RCM's order from
/// `rcm_start`.
///
/// # Errors
/// Those of METIS and RCM.
pub(crate) fn cache_parts(
    structure: &CsrMatrix<()>,
    bytes: usize,
    rcm_start: RcmStart,
) -> Result<CacheParts, ReorderError> {
    let n = structure.nrows();
    let budget = budget_columns(bytes);
    let mut rows_per_part = (budget / 2).max(1);
    let mut part = Vec::new();
    for _ in 0..PARTITION_ROUNDS {
        part = peers::partition(structure, n.div_ceil(rows_per_part))?;
        let wide = footprint_percentile(structure, &part, FITTING_PERCENTILE);
        if wide <= budget || rows_per_part == 1 {
            break;
        }
        // Shrink by the overshoot, and a tenth more: parts of a partition are not all alike.
        rows_per_part = (rows_per_part * budget / wide * 9 / 10).max(1);
    }
    let rcm = reverse_cuthill_mckee(structure, rcm_start)?;
    let rank = rcm.old_to_new();
    let mut rows: Vec<usize> = (0..n).collect();
    rows.sort_unstable_by_key(|&r| (part[r], rank[r]));
    let lengths = run_lengths(rows.iter().map(|&r| part[r]));
    Ok(CacheParts {
        order: Permutation::from_new_to_old(rows)?,
        windows: Windows::from_lengths(&lengths)?,
    })
}

/// Runs of consecutive rows of `pattern` (in its order), each extended while its distinct
/// columns fit `bytes`; a row alone over budget is a run of its own.
///
/// # Errors
/// Those of [`Windows::from_lengths`] (none for a matrix with rows).
pub(crate) fn cache_runs(pattern: &CsrMatrix<()>, bytes: usize) -> Result<Windows, ReorderError> {
    let budget = budget_columns(bytes);
    // `seen[c]` holds the run (plus one) that last read column `c`.
    let mut seen = vec![0usize; pattern.ncols()];
    let (mut lengths, mut run, mut columns, mut rows) = (Vec::new(), 1usize, 0usize, 0usize);
    for r in 0..pattern.nrows() {
        let cols = pattern.row(r).0;
        let new = cols.iter().filter(|&&c| seen[c as usize] != run).count();
        if rows > 0 && columns + new > budget {
            lengths.push(rows);
            (run, columns, rows) = (run + 1, 0, 0);
        }
        for &c in cols {
            if seen[c as usize] != run {
                seen[c as usize] = run;
                columns += 1;
            }
        }
        rows += 1;
    }
    if rows > 0 {
        lengths.push(rows);
    }
    Ok(Windows::from_lengths(&lengths)?)
}

/// The distinct columns read by the part at `percentile` percent of the parts ordered by
/// footprint (`part[r]` is row `r`'s part; 100: the widest).
fn footprint_percentile(structure: &CsrMatrix<()>, part: &[u32], percentile: usize) -> usize {
    let mut rows: Vec<usize> = (0..structure.nrows()).collect();
    rows.sort_unstable_by_key(|&r| part[r]);
    let mut seen = vec![u32::MAX; structure.ncols()];
    let mut footprints: Vec<usize> = Vec::new();
    let mut current = None;
    for r in rows {
        if current != Some(part[r]) {
            current = Some(part[r]);
            footprints.push(0);
        }
        let columns = footprints.last_mut().expect("a part was opened");
        for &c in structure.row(r).0 {
            if seen[c as usize] != part[r] {
                seen[c as usize] = part[r];
                *columns += 1;
            }
        }
    }
    footprints.sort_unstable();
    let at = (footprints.len() * percentile / 100).min(footprints.len().saturating_sub(1));
    footprints.get(at).copied().unwrap_or(0)
}

/// The lengths of the runs of equal values in `values`.
fn run_lengths(values: impl IntoIterator<Item = u32>) -> Vec<usize> {
    let mut lengths: Vec<usize> = Vec::new();
    let mut last = None;
    for v in values {
        match lengths.last_mut() {
            Some(l) if last == Some(v) => *l += 1,
            _ => lengths.push(1),
        }
        last = Some(v);
    }
    lengths
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DEFAULT_RCM_START;
    use spmv_reorder_gen::{poisson2d, shuffle_symmetric};

    /// Distinct columns of the rows `order[start..start + len]` of `a`.
    fn footprint(a: &CsrMatrix<()>, rows: &[usize]) -> usize {
        let mut cols: Vec<u32> = rows.iter().flat_map(|&r| a.row(r).0.to_vec()).collect();
        cols.sort_unstable();
        cols.dedup();
        cols.len()
    }

    #[test]
    fn parts_of_a_shuffled_grid_fit_the_budget() {
        let (a, _) = shuffle_symmetric(&poisson2d(60, 60).unwrap(), 3).unwrap();
        let a = a.pattern();
        let bytes = 8 * 300; // 300 columns
        let parts = cache_parts(&a, bytes, DEFAULT_RCM_START).unwrap();
        let lengths = parts.windows.lengths();
        assert_eq!(lengths.iter().sum::<usize>(), 3600);
        assert!(lengths.len() >= 3600 / 300, "{} parts", lengths.len());
        let order = parts.order.new_to_old();
        let mut at = 0;
        for &len in &lengths {
            let rows = &order[at..at + len];
            assert!(
                footprint(&a, rows) <= 300,
                "a part reads {}",
                footprint(&a, rows)
            );
            // RCM's order inside the part.
            let rcm = reverse_cuthill_mckee(&a, DEFAULT_RCM_START).unwrap();
            let rank = rcm.old_to_new();
            assert!(rows.windows(2).all(|w| rank[w[0]] < rank[w[1]]));
            at += len;
        }
    }

    #[test]
    fn runs_are_as_long_as_the_budget_allows() {
        let a = poisson2d(20, 20).unwrap().pattern();
        // Rows of the natural grid read their own column and up to four neighbours.
        let w = cache_runs(&a, 8 * 100).unwrap();
        let lengths = w.lengths();
        assert_eq!(lengths.iter().sum::<usize>(), 400);
        let mut at = 0;
        for (i, &len) in lengths.iter().enumerate() {
            let rows: Vec<usize> = (at..at + len).collect();
            assert!(footprint(&a, &rows) <= 100);
            // Maximal: one more row would not fit (except the last run).
            if i + 1 < lengths.len() {
                let more: Vec<usize> = (at..=at + len).collect();
                assert!(footprint(&a, &more) > 100);
            }
            at += len;
        }
        // A budget below one row's columns gives one row per run.
        assert_eq!(cache_runs(&a, 8).unwrap().len(), 400);
    }

    #[test]
    fn the_percentile_ignores_a_few_wide_parts() {
        // Parts 0 and 1 read 2 columns each, part 2 (one hub row) reads 10.
        let t = [(0, 0), (0, 1), (1, 2), (1, 3)]
            .into_iter()
            .chain((0..10).map(|c| (2, c)))
            .map(|(r, c)| (r, c, ()));
        let a = CsrMatrix::from_triplets(3, 10, t).unwrap();
        let part = [0, 1, 2];
        assert_eq!(footprint_percentile(&a, &part, 100), 10);
        assert_eq!(footprint_percentile(&a, &part, 50), 2);
    }

    #[test]
    fn run_lengths_count_equal_neighbours() {
        assert_eq!(run_lengths([3, 3, 1, 1, 1, 7]), vec![2, 3, 1]);
        assert!(run_lengths([]).is_empty());
    }
}
