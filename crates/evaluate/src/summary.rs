//! What `spmv-reorder evaluate` presents of its evaluations: the headline figures
//! ([`summarize`]), the table of every matrix and ordering ([`markdown_table`]) and the table of
//! geometric means per ordering ([`summary_table`]). Orderings are found by their label, which
//! [`EvaluateOptions::check`](crate::evaluate::EvaluateOptions::check) keeps unique.

use crate::evaluate::{
    largest_threads, MatrixEvaluation, OrderingResult, DEFAULT_LABEL, SAMPLED_LABEL,
};

/// The headline figures over a set of evaluated matrices.
#[derive(Debug, Clone, serde::Serialize)]
pub struct EvaluationSummary {
    /// Matrices evaluated.
    pub matrices: usize,
    /// Share of matrices where full-information TSP has a lower `D` than RCM and than Gorder.
    pub tsp_beats_rcm_and_gorder_on_d: f64,
    /// Geometric mean over matrices of `t(rcm) / t(auto)` (the default), per thread count.
    pub geomean_speedup_default_over_rcm: Vec<f64>,
    /// Geometric mean over matrices of `t(original) / t(auto)`, per thread count.
    pub geomean_speedup_default_over_original: Vec<f64>,
    /// Per thread count, the share of matrices where the SpMV after the default on a 2% random
    /// sample is at most 5% slower than after it with full information (`t(auto) /
    /// t(auto random:0.02) >= 0.95`): the thesis's measure (section 4.3, figure 4.4: sampled
    /// performance normalised to the full-information reordering).
    pub sampled_within_5_percent: Vec<f64>,
    /// Per thread count, the geometric mean of `t(auto) / t(auto random:0.02)` (1: as fast as
    /// full information).
    pub geomean_sampled_speed_ratio: Vec<f64>,
    /// Geometric mean of `D(auto random:0.02) / D(auto)`.
    pub geomean_sampled_d_ratio: f64,
    /// Median reordering time in SpMV-equivalents, per label.
    pub median_reorder_spmv_equivalents: Vec<(String, f64)>,
}

/// Summarises evaluations made with
/// [`EvaluateOptions::standard`](crate::evaluate::EvaluateOptions::standard) labels
/// ([`DEFAULT_LABEL`], `tsp`, `rcm`, `gorder`, [`SAMPLED_LABEL`]). A figure is taken over the
/// matrices that have its labels; a missing label gives NaN for its figures (`null` in JSON).
pub fn summarize(evals: &[MatrixEvaluation]) -> EvaluationSummary {
    let find =
        |e: &MatrixEvaluation, label: &str| e.results.iter().find(|r| r.label == label).cloned();
    let n = evals.len();
    // The share of the matrices where `pred` is defined on which it holds.
    let share = |pred: &dyn Fn(&MatrixEvaluation) -> Option<bool>| {
        let defined: Vec<bool> = evals.iter().filter_map(pred).collect();
        match defined.len() {
            0 => f64::NAN,
            d => defined.iter().filter(|&&b| b).count() as f64 / d as f64,
        }
    };
    let beats = share(&|e| {
        let (t, r, g) = (find(e, "tsp")?, find(e, "rcm")?, find(e, "gorder")?);
        Some(t.d < r.d && t.d < g.d)
    });
    let threads = evals.first().map_or(0, |e| e.threads.len());
    let geomean_ratio = |num: &str, den: &str, k: usize| {
        geomean(
            evals
                .iter()
                .filter_map(|e| Some(find(e, num)?.median_s[k] / find(e, den)?.median_s[k])),
        )
    };
    let d_ratio = |e: &MatrixEvaluation| -> Option<f64> {
        let (s, f) = (find(e, SAMPLED_LABEL)?, find(e, DEFAULT_LABEL)?);
        Some(s.d as f64 / (f.d as f64).max(1.0))
    };
    let speed_ratio = |e: &MatrixEvaluation, k: usize| -> Option<f64> {
        let (s, f) = (find(e, SAMPLED_LABEL)?, find(e, DEFAULT_LABEL)?);
        Some(f.median_s[k] / s.median_s[k])
    };
    let labels: Vec<String> = evals.first().map_or(Vec::new(), |e| {
        e.results.iter().map(|r| r.label.clone()).collect()
    });
    EvaluationSummary {
        matrices: n,
        tsp_beats_rcm_and_gorder_on_d: beats,
        geomean_speedup_default_over_rcm: (0..threads)
            .map(|k| geomean_ratio("rcm", DEFAULT_LABEL, k))
            .collect(),
        geomean_speedup_default_over_original: (0..threads)
            .map(|k| geomean_ratio("identity", DEFAULT_LABEL, k))
            .collect(),
        sampled_within_5_percent: (0..threads)
            .map(|k| share(&|e| speed_ratio(e, k).map(|r| r >= 0.95)))
            .collect(),
        geomean_sampled_speed_ratio: (0..threads)
            .map(|k| geomean(evals.iter().filter_map(|e| speed_ratio(e, k))))
            .collect(),
        geomean_sampled_d_ratio: geomean(evals.iter().filter_map(d_ratio)),
        median_reorder_spmv_equivalents: labels
            .iter()
            .map(|l| {
                let costs = evals
                    .iter()
                    .filter_map(|e| Some(find(e, l)?.reorder_spmv_equivalents));
                (l.clone(), median(costs.collect()))
            })
            .collect(),
    }
}

