//! The coordinate arrays (rows, columns, values) of a body parsed in parallel blocks, allocated
//! once for the entries the size line announces: each block parses straight into its own
//! region, at an offset known from the lines of the blocks before it (a line holds at most one
//! entry). This saves gathering per-block vectors into one array afterwards, a copy of every
//! entry into fresh memory on one thread, and the page faults of the arrays fall on the threads
//! that parse. Called by `stream.rs`.

use crate::body::{Chunk, EntrySink};
use crate::value::MtxValue;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU64, Ordering};

/// Room for the coordinate entries of a body, handed out block by block. The room is reserved,
/// not written: zeroing it first would cost a pass over all of it on the reading thread
/// before any block is parsed (with memory the allocator reuses, a third of a read's time).
pub(crate) struct EntryArrays<T> {
    /// Tells these arrays' regions from those of any other.
    id: u64,
    rows: Vec<u32>,
    cols: Vec<u32>,
    vals: Vec<T>,
    /// Lines of each block given a region, in file order (the regions are consecutive).
    claims: Vec<usize>,
}

impl<T: MtxValue> EntryArrays<T> {
    /// Room for `entries` entries, or `None` when the memory cannot be had (then the blocks
    /// keep their own vectors, which grow as needed).
    pub(crate) fn with_capacity(entries: usize) -> Option<Self> {
        static NEXT_ID: AtomicU64 = AtomicU64::new(0);
        let mut arrays = EntryArrays {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            rows: Vec::new(),
            cols: Vec::new(),
            vals: Vec::new(),
            claims: Vec::new(),
        };
        arrays.rows.try_reserve_exact(entries).ok()?;
        arrays.cols.try_reserve_exact(entries).ok()?;
        arrays.vals.try_reserve_exact(entries).ok()?;
        Some(arrays)
    }

    /// The regions, to be claimed block by block in file order.
    pub(crate) fn regions(&mut self) -> Regions<'_, T> {
        Regions {
            id: self.id,
            rows: self.rows.spare_capacity_mut(),
            cols: self.cols.spare_capacity_mut(),
            vals: self.vals.spare_capacity_mut(),
            claims: &mut self.claims,
            open: true,
        }
    }

    /// Blocks given a region: blocks `0..claimed()` parsed into these arrays.
    pub(crate) fn claimed(&self) -> usize {
        self.claims.len()
    }

    /// The entries of the claimed blocks as one chunk, in file order, given what each region
    /// holds. A region without its [`Filled`] counts as empty; regions not full (blocks with
    /// comments, blank lines or a bad line) are closed up.
    pub(crate) fn into_chunk(mut self, mut filled: Vec<Filled>) -> Chunk<T> {
        filled.retain(|f| f.id == self.id);
        filled.sort_unstable_by_key(|f| f.block);
        let mut found = filled.iter().peekable();
        let (mut start, mut end) = (0, 0);
        let mut order = Order::EMPTY;
        for (block, &lines) in self.claims.iter().enumerate() {
            let (len, block_order) = found
                .next_if(|f| f.block == block)
                .map_or((0, Order::EMPTY), |f| (f.len.min(lines), f.order));
            order = order.then(block_order);
            if start != end {
                let moved = start..start + len;
                self.rows
                    .spare_capacity_mut()
                    .copy_within(moved.clone(), end);
                self.cols
                    .spare_capacity_mut()
                    .copy_within(moved.clone(), end);
                self.vals.spare_capacity_mut().copy_within(moved, end);
            }
            start += lines;
            end += len;
        }
        // SAFETY: slots `0..end` of the three vectors are written. A `Filled` is made only by
        // `Region::filled`, for the region of block `block` of the arrays `id` (this one, by
        // the `retain`), and there is one region per block, so one report per block; its
        // `len` counts the slots that region wrote one after another from its start, at most
        // `lines`. The regions lie one after another from slot 0 in the order of `claims`:
        // block `block` starts at `start`, and the loop moved its `len` written slots down to
        // `end`, so that `0..end` are the written slots of the blocks so far. The capacity is
        // at least the sum of `lines`, hence at least `end`.
        unsafe {
            self.rows.set_len(end);
            self.cols.set_len(end);
            self.vals.set_len(end);
        }
        let row_major = order.increasing;
        Chunk::of_entries(self.rows, self.cols, self.vals, Some(row_major))
    }
}

