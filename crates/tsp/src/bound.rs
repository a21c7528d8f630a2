//! Lower bound on the cost of any Hamiltonian path: `⌈(Σ_v (c1(v) + c2(v)) − two largest c2) / 2⌉`.
//!
//! In a path every node but the two ends meets two path edges and each end one, so twice the path cost is
//! at least the sum over nodes of their two cheapest edge costs `c1(v) ≤ c2(v)`, less `c2` of the two
//! ends, hence less the two largest `c2` (SPEC section 4).
//!
//! Cost: O(n K), plus O(n) oracle calls per node whose list holds fewer than two entries when
//! `n × (such nodes) ≤ EXACT_SCAN_BUDGET` (otherwise those nodes use 0, still a valid bound).
//! Source: SPEC section 4; the degree-2 bound of Held & Karp (1970) without Lagrangean weights.
//! Caller: [`crate::solve_path`].
//!
//! # Assumption
//! Each candidate list is a prefix of its node's edges sorted by cost (its `K` cheapest, ties in any
//! order) and costs are `>= 0`. Then `c1`, `c2` are the list's first two costs. A list with a single entry
//! bounds the missing `c2` from below by its `c1`. If the lists are not such prefixes (e.g. truncated by
//! another criterion than cost), the figure may exceed the optimum: it is reported, never used to prune.

use crate::{CandidateLists, CostOracle};

/// Largest `n × nodes-with-short-lists` for which the missing cheapest costs are computed exactly.
const EXACT_SCAN_BUDGET: usize = 50_000_000;

/// The lower bound of SPEC section 4 over `cands` (see the module docs for the assumption).
pub fn lower_bound(cands: &CandidateLists, oracle: &dyn CostOracle) -> i64 {
    let n = cands.len();
    if n < 2 {
        return 0;
    }
    if n == 2 {
        return oracle.cost(0, 1);
    }
    let short = (0..n).filter(|&v| cands.costs(v).len() < 2).count();
    let exact = short.saturating_mul(n) <= EXACT_SCAN_BUDGET;
    let mut sum: i64 = 0;
    let mut top_c2 = [0i64; 2];
    for v in 0..n {
        let (c1, c2) = cheapest_two(cands, oracle, v, exact);
        sum += c1 + c2;
        if c2 > top_c2[0] {
            top_c2 = [c2, top_c2[0]];
        } else if c2 > top_c2[1] {
            top_c2[1] = c2;
        }
    }
    let twice = sum - top_c2[0] - top_c2[1];
    (twice + 1).div_euclid(2)
}

/// `(c1, c2)` of node `v`.
fn cheapest_two(
    cands: &CandidateLists,
    oracle: &dyn CostOracle,
    v: usize,
    exact: bool,
) -> (i64, i64) {
    match *cands.costs(v) {
        [c1, c2, ..] => (c1, c2),
        _ if exact => {
            let mut best = [i64::MAX; 2];
            for u in (0..cands.len()).filter(|&u| u != v) {
                let c = oracle.cost(v, u);
                if c < best[0] {
                    best = [c, best[0]];
                } else if c < best[1] {
                    best[1] = c;
                }
            }
            (best[0], best[1])
        }
        [c1] => (c1, c1),
        [] => (0, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bound_of_a_line() {
        // Points on a line at 0, 1, 2, 3: optimum path cost 3.
        let cost = |a: usize, b: usize| a.abs_diff(b) as i64;
        let lists = (0..4)
            .map(|a| {
                (0..4)
                    .filter(|&b| b != a)
                    .map(|b| (b as u32, cost(a, b)))
                    .collect()
            })
            .collect();
        let cands = CandidateLists::from_lists(lists).unwrap();
        // c1+c2: 1+2, 1+1, 1+1, 1+2 = 10; minus the two largest c2 (2, 2) = 6; half = 3.
        assert_eq!(lower_bound(&cands, &cost), 3);
        // Empty lists fall back to an exact scan.
        let empty = CandidateLists::from_lists(vec![vec![]; 4]).unwrap();
        assert_eq!(lower_bound(&empty, &cost), 3);
    }
}
