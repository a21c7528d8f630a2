//! Permutation files: `%` comment lines (stating the direction), then one index per line; `#`
//! lines are comments too, as numpy's `savetxt` writes its header. By
//! default line `i` of the indices holds the OLD index (1-based) of the row placed at new position
//! `i`: `new_to_old + 1`, the list of old indices in their new order (as `perm` in MATLAB, or
//! `A[perm, :]` in numpy plus one). [`PermutationFormat`] reads and writes the other conventions:
//! 0-based indices (numpy, scipy's `reverse_cuthill_mckee`) and the inverse direction, line `i`
//! holding the new position of old index `i` (METIS's `.iperm`). `O(n)` both ways. Used by the
//! CLI's `--perm-out`, `apply` and `bench --perm`.

use crate::error::{MtxError, ParseError};
use crate::header::parse_u64;
use crate::output::write_atomically;
use crate::value::is_space;
use spmv_reorder_sparse::Permutation;
use std::io::Read;
use std::path::Path;

/// The comment that opens every permutation file written here in the default format.
pub const PERMUTATION_DIRECTION: &str =
    "line i (after the comments) holds the 1-based OLD index of the row placed at new position i (new_to_old + 1)";

/// The first index of a permutation file: 0 (C, numpy, scipy, METIS) or 1 (Fortran, MATLAB,
/// Matrix Market).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IndexBase {
    /// Indices `0..n`.
    Zero,
    /// Indices `1..=n` (the default).
    #[default]
    One,
}

impl IndexBase {
    /// The first index: 0 or 1.
    pub fn first(self) -> u64 {
        match self {
            IndexBase::Zero => 0,
            IndexBase::One => 1,
        }
    }
}

impl std::str::FromStr for IndexBase {
    type Err = String;

    /// `0` or `1`.
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "0" => Ok(IndexBase::Zero),
            "1" => Ok(IndexBase::One),
            other => Err(format!("expected 0 or 1, found `{other}`")),
        }
    }
}

/// How a permutation file spells its indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PermutationFormat {
    /// The first index (default 1).
    pub base: IndexBase,
    /// Line `i` holds the new position of old index `i` (METIS's `.iperm`) instead of the old
    /// index placed at position `i` (default `false`).
    pub old_to_new: bool,
}

impl PermutationFormat {
    /// The comment that opens a file of this format, stating its convention.
    pub fn direction(self) -> String {
        let base = self.base.first();
        let plus = if base == 0 {
            String::new()
        } else {
            format!(" + {base}")
        };
        if self.old_to_new {
            format!(
                "line i (after the comments) holds the {base}-based NEW position of the row whose \
                 original index is i (old_to_new{plus})"
            )
        } else {
            format!(
                "line i (after the comments) holds the {base}-based OLD index of the row placed at \
                 new position i (new_to_old{plus})"
            )
        }
    }
}

/// Writes `p` to `path` (atomically; `-` is stdout): `% ` + [`PERMUTATION_DIRECTION`], `% ` + each
/// line of `comment` (none when empty), then `new_to_old[i] + 1` per line.
///
/// # Errors
/// [`MtxError::Io`] naming `path`.
pub fn write_permutation(path: &Path, p: &Permutation, comment: &str) -> Result<(), MtxError> {
    write_permutation_as(path, p, comment, PermutationFormat::default())
}

/// [`write_permutation`] in `format`: its direction comment, then each index in its base and
/// direction.
///
/// # Errors
/// [`MtxError::Io`] naming `path`.
pub fn write_permutation_as(
    path: &Path,
    p: &Permutation,
    comment: &str,
    format: PermutationFormat,
) -> Result<(), MtxError> {
    let indices = if format.old_to_new {
        p.old_to_new()
    } else {
        p.new_to_old()
    };
    let base = format.base.first() as usize;
    write_atomically(path, |w| {
        writeln!(w, "% {}", format.direction())?;
        for line in comment.lines() {
            writeln!(w, "% {line}")?;
        }
        let mut buf = itoa::Buffer::new();
        let mut text = Vec::with_capacity(p.len() * 8);
        for &index in indices {
            text.extend_from_slice(buf.format(index + base).as_bytes());
            text.push(b'\n');
        }
        w.write_all(&text)
    })
}

/// Reads a permutation file (plain or gzip; `-` is stdin). `%` lines and blank lines are skipped.
///
/// # Errors
/// [`MtxError::Io`]; [`MtxError::Parse`] with the line for a line that is not one positive
/// integer ([`ParseError::BadIndex`], [`ParseError::WrongTokenCount`]), an index outside `1..=n`
/// where `n` is the number of indices ([`ParseError::IndexOutOfRange`]) or an index repeated
/// ([`ParseError::RepeatedIndex`]).
pub fn read_permutation(path: &Path) -> Result<Permutation, MtxError> {
    let bytes = crate::input::read_path(path)?;
    parse_permutation(&bytes).map_err(|e| e.with_path(Some(path.to_path_buf())))
}

