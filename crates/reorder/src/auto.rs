//! The default route, [`Method::Auto`](crate::Method::Auto): reverse Cuthill-McKee's order or the
//! order as read, whichever the cache model prices lower (the one with the lower `D` when the two
//! are within [`Tuning::model_tie_percent`](crate::Tuning::model_tie_percent)), before the length
//! runs that follow every route.
//!
//! Why not the TSP path or windows sized to the caches: where `x` exceeds L2 neither ran faster
//! than RCM's order with length runs (`docs/evaluation.md`), so the default pays for RCM and two
//! replays of the cache model, never for a window graph it would throw away.
//!
//! Cost: RCM (`O(nnz)` breadth-first searches) and two replays of the model, `O(nnz · ways)`. On
//! large matrices the replays simulate a share of the lines of memory: up to one in 8 with every
//! nonzero, and with a sample of the nonzeros as small a share as the sample is of the nonzeros
//! ([`sampled_lines`]); on matrices of several million nonzeros they also count one row in 8, in
//! 16 stretches of each order, which halves their time on a 1M-row grid
//! ([`Tuning::priced_row_segments`](crate::Tuning)). Called by [`crate::side`].

use crate::choice::{start_has_lower_d, Pricing};
use crate::pipeline::OrderingStep;
use crate::progress::SharedProgress;
use crate::report::SideReport;
use crate::side::{rcm_with_progress, SideInput};
use crate::{ReorderError, Reorderer, Tuning};
use spmv_reorder_locality::{CacheModel, LineSample, ReplaySample, RowSample};
use spmv_reorder_sparse::Permutation;
use std::time::Instant;

impl Reorderer {
    /// Orders a side by the default route: RCM or the input order, as the cache model prefers
    /// (RCM alone when the check is off). `done` hears the share of each step done.
    ///
    /// # Errors
    /// Those of RCM and of `D` (on a modelled tie).
    pub(crate) fn order_auto(
        &self,
        input: SideInput<'_>,
        done: &mut (dyn FnMut(OrderingStep, f64) + Send),
    ) -> Result<(Permutation, SideReport), ReorderError> {
        let clock = Instant::now();
        let rcm = rcm_with_progress(
            input.structure,
            self.rcm_start,
            self.symmetric_pattern,
            done,
        )?;
        let Some(model) = &self.cache_check else {
            let report = SideReport::peer(input.side, clock.elapsed().as_secs_f64());
            return Ok((rcm, report));
        };
        let pricing = Pricing::new(model, input.structure, input.symmetric)
            .with_sample(replay_sample(&input, model, self.tuning));
        done(OrderingStep::Pricing, 0.0);
        let mut priced_share = |share| done(OrderingStep::Pricing, share);
        let replays = SharedProgress::new(2 * input.structure.nrows(), &mut priced_share);
        let priced = pricing.price_others(Some(&rcm), self.tuning, &|rows| replays.add(rows));
        let (perm, check) = priced.choose(Some(rcm), None, |start, given| {
            start_has_lower_d(input.pattern, start, given)
        })?;
        let mut report = SideReport::peer(input.side, clock.elapsed().as_secs_f64());
        report.cache_check = Some(check);
        Ok((perm, report))
    }
}

/// The lines and rows the check replays: [`sampled_lines`], and the rows of
/// [`Tuning::priced_row_segments`](crate::Tuning) stretches, or with a sample of the nonzeros
/// [`Tuning::sampled_row_segments`](crate::Tuning) (fewer warm-ups: the replays of RCM's order
/// are most of what a sample can save, on a shuffled matrix).
fn replay_sample(input: &SideInput<'_>, model: &CacheModel, tuning: Tuning) -> ReplaySample {
    let segments = if input.sees_every_nonzero() {
        tuning.priced_row_segments
    } else {
        tuning.sampled_row_segments
    };
    ReplaySample {
        lines: sampled_lines(input, model, tuning),
        rows: RowSample::segments(segments, tuning.priced_row_share),
    }
}

