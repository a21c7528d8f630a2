//! What the main job tells: the summary a user reads (at most six lines) and the `--report` JSON.

use super::messages::printable;
use super::progress::StageRecord;
use spmv_reorder::locality::ModelledCost;
use spmv_reorder::mtx::MatrixMarket;
use spmv_reorder::reorder::{
    CacheCheck, Kept, Method, PermuteMode, ReorderReport, Reordering, StartOrder, Tuning,
};
use spmv_reorder::spmv::bench::{Comparison, KernelSpeedup};
use spmv_reorder::spmv::Kernel;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The lines a user reads after the job: the input, what came back and why, `D`, the SpMV times
/// when benchmarked, the files written.
pub struct Summary<'a> {
    pub input: &'a Path,
    pub file: &'a MatrixMarket,
    pub reordering: &'a Reordering,
    /// The reordered matrix's file (`-`: standard output), `None` when not written.
    pub output: Option<&'a Path>,
    pub perm_files: &'a [PathBuf],
    /// The other files written: the spy plots and the report.
    pub other_files: Vec<&'a Path>,
    pub comparison: Option<&'a Comparison>,
}

impl Summary<'_> {
    /// Writes the summary to `out`.
    ///
    /// # Errors
    /// Those of `out`.
    pub fn print(&self, out: &mut impl Write) -> std::io::Result<()> {
        let r = &self.reordering.report;
        let h = &self.file.header;
        writeln!(
            out,
            "{}: {} x {}, {} nonzeros ({} {})",
            // Escaped as the error messages are: a file name may hold control characters.
            printable(&self.input.display().to_string()),
            thousands(self.file.nrows() as u64),
            thousands(self.file.ncols() as u64),
            thousands(self.file.nnz() as u64),
            h.field,
            h.symmetry.as_str()
        )?;
        writeln!(out, "  result    {}", self.result())?;
        if let Some(c) = r.rows.as_ref().and_then(|s| s.cache_check.as_ref()) {
            writeln!(out, "  why       {}", why(c, r, &Tuning::default()))?;
        }
        writeln!(out, "  locality  {}", locality(r, self.file.nnz()))?;
        if let Some(c) = self.comparison {
            writeln!(out, "  SpMV      {}", spmv(c))?;
        }
        let written: Vec<String> = self
            .output
            .into_iter()
            .chain(self.perm_files.iter().map(PathBuf::as_path))
            .chain(self.other_files.iter().copied())
            .map(|p| match p == Path::new("-") {
                true => "the reordered matrix to standard output".to_string(),
                false => printable(&p.display().to_string()),
            })
            .collect();
        match written.is_empty() {
            true => writeln!(out, "  wrote     nothing (no -o given)"),
            false => writeln!(out, "  wrote     {}", written.join(", ")),
        }
    }

    /// What came back, in words: the order, the length runs after it, the sides, the time.
    fn result(&self) -> String {
        let r = &self.reordering.report;
        let mut text = order_returned(r);
        if let Some(runs) = r.length_runs {
            text += &match runs.block >= self.reordering.rows.len() {
                true => ", all rows then sorted by length".to_string(),
                false => format!(", rows then sorted by length in blocks of {}", runs.block),
            };
        }
        if let Some(s) = r.row_splits.filter(|s| s.spread) {
            text += &format!(", even row splits for 2-{} threads", s.threads);
        }
        if let Some(c) = &r.coverage {
            text += &format!(
                ", seen through a sample of {:.1}% of the nonzeros",
                100.0 * c.sampled_fraction
            );
        }
        let bounded = r.rows.as_ref().map_or(0, |s| s.bounded_columns);
        if bounded > 0 {
            text += &format!(
                ", {} hub columns bounded (--hub-limit)",
                thousands(bounded as u64)
            );
        }
        text += match r.permute {
            PermuteMode::Symmetric => "",
            PermuteMode::Rows => ", rows only",
            PermuteMode::Cols => ", columns only",
            PermuteMode::Both => ", rows and columns each their own order",
        };
        format!("{text}, in {}", duration(r.reorder_seconds))
    }
}

