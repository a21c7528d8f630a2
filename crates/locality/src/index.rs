//! The column-to-windows inverted index: for each column `c`, the windows `g` with `c ∈ F_g`, in
//! increasing window order (the transpose of the footprint matrix).
//!
//! `O(nnz(F) + threads·ncols)` time and memory, parallel over windows: each thread counts its own
//! consecutive windows per column, a prefix sum gives every thread its own slots inside each
//! column's list, and the threads scatter in parallel without locks (slots are disjoint; writes go
//! through relaxed atomic stores, plain stores on x86, because the slots of one thread are not a
//! contiguous region). Lists come out sorted because thread `t`'s slots follow thread `t-1`'s.
//! Called by [`crate::WindowGraph`] (candidate search); SPEC section 4.

use crate::footprint::Footprints;
use crate::par::{balanced_ranges, Parallelism};
use std::sync::atomic::{AtomicU32, Ordering};

/// Windows per column, CSR: column `c`'s windows are `windows[ptr[c]..ptr[c+1]]`, increasing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ColumnIndex {
    ptr: Vec<usize>,
    windows: Vec<u32>,
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
        let windows: Vec<AtomicU32> = (0..footprints.columns().len())
            .map(|_| AtomicU32::new(0))
            .collect();
        par.map(
            ranges.into_iter().zip(slots).collect(),
            |(range, mut next)| {
                for g in range {
                    for &c in footprints.get(g) {
                        let slot = &mut next[c as usize];
                        windows[*slot].store(g as u32, Ordering::Relaxed);
                        *slot += 1;
                    }
                }
            },
        );
        let windows = windows.into_iter().map(AtomicU32::into_inner).collect();
        Self { ptr, windows }
    }

    /// The windows whose footprint holds column `c`, increasing.
    pub(crate) fn windows_of(&self, c: u32) -> &[u32] {
        &self.windows[self.ptr[c as usize]..self.ptr[c as usize + 1]]
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
        assert_eq!(seq.windows_of(0), &[0, 3]);
        assert_eq!(seq.windows_of(1), &[0, 1, 3]);
        assert_eq!(seq.windows_of(2), &[1, 3]);
        assert_eq!(seq.windows_of(3), &[] as &[u32]);
        assert_eq!(seq.windows_of(5), &[2]);
        assert_eq!(seq.columns_over(2), 1);
        assert_eq!(seq.columns_over(0), 4);
    }
}