/// [`read_permutation`] from any reader.
///
/// # Errors
/// As [`read_permutation`], without a path.
pub fn read_permutation_from<R: Read>(reader: R) -> Result<Permutation, MtxError> {
    parse_permutation(&crate::input::read_all(reader, 0)?)
}

/// [`read_permutation`] of a permutation that must have `len` indices (the dimension it will
/// permute): indices beyond `len` are reported on their line, a wrong count at the end of the file.
///
/// # Errors
/// As [`read_permutation`], plus [`ParseError::WrongLength`].
pub fn read_permutation_of_len(path: &Path, len: usize) -> Result<Permutation, MtxError> {
    read_permutation_as(path, Some(len), PermutationFormat::default())
}

/// [`read_permutation`] of a file in `format`, of `len` indices when given (as
/// [`read_permutation_of_len`]).
///
/// # Errors
/// As [`read_permutation_of_len`], an index outside the format's range included.
pub fn read_permutation_as(
    path: &Path,
    len: Option<usize>,
    format: PermutationFormat,
) -> Result<Permutation, MtxError> {
    let bytes = crate::input::read_path(path)?;
    parse_permutation_as(&bytes, len, format).map_err(|e| e.with_path(Some(path.to_path_buf())))
}

fn parse_permutation(bytes: &[u8]) -> Result<Permutation, MtxError> {
    parse_permutation_of(bytes, None)
}

fn parse_permutation_of(bytes: &[u8], len: Option<usize>) -> Result<Permutation, MtxError> {
    parse_permutation_as(bytes, len, PermutationFormat::default())
}

fn parse_permutation_as(
    bytes: &[u8],
    len: Option<usize>,
    format: PermutationFormat,
) -> Result<Permutation, MtxError> {
    let indices = index_lines(bytes)?;
    let n = len.map_or(indices.len() as u64, |l| l as u64);
    let new_to_old = zero_based(&indices, n, format.base)?;
    if new_to_old.len() as u64 != n {
        let lines = memchr::memchr_iter(b'\n', bytes).count() as u64;
        // The line where the file ends (after the last line break, or the unfinished last line).
        let end = lines + 1;
        return Err(MtxError::at(
            end,
            ParseError::WrongLength {
                expected: n,
                found: new_to_old.len() as u64,
            },
        ));
    }
    let indices = new_to_old;
    let p = if format.old_to_new {
        Permutation::from_old_to_new(indices)
    } else {
        Permutation::from_new_to_old(indices)
    };
    Ok(p.expect("validated above"))
}

/// One index of a permutation file: digits, or a number written as a float whose value is a whole
/// number below 2^53 (`numpy.savetxt` writes integers as `1.751000000000000000e+03` unless given
/// `fmt="%d"`).
fn permutation_index(word: &[u8]) -> Option<u64> {
    parse_u64(word).or_else(|| {
        let v: f64 = std::str::from_utf8(word).ok()?.parse().ok()?;
        (v >= 0.0 && v.fract() == 0.0 && v < 9_007_199_254_740_992.0).then_some(v as u64)
    })
}

/// The indices of a permutation file with their line numbers, comments and blank lines skipped.
fn index_lines(bytes: &[u8]) -> Result<Vec<(u64, u64)>, MtxError> {
    let mut indices: Vec<(u64, u64)> = Vec::new();
    for (number, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line_no = number as u64 + 1;
        let words: Vec<&[u8]> = line
            .split(|&b| is_space(b))
            .filter(|w| !w.is_empty())
            .collect();
        let index = match words.as_slice() {
            [] => continue,
            [first, ..] if first.starts_with(b"%") || first.starts_with(b"#") => {
                std::str::from_utf8(line)
                    .map_err(|_| MtxError::at(line_no, ParseError::NotUtf8))?;
                continue;
            }
            [word] => permutation_index(word).ok_or_else(|| {
                let kind = match std::str::from_utf8(line) {
                    Ok(_) => ParseError::BadIndex {
                        axis: "permutation",
                        found: crate::error::excerpt(word),
                    },
                    Err(_) => ParseError::NotUtf8,
                };
                MtxError::at(line_no, kind)
            })?,
            more => {
                return Err(MtxError::at(
                    line_no,
                    ParseError::WrongTokenCount {
                        expected: 1,
                        found: more.len(),
                    },
                ))
            }
        };
        indices.push((index, line_no));
    }
    Ok(indices)
}

