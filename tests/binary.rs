//! Integration tests of the binary matrix formats (scipy's `.npz`, PETSc's `.petsc`): fixtures
//! written by scipy and by PETSc's documented layout (`scripts/binary_fixtures.py`) against their
//! Matrix Market twins, the invalid-file corpus, write-then-read round trips of every field, and
//! atomic output.

use crate::common::{assert_clean_failure, root, run, run_capped, temp_dir};
use proptest::prelude::*;
use spmv_reorder_mtx::{
    read_path, write_path, BinaryFormat, MatrixMarket, MtxError, ReadOptions, WriteOptions,
};
use spmv_reorder_sparse::{AnyCsr, Complex64, CsrMatrix, Field};
use std::path::{Path, PathBuf};
use std::process::Stdio;

fn files(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("tests/data").join(dir))
        .expect("fixture directory")
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

fn read(path: &Path, threads: usize) -> Result<MatrixMarket, MtxError> {
    read_path(
        path,
        &ReadOptions {
            threads: Some(threads),
            ..Default::default()
        },
    )
}

#[test]
fn scipy_and_petsc_fixtures_equal_their_matrix_market_twins() {
    let binaries: Vec<PathBuf> = files("binary")
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e != "mtx"))
        .collect();
    assert!(binaries.len() >= 12, "fixtures missing: {binaries:?}");
    for path in binaries {
        let twin = read(&path.with_extension("mtx"), 1).unwrap();
        for threads in [1, 2] {
            let m = read(&path, threads).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!((m.nrows(), m.ncols()), (5, 4), "{}", path.display());
            let name = path.file_name().unwrap().to_string_lossy();
            if name.contains("bool") {
                // scipy.io.mmwrite writes a bool matrix as integer ones; npz's bools are a pattern.
                assert_eq!(m.matrix.field(), Field::Pattern);
                assert_eq!(m.matrix.pattern(), twin.matrix.pattern());
            } else {
                assert_eq!(m.matrix, twin.matrix, "{}", path.display());
            }
        }
    }
}

#[test]
fn every_invalid_binary_file_names_its_problem_and_file() {
    let corpus = files("invalid_binary");
    assert!(corpus.len() >= 20);
    for path in corpus {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let kind = name.split('.').next().unwrap();
        for threads in [1, 2] {
            let err = read(&path, threads).expect_err(&name);
            let found = err.binary_error().map(|k| k.name());
            assert_eq!(found, Some(kind), "{name}: {err}");
            assert_eq!(err.path(), Some(path.as_path()));
            let format = if name.ends_with(".npz") {
                BinaryFormat::Npz
            } else {
                BinaryFormat::Petsc
            };
            let shown = err.to_string();
            assert!(
                shown.starts_with(&format!("{}: {format}: ", path.display())),
                "{shown}"
            );
        }
    }
}

/// A random `m x n` structure with `nnz` entry attempts (duplicates merged).
fn structure(m: usize, n: usize, entries: &[(usize, usize)]) -> CsrMatrix<f64> {
    let t = entries
        .iter()
        .enumerate()
        .map(|(k, &(i, j))| (i % m, j % n, k as f64 * 0.25 - 3.0))
        .collect::<Vec<_>>();
    CsrMatrix::from_triplets(m, n, t).unwrap()
}

