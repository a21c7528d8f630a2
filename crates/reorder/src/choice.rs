//! The choice of a side's order under the cache check: SpMV's `x` reads priced by
//! [`CacheModel`] for the input order, the start order and the path, and the rule that keeps one
//! of them ([`crate::Reorderer::cache_check`]). Each price is one replay of the rows through the
//! modelled caches, `O(nnz)`. Called by [`crate::side`] and [`crate::path`].

use crate::measure::d_in_order;
use crate::report::{CacheCheck, Kept};
use crate::tuning::Tuning;
use crate::ReorderError;
use spmv_reorder_locality::{CacheModel, ModelledCost, ReplaySample};
use spmv_reorder_sparse::{CsrMatrix, Permutation};

/// Whether the rows of `structure` have a lower `D` in order `start` than in order `input`.
pub(crate) fn start_has_lower_d(
    structure: &CsrMatrix<()>,
    start: &Permutation,
    input: &Permutation,
) -> Result<bool, ReorderError> {
    Ok(d_in_order(structure, start)? < d_in_order(structure, input)?)
}

/// What the cache check prices: SpMV's `x` reads of `structure` under a row order, and the same
/// column order when symmetric, else the columns as they are.
pub(crate) struct Pricing<'a> {
    model: &'a CacheModel,
    structure: &'a CsrMatrix<()>,
    /// The column order of every priced order when the permutation is not symmetric (built once
    /// for the three or four orders priced).
    fixed_cols: Option<Permutation>,
    /// The lines and rows each price replays (all of them unless [`Self::with_sample`]).
    sample: ReplaySample,
}

impl<'a> Pricing<'a> {
    pub(crate) fn new(
        model: &'a CacheModel,
        structure: &'a CsrMatrix<()>,
        symmetric: bool,
    ) -> Self {
        let fixed_cols = (!symmetric).then(|| Permutation::identity(structure.ncols()));
        Self {
            model,
            structure,
            fixed_cols,
            sample: ReplaySample::ALL,
        }
    }

    /// Prices estimated from the lines and rows of `sample` ([`CacheModel::cost_sampled`]).
    pub(crate) fn with_sample(self, sample: ReplaySample) -> Self {
        Self { sample, ..self }
    }

    pub(crate) fn cost(&self, rows: &Permutation) -> ModelledCost {
        self.cost_with_progress(rows, &|_| {})
    }

    /// [`Self::cost`], telling `rows_done` the rows replayed ([`CacheModel::cost_with_progress`]).
    fn cost_with_progress(
        &self,
        rows: &Permutation,
        rows_done: &(dyn Fn(usize) + Sync),
    ) -> ModelledCost {
        let cols = self.fixed_cols.as_ref().unwrap_or(rows);
        self.model
            .cost_with_progress(self.structure, rows, cols, self.sample, rows_done)
    }

    /// The input order and the start order (when there is one besides the input), priced side
    /// by side on the pool's threads (the check took about a fifth of a default run on the
    /// shuffled 1M-row grid, one replay after the other), and the model's floor; the check
    /// weighs them with `tuning`'s margins. `rows_done` hears the rows replayed, out of the
    /// structure's rows for each order priced.
    pub(crate) fn price_others(
        &self,
        start: Option<&Permutation>,
        tuning: Tuning,
        rows_done: &(dyn Fn(usize) + Sync),
    ) -> Priced {
        let input_order = Permutation::identity(self.structure.nrows());
        let price = |rows| self.cost_with_progress(rows, rows_done);
        // The floor, a pass over every column index, goes beside the input's replay, which reads
        // no permutation and ends first.
        let floor = || self.model.floor(self.structure);
        let ((input, floor), start) =
            rayon::join(|| (price(&input_order), floor()), || start.map(price));
        Priced {
            input_order,
            input,
            start,
            floor,
            draft: None,
            draft_abandoned: false,
            refined: None,
            tuning,
        }
    }
}

/// The modelled costs the cache check weighs.
pub(crate) struct Priced {
    /// The input order (the identity), returned when it is the cheapest.
    input_order: Permutation,
    input: ModelledCost,
    start: Option<ModelledCost>,
    /// What no order costs less than ([`CacheModel::floor`]).
    floor: ModelledCost,
    /// The path after the 2-opt + Or-opt descent, once computed (at the checkpoint when the
    /// descent was abandoned there).
    pub(crate) draft: Option<ModelledCost>,
    /// Whether the descent was stopped at its checkpoint ([`Tuning::draft_checkpoint_divisor`])
    /// because the path was priced [`Tuning::draft_abandon_percent`] percent of the cheaper
    /// other order or more.
    pub(crate) draft_abandoned: bool,
    /// The path refined from the draft, when it was.
    pub(crate) refined: Option<ModelledCost>,
    /// The margins of the check.
    tuning: Tuning,
}

impl Priced {
    /// The cheapest of the orders other than the path, in modelled cycles.
    fn cheapest_other(&self) -> u64 {
        self.start
            .iter()
            .fold(self.input.cycles, |c, s| c.min(s.cycles))
    }

    /// The cheaper other order's cost less the margin, in cycles times 100: the line a path's cost
    /// times 100 must not cross.
    fn margin_line(&self) -> u128 {
        self.cheapest_other() as u128 * (100 - self.tuning.path_margin_percent) as u128
    }

    /// Whether a path costing `cycles` passes the check.
    fn passes(&self, cycles: u128) -> bool {
        cycles * 100 <= self.margin_line()
    }

