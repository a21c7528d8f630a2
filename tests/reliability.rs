//! Integration tests: what the tool never does to a user's files, and how it fails on bad input
//! and bad options (no panic, no abort, no hang, no unbounded memory; a message naming the file).

use crate::common::{assert_clean_failure, binary, matrix, run, run_capped, temp_dir};
use std::path::Path;
use std::process::{Command, Stdio};

/// Writes the small bundled matrix `bcsstk04` into `dir` as `name` (plain text).
fn small_matrix(dir: &Path, name: &str) {
    let m = spmv_reorder::mtx::read_path(&matrix("bcsstk04.mtx.gz"), &Default::default()).unwrap();
    spmv_reorder::mtx::write_path(&dir.join(name), &m, &Default::default()).unwrap();
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Runs the binary in `dir` and checks that it refused the command line with `needle` in its
/// message, without a panic, leaving the folder exactly as it was.
fn assert_refused(dir: &Path, args: &[&str], needle: &str) {
    let before = contents(dir);
    let (ok, _, err) = run(args, dir);
    assert!(!ok, "{args:?} should fail");
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(before == contents(dir), "{args:?} changed the folder");
}

/// The names in `dir` with the bytes of the regular files (a FIFO is not read: that would wait
/// for a writer).
fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    names(dir)
        .into_iter()
        .map(|n| {
            let path = dir.join(&n);
            let is_file = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file());
            let bytes = if is_file {
                std::fs::read(path).unwrap()
            } else {
                Vec::new()
            };
            (n, bytes)
        })
        .collect()
}

const INPUT: &str = "refusing to overwrite an input";
const OTHER_OUTPUT: &str = "its own file";

#[test]
fn no_subcommand_writes_over_an_input_however_it_is_spelt() {
    let dir = temp_dir();
    let d = dir.path();
    small_matrix(d, "in.mtx");
    std::fs::create_dir(d.join("m")).unwrap();
    small_matrix(&d.join("m"), "a.mtx");
    small_matrix(&d.join("m"), "b.mtx");
    std::fs::hard_link(d.join("in.mtx"), d.join("hard.mtx")).unwrap();
    std::os::unix::fs::symlink("in.mtx", d.join("soft.mtx")).unwrap();
    let trace = crate::common::root().join("tests/data/traces");
    let layout = trace.join("west0381.layout.json");
    let sampler = format!(
        "trace:perf-script={},layout={}",
        trace.join("west0381.perf.txt").display(),
        layout.display()
    );
    let layout = layout.to_str().unwrap();
    // A report on standard output appended to the file it describes.
    for args in [
        vec!["info", "in.mtx"],
        vec!["bench", "in.mtx", "--reps", "1", "--stream-mb", "0"],
    ] {
        let before = std::fs::read(d.join("in.mtx")).unwrap();
        let append = std::fs::OpenOptions::new()
            .append(true)
            .open(d.join("in.mtx"))
            .unwrap();
        let out = binary()
            .args(&args)
            .current_dir(d)
            .stdout(append)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(INPUT),
            "{args:?}: {err}"
        );
        assert!(
            before == std::fs::read(d.join("in.mtx")).unwrap(),
            "{args:?}"
        );
    }
    for (args, needle) in [
        (vec!["in.mtx", "-o", "./in.mtx"], INPUT),
        (vec!["in.mtx", "-o", "hard.mtx"], INPUT),
        (vec!["in.mtx", "-o", "soft.mtx"], INPUT),
        (vec!["in.mtx", "-o", "o.mtx", "--report", "in.mtx"], INPUT),
        (vec!["in.mtx", "--perm-out", "in.mtx"], INPUT),
        (
            vec!["in.mtx", "-o", "o.mtx", "--perm-out", "soft.mtx"],
            INPUT,
        ),
        (
            vec!["in.mtx", "-o", "o.mtx", "--spy", "in.mtx,a.png"],
            INPUT,
        ),
        (
            vec!["in.mtx", "-o", "o.mtx", "--spy", "b.png,m/../in.mtx"],
            INPUT,
        ),
        (
            vec!["in.mtx", "--sampler", &sampler, "--report", layout],
            INPUT,
        ),
        (
            vec![
                "sample",
                "in.mtx",
                "--sampler",
                "random:0.5",
                "-o",
                "in.mtx",
            ],
            INPUT,
        ),
        (
            vec!["sample", "in.mtx", "--sampler", &sampler, "-o", layout],
            INPUT,
        ),
        (
            vec!["trace-kernel", "in.mtx", "--emit-layout", "in.mtx"],
            INPUT,
        ),
        (vec!["evaluate", "m", "--markdown", "m/a.mtx"], INPUT),
        (vec!["evaluate", "m", "--chart", "./m/b.mtx"], INPUT),
    ] {
        assert_refused(d, &args, needle);
    }
}

