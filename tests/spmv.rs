//! Integration tests: the SpMV engine through the library facade and the `bench`, `topology` and
//! `stream` commands; multi-NUMA behaviour on the hwloc XML fixtures of `tests/data/topology/`.

use crate::common::{assert_usage_error, matrix, root, run, temp_dir};
use spmv_reorder_spmv::placement::Placement;
use spmv_reorder_spmv::{Kernel, Par, Pinning, SpmvError, SpmvPlan, ThreadTeam, Topology};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    root().join("tests/data/topology").join(name)
}

/// 2 packages x (1 NUMA node, 1 L3, 4 cores x 2 SMT PUs); siblings numbered i and i + 8.
fn two_numa() -> Topology {
    Topology::from_xml_file(&fixture("two-packages-two-numa.xml")).unwrap()
}

fn json(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

#[test]
fn xml_fixture_describes_two_packages_and_two_numa_nodes() {
    let t = two_numa();
    assert_eq!(
        (
            t.packages.len(),
            t.numa_nodes.len(),
            t.cores.len(),
            t.pus.len()
        ),
        (2, 2, 8, 16)
    );
    assert_eq!(t.numa_node_of_cpu(12), Some(1));
    assert_eq!(t.cache_size(3), Some(16_000_000));
    assert!(!t.is_this_system());
}

#[test]
fn pinning_on_the_two_numa_fixture() {
    let t = two_numa();
    let cpus = |p: Pinning, n| -> Vec<usize> {
        p.cpus_for(&t, n).unwrap().into_iter().flatten().collect()
    };
    // Scatter: packages alternate, then cores, SMT siblings last.
    assert_eq!(cpus(Pinning::Scatter, 4), vec![0, 4, 1, 5]);
    assert_eq!(
        cpus(Pinning::Scatter, 16)[8..],
        [8, 12, 9, 13, 10, 14, 11, 15]
    );
    // Compact: both PUs of a core, then the next core of the same package.
    assert_eq!(cpus(Pinning::Compact, 4), vec![0, 8, 1, 9]);
    // The thesis's explicit list, with dashes.
    assert_eq!(cpus("8-12-10-14".parse().unwrap(), 4), vec![8, 12, 10, 14]);
    let nodes: Vec<usize> = cpus(Pinning::Scatter, 2)
        .iter()
        .map(|&c| t.numa_node_of_cpu(c).unwrap())
        .collect();
    assert_eq!(nodes, vec![0, 1]);
    assert!(matches!(
        Pinning::Scatter.cpus_for(&t, 17),
        Err(SpmvError::TooManyThreads { available: 16, .. })
    ));
    assert!(matches!(
        "0-16".parse::<Pinning>().unwrap().cpus_for(&t, 2),
        Err(SpmvError::NoSuchCpu { cpu: 16, .. })
    ));
}

#[test]
fn placement_and_teams_on_a_described_machine_are_checked_not_faked() {
    let t = two_numa();
    assert_eq!(Placement::FirstTouch.check(&t), Ok(()));
    assert!(matches!(
        Placement::Node(2).check(&t),
        Err(SpmvError::NoSuchNumaNode { node: 2, .. })
    ));
    // Node 1 exists in the description but cannot be bound on this machine.
    assert_eq!(Placement::Node(1).check(&t), Err(SpmvError::NotThisSystem));
    assert_eq!(
        ThreadTeam::new(&t, 2, &Pinning::Scatter).unwrap_err(),
        SpmvError::NotThisSystem
    );
}

#[test]
fn kernels_on_a_bundled_matrix_match_the_reference() {
    let a = spmv_reorder_mtx::read_path(&matrix("bcsstk13.mtx.gz"), &Default::default())
        .unwrap()
        .matrix
        .to_real();
    let x: Vec<f64> = (0..a.ncols())
        .map(|j| ((j * 37) % 101) as f64 / 7.0)
        .collect();
    let mut want = vec![0.0; a.nrows()];
    a.mul_vec_reference(&x, &mut want);
    let topo = Topology::this_system().unwrap();
    let team = ThreadTeam::new(&topo, topo.pus.len(), &Pinning::Scatter).unwrap();
    for kernel in Kernel::ALL {
        let mut y = vec![0.0; a.nrows()];
        SpmvPlan::new(&a, kernel, team.threads()).mul_vec(&x, &mut y, Par::Team(&team));
        if kernel == Kernel::MergePath {
            assert!(y
                .iter()
                .zip(&want)
                .all(|(p, q)| (p - q).abs() <= 1e-9 * q.abs().max(1.0)));
        } else {
            assert_eq!(y, want, "{kernel}");
        }
    }
}

#[test]
fn topology_command_prints_text_json_and_xml_layouts() {
    let dir = temp_dir();
    let (ok, out, err) = run(&["topology", "--json"], dir.path());
    assert!(ok, "{err}");
    assert!(!json(&out)["pus"].as_array().unwrap().is_empty());
    let xml = fixture("two-packages-two-numa.xml");
    let (ok, out, err) = run(
        &[
            "topology",
            "--xml",
            xml.to_str().unwrap(),
            "--pin",
            "scatter",
            "--threads",
            "2",
        ],
        dir.path(),
    );
    assert!(ok, "{err}");
    assert!(
        out.contains("2 package(s), 2 NUMA node(s), 8 core(s), 16 PU(s)"),
        "{out}"
    );
    assert!(out.contains("thread 1 -> CPU 4 (NUMA node 1)"), "{out}");
    let (ok, _, err) = run(&["topology", "--xml", "/nonexistent.xml"], dir.path());
    assert!(!ok && err.contains("/nonexistent.xml"), "{err}");
    // The file's 16 PUs bound --threads, not this machine's CPUs.
    let xml = xml.to_str().unwrap();
    let scatter = |threads| {
        [
            "topology",
            "--xml",
            xml,
            "--pin",
            "scatter",
            "--threads",
            threads,
        ]
    };
    let (ok, out, err) = run(&scatter("16"), dir.path());
    assert!(
        ok && out.contains("thread 15 -> CPU 15 (NUMA node 1)"),
        "{err}"
    );
    assert_usage_error(&scatter("17"), dir.path(), "from 1 to 16 (the PUs of");
    assert_usage_error(
        &["topology", "--pin", "scatter", "--threads", "100000"],
        dir.path(),
        "(the CPUs this process may use)",
    );
}

#[test]
fn stream_command_reports_bandwidth_and_bindings() {
    let dir = temp_dir();
    let (ok, out, err) = run(
        &[
            "stream",
            "--json",
            "--array-mb",
            "4",
            "--reps",
            "2",
            "--threads",
            "1",
            "--pin",
            "compact",
        ],
        dir.path(),
    );
    assert!(ok, "{err}");
    let v = json(&out);
    assert!(v["stream"]["triad_gbytes_per_s"].as_f64().unwrap() > 0.0);
    assert_eq!(v["stream"]["write_allocate_counted"], false);
    assert_eq!(
        v["bindings"][0]["requested_cpu"],
        v["bindings"][0]["observed_cpu"]
    );
}

const QUICK: [&str; 8] = [
    "--reps",
    "2",
    "--warmup",
    "1",
    "--stream-mb",
    "2",
    "--stream-reps",
    "2",
];

#[test]
fn bench_command_json_has_the_documented_keys() {
    let dir = temp_dir();
    let m = matrix("bcsstk04.mtx.gz");
    let mut args = vec![
        "bench",
        m.to_str().unwrap(),
        "--json",
        "--threads",
        "1",
        "--pin",
        "compact",
    ];
    args.extend(QUICK);
    let (ok, out, err) = run(&args, dir.path());
    assert!(ok, "{err}");
    let v = json(&out);
    for key in ["median_s", "gflops", "gbytes_per_s", "triad_gbytes_per_s"] {
        assert!(v[key].is_number(), "{key} in {out}");
    }
    assert_eq!(v["kernels"].as_array().unwrap().len(), Kernel::ALL.len());
    assert!(v["kernels"][0]["roofline"]["operational_intensity"].is_number());
}

#[test]
fn bench_command_compares_before_and_after_a_permutation() {
    let dir = temp_dir();
    let m = matrix("bcsstk04.mtx.gz");
    let perm = dir.path().join("reverse.perm");
    std::fs::write(
        &perm,
        (1..=132)
            .rev()
            .map(|i| format!("{i}\n"))
            .collect::<String>(),
    )
    .unwrap();
    let mut args = vec![
        "bench",
        m.to_str().unwrap(),
        "--perm",
        perm.to_str().unwrap(),
        "--kernel",
        "nnz-balanced",
    ];
    args.extend(["--reorder-seconds", "0.01", "--threads", "1"]);
    args.extend(QUICK);
    let (ok, out, err) = run(&args, dir.path());
    assert!(ok, "{err}");
    assert!(out.contains("speedup (best kernel before"), "{out}");
    args.push("--json");
    let (ok, out, err) = run(&args, dir.path());
    assert!(ok, "{err}");
    let v = json(&out);
    assert!(v["speedup"].is_number());
    assert!(v["reorder_cost_in_spmvs"].is_number());
    assert_eq!(v["after"]["matrix"]["nnz"], v["before"]["matrix"]["nnz"]);
}

#[test]
fn bad_bench_input_is_a_clear_error_never_a_panic() {
    let dir = temp_dir();
    let m = matrix("bcsstk04.mtx.gz");
    let m = m.to_str().unwrap();
    let short = dir.path().join("short.perm");
    std::fs::write(&short, "1\n2\n3\n").unwrap();
    let repeated = dir.path().join("repeated.perm");
    std::fs::write(&repeated, "1\n1\n").unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--threads", "0"], "from 1 to"),
        (vec!["--threads", "4096"], "from 1 to"),
        (
            vec!["--pin", "0-4095", "--threads", "2"],
            "CPU 4095 does not exist",
        ),
        (vec!["--pin", "sideways"], "invalid pinning"),
        (vec!["--place", "node:42"], "NUMA node 42 does not exist"),
        (vec!["--place", "upside-down"], "invalid placement"),
        (vec!["--kernel", "fastest"], "merge-path, dynamic or all"),
        (vec!["--reps", "0"], "reps"),
        (
            vec!["--perm", short.to_str().unwrap()],
            "short.perm:4: expected 132 indices, found 3",
        ),
        (vec!["--perm", repeated.to_str().unwrap()], "repeated.perm"),
        (
            vec![
                "--after",
                matrix("bcsstk05.mtx.gz")
                    .to_str()
                    .unwrap()
                    .to_owned()
                    .leak(),
            ],
            "bcsstk05.mtx.gz after: rows of the reordered matrix: expected 132",
        ),
    ];
    for (extra, needle) in cases {
        let mut args = vec!["bench", m];
        args.extend(extra.iter().copied());
        args.extend(QUICK);
        let (ok, _, err) = run(&args, dir.path());
        assert!(!ok, "{extra:?} should fail");
        assert!(!err.contains("panicked"), "{extra:?} panicked: {err}");
        assert!(
            err.contains(needle),
            "{extra:?}: expected {needle:?} in {err}"
        );
    }
}

