//! Random order: a seeded uniform shuffle of the rows, the classic way to destroy locality (the
//! worst-case baseline every reordering paper measures against).
//!
//! Fisher-Yates with xoshiro256++ seeded by `seed` (`rand`'s `SliceRandom::shuffle`): `O(n)`,
//! sequential. The same seed gives the same order on every platform. Called by [`crate::order`] for
//! [`crate::Method::Random`].

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// A uniformly random order of `0..n`, determined by `seed`.
pub fn random_order(n: usize, seed: u64) -> Vec<usize> {
    let mut rows: Vec<usize> = (0..n).collect();
    rows.shuffle(&mut Xoshiro256PlusPlus::seed_from_u64(seed));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_order_other_seed_other_order() {
        assert_eq!(random_order(100, 1), random_order(100, 1));
        assert_ne!(random_order(100, 1), random_order(100, 2));
        let mut sorted = random_order(100, 3);
        sorted.sort_unstable();
        assert_eq!(sorted, (0..100).collect::<Vec<_>>());
    }
}