#[test]
fn no_output_is_another_output_of_the_same_run() {
    let dir = temp_dir();
    let d = dir.path();
    small_matrix(d, "in.mtx");
    std::fs::create_dir(d.join("m")).unwrap();
    small_matrix(&d.join("m"), "a.mtx");
    for args in [
        vec!["in.mtx", "-o", "out.mtx", "--perm-out", "out.mtx"],
        vec!["in.mtx", "-o", "out.mtx", "--report", "./out.mtx"],
        vec!["in.mtx", "--perm-out", "p.txt", "--report", "m/../p.txt"],
        vec!["in.mtx", "-o", "out.mtx", "--spy", "a.png,a.png"],
        vec!["in.mtx", "-o", "-", "--perm-out", "-"],
        vec!["evaluate", "m", "--markdown", "r.md", "--chart", "r.md"],
    ] {
        assert_refused(d, &args, OTHER_OUTPUT);
    }
    // Standard output redirected to a file counts as that file.
    let out = std::fs::File::create(d.join("out.mtx")).unwrap();
    let status = binary()
        .args(["in.mtx", "-o", "out.mtx"])
        .current_dir(d)
        .stdout(out)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(!status.success());
    // A run that cannot write its last output writes none: no matrix without its permutation.
    // (`/proc` takes no new file, even from root.)
    assert_refused(
        d,
        &[
            "in.mtx",
            "-o",
            "out.mtx",
            "--perm-out",
            "p.txt",
            "--report",
            "/proc/report.json",
        ],
        "/proc/report.json",
    );
    // An independent column order goes to `--perm-out` + `.cols`: refused when that is `-o`.
    assert_refused(
        d,
        &[
            "in.mtx",
            "--permute",
            "both",
            "--perm-out",
            "p",
            "-o",
            "p.cols",
        ],
        OTHER_OUTPUT,
    );
}