/// The lines the check replays ([`LineSample`]). With every nonzero, one line in up to
/// [`Tuning::priced_line_share`](crate::Tuning), keeping at least
/// [`Tuning::priced_x_lines_min`](crate::Tuning) lines of `x`: fewer sets than that price a small
/// matrix's orders apart where the whole replay ties them (a natural 300² grid: the input's L1
/// misses doubled at one line in 2). With a sample of the nonzeros, one line in as many as the
/// sample is smaller than the whole (one in 32 for 2%), keeping at least
/// [`Tuning::sampled_x_lines_min`](crate::Tuning) lines. The whole pattern is replayed on those
/// lines, not the sample of nonzeros: a replay of 2% of each row's reads finds nearly every line
/// of `x` cold, and priced a natural 3D grid level with RCM's order of it, where the whole replay
/// prices RCM's 3 times lower at L2.
fn sampled_lines(input: &SideInput<'_>, model: &CacheModel, tuning: Tuning) -> LineSample {
    let (sampled, whole) = (input.pattern.nnz(), input.structure.nnz());
    let lines = input
        .structure
        .ncols()
        .div_ceil(model.l1.elements_per_line());
    let (share, lines_min) = if input.sees_every_nonzero() {
        (tuning.priced_line_share, tuning.priced_x_lines_min)
    } else {
        (whole / sampled.max(1), tuning.sampled_x_lines_min)
    };
    LineSample::one_in(share.min(lines / lines_min.max(1)))
}

#[cfg(test)]
mod tests {
    use crate::{CacheCheck, Kept, Method, Reorderer, Reordering, SamplerChoice, Tuning};
    use spmv_reorder_gen::{poisson2d, poisson3d, shuffle_symmetric};
    use spmv_reorder_locality::{CacheModel, CacheShape};

    /// The rows' cache check of a reordering that made one.
    fn cache_check(r: &Reordering) -> &CacheCheck {
        let rows = r.report.rows.as_ref().expect("rows ordered");
        rows.cache_check.as_ref().expect("a cache check")
    }

    /// `estimate` returned the order `whole` returned, with its prices of the input and the start
    /// order within 10% of `whole`'s at both levels.
    fn assert_priced_alike(whole: &Reordering, estimate: &Reordering) {
        assert_eq!(whole.rows.new_to_old(), estimate.rows.new_to_old());
        let (wc, ec) = (cache_check(whole), cache_check(estimate));
        for (whole, est) in [(wc.input, ec.input), (wc.start.unwrap(), ec.start.unwrap())] {
            let near = |e: u64, w: u64| e.abs_diff(w) <= w / 10;
            assert!(near(est.l1_misses, whole.l1_misses), "{est:?} {whole:?}");
            assert!(near(est.l2_misses, whole.l2_misses), "{est:?} {whole:?}");
        }
    }

    #[test]
    fn the_default_with_cache_windows_reports_the_order_it_returns() {
        // The default orders by RCM whatever the windows: its report must not name the parts.
        let (a, _) = shuffle_symmetric(&poisson2d(40, 40).unwrap(), 3).unwrap();
        let cache = crate::WindowSpec::Cache { bytes: Some(4096) };
        let r = Reorderer::new().windows(cache).run(&a).unwrap();
        assert_eq!(r.report.method, Method::Rcm, "{}", r.report.order);
        // No length runs over windows of several rows: RCM's order as it is.
        let rcm = Reorderer::new().method(Method::Rcm).run(&a).unwrap();
        assert_eq!(r.rows, rcm.rows);
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
        assert!(
            check.input.cycles <= check.start.unwrap().cycles * 105 / 100,
            "{check:?}"
        );
        // Without the check, RCM's order.
        let r = auto.clone().cache_check(None).run(&grid).unwrap();
        assert_eq!(r.report.method, Method::Rcm);
    }

    #[test]
    fn a_large_matrix_is_priced_on_a_share_of_its_lines() {
        // A 600² grid (45,000 lines of `x`): with every nonzero the check replays one line in 2,
        // keeping 22,500 lines, and returns the order the whole replay returns, at prices within
        // 10% of the whole replay's (the natural grid's L1 misses come out 5% high).
        let grid = poisson2d(600, 600).unwrap();
        let (shuffled, _) = shuffle_symmetric(&grid, 5).unwrap();
        let whole = Reorderer::new().tuning(Tuning {
            priced_line_share: 1,
            ..Tuning::default()
        });
        let shared = Reorderer::new();
        for a in [&grid, &shuffled] {
            assert_priced_alike(&whole.run(a).unwrap(), &shared.run(a).unwrap());
        }
    }

