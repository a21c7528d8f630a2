//! The evaluation: every matrix of a folder through every ordering, with `D`, SpMV
//! GFLOP/s at several thread counts, speedups over the original and over RCM, reordering time in
//! SpMV-equivalents and break-even iterations (SPEC section 6). SpMV times of one matrix's orderings
//! are measured side by side, alternating repetitions, so their ratios survive a noisy machine.
//! Called by `spmv-reorder evaluate`.

use crate::EvaluateError;
use spmv_reorder_reorder::{
    parse_rcm_start, Method, ReorderError, Reorderer, RunBlocks, SamplerChoice, StartOrder,
    WindowSpec,
};
use spmv_reorder_sparse::CsrMatrix;
use spmv_reorder_spmv::bench::{run_many, BenchConfig};
use spmv_reorder_spmv::Kernel;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use crate::summary::{markdown_table, summarize, summary_table, EvaluationSummary};

/// One ordering to evaluate: a label and the configuration that produces it.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Column label, e.g. `tsp` or `tsp random:0.02`.
    pub label: String,
    /// The reordering.
    pub reorderer: Reorderer,
}

impl Candidate {
    /// Parses an ordering spelled as the method followed by space-separated changes to `base`:
    /// a sampler (`random:0.02`, `dast-sim`, ...), `start=greedy|given|rcm`, `window=SPEC`,
    /// `check=off` (no cache check: the TSP path is returned as found), `kicks=N` (at most `N`
    /// Chained Lin-Kernighan kicks; `kicks=n`: one per window), `runs=B` (rows sorted by length
    /// in blocks of `B`, `runs=0` for none, `runs=auto` as the default `tsp`:
    /// [`Reorderer::length_runs`]), `splits=N` (even row splits for 2 to `N` threads, `splits=0`
    /// for none: [`Reorderer::row_split_threads`]), `length-cost=W` (the
    /// path's price of a change of row length: [`Reorderer::length_change_cost`]), `rcm-start=S`
    /// (`peripheral` or `min-degree`: [`Reorderer::rcm_start`]).
    /// For example `tsp`, `tsp random:0.02`, `tsp start=rcm window=var`, `rcm`. The label is the
    /// spelling with single spaces.
    ///
    /// # Errors
    /// [`ReorderError::InvalidSpec`] for an unknown method, sampler, start or window.
    pub fn parse(spelling: &str, base: &Reorderer) -> Result<Self, ReorderError> {
        let mut tokens = spelling.split_whitespace();
        let method: Method = tokens.next().unwrap_or_default().parse()?;
        let mut reorderer = base.clone().method(method);
        let mut label = vec![method.to_string()];
        for t in tokens {
            reorderer = if let Some(s) = t.strip_prefix("start=") {
                reorderer.start(Some(s.parse::<StartOrder>()?))
            } else if let Some(w) = t.strip_prefix("window=") {
                reorderer.windows(w.parse::<WindowSpec>()?)
            } else if t == "check=off" {
                reorderer.cache_check(None)
            } else if let Some(k) = t.strip_prefix("kicks=") {
                reorderer.max_kicks(parse_kicks(k)?)
            } else if let Some(b) = t.strip_prefix("runs=") {
                reorderer.length_runs(Some(b.parse::<RunBlocks>()?))
            } else if let Some(n) = t.strip_prefix("splits=") {
                reorderer.row_split_threads(Some(parse_count::<usize>("splits", n)?))
            } else if let Some(n) = t.strip_prefix("parts=") {
                reorderer.part_rows(parse_count::<usize>("parts", n)?)
            } else if let Some(r) = t.strip_prefix("rcm-start=") {
                reorderer.rcm_start(parse_rcm_start(r)?)
            } else if let Some(w) = t.strip_prefix("length-cost=") {
                reorderer.length_change_cost(parse_count("length-cost", w)?)
            } else {
                reorderer.sampler(t.parse::<SamplerChoice>()?)
            };
            label.push(t.to_string());
        }
        Ok(Candidate {
            label: label.join(" "),
            reorderer,
        })
    }
}

/// The number of a `length-cost=W` token.
fn parse_count<N: std::str::FromStr>(what: &'static str, text: &str) -> Result<N, ReorderError> {
    text.parse::<N>().map_err(|_| ReorderError::InvalidSpec {
        what,
        value: text.to_string(),
        expected: "a whole number (0: off)",
    })
}