/// The order the method returned, in words.
fn order_returned(r: &ReorderReport) -> String {
    let side = r.rows.as_ref().or(r.cols.as_ref());
    let asked = r.requested == r.method;
    let check = side.and_then(|s| s.cache_check.as_ref());
    // Within the tie margin the cache check keeps the lower D: "below" would not be true.
    let tied = check.is_some_and(|c| c.tied);
    let priced = |other: &str| match tied {
        true => format!(
            "priced within {}% of {other}, with the lower D",
            Tuning::default().model_tie_percent
        ),
        false => format!("priced below {other}"),
    };
    match r.method {
        Method::Tsp => match side.and_then(|s| s.tsp.as_ref()) {
            Some(t) => format!(
                "the TSP path over {} windows of locality, {:.1}% above its lower bound",
                thousands(side.map_or(0, |s| s.windows) as u64),
                100.0 * t.gap
            ),
            None => "the TSP path".into(),
        },
        Method::Rcm if asked => "RCM's order (reverse Cuthill-McKee)".into(),
        Method::Rcm if r.requested == Method::Tsp => "RCM's order (the TSP method's start)".into(),
        Method::Rcm if check.is_none() => {
            "RCM's order (reverse Cuthill-McKee), not priced (--no-cache-check)".into()
        }
        Method::Rcm => format!(
            "RCM's order (reverse Cuthill-McKee), {}",
            priced("the order as read")
        ),
        Method::Identity if asked => "the order as read".into(),
        // A tie is between the order as read and RCM's: the path is never kept on one.
        Method::Identity => format!(
            "the order as read, {}",
            priced(if tied {
                "RCM's order"
            } else {
                "the other orders"
            })
        ),
        Method::Gp if asked => "METIS's partition order (parts numbered one after another)".into(),
        Method::Gp => "the cache windows' METIS parts in their own order, RCM inside".into(),
        Method::Nd => "METIS's nested dissection order".into(),
        Method::Gorder => "Gorder's order".into(),
        Method::Degree => "the rows by decreasing number of nonzeros".into(),
        Method::Random => format!("a random order (seed {})", r.seed),
        _ => r.order.clone(),
    }
}

/// Why the cache check kept its order: the modelled `x` misses of each order it priced, and its
/// rule.
fn why(c: &CacheCheck, r: &ReorderReport, t: &Tuning) -> String {
    let requested = r.requested;
    // The path's start: RCM's order, or the cache windows' parts.
    let (name, order) = match r.start {
        Some(StartOrder::Parts) => ("the parts", "the parts' order"),
        _ => ("RCM", "RCM's order"),
    };
    let mut prices = vec![format!("as read {}", misses(&c.input))];
    if let Some(start) = &c.start {
        prices.push(format!("{name} {}", misses(start)));
    }
    if let Some(path) = &c.path {
        let partway = if c.draft_abandoned { " (partway)" } else { "" };
        prices.push(format!("TSP path {}{partway}", misses(path)));
    }
    let rule = match (c.kept, &c.path) {
        _ if requested == Method::Auto && c.tied => format!(
            "as read and RCM within {}%, the lower D wins; the default computes no TSP path",
            t.model_tie_percent
        ),
        _ if requested == Method::Auto => {
            "the cheaper wins; the default computes no TSP path".into()
        }
        (Kept::Path, _) => format!("the path is {}% or more below both", t.path_margin_percent),
        _ if c.tied => format!(
            "as read and {name} within {}%, the lower D wins",
            t.model_tie_percent
        ),
        (_, Some(_)) => format!("the path must be {}% below both", t.path_margin_percent),
        (_, None) if c.start_near_bound.is_some() => {
            format!("{order} is near any path's lower bound, so no path was computed")
        }
        (_, None) => "no order could be cheap enough, so no path was computed".into(),
    };
    format!(
        "modelled x misses per product (L1/L2): {}; {rule}",
        prices.join(", ")
    )
}

/// The modelled `x` misses per nonzero before and after (the figure that predicts speed) when
/// measured, then `D` before and after, and before the length runs when they were made. Where the
/// misses rose it names the passes made after the order, which trade `x` misses for something
/// else: a user who reads only a rise would take the order for a worse one.
fn locality(r: &ReorderReport, nnz: usize) -> String {
    let per_k = |misses: u64| 1000.0 * misses as f64 / nnz.max(1) as f64;
    let misses = match (r.x_misses_before, r.x_misses_after) {
        (Some(before), Some(after)) => {
            let rose = after.l1_misses > before.l1_misses || after.l2_misses > before.l2_misses;
            let with_passes = if rose {
                passes_after_the_order(r)
            } else {
                String::new()
            };
            format!(
                "x misses per 1000 nonzeros (cache model) L1 {:.0} -> {:.0}, L2 {:.1} -> {:.1}{with_passes}; ",
                per_k(before.l1_misses),
                per_k(after.l1_misses),
                per_k(before.l2_misses),
                per_k(after.l2_misses),
            )
        }
        _ => String::new(),
    };
    let runs = r.length_runs.map_or(String::new(), |runs| {
        format!(", {} before the length runs", thousands(runs.d_without))
    });
    format!(
        "{misses}D {} -> {}{runs}",
        thousands(r.d_before),
        thousands(r.d_after)
    )
}

/// ` (with P, which trade x misses for G)` for the passes made after the order (length runs,
/// even row splits) and what they gain; empty when there were none.
fn passes_after_the_order(r: &ReorderReport) -> String {
    let spread = r.row_splits.is_some_and(|s| s.spread);
    let passes: Vec<(&str, &str)> = [
        (
            r.length_runs.is_some(),
            ("the length runs", "predictable row ends"),
        ),
        (spread, ("the even row splits", "even work per thread")),
    ]
    .into_iter()
    .filter_map(|(made, pass)| made.then_some(pass))
    .collect();
    if passes.is_empty() {
        return String::new();
    }
    let names: Vec<&str> = passes.iter().map(|p| p.0).collect();
    let gains: Vec<&str> = passes.iter().map(|p| p.1).collect();
    format!(
        " (with {}, which trade x misses for {})",
        names.join(" and "),
        gains.join(" and ")
    )
}

