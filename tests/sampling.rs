//! Integration tests: sampling (`spmv-reorder sample`, `spmv-reorder trace-kernel`).
//!
//! Precision is checked from the outside: every entry of the written sample must be a nonzero of
//! the input matrix, and the JSON statistics must report no rejected candidate.

use crate::common::{binary, matrix, root, run, temp_dir};
use spmv_reorder_sparse::CsrMatrix;
use std::path::Path;

fn read(path: &Path) -> CsrMatrix<()> {
    spmv_reorder_mtx::read_path(path, &Default::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .matrix
        .pattern()
}

/// Runs `sample` with `--json`, checks the output is a precise sample of `name`, returns the
/// statistics.
fn sample_json(name: &str, sampler: &str, extra: &[&str], dir: &Path) -> serde_json::Value {
    let input = matrix(name);
    let out = dir.join("sampled.mtx");
    let mut args = vec![
        "sample",
        input.to_str().unwrap(),
        "--sampler",
        sampler,
        "-o",
        out.to_str().unwrap(),
        "--json",
    ];
    args.extend_from_slice(extra);
    let (ok, stdout, stderr) = run(&args, dir);
    assert!(ok, "{sampler}: {stderr}");
    let stats: serde_json::Value = serde_json::from_str(&stdout).expect("JSON statistics");
    let a = read(&input);
    let s = read(&out);
    assert_eq!((s.nrows(), s.ncols()), (a.nrows(), a.ncols()));
    for i in 0..s.nrows() {
        for c in s.row(i).0 {
            assert!(
                a.row(i).0.binary_search(c).is_ok(),
                "({i}, {c}) is not a nonzero"
            );
        }
    }
    assert_eq!(stats["sampled_nnz"], s.nnz());
    assert_eq!(stats["rejected"], 0, "{sampler}: {stats}");
    for key in ["sampled_fraction", "rows_without_sample", "mean_per_row"] {
        assert!(stats.get(key).is_some(), "missing {key}");
    }
    stats
}

#[test]
fn random_sampling_writes_a_seeded_subset() {
    let dir = temp_dir();
    let s = sample_json("bcsstk13.mtx.gz", "random:2%", &["--seed", "5"], dir.path());
    let f = s["sampled_fraction"].as_f64().unwrap();
    assert!((0.01..0.03).contains(&f), "{f}");
    let again = sample_json(
        "bcsstk13.mtx.gz",
        "random:0.02",
        &["--seed", "5"],
        dir.path(),
    );
    assert_eq!(s, again);
}

#[test]
fn simulated_dast_is_precise_on_1_2_and_8_threads() {
    let dir = temp_dir();
    for name in ["bcsstk13.mtx.gz", "west2021.mtx.gz", "memplus.mtx.gz"] {
        for threads in ["1", "2", "8"] {
            for kernel in ["per-nonzero", "per-row"] {
                let spec = format!("dast-sim:period=4,kernel={kernel}");
                let s = sample_json(name, &spec, &["--threads", threads], dir.path());
                assert!(
                    s["sampled_nnz"].as_u64().unwrap() > 0,
                    "{name} {threads} {kernel}"
                );
            }
        }
    }
    // Every access sampled: the whole matrix, for both rules and any thread count.
    let s = sample_json(
        "west0381.mtx.gz",
        "dast-sim:period=1,threads=8,kernel=per-row",
        &[],
        dir.path(),
    );
    assert_eq!(s["sampled_fraction"], 1.0);
}

#[test]
fn perf_script_trace_is_imported_per_iteration() {
    let dir = temp_dir();
    let traces = root().join("tests/data/traces");
    let spec = |extra: &str| {
        format!(
            "trace:perf-script={},layout={}{extra}",
            traces.join("west0381.perf.txt").display(),
            traces.join("west0381.layout.json").display()
        )
    };
    let warm = sample_json("west0381.mtx.gz", &spec(""), &[], dir.path());
    let all = sample_json("west0381.mtx.gz", &spec(",iteration=all"), &[], dir.path());
    let cold = sample_json("west0381.mtx.gz", &spec(",iteration=0"), &[], dir.path());
    assert!(warm["sampled_nnz"].as_u64().unwrap() > 100, "{warm}");
    assert_eq!(
        all["records"].as_u64().unwrap(),
        warm["records"].as_u64().unwrap() + cold["records"].as_u64().unwrap()
    );
    // A layout of another matrix is refused.
    let (ok, _, stderr) = run(
        &[
            "sample",
            matrix("bcsstk04.mtx.gz").to_str().unwrap(),
            "--sampler",
            &spec(""),
            "-o",
            "x.mtx",
        ],
        dir.path(),
    );
    assert!(
        !ok && stderr.contains("layout was recorded for a matrix"),
        "{stderr}"
    );
}

#[test]
fn lackey_trace_of_the_real_kernel_gives_a_precise_sample() {
    if std::process::Command::new("valgrind")
        .arg("--version")
        .output()
        .is_err()
    {
        println!("skipped: valgrind is not installed");
        return;
    }
    let dir = temp_dir();
    let input = matrix("west0381.mtx.gz");
    for kernel in ["per-nonzero", "per-row"] {
        let trace = dir.path().join(format!("{kernel}.lackey.txt"));
        let layout = dir.path().join(format!("{kernel}.layout.json"));
        let status = std::process::Command::new("valgrind")
            .args(["--tool=lackey", "--trace-mem=yes"])
            .arg(format!("--log-file={}", trace.display()))
            .arg("--")
            .arg(env!("CARGO_BIN_EXE_spmv-reorder"))
            .args([
                "trace-kernel",
                input.to_str().unwrap(),
                "--kernel",
                kernel,
                "--emit-layout",
            ])
            .arg(&layout)
            .output()
            .expect("run valgrind");
        assert!(
            status.status.success(),
            "{}",
            String::from_utf8_lossy(&status.stderr)
        );
        let spec = format!(
            "trace:lackey={},layout={}",
            trace.display(),
            layout.display()
        );
        let s = sample_json("west0381.mtx.gz", &spec, &[], dir.path());
        // A full trace of one iteration locates every nonzero, for both rules.
        assert_eq!(s["sampled_fraction"], 1.0, "{kernel}: {s}");
        assert_eq!(s["unbounded"], 0, "{kernel}: {s}");
        // Subsampled through the cache model: still precise, now partial and with latencies.
        // Kernel B needs the stores of two consecutive rows sampled (one y event per row), so
        // it gets a shorter period.
        let period = if kernel == "per-row" { 2 } else { 7 };
        let sub = format!("{spec},cache=on,period={period}");
        let sub = sample_json("west0381.mtx.gz", &sub, &[], dir.path());
        let f = sub["sampled_fraction"].as_f64().unwrap();
        assert!(f > 0.0 && f < 1.0, "{kernel}: {sub}");
    }
}

#[test]
fn trace_kernel_writes_a_layout_of_the_run() {
    let dir = temp_dir();
    let layout = dir.path().join("l.json");
    let (ok, stdout, stderr) = run(
        &[
            "trace-kernel",
            matrix("bcsstk04.mtx.gz").to_str().unwrap(),
            "--emit-layout",
            layout.to_str().unwrap(),
            "--iterations",
            "3",
            "--threads",
            "2",
            "--kernel",
            "per-row",
        ],
        dir.path(),
    );
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("3 iteration(s) of the per-row kernel"),
        "{stdout}"
    );
    let l = spmv_reorder_sampling::Layout::read(&layout).unwrap();
    assert_eq!(
        (l.iterations, l.partition.len(), l.iteration_times_ns.len()),
        (3, 3, 3)
    );
    assert_eq!(l.kernel, spmv_reorder_sampling::TracedKernel::PerRow);
}

