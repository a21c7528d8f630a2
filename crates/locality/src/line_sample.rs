//! Spatial sampling of a cache replay: [`LineSample`] says which share of the lines of memory
//! the replay of [`crate::cache_model`] simulates, and `HashedLines` which lines those are.

use crate::CacheShape;

/// Which lines of memory a replay simulates: all of them, or one in `every` (a power of two)
/// chosen by a hash of the line's number, through caches of `1/every` of the sets (same ways);
/// the misses counted are multiplied by `every`. This is spatial sampling as in SHARDS
/// (Waldspurger et al., FAST 2015): a hashed sample keeps each sampled line's reuse and scales
/// what competes with it for the cache by the same rate, so the estimate holds whatever the
/// order, where sampling a fixed subset of sets would not (on a natural R-MAT graph the hot
/// columns are those whose index has many zero bits, which the low sets collect). What it sees
/// less of are the conflicts of such an order in the real mapping of lines to sets: there it
/// under-estimates (0.44-0.87 of the whole replay's misses on R-MAT graphs in their own order,
/// within 5% shuffled).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineSample {
    every: usize,
}

impl LineSample {
    /// Every line: the exact replay.
    pub const ALL: Self = Self { every: 1 };

    /// One line in `every`, rounded down to a power of two (at least 1).
    pub fn one_in(every: usize) -> Self {
        let every = every.max(1);
        Self {
            every: 1 << (usize::BITS - 1 - every.leading_zeros()),
        }
    }

    /// One line in how many.
    pub fn every(self) -> usize {
        self.every
    }

    /// The rate usable with `levels`: `every` when each level has at least `every` sets, a power
    /// of two, else 1 (every line).
    pub(crate) fn usable(self, levels: &[CacheShape]) -> usize {
        let fits = levels
            .iter()
            .all(|l| l.sets().is_power_of_two() && l.sets() >= self.every);
        if fits {
            self.every
        } else {
            1
        }
    }
}

/// The lines of a [`LineSample`]: those whose multiplicative (Fibonacci) hash has its top bits
/// zero, renamed by the hash's bits below those, so that the sampled lines spread over the sets
/// of the reduced caches as lines do over a whole cache's (the low bits of the sampled lines'
/// numbers do not: they follow the hash's pattern).
#[derive(Debug, Clone, Copy)]
pub(crate) struct HashedLines {
    /// `log2(every)`; 0 keeps every line under its own number.
    bits: u32,
    /// Brings the hash's bits below the top `bits` to the low end: `bits + log2(most sets)`.
    rotate: u32,
}

impl HashedLines {
    pub(crate) fn new(every: usize, most_sets: usize) -> Self {
        let bits = every.trailing_zeros();
        Self {
            bits,
            rotate: bits + most_sets.trailing_zeros(),
        }
    }

    /// The number under which `line` is replayed, or `None` when the sample leaves it out.
    #[inline]
    pub(crate) fn name(self, line: usize) -> Option<usize> {
        if self.bits == 0 {
            return Some(line);
        }
        let hash = (line as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        // The top bit dropped keeps `name + 1` (the cache's tag) from overflowing.
        (hash >> (64 - self.bits) == 0)
            .then(|| hash.rotate_left(self.rotate) as usize & (usize::MAX >> 1))
    }
}