/// The budget of a `kicks=N` token: `N` kicks, or one per window for `kicks=n`.
fn parse_kicks(text: &str) -> Result<Option<u64>, ReorderError> {
    if text == "n" {
        return Ok(None);
    }
    text.parse()
        .map(Some)
        .map_err(|_| ReorderError::InvalidSpec {
            what: "kicks",
            value: text.to_string(),
            expected: "a number of kicks (kicks=1000) or n, one per window (kicks=n)",
        })
}

/// What to evaluate and how.
#[derive(Debug, Clone)]
pub struct EvaluateOptions {
    /// Shuffle each square matrix with a random symmetric permutation of this seed first.
    pub shuffle: Option<u64>,
    /// Thread counts to time SpMV with (at least one, each once).
    pub threads: Vec<usize>,
    /// Timed samples per matrix and thread count.
    pub reps: usize,
    /// The orderings, in column order, each label once; the first must be the identity (the
    /// baseline) and one labelled `rcm` gives the speedup over RCM.
    pub candidates: Vec<Candidate>,
}

impl EvaluateOptions {
    /// The standard orderings: the default (`auto`), identity, random, RCM, Gorder, degree, METIS
    /// partition order (parts of 256 rows and of 65,536) and nested dissection, and TSP; the
    /// default with random 2% samples and with DAST-simulator samples; then RCM with the
    /// default's length runs and the default without them, which tell what the runs give apart
    /// from the ordering.
    pub fn standard(seed: u64, time_limit: Option<Duration>) -> Self {
        let base = Reorderer::new().seed(seed).time_limit(time_limit);
        let mut candidates: Vec<Candidate> = Method::ALL
            .into_iter()
            .map(|m| Candidate {
                label: m.to_string(),
                reorderer: base.clone().method(m),
            })
            .collect();
        for sampler in ["random:0.02", "dast-sim"] {
            let choice: SamplerChoice = sampler.parse().expect("built-in sampler specs parse");
            candidates.push(Candidate {
                label: format!("{DEFAULT_LABEL} {sampler}"),
                reorderer: base.clone().method(Method::Auto).sampler(choice),
            });
        }
        // METIS parts whose `x` (512 KiB) fills half of a 1 MiB L2, beside the default parts of
        // 256 rows sized to L1.
        for spelling in ["gp parts=65536", "rcm runs=auto", "auto runs=0"] {
            candidates.push(Candidate::parse(spelling, &base).expect("built-in specs parse"));
        }
        Self::with_candidates(candidates)
    }

    /// The given orderings (the identity is put first when missing: it is the baseline), timed at
    /// 1 and 2 threads, 7 repetitions, not shuffled.
    pub fn with_candidates(mut candidates: Vec<Candidate>) -> Self {
        if candidates.first().map(|c| c.label.as_str()) != Some("identity") {
            candidates.retain(|c| c.label != "identity");
            let base = candidates
                .first()
                .map_or_else(Reorderer::new, |c| c.reorderer.clone());
            candidates.insert(
                0,
                Candidate {
                    label: "identity".into(),
                    reorderer: base.method(Method::Identity).sampler(SamplerChoice::All),
                },
            );
        }
        EvaluateOptions {
            shuffle: None,
            threads: vec![1, 2],
            reps: 7,
            candidates,
        }
    }

    /// Checks that the options can be evaluated: at least one thread count, and neither a thread
    /// count nor an ordering's label twice (the tables find an ordering by its label, and each
    /// figure is given per thread count).
    ///
    /// # Errors
    /// [`EvaluateError::NoThreads`], [`EvaluateError::RepeatedThreads`] or
    /// [`EvaluateError::RepeatedOrdering`] for the first repeated value.
    pub fn check(&self) -> Result<(), EvaluateError> {
        if self.threads.is_empty() {
            return Err(EvaluateError::NoThreads);
        }
        if let Some(&threads) = first_repeated(&self.threads) {
            return Err(EvaluateError::RepeatedThreads { threads });
        }
        let labels: Vec<&str> = self.candidates.iter().map(|c| c.label.as_str()).collect();
        match first_repeated(&labels) {
            Some(label) => Err(EvaluateError::RepeatedOrdering {
                label: label.to_string(),
            }),
            None => Ok(()),
        }
    }
}

