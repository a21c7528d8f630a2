//! Segment double-bridge kick: `A B C D → A C B D` on three consecutive tour stretches starting at a random
//! node, each at most `span` nodes long in total.
//!
//! Cost: O(span) to walk plus three flips of at most `span` nodes each, so a kick is O(span), far below
//! O(n); the perturbation stays local, like linkern's "segment" and "random-walk" kicks. Source: Martin,
//! Otto & Felten, "Large-step Markov chains for the TSP" (1991) (double bridge); Applegate et al. (2003)
//! section 3 (local kicks for large instances). Caller: the chained loop in [`crate::solve_path`].

use rand::Rng;

use crate::tour::Tour;

/// The six nodes at the three changed edges of a kick: `(a, a'), (b, b'), (c, c')` replaced by
/// `(a, b'), (c, a'), (b, c')`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Kick {
    /// `a, a', b, b', c, c'`.
    pub(crate) nodes: [usize; 6],
}

impl Kick {
    /// Draws a kick on `tour` (which must have at least 5 nodes) with stretches totalling at most `span`.
    pub(crate) fn random<T: Tour>(tour: &T, span: usize, rng: &mut impl Rng) -> Self {
        let n = tour.len();
        let span = span.clamp(2, n - 2);
        let a = rng.random_range(0..n);
        // B = a+1 ..= a+o1, C = a+o1+1 ..= a+o2, with 1 <= o1 < o2 <= span.
        let o2 = rng.random_range(2..=span);
        let o1 = rng.random_range(1..o2);
        let mut walk = a;
        let mut b = a;
        for step in 1..=o2 {
            walk = tour.next(walk);
            if step == o1 {
                b = walk;
            }
        }
        let c = walk;
        Self {
            nodes: [a, tour.next(a), b, tour.next(b), c, tour.next(c)],
        }
    }

    /// Cost change of applying the kick.
    pub(crate) fn delta(&self, cost: impl Fn(usize, usize) -> i64) -> i64 {
        let [a, a1, b, b1, c, c1] = self.nodes;
        cost(a, b1) + cost(c, a1) + cost(b, c1) - cost(a, a1) - cost(b, b1) - cost(c, c1)
    }

    /// Applies the kick as three flips.
    pub(crate) fn apply<T: Tour>(&self, tour: &mut T) {
        let [a, a1, b, b1, c, c1] = self.nodes;
        // A B C D → A C' B' D → A C B' D → A C B D.
        tour.flip(a, a1, c, c1);
        tour.flip(a, c, b1, b);
        tour.flip(c, b, a1, c1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tour::ArrayTour;
    use rand::SeedableRng;

    #[test]
    fn kick_moves_segments() {
        let order: Vec<usize> = (0..10).collect();
        let mut t = ArrayTour::from_order(&order);
        let kick = Kick {
            nodes: [0, 1, 2, 3, 5, 6],
        };
        kick.apply(&mut t);
        assert_eq!(t.order_from(0), vec![0, 3, 4, 5, 1, 2, 6, 7, 8, 9]);
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
        for _ in 0..100 {
            let k = Kick::random(&t, 6, &mut rng);
            let [a, a1, b, b1, c, c1] = k.nodes;
            assert!(t.between(a, b, c) && a1 != b1 && b != c && c1 != a);
        }
    }
}
