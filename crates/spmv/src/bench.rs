//! Benchmark harness for `y = A·x`: time each kernel with pinned threads and placed memory, next
//! to a STREAM triad measured in the same run, and compare a matrix before and after a reordering.
//!
//! Measures (SPEC section 6): warm-up, then repetitions giving min/median/max seconds per product;
//! GFLOP/s `= 2·nnz / t`; effective bandwidth from the minimum traffic
//! `nnz·(8 + 4) + (nrows + 1)·8 + 8·(nrows + ncols)` bytes (the write-allocate of `y` is not
//! counted); its share of the triad bandwidth; load balance `min_block_nnz / max_block_nnz`
//! (thesis table 2.4); and the roofline point (thesis section 2.7): operational intensity
//! `2·nnz / traffic` against the bandwidth roof `triad GB/s · intensity`. A comparison alternates
//! the repetitions of both matrices so machine noise hits both alike, and reports the speedup and
//! the break-even iterations `reorder_time / (t_before - t_after)`. Cost: `reps · products ·
//! O(nnz)` per kernel and matrix. Called by `spmv-reorder bench`, `evaluate` and the pipeline.
//!
//! Memory: on a machine with several NUMA nodes each matrix is copied into pages placed as the
//! configuration says (one copy per matrix at a time); on one node, where placing changes no
//! page's node, the caller's matrix is used as it is, so that a comparison of two 100M-nonzero
//! matrices needs no third and fourth copy. `x` and `y` are always placed.

use serde::Serialize;
use spmv_reorder_sparse::CsrMatrix;
use std::borrow::Cow;
use std::time::Instant;

use crate::placement::{
    fill_placed, page_report, place_matrix, vector_offsets, PageReport, Placement,
};
use crate::stream::{check_positive, StreamConfig, StreamReport, TriadArrays};
use crate::{Kernel, Par, Pinning, SpmvError, SpmvPlan, ThreadTeam, Topology};

mod report;
pub use report::{
    min_traffic_bytes, BenchReport, Comparison, KernelReport, KernelSpeedup, MatrixSummary,
    Roofline,
};

/// What to measure and how.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchConfig {
    /// Threads (the caller included).
    pub threads: usize,
    /// How threads are pinned.
    pub pinning: Pinning,
    /// Where the matrix and vectors are placed.
    pub placement: Placement,
    /// Kernels to time, in this order.
    pub kernels: Vec<Kernel>,
    /// Untimed products before timing.
    pub warmup: usize,
    /// Timed samples per kernel (and per matrix in a comparison).
    pub reps: usize,
    /// Each sample repeats the product until it lasts at least this long (seconds), so that
    /// microsecond products are timed reliably; the time per product is reported.
    pub min_sample_seconds: f64,
    /// The STREAM triad run with the same team, or `None` to skip it: `reps` repetitions first,
    /// then one more before every round of SpMV samples, so both see the same machine state.
    pub stream: Option<StreamConfig>,
    /// Time the reordering took, for the break-even figures of a comparison.
    pub reorder_seconds: Option<f64>,
}

impl Default for BenchConfig {
    /// All available CPUs, scatter pinning, first touch, every kernel, 3 warm-ups, 20 samples of
    /// at least 1 ms, the default triad.
    fn default() -> Self {
        BenchConfig {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            pinning: Pinning::Scatter,
            placement: Placement::FirstTouch,
            kernels: Kernel::ALL.to_vec(),
            warmup: 3,
            reps: 20,
            min_sample_seconds: 1e-3,
            stream: Some(StreamConfig::default()),
            reorder_seconds: None,
        }
    }
}

/// Benchmarks `a` (see the module documentation).
///
/// # Errors
/// Bad settings ([`SpmvError::InvalidSetting`]), the errors of [`ThreadTeam::new`], of the
/// placement and of the triad.
pub fn run(a: &CsrMatrix<f64>, config: &BenchConfig) -> Result<BenchReport, SpmvError> {
    let mut reports = measure(&[a], config, &mut |_, _| {})?;
    Ok(reports.remove(0))
}

