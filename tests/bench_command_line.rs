//! The bench targets' shared command line (`benches/common/mod.rs`): each target documents how
//! it is run, values are checked, and a bad value, folder or size ends the process with one line
//! and exit status 2. The failing paths exit, so each runs in a child: this test binary again,
//! told by an environment variable which call to make.

#[path = "../benches/common/mod.rs"]
mod common;

use std::process::Command;

/// The environment variable that makes [`probe`] run one failing call in a child.
const PROBE: &str = "SPMV_REORDER_BENCH_PROBE";

/// Every bench target with its source.
const TARGETS: [(&str, &str); 8] = [
    ("locality", include_str!("../benches/locality.rs")),
    (
        "locality_large",
        include_str!("../benches/locality_large.rs"),
    ),
    ("mtx_io", include_str!("../benches/mtx_io.rs")),
    (
        "overlap_kernel",
        include_str!("../benches/overlap_kernel.rs"),
    ),
    ("reorder", include_str!("../benches/reorder.rs")),
    ("sampling", include_str!("../benches/sampling.rs")),
    ("spmv_kernels", include_str!("../benches/spmv_kernels.rs")),
    ("tsp", include_str!("../benches/tsp.rs")),
];

#[test]
fn every_target_documents_how_it_is_run() {
    for (name, source) in TARGETS {
        let usage = common::usage(source);
        assert!(
            usage.contains(&format!("cargo bench --bench {name}")),
            "{name}: {usage}"
        );
        assert!(!usage.contains("//!"), "{name}");
    }
}

#[test]
fn numbers_in_range_are_taken() {
    assert_eq!(common::number::<usize>("--reps", "3", 1), 3);
    assert_eq!(common::number::<f64>("--p", "0.5", 0.0), 0.5);
    assert_eq!(
        common::seconds("--time", "1.5"),
        std::time::Duration::from_millis(1500)
    );
}

#[test]
fn matrix_files_are_selected_by_name() {
    let dir = tempfile::tempdir().unwrap();
    for f in ["b.mtx.gz", "a.mtx", "notes.txt"] {
        std::fs::write(dir.path().join(f), "").unwrap();
    }
    let names = |only| -> Vec<String> {
        common::matrix_files(dir.path(), only)
            .iter()
            .map(|p| common::file_name(p))
            .collect()
    };
    assert_eq!(names(None), ["a.mtx", "b.mtx.gz"]);
    assert_eq!(names(Some("b")), ["b.mtx.gz"]);
}

/// In a child ([`PROBE`] set): the call named by the variable, which must exit.
#[test]
fn probe() {
    let Ok(call) = std::env::var(PROBE) else {
        return;
    };
    let dir = std::env::var("PROBE_DIR").unwrap_or_default();
    match call.as_str() {
        "reps 0" => drop(common::number::<usize>("--reps", "0", 1)),
        "reps abc" => drop(common::number::<usize>("--reps", "abc", 1)),
        "p nan" => drop(common::number::<f64>("--p", "NaN", 0.0)),
        "time 0" => drop(common::seconds("--time", "0")),
        "time huge" => drop(common::seconds("--time", "1e300")),
        "no folder" => drop(common::matrix_files(std::path::Path::new(&dir), None)),
        "none selected" => drop(common::matrix_files(
            std::path::Path::new(&dir),
            Some("zzz"),
        )),
        "memory" => common::check_memory(u128::from(u64::MAX) * 4, "--n 100000"),
        "unknown" => common::unknown("--frob"),
        "bad matrix" => drop(common::read_matrix(
            &std::path::Path::new(&dir).join("bad.mtx"),
        )),
        other => panic!("no probe {other}"),
    }
    panic!("the probe `{call}` did not exit");
}

#[test]
fn bad_values_folders_and_sizes_end_with_one_line_and_status_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.mtx"), "%%MatrixMarket matrix nonsense\n").unwrap();
    std::fs::write(dir.path().join("bad.mtx"), "not a matrix\n").unwrap();
    let missing = dir.path().join("missing");
    for (call, folder, said) in [
        ("reps 0", dir.path(), "--reps 0: must be at least 1"),
        ("reps abc", dir.path(), "--reps abc: invalid digit"),
        ("p nan", dir.path(), "--p NaN: must be at least 0"),
        ("time 0", dir.path(), "--time 0: must be above zero"),
        ("time huge", dir.path(), "--time 1e300: "),
        ("no folder", missing.as_path(), "No such file or directory"),
        (
            "none selected",
            dir.path(),
            "none of its 2 matrix files has `zzz` in its name",
        ),
        ("memory", dir.path(), "--n 100000 needs about"),
        ("unknown", dir.path(), "unexpected argument `--frob`"),
        ("bad matrix", dir.path(), "bad.mtx:1:"),
    ] {
        let out = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "bench_command_line::probe", "--nocapture"])
            .env(PROBE, call)
            .env("PROBE_DIR", folder)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{call}: {stderr}");
        assert!(stderr.contains(said), "{call}: {stderr}");
        assert!(!stderr.contains("panicked"), "{call}: {stderr}");
    }
}
