//! Integration tests: the solver workflows and what a newcomer reads (`apply`, `--perm-base`,
//! `-h`, the summary, `--report`, `evaluate`'s table).

use crate::common::{assert_usage_error, matrix, run, temp_dir};
use std::path::Path;

/// The lines of `file` in `dir` that are not `%` comments.
fn data_lines(dir: &Path, file: &str) -> Vec<String> {
    std::fs::read_to_string(dir.join(file))
        .unwrap_or_else(|e| panic!("{file}: {e}"))
        .lines()
        .filter(|l| !l.starts_with('%'))
        .map(str::to_owned)
        .collect()
}

/// Runs the binary in `dir`, asserting success; returns stdout.
fn ok(args: &[&str], dir: &Path) -> String {
    let (ok, out, err) = run(args, dir);
    assert!(ok, "{args:?}: {err}");
    out
}

#[test]
fn apply_reads_zero_based_and_inverse_permutations_as_the_reordering_wrote_them() {
    let dir = temp_dir();
    let d = dir.path();
    let input = matrix("bcsstk05.mtx.gz");
    let a = input.to_str().unwrap();
    let rcm = ["--method", "rcm", "--length-runs", "0"];
    ok(
        &[&[a, "-o", "rcm.mtx", "--perm-out", "p1.txt"][..], &rcm].concat(),
        d,
    );
    ok(
        &[&[a, "--perm-out", "p0.txt", "--perm-base", "0"][..], &rcm].concat(),
        d,
    );
    let one: Vec<usize> = data_lines(d, "p1.txt")
        .iter()
        .map(|l| l.parse().unwrap())
        .collect();
    let zero: Vec<usize> = data_lines(d, "p0.txt")
        .iter()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(one.iter().map(|i| i - 1).collect::<Vec<_>>(), zero);
    // As scipy's reverse_cuthill_mckee writes it (np.savetxt: 0-based, no comments).
    let scipy: String = zero.iter().map(|i| format!("{i}\n")).collect();
    std::fs::write(d.join("scipy.txt"), scipy).unwrap();
    let out = ok(
        &[
            "apply",
            a,
            "--perm",
            "scipy.txt",
            "--perm-base",
            "0",
            "-o",
            "b0.mtx",
        ],
        d,
    );
    assert!(out.contains("permuted (P·A·Pᵀ), wrote b0.mtx"), "{out}");
    ok(&["apply", a, "--perm", "p1.txt", "-o", "b1.mtx"], d);
    // As METIS's .iperm: 0-based, line i the new position of row i.
    let mut iperm = vec![0; zero.len()];
    for (new, &old) in zero.iter().enumerate() {
        iperm[old] = new;
    }
    let iperm: String = iperm.iter().map(|i| format!("{i}\n")).collect();
    std::fs::write(d.join("a.iperm"), iperm).unwrap();
    ok(
        &[
            "apply",
            a,
            "--perm",
            "a.iperm",
            "--perm-base",
            "0",
            "--inverse",
            "-o",
            "bi.mtx",
        ],
        d,
    );
    let reordered = data_lines(d, "rcm.mtx");
    for b in ["b0.mtx", "b1.mtx", "bi.mtx"] {
        assert!(
            data_lines(d, b) == reordered,
            "{b} differs from the reordering's own output"
        );
    }
    // A 1-based file read as 0-based: its largest index is out of range, and the message says
    // which option reads it.
    let (ok_, _, err) = run(
        &[
            "apply",
            a,
            "--perm",
            "p1.txt",
            "--perm-base",
            "0",
            "-o",
            "x.mtx",
        ],
        d,
    );
    assert!(
        !ok_ && err.contains("p1.txt") && err.contains("needs --perm-base 1"),
        "{err}"
    );
    // An index wrong in either base gets no hint about the base.
    let text = std::fs::read_to_string(d.join("p1.txt")).unwrap();
    std::fs::write(d.join("p9.txt"), format!("{text}999999\n")).unwrap();
    let (ok_, _, err) = run(&["apply", a, "--perm", "p9.txt", "-o", "x.mtx"], d);
    assert!(
        !ok_ && err.contains("index 999999 is outside") && !err.contains("--perm-base"),
        "{err}"
    );
    let (ok_, _, err) = run(
        &[
            "apply",
            a,
            "--perm",
            "p1.txt",
            "--perm-base",
            "2",
            "-o",
            "x.mtx",
        ],
        d,
    );
    assert!(!ok_ && err.contains("expected 0 or 1"), "{err}");
    assert!(!d.join("x.mtx").exists());
    // Never over an input.
    let (ok_, _, err) = run(&["apply", a, "--perm", "p1.txt", "-o", "p1.txt"], d);
    assert!(!ok_ && err.contains("p1.txt"), "{err}");
    assert_eq!(data_lines(d, "p1.txt").len(), one.len());
}

