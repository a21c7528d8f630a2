//! Relabelling: the solver works on node ids `0..n` numbered in the order of the initial path, so that
//! nodes adjacent in the tour are adjacent in every per-node array (tour links, neighbour lists, queue
//! bits) and a local search walks memory nearly sequentially instead of at random.
//!
//! Cost: O(n) to build and O(n) to map a path back. On the shuffled 1M-row Poisson grid the caller's
//! ids are a random permutation of the tour, and most of the 2-opt + Or-opt time went to cache misses in
//! [`crate::tour::TwoLevelTour::next`]. Source: the same idea as the locality reordering this crate serves
//! (SPEC section 4); LKH also renumbers nodes by the initial tour. Caller: [`crate::solve_path`].

/// A bijection between the caller's node ids and the solver's internal ids.
///
/// # Invariants
/// `old_of` and `new_of` are inverse permutations of `0..len()` (checked in debug builds).
#[derive(Debug, Clone)]
pub(crate) struct Labels {
    old_of: Vec<u32>,
    new_of: Vec<u32>,
}

impl Labels {
    /// Internal id `i` is the caller's `order[i]`; `order` must be a permutation of `0..order.len()`.
    pub(crate) fn from_order(order: &[usize]) -> Self {
        let old_of: Vec<u32> = order.iter().map(|&v| v as u32).collect();
        let mut new_of = vec![u32::MAX; order.len()];
        for (i, &v) in order.iter().enumerate() {
            new_of[v] = i as u32;
        }
        debug_assert!(new_of.iter().all(|&i| i != u32::MAX), "not a permutation");
        Self { old_of, new_of }
    }

    /// Number of labelled nodes.
    pub(crate) fn len(&self) -> usize {
        self.old_of.len()
    }

    /// The caller's id of internal node `v`.
    #[inline]
    pub(crate) fn old(&self, v: usize) -> usize {
        self.old_of[v] as usize
    }

    /// The internal id of the caller's node `v`.
    #[inline]
    pub(crate) fn internal(&self, v: usize) -> usize {
        self.new_of[v] as usize
    }

    /// `path` (internal ids) in the caller's ids.
    pub(crate) fn to_old(&self, path: &[usize]) -> Vec<usize> {
        path.iter().map(|&v| self.old(v)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let order = [3, 0, 4, 1, 2];
        let labels = Labels::from_order(&order);
        assert_eq!(labels.len(), 5);
        for v in 0..5 {
            assert_eq!(labels.old(labels.internal(v)), v);
            assert_eq!(labels.internal(labels.old(v)), v);
        }
        // The initial path is the identity in internal ids.
        let internal: Vec<usize> = order.iter().map(|&v| labels.internal(v)).collect();
        assert_eq!(internal, [0, 1, 2, 3, 4]);
        assert_eq!(labels.to_old(&internal), order);
    }
}
