//! Tour representations: a cyclic order of the nodes supporting `next`, `prev` and the 2-opt `flip`.
//!
//! Cost: per representation (see the sibling modules). Source: Fredman, Johnson, McGeoch & Ostheimer,
//! "Data structures for traveling salesmen" (1995). Caller: every improvement stage (2-opt, Or-opt,
//! Lin-Kernighan, kicks). All moves are expressed as sequences of [`Tour::flip`], so a new representation
//! (e.g. a two-level doubly-linked list) only has to implement this trait.

pub mod array;
pub mod journal;
pub mod two_level;

pub use array::ArrayTour;
pub use journal::Journal;
pub use two_level::TwoLevelTour;

/// A cyclic tour over nodes `0..len()` with an orientation.
///
/// # Invariants
/// `next(prev(a)) == a`; following `next` from any node visits every node once.
pub trait Tour {
    /// The tour visiting `order` in sequence (a permutation of `0..order.len()`, not checked).
    fn from_order(order: &[usize]) -> Self
    where
        Self: Sized;
    /// Number of nodes.
    fn len(&self) -> usize;
    /// True when there are no nodes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The successor of `a`.
    fn next(&self, a: usize) -> usize;
    /// The predecessor of `a`.
    fn prev(&self, a: usize) -> usize;
    /// True when `b` lies on the forward walk from `a` to `c` (ends included).
    fn between(&self, a: usize, b: usize, c: usize) -> bool;
    /// The 2-opt move: with `b == next(a)` and `d == next(c)`, replaces the edges `(a,b), (c,d)` by
    /// `(a,c), (b,d)`, reversing the walk `b..=c` (afterwards `next(a) == c` and `next(b) == d`).
    /// Undone by `flip(a, c, b, d)`.
    ///
    /// # Panics
    /// May panic (debug builds) when the precondition does not hold: a programmer error.
    fn flip(&mut self, a: usize, b: usize, c: usize, d: usize);
    /// The nodes in tour order starting at `start`.
    fn order_from(&self, start: usize) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.len());
        let mut v = start;
        for _ in 0..self.len() {
            out.push(v);
            v = self.next(v);
        }
        out
    }
}

/// A direction of travel along a tour: moves are written once for `Forward` and mirrored for `Backward`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dir {
    /// Along `next`.
    Forward,
    /// Along `prev`.
    Backward,
}

impl Dir {
    /// Both directions.
    pub(crate) const BOTH: [Dir; 2] = [Dir::Forward, Dir::Backward];

    /// The successor of `a` in this direction.
    #[inline]
    pub(crate) fn succ(self, tour: &impl Tour, a: usize) -> usize {
        match self {
            Dir::Forward => tour.next(a),
            Dir::Backward => tour.prev(a),
        }
    }

    /// The predecessor of `a` in this direction.
    #[inline]
    pub(crate) fn pred(self, tour: &impl Tour, a: usize) -> usize {
        match self {
            Dir::Forward => tour.prev(a),
            Dir::Backward => tour.next(a),
        }
    }

    /// [`Tour::flip`] read in this direction: with `b == succ(a)`, `d == succ(c)`, replaces `(a,b), (c,d)`
    /// by `(a,c), (b,d)`; afterwards `succ(a) == c`.
    #[inline]
    pub(crate) fn flip(self, tour: &mut impl Tour, a: usize, b: usize, c: usize, d: usize) {
        match self {
            Dir::Forward => tour.flip(a, b, c, d),
            Dir::Backward => tour.flip(d, c, b, a),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Checks a representation against a plain `Vec` model under random flips.
    pub(crate) fn check_against_model<T: Tour>() {
        for n in [3, 5, 37, 150, 400] {
            check_size::<T>(n);
        }
    }

    fn check_size<T: Tour>(n: usize) {
        let order: Vec<usize> = (0..n).map(|i| (i * 7) % n).collect();
        let mut tour = T::from_order(&order);
        let mut model = order.clone();
        let mut state = 12345u64 + n as u64;
        let mut rand = |m: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) as usize) % m
        };
        for _ in 0..3000 {
            let a = rand(n);
            let c = rand(n);
            let b = tour.next(a);
            let d = tour.next(c);
            if c == a {
                continue;
            }
            tour.flip(a, b, c, d);
            // Model: rotate so that `a` is first, then reverse the b..=c stretch.
            let pa = model.iter().position(|&x| x == a).unwrap();
            model.rotate_left(pa);
            let pc = model.iter().position(|&x| x == c).unwrap();
            model[1..=pc].reverse();
            assert_cycle_eq(&tour, &model);
            let (x, y, z) = (rand(n), rand(n), rand(n));
            let px = model.iter().position(|&v| v == x).unwrap();
            let dist = |v: usize| (model.iter().position(|&w| w == v).unwrap() + n - px) % n;
            assert_eq!(tour.between(x, y, z), dist(y) <= dist(z));
        }
    }

    fn assert_cycle_eq<T: Tour>(tour: &T, model: &[usize]) {
        assert_eq!(tour.order_from(model[0]), model);
        for (i, &v) in model.iter().enumerate() {
            assert_eq!(tour.prev(v), model[(i + model.len() - 1) % model.len()]);
        }
    }

    #[test]
    fn dir_flip_mirrors() {
        let mut t = ArrayTour::from_order(&[0, 1, 2, 3, 4, 5]);
        // Backward: succ(3) = 2, succ(0) = 5; replace (3,2),(0,5) by (3,0),(2,5).
        Dir::Backward.flip(&mut t, 3, 2, 0, 5);
        assert_eq!(Dir::Backward.succ(&t, 3), 0);
        assert_eq!(Dir::Backward.succ(&t, 2), 5);
    }
}
