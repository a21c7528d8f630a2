//! `cost(a, b)` memo: a direct-mapped table of recent oracle answers for pairs outside the candidate lists.
//!
//! Cost: O(1) per lookup (one hashed slot, usually one cache line); memory `16 × slots` bytes with
//! `slots` the power of two at or above `2 (n + 1)`, capped at [`MAX_SLOTS`]. A local search evaluates
//! the same few non-candidate pairs around a node again whenever the node is queued again (2-opt's
//! closing edge `(t1, t4)`, Or-opt's `(p, q)` and `(end, y)`, tour edges the greedy chaining made); the
//! oracle merges two sorted footprints stored in the caller's (random) order, several cache misses per
//! call, so a hit saves most of the cost. A collision just overwrites the slot: answers are always the
//! oracle's, so results do not depend on the table. Source: the edge-length caches of Concorde's linkern
//! and of LKH (`CacheSig`/`CacheVal`). Caller: [`crate::oracle::PathCosts`].

use std::cell::Cell;

/// Largest table: 2^22 slots (64 MiB).
pub(crate) const MAX_SLOTS: usize = 1 << 22;

/// One pair and its cost, together so that a lookup touches one cache line.
#[derive(Clone, Copy)]
struct Slot {
    key: u64,
    cost: i64,
}

const EMPTY: Slot = Slot {
    key: u64::MAX,
    cost: 0,
};

/// Direct-mapped memo of `cost(a, b)` keyed by the unordered pair, with counters.
///
/// # Invariants
/// A slot holding key `k = min << 32 | max` holds the oracle's cost of that pair. Single-threaded
/// (`Cell`): one solve owns it.
pub(crate) struct CostCache {
    slots: Vec<Cell<Slot>>,
    shift: u32,
    misses: Cell<u64>,
}

impl CostCache {
    /// A table for a tour of `nodes` nodes.
    pub(crate) fn new(nodes: usize) -> Self {
        let slots = (2 * nodes).next_power_of_two().clamp(2, MAX_SLOTS);
        Self {
            slots: vec![Cell::new(EMPTY); slots],
            shift: 64 - slots.trailing_zeros(),
            misses: Cell::new(0),
        }
    }

    /// The cost of `{a, b}` (`a != b`): from the table, else from `compute` (then stored).
    #[inline]
    pub(crate) fn get(&self, a: usize, b: usize, compute: impl FnOnce() -> i64) -> i64 {
        let key = ((a.min(b) as u64) << 32) | b.max(a) as u64;
        // Fibonacci hashing: the top bits of the product spread neighbouring pairs over the table.
        let slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize;
        let cell = &self.slots[slot];
        let found = cell.get();
        if found.key == key {
            return found.cost;
        }
        let cost = compute();
        self.misses.set(self.misses.get() + 1);
        cell.set(Slot { key, cost });
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
}