#[test]
fn devices_fifos_and_links_are_written_through_and_directories_refused() {
    let dir = temp_dir();
    let d = dir.path();
    small_matrix(d, "in.mtx");
    std::os::unix::fs::symlink("/dev/null", d.join("null")).unwrap();
    std::os::unix::fs::symlink("target.mtx", d.join("link.mtx")).unwrap();
    std::fs::create_dir(d.join("folder")).unwrap();
    // A device (through a link) takes every output, several at once, and stays a device.
    let (ok, _, err) = run(
        &[
            "in.mtx",
            "-o",
            "null",
            "--perm-out",
            "null",
            "--report",
            "null",
            "-q",
        ],
        d,
    );
    assert!(ok, "{err}");
    assert!(std::fs::symlink_metadata(d.join("null"))
        .unwrap()
        .file_type()
        .is_symlink());
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
    // A link to a file: the file gets the output, the link stays a link.
    let (ok, _, err) = run(&["in.mtx", "-o", "link.mtx", "-q"], d);
    assert!(ok, "{err}");
    assert!(std::fs::symlink_metadata(d.join("link.mtx"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(d.join("target.mtx"))
        .unwrap()
        .starts_with("%%MatrixMarket"));
    // A FIFO is written in place: its reader gets the whole matrix.
    let fifo = d.join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let reader = std::thread::spawn({
        let fifo = fifo.clone();
        move || std::fs::read(fifo).unwrap()
    });
    let (ok, _, err) = run(&["in.mtx", "-o", "fifo", "-q"], d);
    assert!(ok, "{err}");
    let text = reader.join().unwrap();
    assert_eq!(
        text,
        std::fs::read(d.join("target.mtx")).unwrap(),
        "the FIFO's reader got the matrix"
    );
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert_refused(
        d,
        &["in.mtx", "-o", "folder"],
        "cannot write to a directory",
    );
    assert_refused(
        d,
        &[
            "gen",
            "poisson2d",
            "--nx",
            "3",
            "-o",
            "no-such-folder/x.mtx",
        ],
        "no-such-folder/x.mtx",
    );
}

#[test]
fn a_signal_during_a_write_leaves_the_target_as_it_was_and_no_temporary_file() {
    let dir = temp_dir();
    let d = dir.path();
    std::fs::write(d.join("big.mtx.gz"), "the old contents").unwrap();
    for (signal, status, said) in [("TERM", 143, "terminated"), ("INT", 130, "interrupted")] {
        // Compressing ~70 MB of text takes seconds: long enough to interrupt.
        let mut child = binary()
            .args(["gen", "poisson3d", "--nx", "80", "-o", "big.mtx.gz"])
            .current_dir(d)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while !names(d).iter().any(|n| n.ends_with(".spmv-reorder.tmp")) {
            assert!(std::time::Instant::now() < deadline, "no temporary file");
            assert!(child.try_wait().unwrap().is_none(), "finished too soon");
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let killed = Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(status), "{signal}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(said));
        assert_eq!(names(d), ["big.mtx.gz"], "{signal}");
        assert_eq!(
            std::fs::read_to_string(d.join("big.mtx.gz")).unwrap(),
            "the old contents"
        );
    }
}

/// Runs the binary with its standard output on a pipe whose reader is already gone.
fn run_into_closed_pipe(args: &[&str], dir: &Path) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = binary()
        .args(args)
        .current_dir(dir)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_subcommand_that_prints_exits_quietly_on_a_closed_pipe() {
    let dir = temp_dir();
    let d = dir.path();
    small_matrix(d, "in.mtx");
    std::fs::create_dir(d.join("m")).unwrap();
    small_matrix(&d.join("m"), "a.mtx");
    let bench = vec![
        "bench",
        "in.mtx",
        "--reps",
        "1",
        "--warmup",
        "0",
        "--stream-mb",
        "0",
        "--threads",
        "1",
    ];
    for args in [
        vec!["--help"],
        vec!["in.mtx", "--time-limit", "1"],
        vec!["in.mtx", "-o", "-", "-q", "--time-limit", "1"],
        vec!["info", "in.mtx"],
        vec!["gen", "poisson2d", "--nx", "30"],
        vec!["sample", "in.mtx", "--sampler", "random:0.5", "-o", "s.mtx"],
        vec!["sample", "in.mtx", "--sampler", "random:0.5", "-o", "-"],
        vec!["trace-kernel", "in.mtx", "--emit-layout", "l.json"],
        bench.clone(),
        [&bench[..], &["--json"][..]].concat(),
        vec!["stream", "--array-mb", "1", "--reps", "1", "--threads", "1"],
        vec!["topology"],
        // JSON is written through its own writer, which wraps the pipe's error.
        vec!["topology", "--json"],
        vec!["info", "in.mtx", "--json"],
        vec![
            "evaluate",
            "m",
            "--ordering",
            "rcm",
            "--threads",
            "1",
            "--reps",
            "1",
            "--time-limit",
            "1",
        ],
    ] {
        let (code, err) = run_into_closed_pipe(&args, d);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert!(
            !err.contains("panicked") && !err.contains("error"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn tiny_files_declaring_huge_sizes_cost_their_entries_or_fail_cleanly_under_a_cap() {
    let dir = temp_dir();
    let d = dir.path();
    let header = "%%MatrixMarket matrix coordinate real general\n";
    for (name, size, last) in [
        ("rows26.mtx", "67108864 67108864 3", "67108864 3 1.0"),
        ("rows29.mtx", "536870912 536870912 3", "536870912 3 1.0"),
        ("cols31.mtx", "3 2147483648 3", "3 2147483648 1.0"),
    ] {
        let text = format!("{header}{size}\n1 1 1.0\n2 5 2.0\n{last}\n");
        std::fs::write(d.join(name), text).unwrap();
        // info builds only the occupied rows and columns: three entries cost three entries.
        let (code, err) = run_capped(&["info", name], d, 256, Stdio::null());
        assert_eq!(code, Some(0), "info {name}: {err}");
        let job = ["info", name, "--window", "8"];
        let result = run_capped(&job, d, 2048, Stdio::null());
        let needle = if result.1.contains("cannot allocate") {
            "cannot allocate"
        } else {
            "more than this process can allocate"
        };
        assert_clean_failure(result, needle, &format!("{job:?}"));
        // Jobs on the whole matrix refuse it at the size line, before any memory is taken.
        let at_size_line = format!("{name}:2: the size line declares a matrix whose job needs");
        for job in [
            vec![name, "-o", "out.mtx"],
            vec!["sample", name, "--sampler", "random:0.5", "-o", "s.mtx"],
            vec!["apply", name, "--perm", "/dev/null", "-o", "a.mtx"],
            vec!["trace-kernel", name, "--emit-layout", "l.json"],
        ] {
            let result = run_capped(&job, d, 2048, Stdio::null());
            assert_clean_failure(result, &at_size_line, &format!("{job:?}"));
        }
    }
    for out in ["out.mtx", "s.mtx", "a.mtx", "l.json"] {
        assert!(!d.join(out).exists(), "{out}");
    }
}

#[test]
fn endless_lines_comments_and_gzip_bombs_fail_cleanly_under_a_memory_cap() {
    let dir = temp_dir();
    let d = dir.path();
    assert_clean_failure(
        run_capped(&["info", "/dev/zero"], d, 1024, Stdio::null()),
        "/dev/zero:1: the line is longer than",
        "/dev/zero",
    );
    // An endless stream of comment lines on stdin.
    let (reader, mut writer) = std::io::pipe().unwrap();
    let feeder = std::thread::spawn(move || {
        use std::io::Write;
        let _ = writer.write_all(b"%%MatrixMarket matrix coordinate real general\n");
        let block = b"% a comment that never ends\n".repeat(4096);
        while writer.write_all(&block).is_ok() {}
    });
    assert_clean_failure(
        run_capped(&["info", "-"], d, 1024, Stdio::from(reader)),
        "the header before the size line is longer than",
        "endless comments",
    );
    feeder.join().unwrap();
    // 200 MB of comments gzipped into a few hundred kilobytes.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    {
        use std::io::Write;
        gz.write_all(b"%%MatrixMarket matrix coordinate real general\n")
            .unwrap();
        let block = b"% padding padding padding padding padding padding\n".repeat(1 << 12);
        for _ in 0..1000 {
            gz.write_all(&block).unwrap();
        }
        gz.write_all(b"1 1 1\n1 1 1.0\n").unwrap();
    }
    std::fs::write(d.join("bomb.mtx.gz"), gz.finish().unwrap()).unwrap();
    assert_clean_failure(
        run_capped(&["info", "bomb.mtx.gz"], d, 1024, Stdio::null()),
        "bomb.mtx.gz:",
        "gzip bomb",
    );
}

#[test]
fn options_asking_for_too_much_memory_or_threads_are_refused() {
    let dir = temp_dir();
    let d = dir.path();
    small_matrix(d, "in.mtx");
    for (args, needle) in [
        (
            vec!["bench", "in.mtx", "--stream-mb", "999999"],
            "three arrays would need about",
        ),
        (
            vec!["stream", "--array-mb", "1000000"],
            "three arrays would need about",
        ),
        (
            vec!["gen", "rmat", "--scale", "31", "-o", "x.mtx"],
            "generating",
        ),
    ] {
        assert_clean_failure(
            run_capped(&args, d, 2048, Stdio::null()),
            needle,
            &format!("{args:?}"),
        );
    }
    // Out of range at parse time: exit 2, with the range in the message.
    for (args, needle) in [
        (vec!["in.mtx", "--time-limit", "1e300"], "at most 31536000"),
        (
            vec!["evaluate", ".", "--time-limit", "1e300"],
            "at most 31536000",
        ),
        (vec!["in.mtx", "--threads", "100000"], "from 1 to"),
        (
            vec!["in.mtx", "--sampler", "dast-sim:threads=100000"],
            "1024 simulated threads",
        ),
        (
            vec![
                "sample",
                "in.mtx",
                "--sampler",
                "dast-sim:threads=100000",
                "-o",
                "s.mtx",
            ],
            "from 1 to 1024 simulated threads",
        ),
        (
            vec![
                "sample",
                "in.mtx",
                "--sampler",
                "dast-sim:l3=1000G",
                "-o",
                "s.mtx",
            ],
            "at most 1G",
        ),
        (
            vec!["in.mtx", "--sampler", "dast-perf:threads=100000"],
            "no larger than the CPUs",
        ),
        (
            vec![
                "sample",
                "in.mtx",
                "--sampler",
                "all",
                "--threads",
                "100000",
                "-o",
                "s",
            ],
            "1..=1024",
        ),
        (
            vec![
                "trace-kernel",
                "in.mtx",
                "--emit-layout",
                "l",
                "--threads",
                "100000",
            ],
            "from 1 to",
        ),
        (vec!["bench", "in.mtx", "--threads", "100000"], "from 1 to"),
        (vec!["stream", "--threads", "0"], "from 1 to"),
        (
            vec!["topology", "--pin", "scatter", "--threads", "100000"],
            "from 1 to",
        ),
        (vec!["evaluate", ".", "--threads", "1,100000"], "from 1 to"),
        (
            vec!["bench", "in.mtx", "--stream-mb", "999999999"],
            "0..=1000000",
        ),
        (vec!["stream", "--array-mb", "100000000"], "1..=1000000"),
        (vec!["evaluate", ".", "--reps", "0"], "1..=1000"),
    ] {
        let (ok, _, err) = run(&args, d);
        assert!(!ok && err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn wrong_values_are_errors_and_messages_are_escaped_and_said_once() {
    let dir = temp_dir();
    let d = dir.path();
    small_matrix(d, "in.mtx");
    std::fs::write(
        d.join("skew.mtx"),
        "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 -9223372036854775808\n",
    )
    .unwrap();
    let (ok, _, err) = run(&["info", "skew.mtx"], d);
    assert!(
        !ok && err.contains("skew.mtx:3: ") && err.contains("64-bit integer"),
        "{err}"
    );
    std::fs::write(
        d.join("ctl.mtx"),
        "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 \u{1b}]0;pwned\u{7}\u{1b}[2J\n",
    )
    .unwrap();
    let (ok, _, err) = run(&["info", "ctl.mtx"], d);
    assert!(!ok && err.contains("ctl.mtx:3: bad real value"), "{err}");
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
    assert!(err.contains("\\u{1b}]0;pwned\\u{7}"), "{err}");
    let (ok, _, err) = run(&["info", "ctl.mtx", "--window", "\u{1b}[2J"], d);
    assert!(!ok && !err.contains('\u{1b}'), "{err:?}");
    // A missing file is said once.
    for args in [
        vec!["info", "missing.mtx"],
        vec![
            "sample",
            "in.mtx",
            "--sampler",
            "trace:lackey=no.txt,layout=no.json",
            "-o",
            "s",
        ],
        vec!["evaluate", "no-such-folder"],
    ] {
        let (ok, _, err) = run(&args, d);
        assert!(!ok, "{args:?}");
        assert_eq!(
            err.matches("No such file or directory").count(),
            1,
            "{args:?}: {err}"
        );
    }
}

#[test]
fn evaluate_reports_a_bad_matrix_and_finishes_the_others() {
    let dir = temp_dir();
    let d = dir.path();
    std::fs::create_dir(d.join("m")).unwrap();
    small_matrix(&d.join("m"), "good.mtx");
    std::fs::write(
        d.join("m/bad.mtx"),
        "%%MatrixMarket matrix coordinate real general\n2 2 1\n",
    )
    .unwrap();
    let (ok, out, err) = run(
        &[
            "evaluate",
            "m",
            "--ordering",
            "rcm",
            "--threads",
            "1",
            "--reps",
            "1",
            "--markdown",
            "r.md",
        ],
        d,
    );
    assert!(!ok, "a bad matrix fails the run");
    assert!(
        err.contains("bad.mtx:3") && err.contains("1 of 2 matrices"),
        "{err}"
    );
    assert!(out.contains("good"), "{out}");
    assert!(std::fs::read_to_string(d.join("r.md"))
        .unwrap()
        .contains("good"));
    let (ok, _, err) = run(&["evaluate", "m", "--only", "nomatch"], d);
    assert!(
        !ok && err.contains("none of its 2 matrix files has `nomatch`"),
        "{err}"
    );
}