#[test]
fn bad_bench_options_are_a_bad_command_line() {
    let dir = temp_dir();
    let m = matrix("bcsstk04.mtx.gz");
    let m = m.to_str().unwrap();
    for (extra, needle) in [
        (["--kernel", "foo"], "merge-path, dynamic or all"),
        (["--pin", ""], "invalid pinning"),
        (["--place", "node:-1"], "invalid placement"),
        (["--perm-base", "2"], "expected 0 or 1"),
    ] {
        assert_usage_error(&[&["bench", m][..], &extra].concat(), dir.path(), needle);
    }
    assert_usage_error(&["stream", "--pin", "x"], dir.path(), "invalid pinning");
}

#[test]
fn bench_reads_a_zero_based_permutation_with_perm_base_0() {
    let dir = temp_dir();
    let m = matrix("bcsstk04.mtx.gz");
    let m = m.to_str().unwrap();
    let (ok, _, err) = run(
        &[
            m,
            "--method",
            "rcm",
            "--perm-out",
            "p0.txt",
            "--perm-base",
            "0",
            "-q",
        ],
        dir.path(),
    );
    assert!(ok, "{err}");
    let mut args = vec!["bench", m, "--perm", "p0.txt", "--threads", "1"];
    args.extend(QUICK);
    let (ok, _, err) = run(&args, dir.path());
    assert!(
        !ok && err.contains("permutation index 0 is outside 1..=132")
            && err.contains("a 0-based file needs --perm-base 0"),
        "{err}"
    );
    args.extend(["--perm-base", "0", "--json"]);
    let (ok, out, err) = run(&args, dir.path());
    assert!(ok, "{err}");
    let v = json(&out);
    assert_eq!(v["after"]["matrix"]["nnz"], v["before"]["matrix"]["nnz"]);
    assert_usage_error(
        &["bench", m, "--perm-base", "0"],
        dir.path(),
        "--perm <PERM>",
    );
}