/// `indices` (with their lines) made 0-based from `base`, each checked to be in range and seen
/// once.
fn zero_based(indices: &[(u64, u64)], n: u64, base: IndexBase) -> Result<Vec<usize>, MtxError> {
    let base = base.first();
    let mut first_line = vec![0u64; n as usize];
    let mut new_to_old = Vec::with_capacity(indices.len());
    for &(index, line) in indices {
        if index < base || index - base >= n {
            return Err(MtxError::at(
                line,
                ParseError::PermutationIndexOutOfRange {
                    index,
                    first: base,
                    last: (base + n).saturating_sub(1),
                },
            ));
        }
        let seen = &mut first_line[(index - base) as usize];
        if *seen != 0 {
            return Err(MtxError::at(
                line,
                ParseError::RepeatedIndex {
                    index,
                    first_line: *seen,
                },
            ));
        }
        *seen = line;
        new_to_old.push((index - base) as usize);
    }
    Ok(new_to_old)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<usize>, (u64, &'static str)> {
        parse_permutation(text.as_bytes())
            .map(|p| p.new_to_old().to_vec())
            .map_err(|e| (e.line().unwrap(), e.parse_error().unwrap().name()))
    }

    #[test]
    fn round_trip_through_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.perm");
        let p = Permutation::from_new_to_old(vec![2, 0, 3, 1]).unwrap();
        write_permutation(&path, &p, "rows by RCM\nseed 7").unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("% line i"));
        assert!(text.ends_with("% seed 7\n3\n1\n4\n2\n"));
        assert_eq!(read_permutation(&path).unwrap(), p);
        // numpy's `savetxt(..., header=...)` comments with `#`.
        std::fs::write(&path, "# new_to_old + 1\n3\n1\n#\n4\n2\n").unwrap();
        assert_eq!(read_permutation(&path).unwrap(), p);
    }

    /// `numpy.savetxt` without `fmt="%d"` writes integers as floats: whole values are read.
    #[test]
    fn whole_numbers_written_as_floats_are_indices() {
        assert_eq!(
            parse("3.000000000000000000e+00\n1.0\n4\n2e0\n"),
            Ok(vec![2, 0, 3, 1])
        );
        for bad in ["1.5", "-1.0", "inf", "nan", "1e300", "0x1"] {
            assert_eq!(
                parse(&format!("2\n{bad}\n")),
                Err((2, "bad_index")),
                "{bad}"
            );
        }
    }

    #[test]
    fn zero_based_and_inverse_files_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.iperm");
        let p = Permutation::from_new_to_old(vec![2, 0, 3, 1]).unwrap();
        for base in [IndexBase::Zero, IndexBase::One] {
            for old_to_new in [false, true] {
                let format = PermutationFormat { base, old_to_new };
                write_permutation_as(&path, &p, "", format).unwrap();
                assert_eq!(read_permutation_as(&path, Some(4), format).unwrap(), p);
            }
        }
        // METIS's .iperm: 0-based, line i the new position of vertex i.
        let metis = PermutationFormat {
            base: IndexBase::Zero,
            old_to_new: true,
        };
        write_permutation_as(&path, &p, "", metis).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.ends_with("\n1\n3\n0\n2\n"), "{text}");
        assert!(text.starts_with("% line i (after the comments) holds the 0-based NEW"));
        // A 0-based file read as 1-based names the line of its 0.
        std::fs::write(&path, "1\n0\n3\n").unwrap();
        let e = read_permutation_as(&path, None, PermutationFormat::default()).unwrap_err();
        assert_eq!(e.line(), Some(2));
        assert!(e.to_string().contains("index 0 is outside 1..=3"), "{e}");
        let zero = PermutationFormat {
            base: IndexBase::Zero,
            ..PermutationFormat::default()
        };
        let e = read_permutation_as(&path, None, zero).unwrap_err();
        assert!(e.to_string().contains("index 3 is outside 0..=2"), "{e}");
        assert_eq!("0".parse::<IndexBase>(), Ok(IndexBase::Zero));
        assert!("2".parse::<IndexBase>().is_err());
    }

    #[test]
    fn expected_length_is_checked() {
        let of = |text: &str, len| {
            parse_permutation_of(text.as_bytes(), Some(len))
                .map(|p| p.len())
                .map_err(|e| (e.line().unwrap(), e.parse_error().unwrap().name()))
        };
        assert_eq!(of("2\n1\n", 2), Ok(2));
        assert_eq!(of("2\n1\n", 3), Err((3, "wrong_length")));
        assert_eq!(of("% c\n2\n1", 3), Err((3, "wrong_length")));
        assert_eq!(of("2\n1\n3\n", 2), Err((3, "index_out_of_range")));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p");
        std::fs::write(&path, "1\n").unwrap();
        let e = read_permutation_of_len(&path, 2).unwrap_err();
        assert_eq!(e.path(), Some(path.as_path()));
    }

    #[test]
    fn errors_name_lines() {
        assert_eq!(parse("% c\n2\n\n1\n"), Ok(vec![1, 0]));
        assert_eq!(parse(""), Ok(vec![]));
        assert_eq!(parse("1\n3\n"), Err((2, "index_out_of_range")));
        assert_eq!(parse("1\n0\n"), Err((2, "index_out_of_range")));
        assert_eq!(parse("2\n1\n2\n"), Err((3, "repeated_index")));
        assert_eq!(parse("1\nx\n"), Err((2, "bad_index")));
        assert_eq!(parse("1 2\n"), Err((1, "wrong_token_count")));
        assert_eq!(parse("1\n\u{e9}\n"), Err((2, "bad_index")));
        assert_eq!(
            parse_permutation(b"1\n\xff\n").unwrap_err().parse_error(),
            Some(&ParseError::NotUtf8)
        );
    }
}
