//! 2-opt: replace tour edges `(t1,t2), (t4,t3)` by `(t2,t3), (t1,t4)` when that is cheaper.
//!
//! Cost per search from `t1`: O(K) candidate scans in each direction (pruned by `c(t2,t3) < c(t1,t2)`),
//! plus one flip. Source: Croes (1958); neighbour lists and the pruning rule from Johnson & McGeoch (1997),
//! section 3.3. With the dummy node in every list, the move also re-roots the path (makes `t2` an end).
//! Caller: [`crate::local_search::descend`] via [`crate::solve_path`].

use crate::local_search::{Context, Improver};
use crate::tour::{Dir, Tour};

/// First-improvement 2-opt over neighbour lists.
pub(crate) struct TwoOpt;

impl Improver for TwoOpt {
    fn improve<T: Tour>(
        &mut self,
        ctx: &Context<'_>,
        tour: &mut T,
        t1: usize,
        touched: &mut Vec<usize>,
    ) -> i64 {
        for dir in Dir::BOTH {
            let t2 = dir.succ(tour, t1);
            let d12 = ctx.cost(t1, t2);
            for (t3, d23) in ctx.neighbours.of(t2) {
                if d23 >= d12 {
                    break;
                }
                if t3 == t1 || t3 == dir.succ(tour, t2) {
                    continue;
                }
                // In direction `dir` the tour reads t1 t2 .. t4 t3.
                let t4 = dir.pred(tour, t3);
                let gain = d12 + ctx.cost(t4, t3) - d23 - ctx.cost(t1, t4);
                if gain > 0 {
                    dir.flip(tour, t1, t2, t4, t3);
                    touched.extend_from_slice(&[t1, t2, t3, t4]);
                    return gain;
                }
            }
        }
        0
    }
}
