//! Shared helpers of the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The built `spmv-reorder` binary.
pub fn binary() -> Command {
    Command::new(env!("CARGO_BIN_EXE_spmv-reorder"))
}

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A bundled matrix from `matrices/`.
pub fn matrix(name: &str) -> PathBuf {
    root().join("matrices").join(name)
}

/// A fresh temporary directory for one test.
pub fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("create temp dir")
}

/// Runs the binary with `args`, returning (status success, stdout, stderr).
pub fn run(args: &[&str], cwd: &Path) -> (bool, String, String) {
    let out = binary()
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run binary");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs the binary with `args`, returning (exit code, stderr).
pub fn run_status(args: &[&str], cwd: &Path) -> (Option<i32>, String) {
    let out = binary()
        .args(args)
        .current_dir(cwd)
        .stdout(Stdio::null())
        .output()
        .expect("run binary");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Asserts a refused command line: exit status 2, a message with `needle`.
pub fn assert_usage_error(args: &[&str], cwd: &Path, needle: &str) {
    let (code, err) = run_status(args, cwd);
    assert_eq!(code, Some(2), "{args:?}: {err}");
    assert!(
        err.contains(needle),
        "{args:?}: expected {needle:?} in {err}"
    );
}

/// Runs the binary in `dir` under an address-space cap of `mb` MiB (`prlimit --as`), with `stdin`
/// as its standard input; returns (exit code, stderr).
pub fn run_capped(args: &[&str], dir: &Path, mb: u64, stdin: Stdio) -> (Option<i32>, String) {
    let out = Command::new("prlimit")
        .arg(format!("--as={}", mb << 20))
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_spmv-reorder"))
        .args(args)
        .current_dir(dir)
        .stdin(stdin)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Asserts a clean failure: exit status 1 (no signal, no abort), a message with `needle`.
pub fn assert_clean_failure((code, err): (Option<i32>, String), needle: &str, what: &str) {
    assert_eq!(code, Some(1), "{what}: {err}");
    assert!(err.contains(needle), "{what}: {err}");
    assert!(
        !err.contains("panicked") && !err.contains("memory allocation of"),
        "{what}: {err}"
    );
}