    /// Whether a path priced `cost` at the draft's checkpoint is too far behind to finish: at
    /// least [`Tuning::draft_abandon_percent`] percent of the cheaper other order.
    pub(crate) fn hopeless(&self, cost: ModelledCost) -> bool {
        let abandon = self.tuning.draft_abandon_percent as u128;
        cost.cycles as u128 * 100 >= self.cheapest_other() as u128 * abandon
    }

    /// Whether any path could pass the check: one at the model's floor would.
    pub(crate) fn path_can_pass(&self) -> bool {
        self.passes(self.floor.cycles as u128)
    }

    /// Whether the draft, priced [`Tuning::refine_headroom_percent`] lower, would pass the check
    /// (false before the draft is priced).
    pub(crate) fn path_may_pass(&self) -> bool {
        self.draft.is_some_and(|draft| {
            let headroom = self.tuning.refine_headroom_percent;
            let path = draft.cycles as u128 * (100 - headroom) as u128;
            path < self.margin_line()
        })
    }

    /// The path when its `x` reads cost at least [`Tuning::path_margin_percent`] less than those
    /// of the
    /// input order and of the start order, else the cheaper of those two, or when the model
    /// prices them within [`Tuning::model_tie_percent`] of each other, the one `start_has_lower_d` (given
    /// the start order and the input order) prefers, ties to the input; with the report of the
    /// check.
    ///
    /// # Errors
    /// Those of `start_has_lower_d`.
    pub(crate) fn choose(
        self,
        start: Option<Permutation>,
        path: Option<Permutation>,
        start_has_lower_d: impl FnOnce(&Permutation, &Permutation) -> Result<bool, ReorderError>,
    ) -> Result<(Permutation, CacheCheck), ReorderError> {
        let path_cost = self.refined.or(self.draft);
        let path = path
            .zip(path_cost)
            .filter(|(_, cost)| self.passes(cost.cycles as u128))
            .map(|(path, _)| path);
        let path_wins = path.is_some();
        let tied = self
            .start
            .is_some_and(|s| self.tied(s.cycles, self.input.cycles));
        let (kept, perm) = match (start.zip(self.start), path) {
            (_, Some(path)) => (Kept::Path, path),
            (Some((order, _)), None) if tied && start_has_lower_d(&order, &self.input_order)? => {
                (Kept::Start, order)
            }
            (Some((order, cost)), None) if !tied && cost.cycles < self.input.cycles => {
                (Kept::Start, order)
            }
            _ => (Kept::Input, self.input_order),
        };
        let check = CacheCheck {
            input: self.input,
            start: self.start,
            floor: self.floor,
            start_near_bound: None,
            path: path_cost,
            draft: self.draft,
            draft_abandoned: self.draft_abandoned,
            refined: self.refined.is_some(),
            tied: tied && !path_wins,
            kept,
        };
        Ok((perm, check))
    }

    /// Whether the model prices `a` and `b` within [`Tuning::model_tie_percent`] of each other.
    fn tied(&self, a: u64, b: u64) -> bool {
        let tie = self.tuning.model_tie_percent as u128;
        a.abs_diff(b) as u128 * 100 <= a.max(b) as u128 * tie
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_check_breaks_a_modelled_tie_by_d() {
        let cost = |cycles| ModelledCost {
            l1_misses: cycles,
            l2_misses: 0,
            cycles,
        };
        let priced = |input, start, path| Priced {
            input_order: Permutation::identity(3),
            input: cost(input),
            start: Some(cost(start)),
            floor: cost(0),
            draft: Some(cost(path)),
            draft_abandoned: false,
            refined: None,
            tuning: Tuning::default(),
        };
        let rcm = Permutation::from_new_to_old(vec![2, 1, 0]).unwrap();
        let path = Permutation::from_new_to_old(vec![1, 0, 2]).unwrap();
        let choose = |p: Priced, start_lower: bool| {
            let mut asked = false;
            let (perm, check) = p
                .choose(Some(rcm.clone()), Some(path.clone()), |start, input| {
                    asked = true;
                    assert_eq!((start, input), (&rcm, &Permutation::identity(3)));
                    Ok(start_lower)
                })
                .unwrap();
            (perm, check.kept, check.tied, asked)
        };
        // Within 5%: `D` decides, either way.
        assert_eq!(
            choose(priced(100, 104, 200), true),
            (rcm.clone(), Kept::Start, true, true)
        );
        let input = Permutation::identity(3);
        assert_eq!(
            choose(priced(104, 100, 200), false),
            (input.clone(), Kept::Input, true, true)
        );
        assert_eq!(choose(priced(100, 100, 200), true).1, Kept::Start);
        // Further apart: the model decides, and `D` is not computed.
        assert_eq!(
            choose(priced(100, 106, 200), true),
            (input, Kept::Input, false, false)
        );
        assert_eq!(
            choose(priced(106, 100, 200), false),
            (rcm.clone(), Kept::Start, false, false)
        );
        // A path 15% cheaper than both passes whatever the tie.
        let (perm, kept, tied, asked) = choose(priced(100, 100, 85), false);
        assert_eq!(
            (perm, kept, tied, asked),
            (path.clone(), Kept::Path, false, false)
        );
        let (_, kept, ..) = choose(priced(100, 100, 86), false);
        assert_eq!(kept, Kept::Input);
    }
}
