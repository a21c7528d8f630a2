//! The column-to-windows inverted index: for each column `c`, the windows `g` with `c ∈ F_g`, in
//! increasing window order (the transpose of the footprint matrix).
//!
//! `O(nnz(F) + threads·ncols)` time and memory, parallel over windows: each thread counts its own
//! consecutive windows per column, a prefix sum gives every thread its own slots inside each
//! column's list, and the threads scatter in parallel without locks (slots are disjoint; writes go
//! through relaxed atomic stores, plain stores on x86, because the slots of one thread are not a
//! contiguous region). Lists come out sorted because thread `t`'s slots follow thread `t-1`'s.
//! Each entry packs the window with its footprint length `n(h)` (`h << 32 | n(h)`), so the search
//! reads `n(h)` from the list it already streams instead of taking a cache miss per window.
//! Called by [`crate::WindowGraph`] (candidate search); SPEC section 4.

use crate::footprint::Footprints;
use crate::par::{balanced_ranges, Parallelism};
use std::sync::atomic::{AtomicU64, Ordering};

/// Windows per column, CSR: column `c`'s entries are `entries[ptr[c]..ptr[c+1]]`, by increasing
/// window; see [`entry_window`] and [`entry_len`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ColumnIndex {
    ptr: Vec<usize>,
    entries: Vec<u64>,
}

/// The window of an index entry.
pub(crate) fn entry_window(entry: u64) -> u32 {
    (entry >> 32) as u32
}

/// The footprint length `n(h)` of an index entry's window.
pub(crate) fn entry_len(entry: u64) -> u32 {
    entry as u32
}

impl ColumnIndex {
    /// Inverts `footprints`. Window indices must fit `u32` (checked by the caller).
    pub(crate) fn new(footprints: &Footprints, par: Parallelism) -> Self {
        let ncols = footprints.ncols();
        let ranges = balanced_ranges(footprints.offsets(), par.threads());
        // Per chunk: its windows' count in every column.
        let counts: Vec<Vec<u32>> = par.map(ranges.clone(), |range| {
            let mut count = vec![0u32; ncols];
            for g in range {
                for &c in footprints.get(g) {
                    count[c as usize] += 1;
                }
            }
            count
        });
        // Turn counts into each chunk's first slot per column.
        let (ptr, slots) = first_slots(ncols, counts);
        let entries: Vec<AtomicU64> = (0..footprints.columns().len())
            .map(|_| AtomicU64::new(0))
            .collect();
        par.map(
            ranges.into_iter().zip(slots).collect(),
            |(range, mut next)| {
                for g in range {
                    let f_g = footprints.get(g);
                    let entry = (g as u64) << 32 | f_g.len() as u64;
                    for &c in f_g {
                        let slot = &mut next[c as usize];
                        entries[*slot].store(entry, Ordering::Relaxed);
                        *slot += 1;
                    }
                }
            },
        );
        let entries = entries.into_iter().map(AtomicU64::into_inner).collect();
        Self { ptr, entries }
    }

    /// The entries of the windows whose footprint holds column `c`, by increasing window.
    #[cfg(test)]
    pub(crate) fn entries_of(&self, c: u32) -> &[u64] {
        &self.entries[self.span_of(c)]
    }

    /// Where column `c`'s entries are in [`Self::entries`].
    pub(crate) fn span_of(&self, c: u32) -> std::ops::Range<usize> {
        self.ptr[c as usize]..self.ptr[c as usize + 1]
    }

    /// Every entry, column after column.
    pub(crate) fn entries(&self) -> &[u64] {
        &self.entries
    }

    /// Number of columns held by more than `limit` windows.
    pub(crate) fn columns_over(&self, limit: usize) -> usize {
        self.ptr.windows(2).filter(|p| p[1] - p[0] > limit).count()
    }
}

/// From per-chunk column counts, the column offsets `ptr` and, per chunk, the first slot of each
/// column (chunk `t`'s slots in column `c` follow those of chunks `< t`).
fn first_slots(ncols: usize, counts: Vec<Vec<u32>>) -> (Vec<usize>, Vec<Vec<usize>>) {
    let mut ptr = Vec::with_capacity(ncols + 1);
    ptr.push(0usize);
    let mut slots: Vec<Vec<usize>> = counts.iter().map(|_| vec![0usize; ncols]).collect();
    let mut next = 0usize;
    for c in 0..ncols {
        for (count, slot) in counts.iter().zip(slots.iter_mut()) {
            slot[c] = next;
            next += count[c] as usize;
        }
        ptr.push(next);
    }
    (ptr, slots)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::spec_example;
    use crate::Windows;

    #[test]
    fn index_inverts_footprints() {
        let a = spec_example();
        let f = Footprints::new(&a, &Windows::single_rows(4), Parallelism::Sequential).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let par = pool.install(|| ColumnIndex::new(&f, Parallelism::Rayon));
        let seq = ColumnIndex::new(&f, Parallelism::Sequential);
        assert_eq!(par, seq);
        let windows = |c: u32| -> Vec<(u32, u32)> {
            seq.entries_of(c)
                .iter()
                .map(|&e| (entry_window(e), entry_len(e)))
                .collect()
        };
        assert_eq!(windows(0), vec![(0, 2), (3, 3)]);
        assert_eq!(windows(1), vec![(0, 2), (1, 2), (3, 3)]);
        assert_eq!(windows(2), vec![(1, 2), (3, 3)]);
        assert_eq!(windows(3), vec![]);
        assert_eq!(windows(5), vec![(2, 1)]);
        assert_eq!(seq.span_of(1), 2..5);
        assert_eq!(seq.columns_over(2), 1);
        assert_eq!(seq.columns_over(0), 4);
    }
}