/// The median: the middle value, or the mean of the two middle ones for an even count (as
/// `scripts/eval_summary.py` and Python's `statistics.median` take it); NaN for no value.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => values[n / 2],
        _ => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

fn geomean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v.ln(), n + 1));
    if n == 0 {
        f64::NAN
    } else {
        (sum / n as f64).exp()
    }
}

/// The evaluation as a Markdown table: one row per matrix and ordering. The speedup over RCM,
/// the reordering cost and the break-even are those at the largest thread count.
pub fn markdown_table(evals: &[MatrixEvaluation]) -> String {
    let Some(first) = evals.first() else {
        return String::from("(no matrices)\n");
    };
    let t: Vec<String> = first.threads.iter().map(|t| t.to_string()).collect();
    let mut s = String::from("| matrix | ordering | D_w (w=1) | ");
    for k in &t {
        s += &format!("GFLOP/s {k}t | ");
    }
    for k in &t {
        s += &format!("speedup {k}t | ");
    }
    s += "vs RCM | reorder (SpMVs) | break-even |\n|---|---|---:|";
    s += &"---:|".repeat(2 * t.len() + 3);
    s.push('\n');
    for e in evals {
        let largest = largest_threads(&e.threads);
        for r in &e.results {
            s += &format!("| {} | {} | {} | ", e.name, r.label, r.d);
            for g in &r.gflops {
                s += &format!("{g:.2} | ");
            }
            for x in &r.speedup {
                s += &format!("{x:.2} | ");
            }
            let vs_rcm = r
                .speedup_over_rcm
                .as_ref()
                .zip(largest)
                .and_then(|(v, k)| v.get(k))
                .map_or("-".into(), |x| format!("{x:.2}"));
            let be = r
                .break_even_iterations
                .map_or("-".into(), |b| format!("{b:.0}"));
            s += &format!("{vs_rcm} | {:.0} | {be} |\n", r.reorder_spmv_equivalents);
        }
    }
    s
}

/// One row per ordering, geometric means over `evals`: `D` over the input's, the speedup over
/// the input and over RCM per thread count (`-` when RCM was not evaluated), on how many
/// matrices a `tsp` ordering has a lower `D` than RCM and Gorder (out of the matrices where either
/// was evaluated, the one evaluated alone; `-` when neither was), and the median reordering cost
/// in SpMV-equivalents. A Markdown table, as `spmv-reorder evaluate` prints it.
pub fn summary_table(evals: &[MatrixEvaluation]) -> String {
    let Some(first) = evals.first() else {
        return String::from("(no matrices)\n");
    };
    let mut s = String::from("| ordering | D / D(input) | ");
    for t in &first.threads {
        s += &format!("speedup {t}t | ");
    }
    for t in &first.threads {
        s += &format!("vs RCM {t}t | ");
    }
    s += "D below RCM and Gorder | median cost (SpMVs) |\n|---|---:|";
    s += &"---:|".repeat(2 * first.threads.len() + 2);
    s.push('\n');
    for r in first.results.iter().skip(1) {
        s += &summary_row(evals, &r.label);
    }
    s
}