/// The SpMV times before and after with the kernel named, the speedup, and the break-even when
/// the gain is beyond the spread of the timings (or why there is none).
fn spmv(c: &Comparison) -> String {
    let threads = match c.before.threads {
        1 => "1 thread".to_string(),
        t => format!("{t} threads"),
    };
    let kernels = match (c.before.best_kernel, c.after.best_kernel) {
        (b, a) if b == a => format!("{b}"),
        (b, a) => format!("{b} before, {a} after"),
    };
    let mut text = format!(
        "{} ms -> {} ms per product ({kernels}, {threads}): {:.2}x as fast",
        millis(c.before.median_s),
        millis(c.after.median_s),
        c.speedup
    );
    // A slower order needs no words beyond its speedup.
    match c.break_even_iterations {
        Some(n) => text += &format!(", paid back after {} products", thousands(n.ceil() as u64)),
        None if c.reorder_seconds.is_some() && c.after.median_s < c.before.median_s => {
            text += ", a gain within the timings' spread";
        }
        None => {}
    }
    text
}

/// Seconds as `0.42 s`, or milliseconds below a hundredth of a second.
fn duration(seconds: f64) -> String {
    match seconds {
        s if s >= 0.01 => format!("{s:.2} s"),
        s => format!("{:.1} ms", 1e3 * s),
    }
}

/// `L1/L2` modelled misses of one order.
fn misses(c: &ModelledCost) -> String {
    format!("{}/{}", thousands(c.l1_misses), thousands(c.l2_misses))
}

/// Milliseconds with three significant digits or more.
fn millis(seconds: f64) -> String {
    let ms = 1e3 * seconds;
    match ms {
        m if m >= 100.0 => format!("{m:.0}"),
        m if m >= 1.0 => format!("{m:.2}"),
        m => format!("{m:.4}"),
    }
}

/// `n` with commas between groups of three digits.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// The JSON of `--report`: the job's files and stages, the reordering's report and, with
/// `--bench`, the SpMV figures (in full with `--report-details`).
#[derive(serde::Serialize)]
pub struct JobReport<'a> {
    pub input: &'a Path,
    pub output: Option<&'a Path>,
    pub matrix: MatrixShape,
    pub read_seconds: f64,
    /// Every stage of the job with its time and peak memory.
    pub stages: Vec<StageRecord>,
    #[serde(flatten)]
    pub reorder: &'a ReorderReport,
    pub bench: Option<BenchFigures<'a>>,
}

/// Size of the input, in the report.
#[derive(serde::Serialize)]
pub struct MatrixShape {
    pub nrows: usize,
    pub ncols: usize,
    pub nnz: usize,
}

/// The SpMV figures of the report: the comparison in full, or its headline figures.
#[derive(serde::Serialize)]
#[serde(untagged)]
pub enum BenchFigures<'a> {
    /// Every figure of both benchmarks (threads' bindings, the triad, pages of each array).
    Full(&'a Comparison),
    /// The best kernels' medians, the speedup per kernel and the break-even.
    Headline(BenchHeadline<'a>),
}

/// The headline figures of a before/after benchmark.
#[derive(serde::Serialize)]
pub struct BenchHeadline<'a> {
    threads: usize,
    best_kernel_before: Kernel,
    best_kernel_after: Kernel,
    before_median_s: f64,
    after_median_s: f64,
    speedup: f64,
    kernels: &'a [KernelSpeedup],
    reorder_cost_in_spmvs: Option<f64>,
    break_even_iterations: Option<f64>,
}

impl<'a> BenchFigures<'a> {
    /// The figures of `c`: all of them when `details`, else the headline.
    pub fn of(c: &'a Comparison, details: bool) -> Self {
        if details {
            return BenchFigures::Full(c);
        }
        BenchFigures::Headline(BenchHeadline {
            threads: c.before.threads,
            best_kernel_before: c.before.best_kernel,
            best_kernel_after: c.after.best_kernel,
            before_median_s: c.before.median_s,
            after_median_s: c.after.median_s,
            speedup: c.speedup,
            kernels: &c.kernels,
            reorder_cost_in_spmvs: c.reorder_cost_in_spmvs,
            break_even_iterations: c.break_even_iterations,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_easily() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(millis(0.000_085_4), "0.0854");
        assert_eq!(millis(0.012_345), "12.35");
        assert_eq!(millis(0.25), "250");
        assert_eq!(duration(0.4213), "0.42 s");
        assert_eq!(duration(0.0031), "3.1 ms");
    }
}