fn every_field(a: &CsrMatrix<f64>) -> Vec<AnyCsr> {
    vec![
        AnyCsr::Real(a.clone()),
        AnyCsr::Integer(a.map_values(|v| (v * 4.0) as i64 - (1 << 40))),
        AnyCsr::Complex(a.map_values(|v| Complex64::new(v, -2.0 * v))),
        AnyCsr::Pattern(a.pattern()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Write then read gives back the matrix, in both formats and every field (PETSc holds
    /// doubles: integers come back real, patterns as real ones).
    #[test]
    fn write_then_read_round_trips(
        m in 1usize..40,
        n in 1usize..40,
        entries in proptest::collection::vec((0usize..1000, 0usize..1000), 0..200),
    ) {
        let a = structure(m, n, &entries);
        let dir = temp_dir();
        for matrix in every_field(&a) {
            let file = MatrixMarket::general(matrix.clone());
            let npz = dir.path().join("a.npz");
            write_path(&npz, &file, &WriteOptions::default()).unwrap();
            prop_assert_eq!(&read(&npz, 2).unwrap().matrix, &matrix);
            let petsc = dir.path().join("a.petsc");
            write_path(&petsc, &file, &WriteOptions::default()).unwrap();
            let back = read(&petsc, 1).unwrap().matrix;
            match &matrix {
                // Without entries a PETSc file holds nothing that tells complex from real.
                AnyCsr::Complex(c) if c.nnz() > 0 => prop_assert_eq!(&back, &matrix),
                other => prop_assert_eq!(back, AnyCsr::Real(other.to_real())),
            }
        }
    }
}

#[test]
fn an_inexact_petsc_integer_leaves_the_target_untouched() {
    let dir = temp_dir();
    let target = dir.path().join("out.petsc");
    std::fs::write(&target, "old").unwrap();
    let a = CsrMatrix::from_triplets(2, 2, vec![(1, 0, (1i64 << 53) + 1)]).unwrap();
    let err = write_path(
        &target,
        &MatrixMarket::general(AnyCsr::Integer(a)),
        &WriteOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(err, MtxError::Unsupported { .. }), "{err}");
    assert_eq!(err.path(), Some(target.as_path()));
    assert!(err.to_string().contains("(2, 1)"), "{err}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn the_main_job_reads_and_writes_binary_formats_by_extension() {
    let dir = temp_dir();
    let input = root().join("tests/data/binary/csr_f8.npz");
    let (ok, _, err) = run(
        &[
            input.to_str().unwrap(),
            "-o",
            "out.petsc",
            "--method",
            "rcm",
            "--perm-out",
            "p.txt",
            "--quiet",
        ],
        dir.path(),
    );
    assert!(ok, "{err}");
    let before = read(&input, 1).unwrap().matrix.to_real();
    let after = read(&dir.path().join("out.petsc"), 1).unwrap().matrix;
    assert_eq!(after.nnz(), before.nnz());
    let (ok, _, err) = run(&["out.petsc", "-o", "back.npz", "--quiet"], dir.path());
    assert!(ok, "{err}");
    assert_eq!(read(&dir.path().join("back.npz"), 1).unwrap().nnz(), 7);
    let bad = root().join("tests/data/invalid_binary/not_monotone.indptr.npz");
    let (ok, _, err) = run(&[bad.to_str().unwrap(), "-o", "x.mtx"], dir.path());
    assert!(!ok);
    assert!(
        err.contains("not_monotone.indptr.npz: npz: indptr[2] = 1"),
        "{err}"
    );
    assert!(!dir.path().join("x.mtx").exists());
}

#[test]
fn truncated_binary_files_are_errors_naming_the_file() {
    let dir = temp_dir();
    for path in files("binary") {
        let Some(format) = spmv_reorder_mtx::binary_format_of(&path) else {
            continue;
        };
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let cut = dir.path().join(&name);
        for len in [
            0,
            1,
            7,
            bytes.len() / 4,
            bytes.len() / 2,
            bytes.len() - 9,
            bytes.len() - 1,
        ] {
            std::fs::write(&cut, &bytes[..len]).unwrap();
            match read(&cut, 2) {
                Err(e) => {
                    let shown = e.to_string();
                    assert!(
                        shown.starts_with(&format!("{}: ", cut.display())),
                        "{shown}"
                    );
                }
                // A matrix followed by a vector may lose part of the vector and still be read.
                Ok(_) => assert!(
                    name.contains("with_vector") && format == BinaryFormat::Petsc,
                    "{name} cut to {len} bytes was read"
                ),
            }
        }
    }
}

#[test]
fn tiny_binary_files_declaring_huge_sizes_fail_cleanly_under_a_memory_cap() {
    let dir = temp_dir();
    let d = dir.path();
    for (k, (format, bytes)) in crate::binary_inputs::huge_declared_sizes()
        .into_iter()
        .enumerate()
    {
        let name = format!(
            "huge{k}.{}",
            if format == BinaryFormat::Npz {
                "npz"
            } else {
                "petsc"
            }
        );
        std::fs::write(d.join(&name), bytes).unwrap();
        for job in [vec!["info", &name], vec![&name, "-o", "out.mtx"]] {
            let (code, err) = run_capped(&job, d, 1024, Stdio::null());
            // A COO file holds its entries alone: info builds only the occupied part.
            if job[0] == "info" && name == "huge1.npz" {
                assert_eq!(code, Some(0), "{job:?}: {err}");
            } else {
                assert_clean_failure((code, err), &name, &format!("{job:?}"));
            }
        }
    }
    assert!(!d.join("out.mtx").exists());
}

#[test]
fn the_occupied_part_of_a_binary_file_is_that_of_the_whole_matrix() {
    for path in files("binary") {
        if spmv_reorder_mtx::binary_format_of(&path).is_none() {
            continue;
        }
        let whole = read(&path, 2).unwrap();
        let part = spmv_reorder_mtx::read_path_occupied(&path, &ReadOptions::default()).unwrap();
        let of = spmv_reorder_mtx::Occupied::of(&whole).unwrap();
        assert_eq!(part, of, "{}", path.display());
        assert_eq!(part.whole().unwrap(), whole, "{}", path.display());
    }
}
