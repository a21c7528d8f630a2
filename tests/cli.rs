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