#[test]
fn apply_takes_a_column_permutation_for_a_rectangular_matrix() {
    let dir = temp_dir();
    let d = dir.path();
    std::fs::write(
        d.join("r.mtx"),
        "%%MatrixMarket matrix coordinate real general\n2 3 3\n1 1 1.5\n1 3 2.5\n2 2 3.5\n",
    )
    .unwrap();
    std::fs::write(d.join("rows.txt"), "2\n1\n").unwrap();
    std::fs::write(d.join("cols.txt"), "3\n1\n2\n").unwrap();
    ok(
        &[
            "apply",
            "r.mtx",
            "--perm",
            "rows.txt",
            "--col-perm",
            "cols.txt",
            "-o",
            "o.mtx",
        ],
        d,
    );
    let mut lines = data_lines(d, "o.mtx");
    let body = lines.split_off(1);
    assert_eq!(lines, ["2 3 3"]);
    // Row 2 first; column 3 first, then 1, then 2.
    let mut entries: Vec<&str> = body.iter().map(String::as_str).collect();
    entries.sort_unstable();
    assert_eq!(entries, ["1 3 3.5", "2 1 2.5", "2 2 1.5"]);
    let (ok_, _, err) = run(&["apply", "r.mtx", "--perm", "cols.txt", "-o", "o2.mtx"], d);
    assert!(!ok_ && err.contains("cols.txt"), "{err}");
}

#[test]
fn short_help_has_examples_and_reorder_as_a_subcommand_is_explained() {
    let dir = temp_dir();
    let short = ok(&["-h"], dir.path());
    let long = ok(&["--help"], dir.path());
    assert!(
        short.contains("Examples:") && long.contains("Examples:"),
        "{short}"
    );
    assert!(short.lines().count() < 50, "{short}");
    assert!(long.lines().count() > short.lines().count() + 20);
    assert!(!short.contains("--kicks") && long.contains("--kicks"));
    let input = matrix("bcsstk04.mtx.gz");
    let (ok_, _, err) = run(
        &["reorder", input.to_str().unwrap(), "-o", "b.mtx"],
        dir.path(),
    );
    assert!(!ok_, "{err}");
    assert!(
        err.contains("no `reorder` subcommand") && err.contains("bcsstk04.mtx.gz -o b.mtx"),
        "{err}"
    );
    assert!(!dir.path().join("b.mtx").exists());
}

#[test]
fn summary_is_short_and_report_small_unless_asked() {
    let dir = temp_dir();
    let d = dir.path();
    let input = matrix("bcsstk04.mtx.gz");
    let a = input.to_str().unwrap();
    let out = ok(
        &[
            a,
            "--bench",
            "--threads",
            "1",
            "--report",
            "r.json",
            "-o",
            "b.mtx",
        ],
        d,
    );
    assert!(out.lines().count() <= 6, "{out}");
    assert!(out.lines().all(|l| l.chars().count() <= 160), "{out}");
    assert!(
        out.contains("  result    ") && out.contains("  wrote     b.mtx"),
        "{out}"
    );
    assert!(!out.contains("never"), "{out}");
    let small = std::fs::read_to_string(d.join("r.json")).unwrap();
    ok(
        &[
            a,
            "--bench",
            "--threads",
            "1",
            "--report",
            "full.json",
            "--report-details",
        ],
        d,
    );
    let full = std::fs::read_to_string(d.join("full.json")).unwrap();
    assert!(!small.contains("\"pages\"") && full.contains("\"pages\""));
    let small: serde_json::Value = serde_json::from_str(&small).unwrap();
    assert!(small["bench"]["speedup"].as_f64().unwrap() > 0.0, "{small}");
}