/// The row of [`summary_table`] for the ordering `label`.
fn summary_row(evals: &[MatrixEvaluation], label: &str) -> String {
    let find = |e: &'_ MatrixEvaluation, l: &str| e.results.iter().find(|r| r.label == l).cloned();
    let rows: Vec<(OrderingResult, u64, Option<u64>)> = evals
        .iter()
        .filter_map(|e| {
            let input_d = e.results.first()?.d.max(1);
            let peers = [find(e, "rcm"), find(e, "gorder")];
            let best_peer = peers.iter().flatten().map(|p| p.d).min();
            Some((find(e, label)?, input_d, best_peer))
        })
        .collect();
    let mut s = format!(
        "| {label} | {:.3} | ",
        geomean(
            rows.iter()
                .map(|(r, input, _)| r.d.max(1) as f64 / *input as f64)
        )
    );
    let threads = evals[0].threads.len();
    for t in 0..threads {
        s += &format!("{:.3} | ", geomean(rows.iter().map(|(r, ..)| r.speedup[t])));
    }
    for t in 0..threads {
        let over_rcm: Vec<f64> = rows
            .iter()
            .filter_map(|(r, ..)| r.speedup_over_rcm.as_ref().map(|v| v[t]))
            .collect();
        s += &match over_rcm.is_empty() {
            true => "- | ".to_string(),
            false => format!("{:.3} | ", geomean(over_rcm.into_iter())),
        };
    }
    // Out of the matrices where RCM or Gorder was evaluated.
    let compared = rows.iter().filter_map(|(r, _, peer)| Some(r.d < (*peer)?));
    let below = match (label.starts_with("tsp"), compared.clone().count()) {
        (false, _) => String::new(),
        (true, 0) => "-".to_string(),
        (true, n) => format!("{} / {n}", compared.filter(|&below| below).count()),
    };
    let cost = median(
        rows.iter()
            .map(|(r, ..)| r.reorder_spmv_equivalents)
            .collect(),
    );
    s + &format!("{below} | {cost:.0} |\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A result of `label` with `D = d`, timed at two thread counts; over RCM when `rcm` is
    /// given (RCM's medians).
    fn result(label: &str, d: u64, median_s: [f64; 2], rcm: Option<[f64; 2]>) -> OrderingResult {
        OrderingResult {
            label: label.into(),
            d,
            d_w: None,
            reorder_seconds: 0.0,
            median_s: median_s.to_vec(),
            gflops: vec![1.0; 2],
            speedup: median_s.iter().map(|m| 1.0 / m).collect(),
            speedup_over_rcm: rcm.map(|r| r.iter().zip(median_s).map(|(r, m)| r / m).collect()),
            reorder_spmv_equivalents: 1.0,
            break_even_iterations: None,
            sampled_fraction: None,
        }
    }

    /// One matrix timed at 2 then 1 threads.
    fn evaluation(results: Vec<OrderingResult>) -> MatrixEvaluation {
        MatrixEvaluation {
            name: "m".into(),
            rows: 4,
            nnz: 8,
            shuffled: false,
            threads: vec![2, 1],
            results,
        }
    }

    fn row<'a>(table: &'a str, label: &str) -> &'a str {
        let start = format!("| {label} |");
        table.lines().find(|l| l.starts_with(&start)).unwrap()
    }

    #[test]
    fn figures_without_their_reference_are_dashes_and_null() {
        let evals = [evaluation(vec![
            result("identity", 10, [1.0, 1.0], None),
            result("degree", 12, [0.5, 1.0], None),
            result("tsp", 8, [0.25, 0.5], None),
        ])];
        let table = summary_table(&evals);
        assert_eq!(
            row(&table, "degree"),
            "| degree | 1.200 | 2.000 | 1.000 | - | - |  | 1 |"
        );
        assert_eq!(
            row(&table, "tsp"),
            "| tsp | 0.800 | 4.000 | 2.000 | - | - | - | 1 |"
        );
        let summary = summarize(&evals);
        assert!(summary.tsp_beats_rcm_and_gorder_on_d.is_nan());
        assert!(summary.sampled_within_5_percent.iter().all(|s| s.is_nan()));
        let json = serde_json::to_value(&summary).unwrap();
        assert!(json["tsp_beats_rcm_and_gorder_on_d"].is_null(), "{json}");
        assert!(
            json["geomean_speedup_default_over_rcm"][0].is_null(),
            "{json}"
        );
    }

    #[test]
    fn tsp_is_compared_with_the_references_that_ran() {
        let rcm = Some([0.5, 1.0]);
        let evals = [
            evaluation(vec![
                result("identity", 10, [1.0, 1.0], rcm),
                result("rcm", 9, [0.5, 1.0], rcm),
                result("tsp", 8, [0.25, 1.0], rcm),
            ]),
            evaluation(vec![
                result("identity", 10, [1.0, 1.0], rcm),
                result("rcm", 7, [0.5, 1.0], rcm),
                result("tsp", 8, [0.25, 1.0], rcm),
            ]),
        ];
        let table = summary_table(&evals);
        assert!(
            row(&table, "tsp").ends_with("| 2.000 | 1.000 | 1 / 2 | 1 |"),
            "{table}"
        );
        // The per-matrix speedup over RCM is the one at the largest thread count (listed first).
        let per_matrix = markdown_table(&evals[..1]);
        assert!(per_matrix.contains("| m | tsp | 8 | 1.00 | 1.00 | 4.00 | 1.00 | 2.00 | 1 | - |"));
    }

    #[test]
    fn median_takes_the_two_middle_values_of_an_even_count() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(vec![7.0]), 7.0);
        assert!(median(Vec::new()).is_nan());
    }
}
