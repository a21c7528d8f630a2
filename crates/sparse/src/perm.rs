//! `Permutation`: a bijection of `0..n`, kept in both directions.
//!
//! Convention (used by every crate): as a matrix, `P` maps a vector `x` to `P·x` with
//! `(P·x)[new] = x[new_to_old[new]]`. So `B = P·A·Qᵀ` has `B[i][j] = A[p[i]][q[j]]`, and
//! `B·(Q·x) = P·(A·x)`.

use crate::SparseError;

/// A permutation of `0..n`.
///
/// # Invariants
/// `new_to_old` and `old_to_new` are inverse bijections of `0..n` (checked on construction).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permutation {
    new_to_old: Vec<usize>,
    old_to_new: Vec<usize>,
}

impl Permutation {
    /// The identity on `0..n`.
    pub fn identity(n: usize) -> Self {
        let v: Vec<usize> = (0..n).collect();
        Self {
            new_to_old: v.clone(),
            old_to_new: v,
        }
    }

    /// A uniformly random permutation of `0..n`, the same for the same `seed` on every platform:
    /// Fisher-Yates from the last position down, drawing from xoshiro256++ seeded by `seed`.
    /// `O(n)`. The one random permutation of the project: shuffled test matrices, the `random`
    /// ordering.
    pub fn random(n: usize, seed: u64) -> Self {
        use rand::{Rng, SeedableRng};
        let mut order: Vec<usize> = (0..n).collect();
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        for i in (1..n).rev() {
            order.swap(i, rng.random_range(0..=i));
        }
        Self::from_new_to_old(order).expect("a shuffle of 0..n is a permutation")
    }

    /// The permutation whose position `new` holds the old index placed there (an *ordering*: the
    /// list of old indices in their new order).
    ///
    /// # Errors
    /// [`SparseError::NotAPermutation`] naming the first entry out of range or repeated.
    pub fn from_new_to_old(new_to_old: Vec<usize>) -> Result<Self, SparseError> {
        let old_to_new = invert(&new_to_old)?;
        Ok(Self {
            new_to_old,
            old_to_new,
        })
    }

    /// The permutation that sends old index `old` to position `old_to_new[old]`.
    ///
    /// # Errors
    /// [`SparseError::NotAPermutation`] naming the first entry out of range or repeated.
    pub fn from_old_to_new(old_to_new: Vec<usize>) -> Result<Self, SparseError> {
        let new_to_old = invert(&old_to_new)?;
        Ok(Self {
            new_to_old,
            old_to_new,
        })
    }

    /// Number of elements permuted.
    pub fn len(&self) -> usize {
        self.new_to_old.len()
    }

    /// True for the permutation of the empty set.
    pub fn is_empty(&self) -> bool {
        self.new_to_old.is_empty()
    }

    /// `new_to_old()[new]` is the old index now at position `new`.
    pub fn new_to_old(&self) -> &[usize] {
        &self.new_to_old
    }

    /// `old_to_new()[old]` is the position that old index `old` moves to.
    pub fn old_to_new(&self) -> &[usize] {
        &self.old_to_new
    }

    /// `P⁻¹ = Pᵀ`.
    pub fn inverse(&self) -> Self {
        Self {
            new_to_old: self.old_to_new.clone(),
            old_to_new: self.new_to_old.clone(),
        }
    }

    /// The permutation that applies `self` first, then `then`: as matrices, `then · self`.
    ///
    /// # Errors
    /// [`SparseError::LengthMismatch`] when the lengths differ.
    pub fn then(&self, then: &Permutation) -> Result<Self, SparseError> {
        if self.len() != then.len() {
            return Err(SparseError::LengthMismatch {
                what: "permutation composition",
                expected: self.len(),
                found: then.len(),
            });
        }
        let new_to_old = then
            .new_to_old
            .iter()
            .map(|&mid| self.new_to_old[mid])
            .collect();
        Self::from_new_to_old(new_to_old)
    }

    /// True when this is the identity.
    pub fn is_identity(&self) -> bool {
        self.new_to_old.iter().enumerate().all(|(i, &o)| i == o)
    }

