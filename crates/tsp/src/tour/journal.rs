//! A tour wrapper that records flips so that a rejected kick and the local search after it can be undone.
//!
//! Cost: O(1) extra per flip; undoing replays the flips backwards (each flip is its own inverse up to
//! argument order). Source: the "undo" of Applegate et al. (2003) section 3.1. Caller: the chained loop in
//! [`crate::solve_path`].

use super::Tour;

/// `T` plus a log of the flips since the last [`Journal::commit`].
#[derive(Debug, Clone)]
pub struct Journal<T> {
    tour: T,
    log: Vec<[u32; 4]>,
}

impl<T: Tour> Journal<T> {
    /// Wraps `tour` with an empty log.
    pub fn new(tour: T) -> Self {
        Self {
            tour,
            log: Vec::new(),
        }
    }

    /// Forgets the log: the current tour becomes the one [`Journal::rollback`] returns to.
    pub fn commit(&mut self) {
        self.log.clear();
    }

    /// Undoes every flip since the last commit.
    pub fn rollback(&mut self) {
        while let Some([a, b, c, d]) = self.log.pop() {
            let [a, b, c, d] = [a, b, c, d].map(|v| v as usize);
            self.tour.flip(a, c, b, d);
        }
    }

    /// The wrapped tour.
    pub fn inner(&self) -> &T {
        &self.tour
    }
}

impl<T: Tour> Tour for Journal<T> {
    fn from_order(order: &[usize]) -> Self {
        Self::new(T::from_order(order))
    }
    fn len(&self) -> usize {
        self.tour.len()
    }
    #[inline]
    fn next(&self, a: usize) -> usize {
        self.tour.next(a)
    }
    #[inline]
    fn prev(&self, a: usize) -> usize {
        self.tour.prev(a)
    }
    fn between(&self, a: usize, b: usize, c: usize) -> bool {
        self.tour.between(a, b, c)
    }
    fn flip(&mut self, a: usize, b: usize, c: usize, d: usize) {
        self.tour.flip(a, b, c, d);
        self.log.push([a, b, c, d].map(|v| v as u32));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tour::ArrayTour;

    #[test]
    fn rollback_restores_the_tour() {
        let order: Vec<usize> = (0..9).collect();
        let mut j = Journal::new(ArrayTour::from_order(&order));
        j.flip(0, 1, 4, 5);
        j.commit();
        let kept = j.order_from(0);
        j.flip(2, j.next(2), 7, j.next(7));
        j.flip(5, j.next(5), 8, j.next(8));
        j.rollback();
        assert_eq!(j.order_from(0), kept);
    }
}