#[test]
fn live_sampling_works_or_names_the_alternatives() {
    let dir = temp_dir();
    let out = dir.path().join("s.mtx");
    let output = binary()
        .args([
            "sample",
            matrix("bcsstk04.mtx.gz").to_str().unwrap(),
            "--sampler",
            "dast-perf",
            "-o",
        ])
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        // No PEBS/IBS here (the usual case on virtual machines).
        assert!(
            stderr.contains("dast-sim") && stderr.contains("lackey"),
            "{stderr}"
        );
        assert!(!out.exists());
    }
}

#[test]
fn lackey_refuses_a_multithreaded_run() {
    let dir = temp_dir();
    let traces = root().join("tests/data/traces");
    let spec = format!(
        "trace:lackey={},layout={}",
        traces.join("west0381.perf.txt").display(),
        traces.join("west0381.layout.json").display() // a 2-thread run
    );
    let input = matrix("west0381.mtx.gz");
    let (ok, _, stderr) = run(
        &[
            "sample",
            input.to_str().unwrap(),
            "--sampler",
            &spec,
            "-o",
            "o.mtx",
        ],
        dir.path(),
    );
    assert!(!ok && stderr.contains("single-threaded run"), "{stderr}");
}

#[test]
fn bad_sampler_specifications_are_reported() {
    let dir = temp_dir();
    let input = matrix("bcsstk04.mtx.gz");
    for (spec, expected) in [
        ("random:1.5", "expected a probability"),
        ("dast-sim:period=0", "positive integer"),
        ("dast-sim:colour=red", "unknown option 'colour'"),
        ("sorted", "unknown sampler 'sorted'"),
        (
            "trace:lackey=missing.txt,layout=missing.json",
            "missing.json",
        ),
    ] {
        let (ok, _, stderr) = run(
            &[
                "sample",
                input.to_str().unwrap(),
                "--sampler",
                spec,
                "-o",
                "o.mtx",
            ],
            dir.path(),
        );
        assert!(!ok, "{spec}");
        assert!(stderr.contains(expected), "{spec}: {stderr}");
    }
}