    /// `P·x`: `out[new] = x[new_to_old[new]]`.
    ///
    /// # Panics
    /// If `x.len() != self.len()` (a caller bug).
    pub fn apply<T: Copy>(&self, x: &[T]) -> Vec<T> {
        assert_eq!(
            x.len(),
            self.len(),
            "vector length must equal permutation length"
        );
        self.new_to_old.iter().map(|&o| x[o]).collect()
    }

    /// `Pᵀ·y`, which undoes [`Self::apply`]: `out[old] = y[old_to_new[old]]`.
    ///
    /// # Panics
    /// If `y.len() != self.len()` (a caller bug).
    pub fn apply_inverse<T: Copy>(&self, y: &[T]) -> Vec<T> {
        assert_eq!(
            y.len(),
            self.len(),
            "vector length must equal permutation length"
        );
        self.old_to_new.iter().map(|&n| y[n]).collect()
    }
}

fn invert(p: &[usize]) -> Result<Vec<usize>, SparseError> {
    const UNSET: usize = usize::MAX;
    let n = p.len();
    let mut inv = vec![UNSET; n];
    for (position, &value) in p.iter().enumerate() {
        let reason = if value >= n {
            "out of range"
        } else if inv[value] != UNSET {
            "repeated"
        } else {
            inv[value] = position;
            continue;
        };
        return Err(SparseError::NotAPermutation {
            len: n,
            position,
            value,
            reason,
        });
    }
    Ok(inv)
}

#[cfg(test)]
mod tests {
    #[test]
    fn random_is_seeded_and_uniform_enough() {
        assert_eq!(Permutation::random(100, 3), Permutation::random(100, 3));
        assert_ne!(Permutation::random(100, 3), Permutation::random(100, 4));
        assert!(Permutation::random(0, 1).is_empty());
        // Each position of a 4-element shuffle sees each value about a quarter of the time.
        let mut counts = [[0u32; 4]; 4];
        for s in 0..4000 {
            for (pos, &v) in Permutation::random(4, s).new_to_old().iter().enumerate() {
                counts[pos][v] += 1;
            }
        }
        assert!(
            counts.iter().flatten().all(|&c| (800..1200).contains(&c)),
            "{counts:?}"
        );
    }

    use super::*;
    use proptest::prelude::*;

    fn arb_perm(max: usize) -> impl Strategy<Value = Permutation> {
        (0..max)
            .prop_flat_map(|n| Just((0..n).collect::<Vec<_>>()).prop_shuffle())
            .prop_map(|v| Permutation::from_new_to_old(v).unwrap())
    }

    #[test]
    fn rejects_non_permutations() {
        let e = Permutation::from_new_to_old(vec![0, 2, 2]).unwrap_err();
        assert_eq!(
            e,
            SparseError::NotAPermutation {
                len: 3,
                position: 2,
                value: 2,
                reason: "repeated"
            }
        );
        let e = Permutation::from_old_to_new(vec![0, 3, 1]).unwrap_err();
        assert!(matches!(
            e,
            SparseError::NotAPermutation {
                position: 1,
                value: 3,
                ..
            }
        ));
    }

    proptest! {
        #[test]
        fn inverse_laws(p in arb_perm(50), seed in any::<u64>()) {
            let x: Vec<u64> = (0..p.len() as u64).map(|i| i.wrapping_mul(seed | 1)).collect();
            prop_assert_eq!(p.apply_inverse(&p.apply(&x)), x.clone());
            prop_assert_eq!(p.inverse().apply(&x), p.apply_inverse(&x));
            prop_assert!(p.then(&p.inverse()).unwrap().is_identity());
            prop_assert_eq!(p.inverse().inverse(), p);
        }

        #[test]
        fn composition_applies_in_order(p in arb_perm(30)) {
            let q = Permutation::from_new_to_old(p.new_to_old().iter().rev().copied().collect()).unwrap();
            let x: Vec<usize> = (0..p.len()).map(|i| i * 7 + 1).collect();
            prop_assert_eq!(p.then(&q).unwrap().apply(&x), q.apply(&p.apply(&x)));
        }
    }
}
