//! Integration tests of `spmv-reorder-mtx`: the invalid-file corpus (sequential and parallel), the
//! bundled matrices against `matrices/SOURCES.md`, round trips of every format x field x symmetry,
//! property tests (write-then-read identity, byte mutations never panic, parallel == sequential),
//! and atomic output.

use crate::common::{matrix, root, temp_dir};
use proptest::prelude::*;
use spmv_reorder_mtx::{
    read, read_bytes, read_path, read_permutation, write, write_atomically, write_path, Format,
    MatrixMarket, MtxError, ReadOptions, Symmetry, WriteOptions,
};
use spmv_reorder_sparse::{AnyCsr, Complex64, CsrMatrix, Field, Permutation};
use std::path::{Path, PathBuf};

/// Reading modes every corpus file is tried in: sequential, and parallel with chunks small enough
/// that every line boundary is a chunk boundary somewhere.
fn modes() -> Vec<ReadOptions> {
    let mode = |threads, chunk_bytes| ReadOptions {
        threads,
        chunk_bytes,
        ..Default::default()
    };
    vec![
        mode(Some(1), None),
        mode(Some(1), Some(1)),
        mode(Some(2), Some(1)),
        mode(Some(2), Some(7)),
        mode(Some(3), Some(64)),
        mode(None, None),
    ]
}

/// The files of `tests/data/<dir>` with the error kind and line their names state
/// (`<kind>.<line>[.<what>].<ext>`).
fn corpus(dir: &str) -> Vec<(PathBuf, String, u64)> {
    let mut files: Vec<(PathBuf, String, u64)> =
        std::fs::read_dir(root().join("tests/data").join(dir))
            .expect("corpus directory")
            .map(|e| {
                let path = e.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                let mut parts = name.split('.');
                let kind = parts.next().unwrap().to_string();
                let line = parts
                    .next()
                    .unwrap()
                    .parse()
                    .expect("line number in the file name");
                (path, kind, line)
            })
            .collect();
    files.sort();
    assert!(files.len() > 5, "corpus {dir} is missing");
    files
}

fn describe(e: &MtxError) -> (String, Option<u64>) {
    (
        e.parse_error()
            .map_or_else(|| format!("{e:?}"), |k| k.name().to_string()),
        e.line(),
    )
}

#[test]
fn every_invalid_file_gives_its_error_and_line_in_every_mode() {
    for (path, kind, line) in corpus("invalid") {
        for opts in modes() {
            let err = read_path(&path, &opts).expect_err(&format!("{} must fail", path.display()));
            assert_eq!(
                describe(&err),
                (kind.clone(), Some(line)),
                "{} with {opts:?}: {err}",
                path.display()
            );
            assert_eq!(err.path(), Some(path.as_path()));
            let shown = err.to_string();
            assert!(
                shown.starts_with(&format!("{}:{line}: ", path.display())),
                "{shown}"
            );
        }
    }
}

#[test]
fn every_invalid_permutation_gives_its_error_and_line() {
    for (path, kind, line) in corpus("invalid_perm") {
        let err = read_permutation(&path).expect_err("must fail");
        assert_eq!(
            describe(&err),
            (kind, Some(line)),
            "{}: {err}",
            path.display()
        );
    }
}

/// One row of the tables of `matrices/SOURCES.md`.
struct Source {
    file: String,
    rows: usize,
    cols: usize,
    stored: usize,
    expanded: usize,
    field: String,
    symmetry: String,
}

/// The rows of the tables of `matrices/SOURCES.md` that have the count columns (located by their
/// header names, so other tables and column order do not matter).
fn sources() -> Option<Vec<Source>> {
    let text = std::fs::read_to_string(matrix("SOURCES.md")).ok()?;
    let cells = |l: &str| -> Vec<String> { l.split('|').map(|c| c.trim().to_string()).collect() };
    let mut header: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for line in text.lines() {
        if line.starts_with("| file |") {
            header = cells(line);
            continue;
        }
        if !line.starts_with("| `") {
            continue;
        }
        let row = cells(line);
        let col = |name: &str| header.iter().position(|h| h == name);
        let Some(stored) = col("nnz stored") else {
            continue;
        };
        let get = |i: usize| row[i].clone();
        let num = |i: usize| get(i).parse::<usize>().expect("count in SOURCES.md");
        rows.push(Source {
            file: get(1).trim_matches('`').to_string(),
            rows: num(col("rows")?),
            cols: num(col("cols")?),
            stored: num(stored),
            expanded: num(col("nnz (expanded)")?),
            field: get(col("field")?),
            symmetry: get(col("symmetry")?),
        });
    }
    Some(rows)
}

