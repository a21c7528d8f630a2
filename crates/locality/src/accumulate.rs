//! Overlap accumulators: for one window `g`, count how many columns each other window `h` shares
//! with it (`a(g,h)`), as SpGEMM accumulates one row of `F·Fᵀ`.
//!
//! Two structures side by side, chosen per window by its work `Σ_{c∈F_g} |windows(c)|`:
//! - [`HashAccumulator`]: open addressing (linear probing, load ≤ 1/4, 1/2 for the largest work) in a table sized to the
//!   work, reused across windows and cleared through its list of used slots. For the usual small
//!   work it stays in L1/L2, where a dense counter over all windows would take a cache miss per
//!   touched window (on a shuffled 1M-row Poisson grid the profile of the dense version was
//!   dominated by those misses and the index reads).
//! - [`DenseAccumulator`]: a counter per window plus a touched list, `O(1)` per update and
//!   `O(windows)` memory per thread, for windows whose work exceeds [`HASH_MAX_WORK`].
//!
//! `add` is `O(1)` (expected for the hash), `drain` is `O(touched)`; both report keys in first-
//! touch order. Called by the candidate search of [`crate::WindowGraph`]; SPEC section 4.

/// Above this much work a window uses the [`DenseAccumulator`].
pub(crate) const HASH_MAX_WORK: usize = 1 << 13;

/// Counts per window, keyed by the window's index entry (see [`crate::index::EntryCodec`]: it
/// carries the footprint length along, and distinct windows have distinct keys).
pub(crate) trait Accumulator {
    /// One more shared column between the current window and the window of index entry `key`.
    fn add(&mut self, key: u32);
    /// Reports `(key, count)` for every key added since the last drain, in first-add
    /// order, and forgets them.
    fn drain(&mut self, report: impl FnMut(u32, u32));
}

/// A counter per window and the list of keys touched; a key's window is `key >> shift`.
///
/// # Invariants
/// Between drains, `count[h] > 0` exactly for the windows of the keys in `touched`; after a drain
/// every count is 0.
#[derive(Debug, Clone)]
pub(crate) struct DenseAccumulator {
    count: Vec<u32>,
    touched: Vec<u32>,
    shift: u32,
}

impl DenseAccumulator {
    /// An accumulator over `windows` windows (`O(windows)` memory), for keys whose window is
    /// `key >> shift`.
    pub(crate) fn new(windows: usize, shift: u32) -> Self {
        Self {
            count: vec![0; windows],
            touched: Vec::new(),
            shift,
        }
    }
}

impl Accumulator for DenseAccumulator {
    #[inline]
    fn add(&mut self, key: u32) {
        let n = &mut self.count[(key >> self.shift) as usize];
        if *n == 0 {
            self.touched.push(key);
        }
        *n += 1;
    }

    #[inline]
    fn drain(&mut self, mut report: impl FnMut(u32, u32)) {
        for key in self.touched.drain(..) {
            report(
                key,
                std::mem::take(&mut self.count[(key >> self.shift) as usize]),
            );
        }
    }
}

/// An open-addressing table of `(key, count)`, sized per window by [`Self::reset`].
///
/// # Invariants
/// Every slot not listed in `used[..len]` is [`Self::EMPTY`]; a used slot packs
/// `key << 32 | count`. Only the first `mask + 1` slots (a power of two, at least twice the
/// number of adds since the last reset) are in use, so a small window's table stays in L1.
#[derive(Debug, Clone)]
pub(crate) struct HashAccumulator {
    slots: Box<[u64; Self::CAPACITY]>,
    mask: usize,
    /// Slots in first-use order; a fixed array so that `add` appends without a branch.
    used: Box<[u32; Self::CAPACITY]>,
    len: usize,
}

impl Default for HashAccumulator {
    fn default() -> Self {
        Self {
            slots: boxed_array(Self::EMPTY),
            mask: 15,
            used: boxed_array(0),
            len: 0,
        }
    }
}

/// `[value; N]` on the heap.
fn boxed_array<T: Copy, const N: usize>(value: T) -> Box<[T; N]> {
    vec![value; N]
        .into_boxed_slice()
        .try_into()
        .unwrap_or_else(|_| unreachable!("the vector has length N"))
}