#[test]
fn evaluate_prints_tables_and_json_only_when_asked() {
    let dir = temp_dir();
    let d = dir.path();
    std::fs::create_dir(d.join("m")).unwrap();
    std::fs::copy(matrix("bcsstk04.mtx.gz"), d.join("m/bcsstk04.mtx.gz")).unwrap();
    let args = [
        "evaluate",
        "m",
        "--ordering",
        "rcm",
        "--threads",
        "1",
        "--reps",
        "2",
    ];
    let table = ok(&args, d);
    assert!(
        table.starts_with('|') && table.contains("Geometric means"),
        "{table}"
    );
    assert!(serde_json::from_str::<serde_json::Value>(&table).is_err());
    assert!(!table.contains('{'), "{table}");
    let json = ok(&[&args[..], &["--json"]].concat(), d);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(v["matrices"].is_array());
}

#[test]
fn evaluate_refuses_repeated_orderings_and_thread_counts() {
    let dir = temp_dir();
    let d = dir.path();
    std::fs::create_dir(d.join("m")).unwrap();
    std::fs::copy(matrix("bcsstk04.mtx.gz"), d.join("m/bcsstk04.mtx.gz")).unwrap();
    for (args, needle) in [
        (
            vec!["evaluate", "m", "--ordering", "rcm", "--ordering", " rcm"],
            "the ordering `rcm` is given twice",
        ),
        (
            vec!["evaluate", "m", "--threads", "1,1"],
            "the thread count 1 is given twice",
        ),
        (
            vec!["evaluate", "m", "--ordering", "tsp start=x"],
            "--ordering `tsp start=x`",
        ),
    ] {
        assert_usage_error(&args, d, needle);
    }
}

#[test]
fn evaluate_without_rcm_prints_dashes_and_takes_the_largest_thread_count() {
    let dir = temp_dir();
    let d = dir.path();
    std::fs::create_dir(d.join("m")).unwrap();
    std::fs::copy(matrix("bcsstk04.mtx.gz"), d.join("m/bcsstk04.mtx.gz")).unwrap();
    let args = ["evaluate", "m", "--ordering", "degree", "--reps", "1"];
    let table = ok(
        &[
            &args[..],
            &["--ordering", "tsp check=off", "--threads", "1"],
        ]
        .concat(),
        d,
    );
    let means = table.split("Geometric means").nth(1).unwrap();
    assert!(!means.contains("NaN"), "{table}");
    let row = |label: &str| {
        let start = format!("| {label} |");
        means
            .lines()
            .find(|l| l.starts_with(&start))
            .unwrap()
            .to_string()
    };
    // Columns: ordering, D / D(input), speedup, vs RCM, D below RCM and Gorder, cost.
    assert!(row("degree").contains("| - |  |"), "{table}");
    assert!(row("tsp check=off").contains("| - | - |"), "{table}");
    // The largest thread count listed first: the chart and the break-even take it.
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpus < 2 {
        return;
    }
    let json = ok(
        &[
            &args[..],
            &["--threads", "2,1", "--json", "--chart", "c.svg"],
        ]
        .concat(),
        d,
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let results = v["matrices"][0]["results"].as_array().unwrap();
    let base_2t = results[0]["median_s"][0].as_f64().unwrap();
    for r in results {
        let cost = r["reorder_spmv_equivalents"].as_f64().unwrap();
        let seconds = r["reorder_seconds"].as_f64().unwrap();
        assert!(
            (cost - seconds / base_2t).abs() <= 1e-9 * cost.max(1.0),
            "{r}"
        );
    }
    assert!(
        v["summary"]["tsp_beats_rcm_and_gorder_on_d"].is_null(),
        "{json}"
    );
    let chart = std::fs::read_to_string(d.join("c.svg")).unwrap();
    assert!(chart.contains("(2 threads)"), "{chart}");
}