/// Benchmarks `before` and `after` side by side, alternating their repetitions.
///
/// # Errors
/// [`SpmvError::DimensionMismatch`] when the matrices differ in shape or nonzeros; otherwise as
/// [`run`].
pub fn compare(
    before: &CsrMatrix<f64>,
    after: &CsrMatrix<f64>,
    config: &BenchConfig,
) -> Result<Comparison, SpmvError> {
    compare_with_progress(before, after, config, &mut |_, _| {})
}

/// [`compare`], telling `progress` the rounds of samples done of all rounds (`config.reps` per
/// kernel) as it goes.
///
/// # Errors
/// As [`compare`].
pub fn compare_with_progress(
    before: &CsrMatrix<f64>,
    after: &CsrMatrix<f64>,
    config: &BenchConfig,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Comparison, SpmvError> {
    for (what, x, y) in [
        (
            "rows of the reordered matrix",
            before.nrows(),
            after.nrows(),
        ),
        (
            "columns of the reordered matrix",
            before.ncols(),
            after.ncols(),
        ),
        (
            "nonzeros of the reordered matrix",
            before.nnz(),
            after.nnz(),
        ),
    ] {
        if x != y {
            return Err(SpmvError::DimensionMismatch {
                what,
                expected: x,
                found: y,
            });
        }
    }
    let mut reports = measure(&[before, after], config, progress)?;
    let after = reports.pop().expect("two reports");
    let before = reports.pop().expect("two reports");
    let kernels = before
        .kernels
        .iter()
        .zip(&after.kernels)
        .map(|(b, a)| KernelSpeedup {
            kernel: b.kernel,
            before_median_s: b.median_s,
            after_median_s: a.median_s,
            speedup: b.median_s / a.median_s,
        })
        .collect();
    let (t_before, t_after) = (before.median_s, after.median_s);
    let reorder = config.reorder_seconds;
    Ok(Comparison {
        speedup: t_before / t_after,
        reorder_seconds: reorder,
        reorder_cost_in_spmvs: reorder.map(|r| r / t_before),
        break_even_iterations: reorder
            .filter(|_| measurably_faster(&before, &after))
            .map(|r| r / (t_before - t_after)),
        before,
        after,
        kernels,
    })
}

/// Whether `after`'s median product is below the fastest product of `before`'s best kernel: a
/// gain within the spread of the timings (a matrix that stays in cache, an order that changes
/// little) would otherwise pay back after millions of products, which is noise, not a figure.
fn measurably_faster(before: &BenchReport, after: &BenchReport) -> bool {
    let fastest_before = before
        .kernels
        .iter()
        .find(|k| k.kernel == before.best_kernel)
        .map_or(before.median_s, |k| k.min_s);
    after.median_s < fastest_before
}

fn check_config(config: &BenchConfig) -> Result<(), SpmvError> {
    check_positive("reps", config.reps)?;
    if config.kernels.is_empty() {
        return Err(SpmvError::InvalidSetting {
            name: "kernels",
            value: "[]".into(),
            reason: "at least one kernel is needed",
        });
    }
    let bad_seconds = |v: f64| !v.is_finite() || v < 0.0;
    if bad_seconds(config.min_sample_seconds) {
        return Err(SpmvError::InvalidSetting {
            name: "min_sample_seconds",
            value: config.min_sample_seconds.to_string(),
            reason: "must be a finite number >= 0",
        });
    }
    if let Some(r) = config.reorder_seconds.filter(|&r| bad_seconds(r)) {
        return Err(SpmvError::InvalidSetting {
            name: "reorder_seconds",
            value: r.to_string(),
            reason: "must be a finite number >= 0",
        });
    }
    Ok(())
}

/// One matrix placed for one kernel, ready to multiply (its placed `y` is kept apart, as the
/// products write it while the plan borrows the matrix).
struct Placed<'a> {
    /// The matrix as placed; the caller's own on a machine of one NUMA node, where a copy would
    /// change no page's node and would double the memory of large matrices.
    matrix: Cow<'a, CsrMatrix<f64>>,
    x: Vec<f64>,
    x_offsets: Vec<usize>,
    y_offsets: Vec<usize>,
}