/// The unclaimed rest of [`EntryArrays`].
pub(crate) struct Regions<'a, T> {
    id: u64,
    rows: &'a mut [MaybeUninit<u32>],
    cols: &'a mut [MaybeUninit<u32>],
    vals: &'a mut [MaybeUninit<T>],
    claims: &'a mut Vec<usize>,
    /// False once a block did not fit: regions stay a prefix of the blocks.
    open: bool,
}

impl<'a, T> Regions<'a, T> {
    /// The region of the next block, which has `lines` lines; `None` when there is no room
    /// left for it (then neither for any block after it).
    pub(crate) fn claim(&mut self, lines: usize) -> Option<Region<'a, T>> {
        self.open &=
            lines <= self.rows.len() && lines <= self.cols.len() && lines <= self.vals.len();
        if !self.open {
            return None;
        }
        let (rows, rest_rows) = std::mem::take(&mut self.rows).split_at_mut(lines);
        let (cols, rest_cols) = std::mem::take(&mut self.cols).split_at_mut(lines);
        let (vals, rest_vals) = std::mem::take(&mut self.vals).split_at_mut(lines);
        self.rows = rest_rows;
        self.cols = rest_cols;
        self.vals = rest_vals;
        let block = self.claims.len();
        self.claims.push(lines);
        Some(Region {
            id: self.id,
            block,
            rows,
            cols,
            vals,
            len: 0,
            order: Order::EMPTY,
        })
    }
}

/// One block's part of [`EntryArrays`]: room for an entry per line of the block.
pub(crate) struct Region<'a, T> {
    id: u64,
    block: usize,
    rows: &'a mut [MaybeUninit<u32>],
    cols: &'a mut [MaybeUninit<u32>],
    vals: &'a mut [MaybeUninit<T>],
    /// Slots written, one after another from the start.
    len: usize,
    /// The order of the entries written.
    order: Order,
}

impl<T> Region<'_, T> {
    /// What the region holds, for [`EntryArrays::into_chunk`].
    pub(crate) fn filled(self) -> Filled {
        Filled {
            id: self.id,
            block: self.block,
            len: self.len,
            order: self.order,
        }
    }
}

impl<T> EntrySink<T> for Region<'_, T> {
    /// Writes the next slot. A region has a slot per line of its block and a line holds at most
    /// one entry, so there is always room; were there not, the entry would be dropped (and the
    /// count of entries come short), not written elsewhere.
    #[inline(always)]
    fn push_entry(&mut self, row: u32, col: u32, value: T) {
        let (Some(r), Some(c), Some(v)) = (
            self.rows.get_mut(self.len),
            self.cols.get_mut(self.len),
            self.vals.get_mut(self.len),
        ) else {
            return;
        };
        r.write(row);
        c.write(col);
        v.write(value);
        self.len += 1;
        self.order = self.order.then(Order::of(row, col));
    }

    /// Array bodies have no regions; were one given one, its indices would be 0.
    #[inline(always)]
    fn push_value(&mut self, value: T) {
        self.push_entry(0, 0, value);
    }

    fn entries(&self) -> usize {
        self.len
    }
}

/// How many slots of a block's region were written, for [`EntryArrays::into_chunk`].
#[derive(Debug)]
pub(crate) struct Filled {
    id: u64,
    block: usize,
    len: usize,
    order: Order,
}

/// Whether entries are in row-major order (by row then column, no repeats), and the first and
/// last of them as `row << 32 | column` when there are any.
#[derive(Debug, Clone, Copy)]
struct Order {
    span: Option<(u64, u64)>,
    increasing: bool,
}

impl Order {
    const EMPTY: Order = Order {
        span: None,
        increasing: true,
    };

    /// The order of one entry.
    #[inline(always)]
    fn of(row: u32, col: u32) -> Order {
        let key = (u64::from(row) << 32) | u64::from(col);
        Order {
            span: Some((key, key)),
            increasing: true,
        }
    }