/// The first value of `values` that an earlier one equals.
fn first_repeated<T: PartialEq>(values: &[T]) -> Option<&T> {
    values
        .iter()
        .enumerate()
        .find(|(i, v)| values[..*i].contains(v))
        .map(|(_, v)| v)
}

/// The position of the largest of `threads` (the first of equal ones), `None` for none: the
/// figures given at one thread count (the break-even, the reordering cost in products, the
/// per-matrix speedup over RCM, `spmv-reorder evaluate --chart`) take the largest.
pub fn largest_threads(threads: &[usize]) -> Option<usize> {
    let max = threads.iter().max()?;
    threads.iter().position(|t| t == max)
}

/// The figures of one ordering of one matrix.
#[derive(Debug, Clone, serde::Serialize)]
pub struct OrderingResult {
    /// The candidate's label.
    pub label: String,
    /// `D` of the reordered matrix (`D_w` with one row per window).
    #[serde(rename = "D")]
    pub d: u64,
    /// `D_w` under the candidate's window spec, when defined.
    #[serde(rename = "D_w")]
    pub d_w: Option<u64>,
    /// Seconds the reordering took.
    pub reorder_seconds: f64,
    /// Median SpMV seconds (best kernel) per thread count, in the order of the options.
    pub median_s: Vec<f64>,
    /// GFLOP/s per thread count.
    pub gflops: Vec<f64>,
    /// `t(original) / t(this)` per thread count.
    pub speedup: Vec<f64>,
    /// `t(rcm) / t(this)` per thread count, when RCM is evaluated.
    pub speedup_over_rcm: Option<Vec<f64>>,
    /// `reorder_seconds / t(original)` at the largest thread count.
    pub reorder_spmv_equivalents: f64,
    /// `reorder_seconds / (t(original) - t(this))` at the largest thread count; `None` when not
    /// faster.
    pub break_even_iterations: Option<f64>,
    /// Sampled share of the nonzeros, when sampled.
    pub sampled_fraction: Option<f64>,
}

/// Every ordering of one matrix.
#[derive(Debug, Clone, serde::Serialize)]
pub struct MatrixEvaluation {
    /// File name.
    pub name: String,
    /// Rows.
    pub rows: usize,
    /// Nonzeros.
    pub nnz: usize,
    /// Whether it was shuffled first.
    pub shuffled: bool,
    /// Thread counts of the timings.
    pub threads: Vec<usize>,
    /// One result per candidate.
    pub results: Vec<OrderingResult>,
}

/// Evaluates one matrix. `known_symmetric` vouches that its pattern is symmetric (as a file
/// stored symmetric is), so that each ordering takes it as read as the main job does
/// ([`Reorderer::symmetric_pattern`]); the orderings' times are then those of the main job.
///
/// # Errors
/// The errors of [`EvaluateOptions::check`], of the reorderings and of the benchmark.
pub fn evaluate_matrix(
    name: &str,
    a: &CsrMatrix<f64>,
    known_symmetric: bool,
    opts: &EvaluateOptions,
) -> Result<MatrixEvaluation, EvaluateError> {
    opts.check()?;
    let (a, shuffled) = match opts.shuffle {
        Some(seed) if a.nrows() == a.ncols() => {
            (spmv_reorder_gen::shuffle_symmetric(a, seed)?.0, true)
        }
        _ => (a.clone(), false),
    };
    let mut reordered = Vec::with_capacity(opts.candidates.len());
    let mut partial = Vec::with_capacity(opts.candidates.len());
    // The orderings read only the structure: one copy of it, borrowed by each (as the main job
    // lends its matrix's), so that no candidate's time counts a copy.
    let structure = a.pattern();
    for c in &opts.candidates {
        let reorderer = c.reorderer.clone().symmetric_pattern(known_symmetric);
        let start = Instant::now();
        let r = reorderer.run(&structure)?;
        let seconds = start.elapsed().as_secs_f64();
        reordered.push(r.apply(&a)?);
        partial.push((c.label.clone(), r.report, seconds));
    }
    let mut medians = vec![Vec::new(); reordered.len()];
    for &t in &opts.threads {
        let config = BenchConfig {
            threads: t,
            kernels: Kernel::ALL.to_vec(),
            warmup: 2,
            reps: opts.reps,
            stream: None,
            ..BenchConfig::default()
        };
        let refs: Vec<&CsrMatrix<f64>> = reordered.iter().collect();
        for (m, report) in run_many(&refs, &config)?.into_iter().enumerate() {
            medians[m].push(report.median_s);
        }
    }
    let flops = 2.0 * a.nnz() as f64;
    let base = medians[0].clone();
    let rcm = partial
        .iter()
        .position(|p| p.0 == "rcm")
        .map(|i| medians[i].clone());
    let largest = largest_threads(&opts.threads).expect("checked: at least one thread count");
    let results = partial
        .into_iter()
        .zip(medians)
        .map(|((label, report, seconds), med)| {
            let ratio = |den: &[f64]| den.iter().zip(&med).map(|(b, m)| b / m).collect::<Vec<_>>();
            let gain = base[largest] - med[largest];
            OrderingResult {
                label,
                d: report.d_after,
                d_w: report.d_w_after,
                reorder_seconds: seconds,
                gflops: med.iter().map(|t| flops / t / 1e9).collect(),
                speedup: ratio(&base),
                speedup_over_rcm: rcm.as_deref().map(ratio),
                reorder_spmv_equivalents: seconds / base[largest],
                break_even_iterations: (gain > 0.0).then(|| seconds / gain),
                sampled_fraction: report.coverage.map(|c| c.sampled_fraction),
                median_s: med,
            }
        })
        .collect();
    Ok(MatrixEvaluation {
        name: name.to_string(),
        rows: a.nrows(),
        nnz: a.nnz(),
        shuffled,
        threads: opts.threads.clone(),
        results,
    })
}