impl HashAccumulator {
    /// No key (its key part, `u32::MAX`, is never an index entry).
    const EMPTY: u64 = u64::MAX;
    /// Slots allocated: enough for [`HASH_MAX_WORK`] adds at load 1/2. Indices are reduced
    /// modulo this constant too, which lets the compiler drop the bounds checks.
    const CAPACITY: usize = 2 * HASH_MAX_WORK;
    /// Table slots per add, up to [`Self::CAPACITY`]: load at most 1/4, so that the first probe
    /// nearly always ends the search (its exit branch then predicts well; measured faster than
    /// load 1/2 on a shuffled grid, where keys arrive at random).
    const SLOTS_PER_ADD: usize = 4;

    /// Prepares for at most `adds` calls to `add` before the next drain. Must follow a drain.
    ///
    /// # Panics
    /// If `adds > HASH_MAX_WORK` (a caller bug: such windows use the dense accumulator).
    pub(crate) fn reset(&mut self, adds: usize) {
        debug_assert_eq!(self.len, 0);
        assert!(
            adds <= HASH_MAX_WORK,
            "hash accumulator sized for at most HASH_MAX_WORK adds"
        );
        self.mask = (Self::SLOTS_PER_ADD * adds)
            .next_power_of_two()
            .clamp(16, Self::CAPACITY)
            - 1;
    }
}

impl Accumulator for HashAccumulator {
    #[inline]
    fn add(&mut self, key: u32) {
        let mask = self.mask & (Self::CAPACITY - 1);
        // Fibonacci hashing on 64 bits: bits 40.. of the product depend on every key bit (keys
        // differ in their high bits: the low ones hold footprint lengths, mostly equal).
        let mut slot = ((key as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize & mask;
        // At low load the first probe nearly always ends the search, so the only branch is
        // predictable; whether the key was new (about half the adds, at random) is selected
        // without a branch (measured: the branchy version mispredicted there). The probe ends on
        // a slot holding `key` or empty (key part `u32::MAX`, never a key), tested as one
        // `min(held ^ key, !held) == 0`: written as `empty | held == key`, the compiler split it
        // into two branches again, one of them on "new or not" (measured with cachegrind's
        // branch simulation on a shuffled 64k-row grid, w=1: 23 mispredicts per window less;
        // on the 1M-row grid the whole build took about 20% less time).
        loop {
            let packed = self.slots[slot];
            let held = (packed >> 32) as u32;
            if (held ^ key).min(!held) == 0 {
                let empty = packed == Self::EMPTY;
                self.slots[slot] = if empty {
                    (key as u64) << 32 | 1
                } else {
                    packed + 1
                };
                self.used[self.len & (Self::CAPACITY - 1)] = slot as u32;
                self.len += empty as usize;
                return;
            }
            slot = (slot + 1) & mask;
        }
    }

    #[inline]
    fn drain(&mut self, mut report: impl FnMut(u32, u32)) {
        for &slot in &self.used[..std::mem::take(&mut self.len)] {
            let slot = slot as usize & (Self::CAPACITY - 1);
            let packed = std::mem::replace(&mut self.slots[slot], Self::EMPTY);
            report((packed >> 32) as u32, packed as u32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn drained(acc: &mut impl Accumulator) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        acc.drain(|w, c| out.push((w, c)));
        out
    }

    proptest! {
        #[test]
        fn hash_and_dense_agree(rounds in proptest::collection::vec(
            proptest::collection::vec(0u32..300, 0..200), 1..5)) {
            let mut dense = DenseAccumulator::new(300, 0);
            let mut hash = HashAccumulator::default();
            for adds in rounds {
                hash.reset(adds.len());
                for &w in &adds {
                    dense.add(w);
                    hash.add(w);
                }
                let d = drained(&mut dense);
                prop_assert_eq!(&d, &drained(&mut hash));
                let mut expect: Vec<u32> = adds.clone();
                expect.sort_unstable();
                expect.dedup();
                prop_assert_eq!(d.len(), expect.len());
                for (w, c) in d {
                    prop_assert_eq!(c as usize, adds.iter().filter(|&&x| x == w).count());
                }
            }
        }
    }
}