#[test]
fn bundled_matrices_match_their_sources() {
    let Some(sources) = sources() else {
        eprintln!("skipped: matrices/SOURCES.md is absent");
        return;
    };
    assert_eq!(sources.len(), 30);
    for s in &sources {
        let m =
            read_path(&matrix(&s.file), &ReadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        let got = (
            m.nrows(),
            m.ncols(),
            m.stored_nnz(),
            m.nnz(),
            m.header.field.to_string(),
            m.header.symmetry.to_string(),
        );
        let want = (
            s.rows,
            s.cols,
            s.stored,
            s.expanded,
            s.field.clone(),
            s.symmetry.clone(),
        );
        assert_eq!(got, want, "{}", s.file);
    }
}

#[test]
fn bundled_matrices_round_trip_and_parallel_matches_sequential() {
    let dir = temp_dir();
    for name in [
        "bcsstk04.mtx.gz",
        "west0381.mtx.gz",
        "ca-GrQc.mtx.gz",
        "mhd416a.mtx.gz",
    ] {
        let path = matrix(name);
        let seq = read_path(
            &path,
            &ReadOptions {
                threads: Some(1),
                ..Default::default()
            },
        )
        .unwrap();
        let par = read_path(
            &path,
            &ReadOptions {
                threads: Some(2),
                chunk_bytes: Some(97),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(seq, par, "{name}");
        for out_name in ["out.mtx", "out.mtx.gz"] {
            let out = dir.path().join(out_name);
            write_path(
                &out,
                &seq,
                &WriteOptions {
                    threads: Some(2),
                    chunk_lines: Some(33),
                    ..Default::default()
                },
            )
            .unwrap();
            let back = read_path(&out, &ReadOptions::default()).unwrap();
            assert_eq!(back, seq, "{name} via {out_name}");
        }
    }
}

/// A 4 x 4 matrix of `field` with `symmetry` (for `general`, one more entry breaks the symmetry).
fn symmetric_example(symmetry: Symmetry, field: Field) -> AnyCsr {
    let z = Complex64::new;
    let lower = [
        (1, 0, z(2.0, 1.0)),
        (3, 0, z(-1.5, 3.0)),
        (3, 2, z(4.0, -2.0)),
        (2, 1, z(0.25, 0.5)),
    ];
    let mut t = Vec::new();
    for &(i, j, v) in &lower {
        let mirrored = match symmetry {
            Symmetry::SkewSymmetric => -v,
            Symmetry::Hermitian => v.conj(),
            _ => v,
        };
        t.push((i, j, v));
        t.push((j, i, mirrored));
    }
    if symmetry != Symmetry::SkewSymmetric {
        t.extend([(0, 0, z(3.0, 0.0)), (2, 2, z(-7.0, 0.0))]);
    }
    if symmetry == Symmetry::General {
        t.push((0, 3, z(9.0, 1.0)));
    }
    match field {
        Field::Real => AnyCsr::Real(
            CsrMatrix::from_triplets(4, 4, t.iter().map(|&(i, j, v)| (i, j, v.re))).unwrap(),
        ),
        Field::Integer => AnyCsr::Integer(
            CsrMatrix::from_triplets(4, 4, t.iter().map(|&(i, j, v)| (i, j, (v.re * 4.0) as i64)))
                .unwrap(),
        ),
        Field::Complex => AnyCsr::Complex(CsrMatrix::from_triplets(4, 4, t).unwrap()),
        Field::Pattern => AnyCsr::Pattern(
            CsrMatrix::from_triplets(4, 4, t.iter().map(|&(i, j, _)| (i, j, ()))).unwrap(),
        ),
    }
}

#[test]
fn round_trip_every_format_field_and_symmetry() {
    let formats = [Format::Coordinate, Format::Array];
    let fields = [Field::Real, Field::Integer, Field::Complex, Field::Pattern];
    let symmetries = [
        Symmetry::General,
        Symmetry::Symmetric,
        Symmetry::SkewSymmetric,
        Symmetry::Hermitian,
    ];
    let mut cases = 0;
    for format in formats {
        for field in fields {
            for symmetry in symmetries {
                if format == Format::Array && field == Field::Pattern {
                    continue;
                }
                let mut m = MatrixMarket::with_storage(
                    symmetric_example(symmetry, field),
                    format,
                    symmetry,
                )
                .unwrap_or_else(|e| panic!("{format} {field} {symmetry}: {e}"));
                m.comments = vec![" case".into(), "".into()];
                let mut text = Vec::new();
                write(&mut text, &m, &WriteOptions::default()).unwrap();
                let back = read(&text[..], &ReadOptions::default()).unwrap();
                let expected = if format == Format::Array {
                    // Arrays are dense: every position is an entry.
                    dense(&m.matrix)
                } else {
                    m.matrix.clone()
                };
                assert_eq!(back.header, m.header, "{format} {field} {symmetry}");
                assert_eq!(back.comments, m.comments);
                assert_eq!(back.matrix, expected, "{format} {field} {symmetry}");
                let mut again = Vec::new();
                write(&mut again, &back, &WriteOptions::default()).unwrap();
                assert_eq!(again, text, "{format} {field} {symmetry}: text changed");
                cases += 1;
            }
        }
    }
    assert_eq!(cases, 28);
}

/// The matrix with every absent position stored as an explicit zero.
fn dense(m: &AnyCsr) -> AnyCsr {
    fn fill<T: spmv_reorder_sparse::Value>(a: &CsrMatrix<T>, zero: T) -> CsrMatrix<T> {
        let mut t = Vec::new();
        for i in 0..a.nrows() {
            for j in 0..a.ncols() {
                let (c, v) = a.row(i);
                t.push((i, j, c.binary_search(&(j as u32)).map_or(zero, |k| v[k])));
            }
        }
        CsrMatrix::from_triplets(a.nrows(), a.ncols(), t).unwrap()
    }
    match m {
        AnyCsr::Real(a) => AnyCsr::Real(fill(a, 0.0)),
        AnyCsr::Integer(a) => AnyCsr::Integer(fill(a, 0)),
        AnyCsr::Complex(a) => AnyCsr::Complex(fill(a, Complex64::new(0.0, 0.0))),
        AnyCsr::Pattern(a) => AnyCsr::Pattern(a.clone()),
    }
}

#[test]
fn symmetric_header_on_asymmetric_matrix_is_refused() {
    let a = CsrMatrix::from_triplets(2, 2, vec![(1, 0, 1.0)]).unwrap();
    let mut m = MatrixMarket::general(AnyCsr::Real(a));
    m.header.symmetry = Symmetry::Symmetric;
    let err = write(Vec::new(), &m, &WriteOptions::default()).unwrap_err();
    assert!(
        matches!(err, MtxError::NotSymmetric { row: 2, col: 1, .. }),
        "{err}"
    );
    let square = WriteOptions {
        symmetry: Some(Symmetry::Hermitian),
        ..Default::default()
    };
    let r = CsrMatrix::<f64>::from_triplets(2, 3, vec![]).unwrap();
    let err = write(Vec::new(), &MatrixMarket::general(AnyCsr::Real(r)), &square).unwrap_err();
    assert!(matches!(err, MtxError::Unsupported { .. }), "{err}");
}

#[test]
fn duplicates_are_summed_like_scipy() {
    let text =
        "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n2 1 1.5\n2 1 2.5\n3 3 1\n3 3 -1\n";
    for opts in modes() {
        let m = read_bytes(text.as_bytes(), &opts).unwrap();
        let AnyCsr::Real(a) = &m.matrix else { panic!() };
        assert_eq!(a.row(0), (&[1u32][..], &[4.0][..]));
        assert_eq!(a.row(1), (&[0u32][..], &[4.0][..]));
        assert_eq!(a.row(2), (&[2u32][..], &[0.0][..]));
        assert_eq!(m.stored_nnz(), 2);
    }
}

#[test]
fn lenient_syntax_is_accepted() {
    let text = "%%matrixmarket MATRIX Coordinate DOUBLE General\r\n% crlf\r\n\r\n 2\t2  3 \r\n1 1 1e3\r\n\t2 2 -INF\r\n\n% body comment\n1 2 nan";
    let m = read_bytes(text.as_bytes(), &ReadOptions::default()).unwrap();
    let AnyCsr::Real(a) = &m.matrix else { panic!() };
    assert_eq!(a.values()[0], 1000.0);
    assert!(a.values()[1].is_nan());
    assert_eq!(a.values()[2], f64::NEG_INFINITY);
    assert_eq!(m.comments, vec![" crlf"]);
}

#[test]
fn failed_write_leaves_no_file_and_output_may_replace_input() {
    let dir = temp_dir();
    let target = dir.path().join("out.mtx");
    let a = CsrMatrix::from_triplets(2, 2, vec![(1, 0, 1.0)]).unwrap();
    let mut m = MatrixMarket::general(AnyCsr::Real(a));
    m.header.symmetry = Symmetry::Symmetric;
    let err = write_path(&target, &m, &WriteOptions::default()).unwrap_err();
    assert_eq!(err.path(), Some(target.as_path()));
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no partial or temporary file"
    );

    // Writing over the input replaces it by rename: a new file (inode), the old one intact until then.
    let input = dir.path().join("in.mtx");
    std::fs::copy(matrix("west0381.mtx.gz"), &input).unwrap();
    let original = read_path(&input, &ReadOptions::default()).unwrap();
    let before = inode(&input);
    let reader = std::fs::File::open(&input).unwrap();
    write_path(&input, &original, &WriteOptions::default()).unwrap();
    assert_ne!(
        inode(&input),
        before,
        "replaced by rename, not rewritten in place"
    );
    // A reader that opened the input before still sees the old bytes.
    let mut old = Vec::new();
    std::io::Read::read_to_end(&mut &reader, &mut old).unwrap();
    assert_eq!(old, std::fs::read(matrix("west0381.mtx.gz")).unwrap());
    assert_eq!(
        read_path(&input, &ReadOptions::default()).unwrap(),
        original
    );

    let err = write_atomically(&input, |w| {
        w.write_all(b"half")?;
        Err(std::io::Error::other("interrupted"))
    })
    .unwrap_err();
    assert!(matches!(err, MtxError::Io { .. }));
    assert_eq!(
        read_path(&input, &ReadOptions::default()).unwrap(),
        original
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[cfg(unix)]
fn inode(p: &Path) -> u64 {
    std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(p).unwrap())
}

#[cfg(not(unix))]
fn inode(p: &Path) -> u64 {
    std::fs::metadata(p).unwrap().len()
}

#[test]
fn permutation_file_round_trip() {
    let dir = temp_dir();
    let path = dir.path().join("p.txt");
    let p = Permutation::from_new_to_old(vec![3, 1, 0, 2]).unwrap();
    spmv_reorder_mtx::write_permutation(&path, &p, "test").unwrap();
    assert_eq!(read_permutation(&path).unwrap(), p);
}

// ---- property tests ----

fn arb_f64() -> impl Strategy<Value = f64> + Clone {
    prop_oneof![
        any::<f64>(),
        (-1000i32..1000).prop_map(f64::from),
        Just(f64::INFINITY),
        Just(-0.0),
        Just(5e-324)
    ]
}

fn arb_triplets<T: std::fmt::Debug + Clone>(
    value: impl Strategy<Value = T> + Clone,
) -> impl Strategy<Value = (usize, usize, Vec<(usize, usize, T)>)> {
    (1usize..9, 1usize..9).prop_flat_map(move |(m, n)| {
        let entries = proptest::collection::vec((0..m, 0..n, value.clone()), 0..30);
        (Just(m), Just(n), entries)
    })
}

fn arb_any() -> impl Strategy<Value = AnyCsr> {
    prop_oneof![
        arb_triplets(arb_f64()).prop_map(|(m, n, t)| {
            // Distinct positions, so values are not summed (a sum may round).
            let mut t = t;
            t.sort_by_key(|e| (e.0, e.1));
            t.dedup_by_key(|e| (e.0, e.1));
            AnyCsr::Real(CsrMatrix::from_triplets(m, n, t).unwrap())
        }),
        arb_triplets(any::<i64>())
            .prop_map(|(m, n, t)| AnyCsr::Integer(CsrMatrix::from_triplets(m, n, t).unwrap())),
        arb_triplets((arb_f64(), arb_f64())).prop_map(|(m, n, t)| {
            let mut t = t;
            t.sort_by_key(|e| (e.0, e.1));
            t.dedup_by_key(|e| (e.0, e.1));
            let t = t
                .into_iter()
                .map(|(i, j, (re, im))| (i, j, Complex64::new(re, im)));
            AnyCsr::Complex(CsrMatrix::from_triplets(m, n, t).unwrap())
        }),
        arb_triplets(Just(()))
            .prop_map(|(m, n, t)| AnyCsr::Pattern(CsrMatrix::from_triplets(m, n, t).unwrap())),
    ]
}

/// Exact equality, bit for bit, except that any NaN equals any NaN (the text form has one NaN).
fn same_bits(a: &AnyCsr, b: &AnyCsr) -> bool {
    let f = |x: f64, y: f64| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
    a.pattern() == b.pattern()
        && match (a, b) {
            (AnyCsr::Real(x), AnyCsr::Real(y)) => {
                x.values().iter().zip(y.values()).all(|(&p, &q)| f(p, q))
            }
            (AnyCsr::Complex(x), AnyCsr::Complex(y)) => x
                .values()
                .iter()
                .zip(y.values())
                .all(|(p, q)| f(p.re, q.re) && f(p.im, q.im)),
            (x, y) => x == y,
        }
}

/// Small valid files of every kind, the seeds of the mutation test.
const SEEDS: &[&str] = &[
    "%%MatrixMarket matrix coordinate real general\n% c\n3 4 4\n1 1 1.5\n3 4 -2e-3\n2 2 inf\n3 1 7\n",
    "%%MatrixMarket matrix coordinate integer symmetric\n3 3 3\n1 1 4\n3 1 -1\n3 3 2\n",
    "%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 1 0\n2 1 3 -4\n",
    "%%MatrixMarket matrix coordinate pattern skew-symmetric\n3 3 2\n2 1\n3 2\n",
    "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
    "%%MatrixMarket matrix array complex symmetric\n2 2\n1 1\n2 2\n3 3\n",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn write_then_read_is_the_identity(a in arb_any(), threads in 1usize..3, chunk in 1usize..40) {
        let m = MatrixMarket::general(a);
        let mut text = Vec::new();
        write(&mut text, &m, &WriteOptions { threads: Some(threads), chunk_lines: Some(chunk), ..Default::default() }).unwrap();
        let back = read_bytes(&text, &ReadOptions { threads: Some(threads), chunk_bytes: Some(chunk), ..Default::default() }).unwrap();
        prop_assert_eq!(back.header, m.header);
        prop_assert!(same_bits(&back.matrix, &m.matrix), "{:?}\n{}", m.matrix, String::from_utf8_lossy(&text));
    }

    #[test]
    fn mutated_files_never_panic_and_parallel_agrees(
        seed in 0..SEEDS.len(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..4),
        chunk in 1usize..16,
    ) {
        let mut bytes = SEEDS[seed].as_bytes().to_vec();
        for (at, byte, op) in edits {
            let i = at.index(bytes.len());
            match op {
                0 => bytes[i] = byte,
                1 => bytes.insert(i, byte),
                _ => { bytes.remove(i); }
            }
        }
        let seq = read_bytes(&bytes, &ReadOptions { threads: Some(1), chunk_bytes: None, ..Default::default() });
        let par = read_bytes(&bytes, &ReadOptions { threads: Some(2), chunk_bytes: Some(chunk), ..Default::default() });
        match (seq, par) {
            (Ok(s), Ok(p)) => prop_assert!(same_bits(&s.matrix, &p.matrix) && s.header == p.header),
            (Err(s), Err(p)) => prop_assert_eq!(describe(&s), describe(&p)),
            (s, p) => prop_assert!(false, "modes disagree: {:?} vs {:?}", s.map(|_| ()), p.map(|_| ())),
        }
    }
}