    #[test]
    fn a_large_matrix_is_priced_on_a_share_of_its_rows() {
        // A 300² grid (448,000 nonzeros) under caches of 4 and 32 KiB: 16 warm-ups of 5,461
        // nonzeros each leave most rows uncounted, and the check returns the order that counting
        // every row returns, at prices within 10% of its prices.
        let grid = poisson2d(300, 300).unwrap();
        let (shuffled, _) = shuffle_symmetric(&grid, 5).unwrap();
        let sampled = Reorderer::new().cache_check(Some(small_caches()));
        let every_row = sampled.clone().tuning(Tuning {
            priced_row_share: 1,
            ..Tuning::default()
        });
        for a in [&grid, &shuffled] {
            let (whole, estimate) = (every_row.run(a).unwrap(), sampled.run(a).unwrap());
            assert_priced_alike(&whole, &estimate);
            assert_ne!(cache_check(&whole).input, cache_check(&estimate).input);
        }
    }

    /// Caches of 4 and 32 KiB, 8-way: the warm-ups of a row sample are 5,461 nonzeros.
    fn small_caches() -> CacheModel {
        let shape = |bytes| CacheShape {
            bytes,
            ways: 8,
            ..CacheShape::default()
        };
        CacheModel {
            l1: shape(4 * 1024),
            l2: shape(32 * 1024),
            ..CacheModel::default()
        }
    }

    #[test]
    fn a_sample_is_priced_on_fewer_stretches_of_rows() {
        // A 300² grid under small caches with a 10% sample: the check cuts each order into
        // `sampled_row_segments` stretches (with every nonzero, into `priced_row_segments`) and
        // returns the order that counting every row returns, at prices within 10% of those.
        let grid = poisson2d(300, 300).unwrap();
        let (shuffled, _) = shuffle_symmetric(&grid, 5).unwrap();
        let tuned = |sampler: &str, tuning| {
            Reorderer::new()
                .cache_check(Some(small_caches()))
                .sampler(sampler.parse().unwrap())
                .tuning(tuning)
        };
        let segments = |n| Tuning {
            sampled_row_segments: n,
            ..Tuning::default()
        };
        let every_row = Tuning {
            priced_row_share: 1,
            ..Tuning::default()
        };
        for a in [&grid, &shuffled] {
            let run = |sampler, tuning| tuned(sampler, tuning).run(a).unwrap();
            let (eight, sixteen) = (
                run("random:0.1", segments(8)),
                run("random:0.1", segments(16)),
            );
            assert_priced_alike(&run("random:0.1", every_row), &eight);
            assert_ne!(cache_check(&eight).input, cache_check(&sixteen).input);
            // Without a sample the setting is not read.
            let (full_eight, full_sixteen) = (run("all", segments(8)), run("all", segments(16)));
            assert_eq!(
                cache_check(&full_eight).input,
                cache_check(&full_sixteen).input
            );
            assert_eq!(
                cache_check(&full_eight).start,
                cache_check(&full_sixteen).start
            );
        }
    }

    #[test]
    fn a_sample_is_priced_on_a_share_of_the_whole_patterns_lines() {
        // A 40³ grid, natural and shuffled, with 2% of its nonzeros: the check replays the whole
        // pattern on one line of memory in 16 (x has 8,000 lines; 500 kept, above the 256 asked
        // for here) and returns the order it returns with every nonzero, at prices within 10% of
        // the whole replay's. (The sample's own reads are a fiftieth of those.)
        let grid = poisson3d(40, 40, 40).unwrap();
        let (shuffled, _) = shuffle_symmetric(&grid, 3).unwrap();
        let tuning = Tuning {
            sampled_x_lines_min: 256,
            ..Tuning::default()
        };
        let full = Reorderer::new().tuning(tuning);
        let sampler: SamplerChoice = "random:0.02".parse().unwrap();
        let sampled = full.clone().sampler(sampler);
        for a in [&grid, &shuffled] {
            assert_priced_alike(&full.run(a).unwrap(), &sampled.run(a).unwrap());
        }
    }
}