    /// The order of these entries followed by `next`'s.
    #[inline(always)]
    fn then(self, next: Order) -> Order {
        match (self.span, next.span) {
            (Some((first, last)), Some((next_first, next_last))) => Order {
                span: Some((first, next_last)),
                increasing: self.increasing & next.increasing & (last < next_first),
            },
            (None, _) => next,
            (_, None) => self,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_of_full_and_short_blocks_close_up_in_order() {
        let mut arrays = EntryArrays::<f64>::with_capacity(10).unwrap();
        let mut regions = arrays.regions();
        let mut a = regions.claim(3).unwrap();
        let mut b = regions.claim(4).unwrap();
        let mut c = regions.claim(2).unwrap();
        assert!(regions.claim(2).is_none(), "only 1 slot left");
        assert!(
            regions.claim(1).is_none(),
            "no region after one that did not fit"
        );
        for k in 0..3 {
            a.push_entry(k, 10 + k, f64::from(k));
        }
        // Two of b's four lines were comments.
        b.push_entry(7, 8, 9.0);
        b.push_entry(1, 2, 3.0);
        c.push_entry(5, 5, 5.0);
        c.push_entry(6, 6, 6.0);
        let (fa, fb, fc) = (a.filled(), b.filled(), c.filled());
        assert_eq!(arrays.claimed(), 3);
        let chunk = arrays.into_chunk(vec![fc, fa, fb]);
        assert_eq!(chunk.rows, [0, 1, 2, 7, 1, 5, 6]);
        assert_eq!(chunk.cols, [10, 11, 12, 8, 2, 5, 6]);
        assert_eq!(chunk.vals, [0.0, 1.0, 2.0, 9.0, 3.0, 5.0, 6.0]);
        assert_eq!(chunk.len(), 7);
        assert_eq!(chunk.row_major, Some(false), "row 7 comes before row 1");
    }

    #[test]
    fn row_major_order_is_known_across_regions_and_empty_ones() {
        for (second_row, expected) in [(4, true), (3, false), (2, false)] {
            let mut arrays = EntryArrays::<f64>::with_capacity(6).unwrap();
            let mut regions = arrays.regions();
            let mut a = regions.claim(2).unwrap();
            let b = regions.claim(1).unwrap();
            let mut c = regions.claim(2).unwrap();
            a.push_entry(1, 0, 1.0);
            a.push_entry(3, 2, 1.0);
            // b holds a comment line: no entry.
            c.push_entry(second_row, 2, 1.0);
            c.push_entry(5, 0, 1.0);
            let filled = vec![a.filled(), b.filled(), c.filled()];
            let chunk = arrays.into_chunk(filled);
            assert_eq!(
                chunk.row_major,
                Some(expected),
                "(3, 2) then ({second_row}, 2)"
            );
        }
    }

    #[test]
    fn a_region_with_no_report_counts_as_empty_and_overflow_is_dropped() {
        let mut arrays = EntryArrays::<i64>::with_capacity(4).unwrap();
        let mut regions = arrays.regions();
        let mut a = regions.claim(1).unwrap();
        let mut b = regions.claim(2).unwrap();
        a.push_entry(1, 1, 1);
        a.push_entry(2, 2, 2);
        assert_eq!(a.entries(), 1, "a region holds no more than its lines");
        b.push_entry(3, 3, 3);
        let fa = a.filled();
        // b reports nothing: its entry must not count.
        let chunk = arrays.into_chunk(vec![fa]);
        assert_eq!((chunk.rows, chunk.vals), (vec![1], vec![1]));
    }

    #[test]
    fn a_report_from_other_arrays_is_not_taken() {
        let mut mine = EntryArrays::<f64>::with_capacity(2).unwrap();
        let mut other = EntryArrays::<f64>::with_capacity(2).unwrap();
        let _unwritten = mine.regions().claim(2).unwrap();
        let mut theirs = other.regions().claim(2).unwrap();
        theirs.push_entry(0, 0, 1.0);
        theirs.push_entry(1, 1, 2.0);
        // Block 0 of the other arrays, 2 slots: taken here, it would expose unwritten slots.
        let chunk = mine.into_chunk(vec![theirs.filled()]);
        assert_eq!(chunk.len(), 0);
        assert!(chunk.rows.is_empty() && chunk.vals.is_empty());
    }

    #[test]
    fn impossible_sizes_are_refused_not_aborted() {
        assert!(EntryArrays::<f64>::with_capacity(usize::MAX / 2).is_none());
    }
}
