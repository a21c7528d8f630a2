//! The default route, [`Method::Auto`](crate::Method::Auto): reverse Cuthill-McKee's order or the
//! order as read, whichever the cache model prices lower (the one with the lower `D` when the two
//! are within [`Tuning::model_tie_percent`](crate::Tuning::model_tie_percent)), before the length
//! runs that follow every route.
//!
//! Why not the TSP path or windows sized to the caches: where `x` exceeds L2 neither ran faster
//! than RCM's order with length runs (`docs/evaluation.md`), so the default pays for RCM and two
//! replays of the cache model, never for a window graph it would throw away.
//!
//! Cost: RCM (`O(nnz)` breadth-first searches) and two replays of the model, `O(nnz · ways)`; the
//! model replays the sample when a sampler is set. Called by [`crate::side`].

use crate::choice::{start_has_lower_d, Pricing};
use crate::report::SideReport;
use crate::side::SideInput;
use crate::{ReorderError, Reorderer};
use spmv_reorder_peers::{reverse_cuthill_mckee, RcmStart};
use spmv_reorder_sparse::Permutation;
use std::time::Instant;

impl Reorderer {
    /// Orders a side by the default route: RCM or the input order, as the cache model prefers
    /// (RCM alone when the check is off).
    ///
    /// # Errors
    /// Those of RCM and of `D` (on a modelled tie).
    pub(crate) fn order_auto(
        &self,
        input: SideInput<'_>,
    ) -> Result<(Permutation, SideReport), ReorderError> {
        let clock = Instant::now();
        let rcm = reverse_cuthill_mckee(input.structure, RcmStart::PseudoPeripheral)?;
        let Some(model) = &self.cache_check else {
            let report = SideReport::peer(input.side, clock.elapsed().as_secs_f64());
            return Ok((rcm, report));
        };
        let pricing = Pricing::new(model, input.pattern, input.symmetric);
        let priced = pricing.price_others(Some(&rcm), self.tuning);
        let (perm, check) = priced.choose(Some(rcm), None, |start, given| {
            start_has_lower_d(input.pattern, start, given)
        })?;
        let mut report = SideReport::peer(input.side, clock.elapsed().as_secs_f64());
        report.cache_check = Some(check);
        Ok((perm, report))
    }
}

#[cfg(test)]
mod tests {
    use crate::{CacheCheck, Kept, Method, Reorderer, Reordering};
    use spmv_reorder_gen::{poisson2d, shuffle_symmetric};

    /// The rows' cache check of a reordering that made one.
    fn cache_check(r: &Reordering) -> &CacheCheck {
        let rows = r.report.rows.as_ref().expect("rows ordered");
        rows.cache_check.as_ref().expect("a cache check")
    }

    #[test]
    fn auto_returns_rcm_on_a_shuffled_grid_and_keeps_a_natural_one() {
        let grid = poisson2d(300, 300).unwrap();
        let (shuffled, _) = shuffle_symmetric(&grid, 7).unwrap();
        let auto = Reorderer::new().method(Method::Auto);
        let r = auto.run(&shuffled).unwrap();
        assert_eq!(r.report.method, Method::Rcm);
        assert_eq!(r.report.requested, Method::Auto);
        let check = cache_check(&r);
        assert_eq!(check.kept, Kept::Start);
        assert!(check.start.unwrap().cycles < check.input.cycles / 4);
        // The grid as generated is already ordered row by row: the model keeps it (or ties and
        // `D` decides), never a worse order.
        let r = auto.run(&grid).unwrap();
        let check = cache_check(&r);
        assert!(check.input.cycles <= check.start.unwrap().cycles * 105 / 100);
        // Without the check, RCM's order.
        let r = auto.clone().cache_check(None).run(&grid).unwrap();
        assert_eq!(r.report.method, Method::Rcm);
    }
}