/// The Matrix Market files of `dir` (`.mtx`, `.mtx.gz`), sorted by name.
///
/// # Errors
/// [`EvaluateError::Io`] when the folder cannot be read.
pub fn matrix_files(dir: &Path) -> Result<Vec<PathBuf>, EvaluateError> {
    let io = |source| EvaluateError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.ends_with(".mtx") || name.ends_with(".mtx.gz") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// The [`matrix_files`] of `dir` whose file name holds `only` (all of them without it).
///
/// # Errors
/// As [`matrix_files`]; [`EvaluateError::NoMatrixFiles`] when the folder holds none,
/// [`EvaluateError::NoMatrixNamed`] when none has `only` in its name.
pub fn chosen_matrix_files(dir: &Path, only: Option<&str>) -> Result<Vec<PathBuf>, EvaluateError> {
    let all = matrix_files(dir)?;
    if all.is_empty() {
        return Err(EvaluateError::NoMatrixFiles {
            dir: dir.to_path_buf(),
        });
    }
    let Some(only) = only else {
        return Ok(all);
    };
    let files = all.len();
    let chosen: Vec<PathBuf> = all
        .into_iter()
        .filter(|f| {
            f.file_name()
                .is_some_and(|n| n.to_string_lossy().contains(only))
        })
        .collect();
    if chosen.is_empty() {
        return Err(EvaluateError::NoMatrixNamed {
            dir: dir.to_path_buf(),
            only: only.to_string(),
            files,
        });
    }
    Ok(chosen)
}

/// The label of the default ordering in [`EvaluateOptions::standard`].
pub const DEFAULT_LABEL: &str = "auto";
/// The label of the default ordering on a 2% random sample.
pub const SAMPLED_LABEL: &str = "auto random:0.02";

#[cfg(test)]
mod tests {
    use super::*;
    use spmv_reorder_gen::poisson2d;

    #[test]
    fn candidates_parse_from_their_spelling() {
        let base = Reorderer::new().seed(7);
        let c =
            Candidate::parse("tsp  random:0.02 start=given window=var check=off", &base).unwrap();
        assert_eq!(c.label, "tsp random:0.02 start=given window=var check=off");
        assert_eq!(c.reorderer.start_order(), StartOrder::Given);
        assert_eq!(Candidate::parse("rcm", &base).unwrap().label, "rcm");
        let unsplit = Candidate::parse("auto splits=0", &base).unwrap().reorderer;
        assert_eq!(
            unsplit
                .run(&poisson2d(4, 4).unwrap())
                .unwrap()
                .report
                .row_splits,
            None
        );
        let kicked = Candidate::parse("tsp kicks=50 check=off", &base).unwrap();
        assert_eq!(kicked.label, "tsp kicks=50 check=off");
        let a = poisson2d(12, 12).unwrap();
        let tsp = kicked.reorderer.run(&a).unwrap();
        assert_eq!(tsp.report.rows.unwrap().tsp.unwrap().kicks, 50);
        let per_window = Candidate::parse("tsp kicks=n check=off", &base)
            .unwrap()
            .reorderer;
        let side = per_window.run(&a).unwrap().report.rows.unwrap();
        assert_eq!(side.tsp.unwrap().kicks, side.windows as u64);
        for bad in [
            "",
            "metis",
            "tsp start=later",
            "tsp window=0",
            "tsp bogus:1",
            "tsp kicks=-1",
            "tsp kicks=many",
            "tsp runs=-2",
            "tsp runs=all",
            "auto splits=-1",
            "tsp length-cost=4294967296",
            "tsp length-cost=two",
        ] {
            assert!(Candidate::parse(bad, &base).is_err(), "{bad:?}");
        }
        let opts = EvaluateOptions::with_candidates(vec![c]);
        let labels: Vec<&str> = opts.candidates.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "identity",
                "tsp random:0.02 start=given window=var check=off"
            ]
        );
    }

    #[test]
    fn options_with_a_repeated_ordering_or_thread_count_are_refused() {
        let base = Reorderer::new();
        let rcm = || Candidate::parse("rcm", &base).unwrap();
        let mut opts = EvaluateOptions::with_candidates(vec![rcm()]);
        assert!(opts.check().is_ok());
        opts.threads = vec![2, 1, 2];
        assert!(matches!(
            opts.check(),
            Err(EvaluateError::RepeatedThreads { threads: 2 })
        ));
        opts.threads.clear();
        assert!(matches!(opts.check(), Err(EvaluateError::NoThreads)));
        // Spelt apart, parsed alike.
        let spaced = Candidate::parse(" rcm  ", &base).unwrap();
        opts = EvaluateOptions::with_candidates(vec![rcm(), spaced]);
        let e = evaluate_matrix("grid", &poisson2d(3, 3).unwrap(), true, &opts).unwrap_err();
        assert_eq!(e.to_string(), "the ordering `rcm` is given twice");
        assert_eq!(largest_threads(&[2, 4, 1]), Some(1));
        assert_eq!(largest_threads(&[]), None);
    }

    #[test]
    fn evaluates_a_small_grid() {
        let a = poisson2d(12, 12).unwrap();
        let mut opts = EvaluateOptions::standard(1, Some(Duration::from_millis(300)));
        opts.shuffle = Some(3);
        opts.threads = vec![1];
        opts.reps = 2;
        let e = evaluate_matrix("grid", &a, true, &opts).unwrap();
        assert!(e.shuffled);
        assert_eq!(e.results.len(), 14);
        let get = |l: &str| e.results.iter().find(|r| r.label == l).unwrap();
        assert_eq!(get("identity").speedup, vec![1.0]);
        assert!(
            get("rcm").d < get("identity").d,
            "RCM improves a shuffled grid"
        );
        // Here every order fits the modelled caches alike, so the check may keep the input.
        assert!(get("tsp").d <= get("identity").d);
        assert!(get("auto random:0.02").sampled_fraction.unwrap() < 0.2);
        assert!(get("auto runs=0").d <= get("identity").d);
        assert!(get("nd").d < get("identity").d);
        // 144 rows make one METIS part of either size: the order as read.
        for gp in ["gp", "gp parts=65536"] {
            assert_eq!(get(gp).d, get("identity").d, "{gp}");
        }
        assert!(get("rcm runs=auto").d > get("rcm").d);
        let summary = summarize(std::slice::from_ref(&e));
        assert_eq!(summary.matrices, 1);
        assert_eq!(summary.geomean_speedup_default_over_rcm.len(), 1);
        let summary_rows = summary_table(std::slice::from_ref(&e));
        assert_eq!(summary_rows.lines().count(), 2 + 13, "{summary_rows}");
        assert!(
            summary_rows.starts_with("| ordering | D / D(input) | speedup 1t | vs RCM 1t |"),
            "{summary_rows}"
        );
        let rcm_row = summary_rows
            .lines()
            .find(|l| l.starts_with("| rcm |"))
            .unwrap();
        assert!(rcm_row.contains("| 1.000 |  |"), "{rcm_row}");
        assert!(summary_rows.contains("| tsp | ") && summary_rows.contains(" / 1 |"));
        let table = markdown_table(&[e]);
        assert_eq!(table.lines().count(), 2 + 14);
        assert!(table.contains("| grid | tsp |"));
    }
}
