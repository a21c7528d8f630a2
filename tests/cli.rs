//! Integration tests: the command line as a user types it.

use crate::common::{matrix, run, temp_dir};

fn json(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

#[test]
fn info_json_has_the_documented_keys() {
    let dir = temp_dir();
    let path = matrix("bcsstk04.mtx.gz");
    let (ok, out, err) = run(
        &["info", path.to_str().unwrap(), "--json", "--window", "var"],
        dir.path(),
    );
    assert!(ok, "{err}");
    let v = json(&out);
    assert_eq!(v["rows"], 132);
    assert_eq!(v["cols"], 132);
    assert_eq!(v["nnz"], 3648); // expanded, as SOURCES.md lists
    assert_eq!(v["nnz_stored"], 1890);
    assert!(v["D"].as_u64().unwrap() > 0);
    assert!(v["D_w"].as_u64().unwrap() <= v["D"].as_u64().unwrap());
    assert!(v["windows"].as_u64().unwrap() >= 1);
}

#[test]
fn gen_then_info_round_trip() {
    let dir = temp_dir();
    let out = dir.path().join("grid.mtx.gz");
    let (ok, _, err) = run(
        &[
            "gen",
            "poisson2d",
            "--nx",
            "10",
            "-o",
            out.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert!(ok, "{err}");
    let (ok, stdout, err) = run(
        &["info", out.to_str().unwrap(), "--json", "--window", "1"],
        dir.path(),
    );
    assert!(ok, "{err}");
    let v = json(&stdout);
    assert_eq!(v["rows"], 100);
    assert_eq!(v["nnz"], 100 + 2 * 2 * 90);
    assert_eq!(v["D"], v["D_w"], "one row per window: D_w = D");
    // Shuffling destroys locality: D grows.
    let shuffled = dir.path().join("shuffled.mtx");
    let (ok, _, err) = run(
        &[
            "gen",
            "poisson2d",
            "--nx",
            "10",
            "--shuffle",
            "3",
            "-o",
            shuffled.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert!(ok, "{err}");
    let (_, stdout, _) = run(&["info", shuffled.to_str().unwrap(), "--json"], dir.path());
    assert!(json(&stdout)["D"].as_u64() > v["D"].as_u64());
}

#[test]
fn bad_input_names_file_and_line() {
    let dir = temp_dir();
    let bad = dir.path().join("bad.mtx");
    std::fs::write(
        &bad,
        "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n0 2 3.0\n",
    )
    .unwrap();
    let (ok, out, err) = run(&["info", bad.to_str().unwrap()], dir.path());
    assert!(!ok);
    assert!(out.is_empty());
    assert!(err.contains("bad.mtx:4:"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn missing_file_and_bad_options_fail_cleanly() {
    let dir = temp_dir();
    let (ok, _, err) = run(&["info", "no-such-file.mtx"], dir.path());
    assert!(!ok && err.contains("no-such-file.mtx"), "{err}");
    let path = matrix("bcsstk04.mtx.gz");
    let (ok, _, err) = run(
        &["info", path.to_str().unwrap(), "--window", "0"],
        dir.path(),
    );
    assert!(!ok && err.contains("at least 1"), "{err}");
    let (ok, _, err) = run(
        &["gen", "poisson3d", "--nx", "0", "-o", "x.mtx"],
        dir.path(),
    );
    assert!(!ok && err.contains("nx"), "{err}");
    // Sizes beyond an index are refused as sizes, not as memory.
    for (kind, size, needle) in [
        ("poisson2d", ["--nx", "70000"], "at most 2^32-1 points"),
        ("rmat", ["--scale", "40"], "scale = 40: between 1 and 31"),
    ] {
        let args = [&["gen", kind][..], &size, &["-o", "x.mtx"]].concat();
        let (ok, _, err) = run(&args, dir.path());
        assert!(!ok && err.contains(needle), "{err}");
    }
    assert!(!dir.path().join("x.mtx").exists(), "no output on failure");
}

#[test]
fn failed_write_leaves_no_file() {
    let dir = temp_dir();
    let target = dir.path().join("missing-dir").join("out.mtx");
    let (ok, _, err) = run(
        &[
            "gen",
            "poisson2d",
            "--nx",
            "3",
            "-o",
            target.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert!(!ok, "{err}");
    assert!(!target.exists());
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no temporary file left behind"
    );
}

#[test]
fn main_job_writes_a_faithful_reordered_file() {
    use spmv_reorder::mtx::{read_path, read_permutation, ReadOptions, Symmetry};
    let dir = temp_dir();
    let input = matrix("bcsstk05.mtx.gz");
    let out = dir.path().join("out.mtx");
    let perm = dir.path().join("perm.txt");
    let report = dir.path().join("report.json");
    let (ok, stdout, err) = run(
        &[
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--perm-out",
            perm.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
            // bcsstk05's x fits in cache: the check would compute no path and return the
            // order as given or RCM's. The path tests more (and fills the TSP figures). Without
            // length runs its `D` is the path's (the runs may raise `D`: see
            // `length_runs_sort_each_block_by_row_length_and_say_so`).
            "--method",
            "tsp",
            "--no-cache-check",
            "--length-runs",
            "0",
            "--time-limit",
            "2",
            "--threads",
            "2",
        ],
        dir.path(),
    );
    assert!(ok, "{err}");
    assert!(
        stdout.contains("locality") && stdout.contains("D "),
        "{stdout}"
    );
    let original = read_path(&input, &ReadOptions::default()).unwrap();
    let written = read_path(&out, &ReadOptions::default()).unwrap();
    assert_eq!(
        written.header.symmetry,
        Symmetry::Symmetric,
        "symmetric storage is kept"
    );
    let p = read_permutation(&perm).unwrap();
    assert_eq!(
        written.matrix,
        original.matrix.permute(&p, &p).unwrap(),
        "values survive exactly"
    );
    let v = json(&std::fs::read_to_string(&report).unwrap());
    for key in [
        "method",
        "sampler",
        "windows",
        "reorder_seconds",
        "D_before",
        "D_after",
        "D_w_before",
        "D_w_after",
        "tsp_cost",
        "tsp_lower_bound",
        "tsp_gap",
    ] {
        assert!(!v[key].is_null(), "report key {key} missing: {v}");
    }
    assert!(v["D_after"].as_u64() < v["D_before"].as_u64());
    assert!(v["tsp_lower_bound"].as_i64() <= v["tsp_cost"].as_i64());
}

#[test]
fn main_job_without_output_writes_nothing_and_still_benches_and_draws() {
    // The reordered matrix is built only for what reads it: -o, --spy and --bench.
    let dir = temp_dir();
    let input = matrix("bcsstk05.mtx.gz");
    let (ok, stdout, err) = run(&[input.to_str().unwrap(), "--threads", "2"], dir.path());
    assert!(ok, "{err}");
    assert!(
        stdout.contains("wrote     nothing (no -o given)"),
        "{stdout}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    // The matrix on standard output: the summary goes to stderr and says where the matrix went.
    let (ok, stdout, err) = run(&[input.to_str().unwrap(), "-o", "-"], dir.path());
    assert!(ok && stdout.starts_with("%%MatrixMarket"), "{err}");
    assert!(
        err.contains("wrote     the reordered matrix to standard output\n"),
        "{err}"
    );
    let (ok, stdout, err) = run(
        &[
            input.to_str().unwrap(),
            "--bench",
            "--spy",
            "before.png,after.png",
            "--threads",
            "2",
        ],
        dir.path(),
    );
    assert!(ok, "{err}");
    assert!(
        stdout.contains("SpMV")
            && stdout.contains(", 2 threads): ")
            && stdout.contains("x as fast")
            && stdout.contains("wrote     before.png, after.png\n"),
        "{stdout}"
    );
    for png in ["before.png", "after.png"] {
        let bytes = std::fs::read(dir.path().join(png)).unwrap();
        assert!(bytes.starts_with(b"\x89PNG"), "{png} is a PNG");
    }
    let (ok, stdout, err) = run(
        &[input.to_str().unwrap(), "--bench", "--threads", "1"],
        dir.path(),
    );
    assert!(ok, "{err}");
    assert!(stdout.contains(", 1 thread): "), "{stdout}");
}

#[test]
fn main_job_never_overwrites_its_input_and_fails_cleanly() {
    let dir = temp_dir();
    let input = dir.path().join("in.mtx");
    std::fs::copy(matrix("west0381.mtx.gz"), &input).unwrap();
    let before = std::fs::read(&input).unwrap();
    let (ok, _, err) = run(&["in.mtx", "-o", "./in.mtx"], dir.path());
    assert!(!ok && err.contains("refusing to overwrite"), "{err}");
    assert_eq!(std::fs::read(&input).unwrap(), before);
    for (args, needle) in [
        (
            vec![
                "in.mtx", "-o", "o.mtx", "--method", "tsp", "--window", "latency",
            ],
            "latency windows need",
        ),
        (
            vec!["in.mtx", "-o", "o.mtx", "--sampler", "random:7"],
            "random",
        ),
        (vec!["in.mtx", "-o", "o.mtx", "--method", "metis"], "metis"),
        (vec!["in.mtx", "-o", "o.mtx", "--threads", "0"], "threads"),
        (
            vec!["in.mtx", "-o", "o.mtx", "--sampler", "dast-perf"],
            "dast-sim",
        ),
    ] {
        let (ok, _, err) = run(&args, dir.path());
        assert!(!ok, "{args:?} should fail");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(
            !dir.path().join("o.mtx").exists(),
            "{args:?} left an output"
        );
    }
}

#[test]
fn main_job_peers_and_independent_permutations() {
    use spmv_reorder::mtx::{read_path, read_permutation, ReadOptions};
    let dir = temp_dir();
    let input = matrix("west0381.mtx.gz");
    for method in ["rcm", "gorder", "degree", "gp", "nd", "identity", "random"] {
        let (ok, _, err) = run(
            &[input.to_str().unwrap(), "--method", method, "-q"],
            dir.path(),
        );
        assert!(ok, "{method}: {err}");
    }
    // The METIS partition order with parts of 64 rows keeps the matrix: rows are a permutation.
    let (ok, _, err) = run(
        &[
            input.to_str().unwrap(),
            "-o",
            "gp.mtx",
            "--method",
            "gp",
            "--part-rows",
            "64",
            "--perm-out",
            "gp.txt",
            "-q",
        ],
        dir.path(),
    );
    assert!(ok, "{err}");
    let p = read_permutation(&dir.path().join("gp.txt")).unwrap();
    let a = read_path(&input, &ReadOptions::default()).unwrap().matrix;
    let b = read_path(&dir.path().join("gp.mtx"), &ReadOptions::default())
        .unwrap()
        .matrix;
    assert_eq!(p.len(), a.nrows());
    assert_eq!(b.nnz(), a.nnz());
    let (ok, _, err) = run(
        &[
            input.to_str().unwrap(),
            "--method",
            "gp",
            "--part-rows",
            "0",
        ],
        dir.path(),
    );
    assert!(!ok && err.contains("--part-rows"), "{err}");
    for threads in ["4097", "many"] {
        let (ok, _, err) = run(
            &[
                input.to_str().unwrap(),
                "--row-split-threads",
                threads,
                "-q",
            ],
            dir.path(),
        );
        assert!(
            !ok && err.contains("--row-split-threads"),
            "{threads}: {err}"
        );
    }
    let (ok, _, err) = run(
        &[
            input.to_str().unwrap(),
            "--row-split-threads",
            "0",
            "--report",
            "s.json",
            "-q",
        ],
        dir.path(),
    );
    assert!(ok, "{err}");
    let report = std::fs::read_to_string(dir.path().join("s.json")).unwrap();
    assert!(
        report.contains("\"row_splits\": null") || report.contains("\"row_splits\":null"),
        "{report}"
    );
    let (ok, _, err) = run(
        &[
            input.to_str().unwrap(),
            "-o",
            "b.mtx.gz",
            "--permute",
            "both",
            "--perm-out",
            "p.txt",
            "--time-limit",
            "1",
            "-q",
        ],
        dir.path(),
    );
    assert!(ok, "{err}");
    let rows = read_permutation(&dir.path().join("p.txt")).unwrap();
    let cols = read_permutation(&dir.path().join("p.txt.cols")).unwrap();
    let a = read_path(&input, &ReadOptions::default()).unwrap();
    let b = read_path(&dir.path().join("b.mtx.gz"), &ReadOptions::default()).unwrap();
    assert_eq!(b.matrix, a.matrix.permute(&rows, &cols).unwrap());
    // Rows alone: the columns keep their order, and no columns' file is written for it.
    let (ok, _, err) = run(
        &[
            input.to_str().unwrap(),
            "--permute",
            "rows",
            "--perm-out",
            "r.txt",
            "-q",
        ],
        dir.path(),
    );
    assert!(ok, "{err}");
    assert!(dir.path().join("r.txt").exists() && !dir.path().join("r.txt.cols").exists());
}

#[test]
fn start_orders_and_evaluate_orderings() {
    let dir = temp_dir();
    let input = matrix("bcsstk04.mtx.gz");
    for start in ["greedy", "given", "rcm"] {
        let (ok, _, err) = run(
            &[
                input.to_str().unwrap(),
                "--method",
                "tsp",
                "--start",
                start,
                "--time-limit",
                "1",
                "--report",
                "r.json",
            ],
            dir.path(),
        );
        assert!(ok, "{start}: {err}");
        let report = json(&std::fs::read_to_string(dir.path().join("r.json")).unwrap());
        assert_eq!(report["start"], start);
    }
    let (ok, _, err) = run(&[input.to_str().unwrap(), "--start", "metis"], dir.path());
    assert!(!ok && err.contains("greedy, given, rcm"), "{err}");
    std::fs::create_dir(dir.path().join("m")).unwrap();
    std::fs::copy(&input, dir.path().join("m/bcsstk04.mtx.gz")).unwrap();
    let (ok, out, err) = run(
        &[
            "evaluate",
            "m",
            "--ordering",
            "rcm",
            "--ordering",
            "tsp start=given",
            "--threads",
            "1",
            "--reps",
            "2",
            "--time-limit",
            "1",
            "--json",
        ],
        dir.path(),
    );
    assert!(ok, "{err}");
    let v = json(&out);
    let labels: Vec<&str> = v["matrices"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["identity", "rcm", "tsp start=given"]);
    let (ok, _, err) = run(&["evaluate", "m", "--ordering", "tsp start=x"], dir.path());
    assert!(!ok && err.contains("start"), "{err}");
}

#[test]
fn hub_limit_bounds_columns_and_says_so() {
    let dir = temp_dir();
    let input = matrix("gr_30_30.mtx.gz");
    let args = |limit: &'static str| {
        [
            input.to_str().unwrap().to_owned(),
            "--method".into(),
            "tsp".into(),
            "--hub-limit".into(),
            limit.into(),
            "--report".into(),
            format!("r{limit}.json"),
            "--time-limit".into(),
            "1".into(),
            // With the check, no graph is built for a matrix whose `x` fits the modelled L1.
            "--no-cache-check".into(),
        ]
    };
    // A 9-point grid of 30 x 30: a column is held by 9 rows inside, 6 on an edge, 4 in a corner.
    let bounded = |limit: &'static str| {
        let owned = args(limit);
        let (ok, out, err) = run(
            &owned.iter().map(String::as_str).collect::<Vec<_>>(),
            dir.path(),
        );
        assert!(ok, "{err}");
        let report = std::fs::read_to_string(dir.path().join(format!("r{limit}.json"))).unwrap();
        let columns = json(&report)["rows"]["bounded_columns"].as_u64().unwrap();
        (columns, out.contains("hub columns bounded"))
    };
    assert_eq!(bounded("256"), (0, false));
    assert_eq!(bounded("8"), (28 * 28, true));
    assert_eq!(bounded("5"), (28 * 28 + 4 * 28, true));
}

#[test]
fn length_runs_sort_each_block_by_row_length_and_say_so() {
    let dir = temp_dir();
    let input = matrix("west0381.mtx.gz");
    let lengths_of = |file: &str| {
        let m = spmv_reorder::mtx::read_path(&dir.path().join(file), &Default::default())
            .unwrap()
            .matrix
            .to_real();
        (0..m.nrows()).map(|i| m.row_nnz(i)).collect::<Vec<_>>()
    };
    let reorder = |out: &str, runs: &str| {
        let (ok, stdout, err) = run(
            &[
                input.to_str().unwrap(),
                "--method",
                "rcm",
                "-o",
                out,
                "--length-runs",
                runs,
                "--report",
                &format!("{out}.json"),
            ],
            dir.path(),
        );
        assert!(ok, "{err}");
        let report = std::fs::read_to_string(dir.path().join(format!("{out}.json"))).unwrap();
        (stdout, json(&report))
    };
    let (plain_out, plain_report) = reorder("plain.mtx", "0");
    let (runs_out, runs_report) = reorder("runs.mtx", "16");
    assert!(plain_report["length_runs"].is_null() && !plain_out.contains("--length-runs"));
    assert_eq!(runs_report["length_runs"]["block"], 16);
    // `D` without the runs is RCM's, as the plain run reports it.
    assert_eq!(
        runs_report["length_runs"]["D_without"],
        plain_report["D_after"]
    );
    assert!(
        runs_out.contains("sorted by length in blocks of 16"),
        "{runs_out}"
    );
    let (plain, runs) = (lengths_of("plain.mtx"), lengths_of("runs.mtx"));
    // The same rows block by block, each block sorted by length; RCM's blocks were not.
    let sorted = |b: &[usize]| b.windows(2).all(|w| w[0] <= w[1]);
    assert!(plain.chunks(16).any(|b| !sorted(b)));
    for (p, r) in plain.chunks(16).zip(runs.chunks(16)) {
        let mut p = p.to_vec();
        p.sort_unstable();
        assert_eq!(p, r);
    }
    // `auto` sorts all rows of a matrix this narrow together.
    let (auto_out, auto_report) = reorder("auto.mtx", "auto");
    assert_eq!(auto_report["length_runs"]["block"], 381);
    assert!(
        auto_out.contains("all rows then sorted by length,"),
        "{auto_out}"
    );
    assert!(sorted(&lengths_of("auto.mtx")));
    let (ok, _, err) = run(
        &[input.to_str().unwrap(), "--length-runs", "all"],
        dir.path(),
    );
    assert!(
        !ok && err.contains("expected auto, or rows per block"),
        "{err}"
    );
}

#[test]
fn help_states_the_library_defaults() {
    use spmv_reorder::reorder::{Tuning, DEFAULT_LENGTH_CHANGE_COST};
    let t = Tuning::default();
    let dir = temp_dir();
    let (ok, out, err) = run(&["--help"], dir.path());
    assert!(ok, "{err}");
    // clap rewraps the help to the terminal's width.
    let help = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains(&format!(
            "all rows when the matrix has at most {} columns",
            t.sort_all_max_columns
        )) && help.contains(&format!(
            "else blocks of {}. Default: auto for the auto method, and for tsp",
            t.run_block
        )),
        "{help}"
    );
    assert!(
        help.contains(&format!("[default: {DEFAULT_LENGTH_CHANGE_COST}]")),
        "{help}"
    );
    assert!(
        help.contains(&format!(
            "returns the path only when it is priced at least {}% below both others",
            t.path_margin_percent
        )),
        "{help}"
    );
}

#[test]
fn a_draft_far_behind_at_its_checkpoint_is_set_aside_for_the_same_order() {
    // bcsstk13 as read: partway down its descent the draft is priced more than 1.4x the input
    // order, which the check keeps (RCM's is priced higher than the input's).
    let abandon = spmv_reorder::reorder::Tuning::default().draft_abandon_percent;
    let dir = temp_dir();
    let input = matrix("bcsstk13.mtx.gz");
    let reorder = |extra: &[&str], perm: &str| {
        let mut args = vec![input.to_str().unwrap(), "--perm-out", perm];
        args.extend_from_slice(extra);
        let (ok, stdout, err) = run(&args, dir.path());
        assert!(ok, "{err}");
        stdout
    };
    let out = reorder(&["--method", "tsp", "--report", "r.json"], "tsp.perm");
    let report = json(&std::fs::read_to_string(dir.path().join("r.json")).unwrap());
    let check = &report["rows"]["cache_check"];
    assert_eq!(check["draft_abandoned"], true, "{check}");
    assert_eq!(check["refined"], false);
    assert_eq!(check["kept"], "input");
    let cycles = |v: &serde_json::Value| v["cycles"].as_u64().unwrap();
    let others = cycles(&check["start"]).min(cycles(&check["input"]));
    assert!(cycles(&check["draft"]) * 100 >= others * abandon);
    assert!(out.contains(" (partway); "), "{out}");
    assert!(out.contains("result    the order as read,"), "{out}");
    // The order returned is the input's with the default's runs.
    reorder(
        &["--method", "identity", "--length-runs", "auto"],
        "input.perm",
    );
    // The files' comments name the method; the permutations are the lines after them.
    let read = |f: &str| {
        let text = std::fs::read_to_string(dir.path().join(f)).unwrap();
        text.lines()
            .filter(|l| !l.starts_with('%'))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert!(
        read("tsp.perm") == read("input.perm"),
        "not the input's order with runs"
    );
}

#[test]
fn misses_that_rise_with_the_passes_after_the_order_are_said_to_come_with_them() {
    let dir = temp_dir();
    let input = matrix("bcsstk28.mtx.gz");
    let locality = |extra: &[&str]| {
        let mut args = vec![input.to_str().unwrap()];
        args.extend_from_slice(extra);
        let (ok, stdout, err) = run(&args, dir.path());
        assert!(ok, "{err}");
        let line = stdout
            .lines()
            .find(|l| l.contains("locality"))
            .map(str::to_owned);
        line.unwrap_or_else(|| panic!("no locality line in {stdout}"))
    };
    // The default keeps this file's order, sorts all its rows by length and spreads them for
    // even row splits: more x misses than the input, each pass named.
    let both = locality(&[]);
    let said = "(with the length runs and the even row splits, which trade x misses for \
                predictable row ends and even work per thread)";
    assert!(both.contains(said), "{both}");
    let splits = locality(&["--length-runs", "0"]);
    let said = "(with the even row splits, which trade x misses for even work per thread)";
    assert!(splits.contains(said), "{splits}");
    // Neither pass: the input's order misses as often as the input, and nothing is said.
    let neither = locality(&["--length-runs", "0", "--row-split-threads", "0"]);
    assert!(!neither.contains("(with"), "{neither}");
}

#[test]
fn a_quiet_run_writes_what_a_loud_one_writes_and_its_report_keeps_the_misses() {
    let dir = temp_dir();
    let input = matrix("bcsstk05.mtx.gz");
    let main_job = |name: &str, extra: &[&str]| {
        let (out, perm) = (format!("{name}.mtx"), format!("{name}.perm"));
        let mut args = vec![input.to_str().unwrap(), "-o", &out, "--perm-out", &perm];
        args.extend_from_slice(extra);
        let (ok, stdout, err) = run(&args, dir.path());
        assert!(ok, "{err}");
        let read = |f: &str| std::fs::read(dir.path().join(f)).unwrap();
        (stdout, read(&out), read(&perm))
    };
    // A quiet run without a report skips the modelled misses, which nothing would show.
    let (quiet_stdout, quiet_out, quiet_perm) = main_job("quiet", &["--quiet"]);
    let (loud_stdout, loud_out, loud_perm) = main_job("loud", &[]);
    assert!(quiet_stdout.is_empty(), "{quiet_stdout}");
    assert!(
        loud_stdout.contains("x misses per 1000 nonzeros"),
        "{loud_stdout}"
    );
    assert!(quiet_out == loud_out && quiet_perm == loud_perm);
    // A report asked for has them, quiet or not.
    main_job("reported", &["--quiet", "--report", "r.json"]);
    let report = json(&std::fs::read_to_string(dir.path().join("r.json")).unwrap());
    for key in ["x_misses_before", "x_misses_after"] {
        assert!(
            report[key]["l1_misses"].as_u64().unwrap() > 0,
            "{key}: {report}"
        );
    }
}

#[test]
fn an_order_kept_on_a_tie_is_not_said_to_be_priced_below() {
    // bcsstk04 as read and in RCM's order cost the cache model the same: the lower D is kept.
    let dir = temp_dir();
    let input = matrix("bcsstk04.mtx.gz");
    let (ok, stdout, err) = run(&[input.to_str().unwrap()], dir.path());
    assert!(ok, "{err}");
    assert!(
        stdout.contains("within 5%, the lower D wins")
            && stdout.contains("priced within 5% of RCM's order, with the lower D")
            && !stdout.contains("priced below"),
        "{stdout}"
    );
}

#[test]
fn options_of_another_method_are_said_to_change_nothing() {
    let dir = temp_dir();
    let input = matrix("bcsstk05.mtx.gz");
    let input = input.to_str().unwrap();
    let (ok, _, err) = run(
        &[
            input,
            "--method",
            "rcm",
            "--kicks",
            "3",
            "--neighbours",
            "5",
            "-q",
        ],
        dir.path(),
    );
    assert!(ok, "{err}");
    assert!(
        err.contains("warning: --kicks, --neighbours change nothing with --method rcm"),
        "{err}"
    );
    let (ok, _, err) = run(&[input, "--part-rows", "100", "-q"], dir.path());
    assert!(
        ok && err.contains("--part-rows changes nothing with --method auto"),
        "{err}"
    );
    for used in [
        vec![input, "--method", "tsp", "--kicks", "1", "-q"],
        vec![input, "--method", "gp", "--part-rows", "50", "-q"],
    ] {
        let (ok, _, err) = run(&used, dir.path());
        assert!(ok && !err.contains("warning"), "{used:?}: {err}");
    }
}

#[test]
fn the_path_over_cache_windows_names_its_start_the_parts() {
    let dir = temp_dir();
    let input = matrix("wing.mtx.gz");
    let args = [
        input.to_str().unwrap(),
        "--method",
        "tsp",
        "--window",
        "cache:64K",
    ];
    let (ok, stdout, err) = run(&args, dir.path());
    assert!(ok, "{err}");
    let why = stdout.lines().find(|l| l.starts_with("  why")).unwrap();
    assert!(
        why.contains(", the parts ") && !why.contains("RCM"),
        "{why}"
    );
}

#[test]
fn command_lines_found_wrong_after_parsing_exit_with_2() {
    use crate::common::assert_usage_error;
    let dir = temp_dir();
    assert_usage_error(&["-o", "x.mtx"], dir.path(), "no input matrix");
    let args = ["apply", "-", "--perm", "-", "-o", "x.mtx"];
    assert_usage_error(&args, dir.path(), "standard input (-) can feed only one");
    assert!(!dir.path().join("x.mtx").exists());
    // `sample` parses its sampler after clap, as the reordering's clap parser does.
    let input = matrix("bcsstk04.mtx.gz");
    for spec in ["dast-sim:bogus=1", "random:2"] {
        let args = [
            "sample",
            input.to_str().unwrap(),
            "--sampler",
            spec,
            "-o",
            "s.mtx",
        ];
        assert_usage_error(&args, dir.path(), "invalid value");
    }
    assert!(!dir.path().join("s.mtx").exists());
}

#[test]
fn the_summary_escapes_control_characters_in_file_names() {
    let dir = temp_dir();
    let name = "a\u{1b}[31mb.mtx.gz";
    std::fs::copy(matrix("bcsstk04.mtx.gz"), dir.path().join(name)).unwrap();
    let (ok, stdout, err) = run(&[name, "-o", "o\u{1b}.mtx"], dir.path());
    assert!(ok, "{err}");
    assert!(!stdout.contains('\u{1b}'), "{stdout:?}");
    assert!(
        stdout.starts_with("a\\u{1b}[31mb.mtx.gz: 132 x 132"),
        "{stdout}"
    );
    assert!(stdout.contains("wrote     o\\u{1b}.mtx"), "{stdout}");
}
