//! Nearest neighbour path: from node 0, repeatedly append the cheapest unused candidate of the last node.
//!
//! Cost: O(n K) candidate scans plus O(JOIN_SCAN) oracle calls per dead end. Source: Rosenkrantz, Stearns
//! & Lewis (1977); neighbour-list variant of Johnson & McGeoch (1997) section 2.1. Caller:
//! [`super::initial_path`].

use super::{Unused, JOIN_SCAN};
use crate::{CandidateLists, CostOracle};

/// The nearest-neighbour order of all nodes of `cands`.
pub(crate) fn nearest_neighbour_path(
    cands: &CandidateLists,
    oracle: &dyn CostOracle,
) -> Vec<usize> {
    let n = cands.len();
    let mut order = Vec::with_capacity(n);
    if n == 0 {
        return order;
    }
    let mut used = vec![false; n];
    let mut unused = Unused::new(n);
    let mut last = 0;
    loop {
        order.push(last);
        used[last] = true;
        unused.remove(last);
        if order.len() == n {
            return order;
        }
        last = cands
            .neighbours(last)
            .iter()
            .map(|&u| u as usize)
            .find(|&u| !used[u])
            .unwrap_or_else(|| {
                let from = last;
                unused
                    .first(JOIN_SCAN)
                    .min_by_key(|&u| (oracle.cost(from, u), u))
                    .expect("an unused node remains")
            });
    }
}