/// Benchmarks several matrices side by side on one team, alternating their repetitions, so that
/// their times are comparable on a noisy machine (used by `spmv-reorder evaluate`).
///
/// # Errors
/// As [`run`].
pub fn run_many(
    matrices: &[&CsrMatrix<f64>],
    config: &BenchConfig,
) -> Result<Vec<BenchReport>, SpmvError> {
    measure(matrices, config, &mut |_, _| {})
}

fn measure(
    matrices: &[&CsrMatrix<f64>],
    config: &BenchConfig,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<BenchReport>, SpmvError> {
    check_config(config)?;
    let topology = Topology::this_system()?;
    config.placement.check(&topology)?;
    let team = ThreadTeam::new(&topology, config.threads, &config.pinning)?;
    let par = Par::Team(&team);
    let mut triad_arrays = config
        .stream
        .as_ref()
        .map(|s| TriadArrays::new(s, par, &config.placement, &topology))
        .transpose()?;
    let mut triad_times = Vec::new();
    if let (Some(arrays), Some(s)) = (triad_arrays.as_mut(), config.stream.as_ref()) {
        arrays.run(par);
        triad_times.extend((0..s.reps).map(|_| arrays.run(par)));
    }
    let mut measured = Vec::new();
    let rounds = config.kernels.len() * config.reps;
    for (k, &kernel) in config.kernels.iter().enumerate() {
        progress(k * config.reps, rounds);
        let (placed, mut ys): (Vec<Placed<'_>>, Vec<Vec<f64>>) = matrices
            .iter()
            .map(|a| place(a, kernel, par, config, &topology))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .unzip();
        let mut plans: Vec<SpmvPlan<'_>> = placed
            .iter()
            .map(|p| SpmvPlan::new(&p.matrix, kernel, team.threads()))
            .collect();
        // Each plan keeps whichever of prefetching or not measured faster here (see
        // `SpmvPlan::tune_prefetch`): the guess from the matrix alone is wrong on some.
        for ((plan, p), y) in plans.iter_mut().zip(&placed).zip(ys.iter_mut()) {
            plan.tune_prefetch(&p.x, y, par, PREFETCH_TUNING_ROUNDS);
        }
        let mut round = 0;
        let mut triad_round = || {
            progress(k * config.reps + round, rounds);
            round += 1;
            if let Some(arrays) = triad_arrays.as_mut() {
                triad_times.push(arrays.run(par));
            }
        };
        let times = time_interleaved(&plans, &placed, &mut ys, par, config, &mut triad_round);
        let pages: Vec<Vec<PageReport>> = (0..placed.len())
            .map(|m| pages_of(&plans[m], &placed[m], &ys[m], &team, &topology))
            .collect();
        let partitions: Vec<_> = plans.iter().map(|p| p.partition().clone()).collect();
        let prefetches: Vec<bool> = plans.iter().map(SpmvPlan::prefetches).collect();
        measured.push((partitions, times, pages, prefetches));
    }
    let stream = triad_arrays.map(|arrays| arrays.report(triad_times));
    let triad_bw = stream
        .as_ref()
        .map(|s| (s.triad_gbytes_per_s, s.median_gbytes_per_s));
    Ok(reports(matrices, measured, stream, triad_bw, config, &team))
}

/// One kernel's measurements, per matrix: partitions, `(samples, products per sample)`, pages of
/// each array, whether the plan prefetched.
type Measured = (
    Vec<crate::Partition>,
    Vec<(Vec<f64>, usize)>,
    Vec<Vec<PageReport>>,
    Vec<bool>,
);

/// The report of each matrix from the kernels' measurements: partitions, `(samples, products)`,
/// pages and prefetch choice per matrix, one entry per kernel.
fn reports(
    matrices: &[&CsrMatrix<f64>],
    measured: Vec<Measured>,
    stream: Option<StreamReport>,
    triad_bw: Option<(f64, f64)>,
    config: &BenchConfig,
    team: &ThreadTeam,
) -> Vec<BenchReport> {
    let mut per_matrix: Vec<Vec<KernelReport>> = vec![Vec::new(); matrices.len()];
    for (partitions, times, pages, prefetches) in measured {
        for (m, ((samples, products), pages)) in times.into_iter().zip(pages).enumerate() {
            let summary = MatrixSummary::of(matrices[m]);
            per_matrix[m].push(kernel_report(
                &summary,
                &partitions[m],
                (samples, products),
                triad_bw,
                pages,
                prefetches[m],
            ));
        }
    }
    matrices
        .iter()
        .zip(per_matrix)
        .map(|(a, kernels)| {
            let best = kernels
                .iter()
                .min_by(|p, q| p.median_s.total_cmp(&q.median_s))
                .expect("at least one kernel")
                .clone();
            BenchReport {
                matrix: MatrixSummary::of(a),
                threads: team.threads(),
                pinning: config.pinning.to_string(),
                placement: config.placement.to_string(),
                bindings: team.bindings().to_vec(),
                triad: stream.clone(),
                triad_gbytes_per_s: triad_bw.map(|t| t.0),
                best_kernel: best.kernel,
                median_s: best.median_s,
                gflops: best.gflops,
                gbytes_per_s: best.gbytes_per_s,
                kernels,
                write_allocate_counted: false,
            }
        })
        .collect()
}

fn place<'a>(
    a: &'a CsrMatrix<f64>,
    kernel: Kernel,
    par: Par<'_>,
    config: &BenchConfig,
    topology: &Topology,
) -> Result<(Placed<'a>, Vec<f64>), SpmvError> {
    let plan = SpmvPlan::new(a, kernel, par.threads());
    let partition = plan.partition();
    let matrix = if topology.numa_nodes.len() <= 1 {
        Cow::Borrowed(a)
    } else {
        Cow::Owned(place_matrix(
            a,
            partition,
            par,
            &config.placement,
            topology,
        )?)
    };
    let x_offsets = vector_offsets(partition, a.ncols());
    let y_offsets = partition.row_offsets();
    let x = fill_placed(
        "x",
        a.ncols(),
        &x_offsets,
        |j| 1.0 + (j % 17) as f64 / 17.0,
        par,
        &config.placement,
        topology,
    )?;
    let y = fill_placed(
        "y",
        a.nrows(),
        &y_offsets,
        |_| 0.0,
        par,
        &config.placement,
        topology,
    )?;
    let placed = Placed {
        matrix,
        x,
        x_offsets,
        y_offsets,
    };
    Ok((placed, y))
}

/// Rounds of [`SpmvPlan::tune_prefetch`] before a kernel's samples: five products with and five
/// without the prefetch, each after an untimed one. With three, a loaded machine made the choice
/// differ between kernels of the same matrix; with five it matched the better side on every
/// matrix measured, twice.
const PREFETCH_TUNING_ROUNDS: usize = 5;

/// Times every plan: warm-up (also choosing how many products make one sample), then
/// `config.reps` rounds; each round calls `between_rounds` (a triad repetition) and takes one
/// sample of every plan in turn. Returns, per plan, the seconds per product of each sample and the
/// products per sample.
fn time_interleaved(
    plans: &[SpmvPlan<'_>],
    placed: &[Placed<'_>],
    ys: &mut [Vec<f64>],
    par: Par<'_>,
    config: &BenchConfig,
    between_rounds: &mut dyn FnMut(),
) -> Vec<(Vec<f64>, usize)> {
    let mut products = Vec::with_capacity(plans.len());
    for ((plan, p), y) in plans.iter().zip(placed).zip(ys.iter_mut()) {
        let mut one = f64::INFINITY;
        for _ in 0..config.warmup.max(1) {
            let start = Instant::now();
            plan.mul_vec(&p.x, y, par);
            one = one.min(start.elapsed().as_secs_f64());
        }
        let wanted = (config.min_sample_seconds / one.max(1e-9)).ceil();
        products.push((wanted as usize).clamp(1, 1_000_000));
    }
    let mut samples = vec![Vec::with_capacity(config.reps); plans.len()];
    for round in 0..config.reps {
        between_rounds();
        // Every other round in reverse order, so that no matrix is always the one timed right
        // after the triad or after a given other matrix.
        let order: Vec<usize> = if round % 2 == 0 {
            (0..plans.len()).collect()
        } else {
            (0..plans.len()).rev().collect()
        };
        for m in order {
            // An untimed sample first: after the triad's sweep over 240 MB the machine runs
            // slower for a millisecond or more (one warm-up product was not enough), and a matrix
            // timed right after another starts with its lines evicted. With this sample and the
            // alternating order, `bench A --after A` gives the same matrix the same time
            // (docs/results.md).
            for _ in 0..products[m] {
                plans[m].mul_vec(&placed[m].x, &mut ys[m], par);
            }
            let start = Instant::now();
            for _ in 0..products[m] {
                plans[m].mul_vec(&placed[m].x, &mut ys[m], par);
            }
            samples[m].push(start.elapsed().as_secs_f64() / products[m] as f64);
        }
    }
    samples.into_iter().zip(products).collect()
}

/// Where the pages of the five arrays of one placed product are.
fn pages_of(
    plan: &SpmvPlan<'_>,
    placed: &Placed<'_>,
    y: &[f64],
    team: &ThreadTeam,
    topology: &Topology,
) -> Vec<PageReport> {
    let partition = plan.partition();
    let mut row_ptr_offsets = partition.row_offsets();
    *row_ptr_offsets.last_mut().expect("blocks + 1 offsets") += 1;
    let bindings = team.bindings();
    let m = &placed.matrix;
    vec![
        page_report(
            "values",
            m.values(),
            &partition.nnz_offsets(),
            bindings,
            topology,
        ),
        page_report(
            "col_idx",
            m.col_idx(),
            &partition.nnz_offsets(),
            bindings,
            topology,
        ),
        page_report("row_ptr", m.row_ptr(), &row_ptr_offsets, bindings, topology),
        page_report("x", &placed.x, &placed.x_offsets, bindings, topology),
        page_report("y", y, &placed.y_offsets, bindings, topology),
    ]
}

/// The report of one kernel on one matrix from its samples (seconds per product) and the products
/// per sample, the triad's best and median bandwidth, its pages and its prefetch choice.
fn kernel_report(
    summary: &MatrixSummary,
    partition: &crate::Partition,
    (mut samples, products): (Vec<f64>, usize),
    triad_bw: Option<(f64, f64)>,
    pages: Vec<PageReport>,
    prefetch: bool,
) -> KernelReport {
    let (triad_best, triad_median) = (triad_bw.map(|t| t.0), triad_bw.map(|t| t.1));
    samples.sort_by(f64::total_cmp);
    let (min, median, max) = (
        samples[0],
        samples[samples.len() / 2],
        samples[samples.len() - 1],
    );
    let traffic = summary.min_traffic_bytes;
    let best_gbytes = traffic / min / 1e9;
    let intensity = summary.flops / traffic;
    let attained = summary.flops / min / 1e9;
    let roof = triad_best.map(|bw| bw * intensity);
    KernelReport {
        kernel: partition.kernel(),
        min_s: min,
        median_s: median,
        max_s: max,
        products_per_sample: products,
        gflops: summary.flops / median / 1e9,
        gbytes_per_s: traffic / median / 1e9,
        best_gbytes_per_s: best_gbytes,
        triad_share: triad_best.map(|bw| best_gbytes / bw),
        median_triad_share: triad_median.map(|bw| traffic / median / 1e9 / bw),
        load_balance: partition.load_balance(),
        roofline: Roofline {
            operational_intensity: intensity,
            bandwidth_roof_gflops: roof,
            attained_gflops: attained,
            roof_share: roof.map(|r| attained / r),
        },
        pages,
        prefetch,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn laplacian_1d(n: usize) -> CsrMatrix<f64> {
        let t = (0..n).flat_map(|i| {
            let mut v = vec![(i, i, 2.0)];
            if i > 0 {
                v.push((i, i - 1, -1.0));
            }
            if i + 1 < n {
                v.push((i, i + 1, -1.0));
            }
            v
        });
        CsrMatrix::from_triplets(n, n, t).unwrap()
    }

    fn quick() -> BenchConfig {
        BenchConfig {
            threads: 2.min(std::thread::available_parallelism().map_or(1, |n| n.get())),
            warmup: 1,
            reps: 3,
            min_sample_seconds: 1e-4,
            stream: Some(StreamConfig {
                elements: 200_000,
                reps: 2,
            }),
            ..BenchConfig::default()
        }
    }

    #[test]
    fn traffic_follows_spec_section_6() {
        assert_eq!(
            min_traffic_bytes(10, 10, 28),
            (28 * 12 + 11 * 8 + 160) as f64
        );
    }

    #[test]
    fn run_reports_every_kernel_with_consistent_figures() {
        let a = laplacian_1d(50_000);
        let r = run(&a, &quick()).unwrap();
        assert_eq!(r.kernels.len(), Kernel::ALL.len());
        assert!(r.triad_gbytes_per_s.unwrap() > 0.0);
        for k in &r.kernels {
            assert!(k.min_s <= k.median_s && k.median_s <= k.max_s);
            let want = 2.0 * a.nnz() as f64 / k.median_s / 1e9;
            assert!((k.gflops - want).abs() <= 1e-9 * want);
            assert!(
                k.load_balance > 0.98,
                "a 1D Laplacian balances: {}",
                k.load_balance
            );
            let i = k.roofline.operational_intensity;
            assert!(i > 0.05 && i < 1.0 / 6.0, "below 2 flops per 12 bytes: {i}");
            assert_eq!(k.pages.len(), 5);
        }
        let json = serde_json::to_value(&r).unwrap();
        for key in ["median_s", "gflops", "gbytes_per_s", "triad_gbytes_per_s"] {
            assert!(json.get(key).is_some_and(|v| v.is_number()), "{key}");
        }
    }

    #[test]
    fn compare_gives_speedup_and_break_even() {
        let a = laplacian_1d(20_000);
        let cfg = BenchConfig {
            kernels: vec![Kernel::NnzBalanced],
            reorder_seconds: Some(1.0),
            stream: None,
            ..quick()
        };
        let c = compare(&a, &a, &cfg).unwrap();
        assert_eq!(c.kernels.len(), 1);
        assert!((c.speedup - c.before.median_s / c.after.median_s).abs() < 1e-12);
        assert!((c.reorder_cost_in_spmvs.unwrap() - 1.0 / c.before.median_s).abs() < 1e-6);
        let best_before = c.before.kernels[0].min_s;
        match c.break_even_iterations {
            Some(b) => assert!(c.after.median_s < best_before && b > 0.0),
            None => assert!(c.after.median_s >= best_before),
        }
        let other = laplacian_1d(20_001);
        assert!(matches!(
            compare(&a, &other, &cfg),
            Err(SpmvError::DimensionMismatch { .. })
        ));
    }

    /// A gain counts from below the fastest product before, not from below its median.
    #[test]
    fn only_a_gain_beyond_the_fastest_product_before_counts() {
        let a = laplacian_1d(1_000);
        let cfg = BenchConfig {
            kernels: vec![Kernel::NnzBalanced],
            stream: None,
            ..quick()
        };
        let mut before = run(&a, &cfg).unwrap();
        before.kernels[0].min_s = 1.0;
        before.kernels[0].median_s = 1.1;
        before.median_s = 1.1;
        let mut after = before.clone();
        for (median, faster) in [(1.05, false), (1.0, false), (0.99, true), (1.2, false)] {
            after.median_s = median;
            assert_eq!(measurably_faster(&before, &after), faster, "{median}");
        }
    }

    #[test]
    fn bad_settings_are_errors() {
        let a = laplacian_1d(10);
        let cfg = BenchConfig { reps: 0, ..quick() };
        assert!(matches!(
            run(&a, &cfg),
            Err(SpmvError::InvalidSetting { name: "reps", .. })
        ));
        let cfg = BenchConfig {
            threads: 0,
            ..quick()
        };
        assert_eq!(run(&a, &cfg).unwrap_err(), SpmvError::ZeroThreads);
        let cfg = BenchConfig {
            threads: 10_000,
            ..quick()
        };
        assert!(matches!(
            run(&a, &cfg),
            Err(SpmvError::TooManyThreads { .. })
        ));
        let cfg = BenchConfig {
            placement: Placement::Node(999),
            ..quick()
        };
        assert!(matches!(
            run(&a, &cfg),
            Err(SpmvError::NoSuchNumaNode { node: 999, .. })
        ));
        let cfg = BenchConfig {
            kernels: vec![],
            ..quick()
        };
        assert!(matches!(
            run(&a, &cfg),
            Err(SpmvError::InvalidSetting { .. })
        ));
    }
}
