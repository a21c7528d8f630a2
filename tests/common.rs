//! Shared helpers of the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

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
