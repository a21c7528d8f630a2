//! The coordinate arrays (rows, columns, values) of a body parsed in parallel blocks, allocated
//! once for the entries the size line announces: each block parses straight into its own
//! region, at an offset known from the lines of the blocks before it (a line holds at most one
//! entry). This saves gathering per-block vectors into one array afterwards, a copy of every
//! entry into fresh memory on one thread, and the page faults of the arrays fall on the threads
//! that parse. Called by `stream.rs`.

use crate::assemble::{row_major, try_filled};
use crate::body::{Chunk, EntrySink};
use crate::value::MtxValue;

/// Room for the coordinate entries of a body, handed out block by block.
pub(crate) struct EntryArrays<T> {
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
        Some(EntryArrays {
            rows: try_filled(entries, 0, "row indices").ok()?,
            cols: try_filled(entries, 0, "column indices").ok()?,
            vals: try_filled(entries, T::zero(), "values").ok()?,
            claims: Vec::new(),
        })
    }

    /// The regions, to be claimed block by block in file order.
    pub(crate) fn regions(&mut self) -> Regions<'_, T> {
        Regions {
            rows: &mut self.rows,
            cols: &mut self.cols,
            vals: &mut self.vals,
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
                self.rows.copy_within(moved.clone(), end);
                self.cols.copy_within(moved.clone(), end);
                self.vals.copy_within(moved, end);
            }
            start += lines;
            end += len;
        }
        self.rows.truncate(end);
        self.cols.truncate(end);
        self.vals.truncate(end);
        let row_major = order.increasing;
        Chunk::of_entries(self.rows, self.cols, self.vals, Some(row_major))
    }
}

/// The unclaimed rest of [`EntryArrays`].
pub(crate) struct Regions<'a, T> {
    rows: &'a mut [u32],
    cols: &'a mut [u32],
    vals: &'a mut [T],
    claims: &'a mut Vec<usize>,
    /// False once a block did not fit: regions stay a prefix of the blocks.
    open: bool,
}

impl<'a, T> Regions<'a, T> {
    /// The region of the next block, which has `lines` lines; `None` when there is no room
    /// left for it (then neither for any block after it).
    pub(crate) fn claim(&mut self, lines: usize) -> Option<Region<'a, T>> {
        self.open &= lines <= self.rows.len() && lines <= self.vals.len();
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
            block,
            rows,
            cols,
            vals,
            len: 0,
        })
    }
}

/// One block's part of [`EntryArrays`]: room for an entry per line of the block.
pub(crate) struct Region<'a, T> {
    block: usize,
    rows: &'a mut [u32],
    cols: &'a mut [u32],
    vals: &'a mut [T],
    /// Slots written, from the start.
    len: usize,
}

impl<T> Region<'_, T> {
    /// What the region holds, for [`EntryArrays::into_chunk`].
    /// Checks the order of the entries here, while they are in this thread's cache.
    pub(crate) fn filled(self) -> Filled {
        let (rows, cols) = (&self.rows[..self.len], &self.cols[..self.len]);
        let order = match (rows.first(), cols.first(), rows.last(), cols.last()) {
            (Some(&r0), Some(&c0), Some(&r1), Some(&c1)) => Order {
                span: Some(((r0, c0), (r1, c1))),
                increasing: row_major(rows, cols),
            },
            _ => Order::EMPTY,
        };
        Filled {
            block: self.block,
            len: self.len,
            order,
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
        *r = row;
        *c = col;
        *v = value;
        self.len += 1;
    }

    #[inline(always)]
    fn push_value(&mut self, value: T) {
        if let Some(v) = self.vals.get_mut(self.len) {
            *v = value;
            self.len += 1;
        }
    }

    fn entries(&self) -> usize {
        self.len
    }
}

/// How many slots of a block's region were written, for [`EntryArrays::into_chunk`].
#[derive(Debug)]
pub(crate) struct Filled {
    block: usize,
    len: usize,
    order: Order,
}

/// Whether entries are in row-major order (by row then column, no repeats), and their first
/// and last `(row, column)` when there are any.
#[derive(Debug, Clone, Copy)]
struct Order {
    span: Option<((u32, u32), (u32, u32))>,
    increasing: bool,
}

impl Order {
    const EMPTY: Order = Order {
        span: None,
        increasing: true,
    };

    /// The order of these entries followed by `next`'s.
    fn then(self, next: Order) -> Order {
        match (self.span, next.span) {
            (Some((first, last)), Some((next_first, next_last))) => Order {
                span: Some((first, next_last)),
                increasing: self.increasing && next.increasing && last < next_first,
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
    fn impossible_sizes_are_refused_not_aborted() {
        assert!(EntryArrays::<f64>::with_capacity(usize::MAX / 2).is_none());
    }
}
