//! `cost(a, b)` memo: a table of recent oracle answers for pairs outside the candidate lists, with a few
//! slots per node.
//!
//! Cost: O(1) per lookup; memory `8 × WAYS` bytes per node. A local search evaluates the same few
//! non-candidate pairs around a node again whenever the node is queued again (2-opt's closing edge
//! `(t1, t4)`, Or-opt's `(p, q)` and `(end, y)`, tour edges the greedy chaining made); the oracle merges
//! two sorted footprints stored in the caller's (random) order, several cache misses per call, so a hit
//! saves most of the cost. The pair `{a, b}` lives in the slots of `min(a, b)`: internal ids follow the
//! tour ([`crate::relabel`]), so the slots a search touches lie close together in memory. A table hashed
//! over all pairs instead missed the CPU cache on nearly every lookup and was no faster than the oracle
//! on the 1M-row Poisson grid. A collision overwrites the slot; answers are always the oracle's, so
//! results do not depend on the table. Source: the edge-length caches of Concorde's linkern and of LKH
//! (`CacheSig`/`CacheVal`). Caller: [`crate::oracle::PathCosts`].

use std::cell::Cell;

/// Slots per node (4 × 8 bytes: half a cache line).
const WAYS: usize = 4;

/// One pair (`min` implied by the slot group) and its cost, in 8 bytes.
#[derive(Clone, Copy)]
struct Slot {
    other: u32,
    cost: i32,
}

const EMPTY: Slot = Slot {
    other: u32::MAX,
    cost: 0,
};

/// Memo of `cost(a, b)` in [`WAYS`] slots per node, with a count of the oracle calls.
///
/// # Invariants
/// Slot `min(a, b) × WAYS + way(max(a, b))` holding `other == max(a, b)` holds the oracle's cost of
/// `{a, b}`. Costs outside `i32` are not stored. Single-threaded (`Cell`): one solve owns it.
pub(crate) struct CostCache {
    slots: Vec<Cell<Slot>>,
    misses: Cell<u64>,
}

impl CostCache {
    /// A table for a tour of `nodes` nodes.
    pub(crate) fn new(nodes: usize) -> Self {
        Self {
            slots: vec![Cell::new(EMPTY); nodes * WAYS],
            misses: Cell::new(0),
        }
    }

    /// The cost of `{a, b}` (`a != b`, both below the table's node count): from the table, else from
    /// `compute` (then stored).
    #[inline]
    pub(crate) fn get(&self, a: usize, b: usize, compute: impl FnOnce() -> i64) -> i64 {
        let (lo, hi) = (a.min(b), a.max(b) as u32);
        // Multiplicative hashing: the top bits pick the way, so neighbouring ids use different slots.
        let way = (hi.wrapping_mul(0x9E37_79B9) >> (32 - WAYS.trailing_zeros())) as usize;
        let cell = &self.slots[lo * WAYS + way];
        let found = cell.get();
        if found.other == hi {
            return i64::from(found.cost);
        }
        let cost = compute();
        self.misses.set(self.misses.get() + 1);
        if let Ok(cost) = i32::try_from(cost) {
            cell.set(Slot { other: hi, cost });
        }
        cost
    }

    /// Oracle calls made so far (lookups that missed).
    pub(crate) fn misses(&self) -> u64 {
        self.misses.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_costs_equal_oracle_costs() {
        let oracle = |a: usize, b: usize| (a * 31 + b * 31 + a * b) as i64 % 1000;
        let cache = CostCache::new(50);
        let mut calls = 0;
        for round in 0..3 {
            for a in 0..50 {
                for b in (0..50).filter(|&b| b != a) {
                    let cost = cache.get(a, b, || {
                        calls += 1;
                        oracle(a, b)
                    });
                    assert_eq!(cost, oracle(a, b), "round {round}, pair ({a}, {b})");
                }
            }
        }
        // Both orientations share a slot, and the table is far smaller than the 1225 pairs: some answers
        // were reused, most recomputed after an overwrite.
        assert_eq!(cache.misses(), calls);
        assert!(calls < 3 * 50 * 49);
    }

    #[test]
    fn costs_beyond_i32_are_not_stored() {
        let cache = CostCache::new(3);
        let big = i64::from(i32::MAX) + 5;
        assert_eq!(cache.get(0, 2, || big), big);
        assert_eq!(cache.get(2, 0, || big), big);
        assert_eq!(cache.misses(), 2);
        assert_eq!(cache.get(1, 2, || 7), 7);
        assert_eq!(cache.get(2, 1, || unreachable!("stored")), 7);
        assert_eq!(cache.misses(), 3);
    }
}
