//! The one error type of this crate, [`MtxError`], and [`ParseError`], what is wrong with one line.
//!
//! Every error that comes from the input names where it is: the path (when read from a file) and
//! the 1-based line. `Display` reads `FILE:LINE: message` (`<input>:LINE: message` for a reader with
//! no name), the form compilers use, so editors can jump to the line.

use crate::binary_error::{BinaryError, BinaryFormat};
use crate::header::Symmetry;
use spmv_reorder_sparse::{Field, SparseError};
use std::fmt;
use std::path::PathBuf;

/// Errors of reading or writing Matrix Market and permutation files.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MtxError {
    /// The input is malformed at a given line.
    #[error("{}:{line}: {kind}", Source(path))]
    Parse {
        /// The file, when read from a path (`-` for stdin).
        path: Option<PathBuf>,
        /// 1-based line number of the offending line.
        line: u64,
        /// What is wrong.
        kind: ParseError,
    },
    /// A binary matrix file (npz or PETSc) is malformed.
    #[error("{}: {format}: {kind}", Source(path))]
    Binary {
        /// The file, when read from a path.
        path: Option<PathBuf>,
        /// Its format.
        format: BinaryFormat,
        /// What is wrong.
        kind: BinaryError,
    },
    /// Reading or writing failed in the operating system.
    #[error("{}: {operation} failed", Source(path))]
    Io {
        /// The file, when known.
        path: Option<PathBuf>,
        /// `"read"`, `"write"`, `"create"` or `"rename"`.
        operation: &'static str,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A matrix does not have the symmetry its header (or the write options) asks for.
    #[error(
        "{}: the matrix is not {symmetry}: entry ({row}, {col}) has no matching mirror entry",
        Source(path)
    )]
    NotSymmetric {
        /// The output file, when known.
        path: Option<PathBuf>,
        /// The symmetry asked for.
        symmetry: Symmetry,
        /// 1-based row of the first entry without its mirror.
        row: u64,
        /// 1-based column of that entry.
        col: u64,
    },
    /// The matrix cannot be written as asked (e.g. a pattern in `array` format, or a rectangular
    /// matrix in symmetric storage).
    #[error("{}: cannot write {what}", Source(path))]
    Unsupported {
        /// The output file, when known.
        path: Option<PathBuf>,
        /// What was asked, e.g. `"a pattern matrix in array format"`.
        what: String,
    },
    /// An output names a file that is an input or another output of the same run
    /// ([`crate::OutputPlan`]): the same file after symbolic links, however spelt.
    #[error(
        "{what}{} is the same file as {}{other_what}{}: {}",
        dash_or(path),
        if *other_is_input { "the " } else { "" },
        dash_or(other),
        if *other_is_input {
            "refusing to overwrite an input"
        } else {
            "give each output of a run its own file"
        }
    )]
    SameFile {
        /// The output refused, as the user named it (an option such as `--report`).
        what: String,
        /// Its path.
        path: PathBuf,
        /// The file it clashes with, as the user named it.
        other_what: String,
        /// Its path.
        other: PathBuf,
        /// True when that file is an input.
        other_is_input: bool,
    },
    /// An output path names something that cannot take a file's contents.
    #[error("{}: cannot write to {kind}", Source(path))]
    NotWritable {
        /// The path.
        path: Option<PathBuf>,
        /// What it is: `"a directory"`, `"a block device"`, `"a socket"`.
        kind: &'static str,
    },
    /// The worker threads could not be started.
    #[error("cannot start {threads} worker threads: {message}")]
    ThreadPool {
        /// Threads asked for.
        threads: usize,
        /// The reason given by rayon.
        message: String,
    },
}

impl MtxError {
    /// What is wrong with the input, for [`MtxError::Parse`].
    pub fn parse_error(&self) -> Option<&ParseError> {
        match self {
            MtxError::Parse { kind, .. } => Some(kind),
            _ => None,
        }
    }

    /// The 1-based line of the error, for [`MtxError::Parse`].
    pub fn line(&self) -> Option<u64> {
        match self {
            MtxError::Parse { line, .. } => Some(*line),
            _ => None,
        }
    }

    /// The file the error is about, when known.
    pub fn path(&self) -> Option<&std::path::Path> {
        match self {
            MtxError::Parse { path, .. }
            | MtxError::Binary { path, .. }
            | MtxError::Io { path, .. }
            | MtxError::NotSymmetric { path, .. }
            | MtxError::Unsupported { path, .. }
            | MtxError::NotWritable { path, .. } => path.as_deref(),
            MtxError::SameFile { path, .. } => Some(path),
            MtxError::ThreadPool { .. } => None,
        }
    }

    /// The same error, naming `path` as its file.
    pub(crate) fn with_path(mut self, new: Option<PathBuf>) -> Self {
        match &mut self {
            MtxError::Parse { path, .. }
            | MtxError::Binary { path, .. }
            | MtxError::Io { path, .. }
            | MtxError::NotSymmetric { path, .. }
            | MtxError::Unsupported { path, .. }
            | MtxError::NotWritable { path, .. } => *path = new,
            MtxError::SameFile { .. } | MtxError::ThreadPool { .. } => {}
        }
        self
    }

    pub(crate) fn io(operation: &'static str, source: std::io::Error) -> Self {
        MtxError::Io {
            path: None,
            operation,
            source,
        }
    }

    /// What is wrong with a binary file, for [`MtxError::Binary`].
    pub fn binary_error(&self) -> Option<&BinaryError> {
        match self {
            MtxError::Binary { kind, .. } => Some(kind),
            _ => None,
        }
    }

    pub(crate) fn binary(format: BinaryFormat, kind: BinaryError) -> Self {
        MtxError::Binary {
            path: None,
            format,
            kind,
        }
    }

    pub(crate) fn at(line: u64, kind: ParseError) -> Self {
        MtxError::Parse {
            path: None,
            line,
            kind,
        }
    }
}

/// ` PATH`, or nothing for `-` (standard input or output, named by the label before it).
fn dash_or(path: &std::path::Path) -> String {
    if path.as_os_str() == "-" {
        String::new()
    } else {
        format!(" {}", path.display())
    }
}

/// Formats the optional path of an error (`line` alone when there is none).
struct Source<'a>(&'a Option<PathBuf>);

impl fmt::Display for Source<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(p) => write!(f, "{}", p.display()),
            None => f.write_str("<input>"),
        }
    }
}

/// What is wrong with one line of the input.
///
/// [`ParseError::name`] gives a stable snake_case identifier per variant (used by the test corpus
/// `tests/data/invalid/`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// The first line is not a `%%MatrixMarket` banner.
    #[error(
        "expected the banner `%%MatrixMarket matrix <format> <field> <symmetry>`, found `{found}`"
    )]
    MissingBanner {
        /// The first line (shortened).
        found: String,
    },
    /// The banner does not have the five words it needs.
    #[error("the banner needs 5 words (`%%MatrixMarket matrix <format> <field> <symmetry>`), found {found}")]
    BadBanner {
        /// Number of words found.
        found: usize,
    },
    /// The banner names an object other than `matrix`.
    #[error("unknown object `{found}` (expected `matrix`)")]
    UnknownObject {
        /// The word found.
        found: String,
    },
    /// The banner names an unknown format.
    #[error("unknown format `{found}` (expected `coordinate` or `array`)")]
    UnknownFormat {
        /// The word found.
        found: String,
    },
    /// The banner names an unknown field.
    #[error(
        "unknown field `{found}` (expected `real`, `double`, `integer`, `complex` or `pattern`)"
    )]
    UnknownField {
        /// The word found.
        found: String,
    },
    /// The banner names an unknown symmetry.
    #[error("unknown symmetry `{found}` (expected `general`, `symmetric`, `skew-symmetric` or `hermitian`)")]
    UnknownSymmetry {
        /// The word found.
        found: String,
    },
    /// `array` format with `pattern` field: an array stores values, a pattern has none.
    #[error("`array` format cannot have the `pattern` field")]
    ArrayPattern,
    /// The file ends before the size line.
    #[error("missing size line (`rows columns entries` for coordinate, `rows columns` for array)")]
    MissingSizeLine,
    /// The size line does not hold the expected integers.
    #[error("bad size line: expected {expected}, found `{found}`")]
    BadSizeLine {
        /// What the line should hold.
        expected: &'static str,
        /// The line (shortened).
        found: String,
    },
    /// A dimension or count is too large for this machine or for `u32` indices.
    #[error("{what} = {value} exceeds the supported maximum {max}")]
    TooLarge {
        /// Which quantity.
        what: &'static str,
        /// Its value.
        value: u64,
        /// The maximum supported.
        max: u64,
    },
    /// Memory for the matrix could not be reserved.
    #[error("cannot allocate {bytes} bytes for {what}")]
    OutOfMemory {
        /// What was being allocated.
        what: &'static str,
        /// How many bytes.
        bytes: u64,
    },
    /// The sizes the size line declares need more memory for the caller's job
    /// ([`crate::ReadOptions::footprint`]) than this process can allocate.
    #[error(
        "the size line declares a matrix whose job needs about {:.1} GiB, more than this process can allocate",
        *bytes as f64 / (1u64 << 30) as f64
    )]
    JobTooLarge {
        /// Bytes the job would need.
        bytes: u64,
    },
    /// Symmetric, skew-symmetric or Hermitian storage of a rectangular matrix.
    #[error("{symmetry} storage needs a square matrix, the size line says {nrows} x {ncols}")]
    NotSquare {
        /// The symmetry of the header.
        symmetry: Symmetry,
        /// Rows.
        nrows: u64,
        /// Columns.
        ncols: u64,
    },
    /// The file ends before all the entries of the size line.
    #[error("the size line announces {expected} entries, the file ends after {found}")]
    TooFewEntries {
        /// Entries announced.
        expected: u64,
        /// Entries found.
        found: u64,
    },
    /// More entries than the size line announces.
    #[error("more entries than the {expected} the size line announces")]
    TooManyEntries {
        /// Entries announced.
        expected: u64,
    },
    /// A row or column index is not a whole number.
    #[error("bad {axis} index `{found}` (expected a whole number)")]
    BadIndex {
        /// `"row"` or `"column"`.
        axis: &'static str,
        /// The token found (shortened).
        found: String,
    },
    /// A row or column index is 0 or beyond the dimension (indices are 1-based).
    #[error("{axis} index {index} is outside 1..={dim}")]
    IndexOutOfRange {
        /// `"row"` or `"column"`.
        axis: &'static str,
        /// The index found.
        index: u64,
        /// The dimension.
        dim: u64,
    },
    /// A value does not parse as a number of the file's field.
    #[error("bad {field} value `{found}`")]
    BadValue {
        /// The field of the file.
        field: Field,
        /// The token found (shortened).
        found: String,
    },
    /// A line holds the wrong number of numbers for the format and field.
    #[error("expected {expected} number(s) on the line, found {found}")]
    WrongTokenCount {
        /// Numbers needed (indices plus values).
        expected: usize,
        /// Numbers found.
        found: usize,
    },
    /// An entry above the diagonal in symmetric storage (only the lower triangle is stored).
    #[error("entry ({row}, {col}) is above the diagonal, but {symmetry} storage holds only the lower triangle")]
    AboveDiagonal {
        /// The symmetry of the header.
        symmetry: Symmetry,
        /// 1-based row.
        row: u64,
        /// 1-based column.
        col: u64,
    },
    /// A diagonal entry in skew-symmetric storage (its diagonal is zero and must be absent).
    #[error(
        "diagonal entry ({index}, {index}) in skew-symmetric storage (the diagonal must be absent)"
    )]
    SkewDiagonal {
        /// 1-based index.
        index: u64,
    },
    /// A diagonal entry of a Hermitian matrix with a non-zero imaginary part.
    #[error("diagonal entry ({index}, {index}) of a Hermitian matrix is not real")]
    HermitianDiagonal {
        /// 1-based index.
        index: u64,
    },
    /// A line, or the header before the size line, longer than the reader accepts.
    #[error("{what} is longer than {max} bytes: is this a Matrix Market file?")]
    TooLong {
        /// `"the line"` or `"the header before the size line"`.
        what: &'static str,
        /// The most bytes accepted.
        max: u64,
    },
    /// An integer value whose mirror or sum with duplicates does not fit 64 bits.
    #[error("{what} at ({row}, {col}) does not fit a 64-bit integer")]
    IntegerOverflow {
        /// What overflows: the mirror of a skew-symmetric entry, or the sum of duplicates.
        what: &'static str,
        /// 1-based row of the overflowing entry.
        row: u64,
        /// 1-based column.
        col: u64,
    },
    /// Bytes that are not UTF-8 text.
    #[error("the line is not valid UTF-8 text")]
    NotUtf8,
    /// The gzip stream is corrupt or ends early.
    #[error("gzip decompression failed: {message}")]
    Gzip {
        /// The decompressor's message.
        message: String,
    },
    /// A permutation file holds a different number of indices than the dimension it permutes.
    #[error("expected {expected} indices, found {found}")]
    WrongLength {
        /// Indices needed.
        expected: u64,
        /// Indices found.
        found: u64,
    },
    /// A permutation file's index outside its range (`first..=last`: `0..n` or `1..=n`).
    #[error("permutation index {index} is outside {first}..={last}")]
    PermutationIndexOutOfRange {
        /// The index found.
        index: u64,
        /// The first index of the file's format.
        first: u64,
        /// The last index of the file's format.
        last: u64,
    },
    /// A permutation file lists an index twice.
    #[error("index {index} appears twice (first on line {first_line})")]
    RepeatedIndex {
        /// The repeated 1-based index.
        index: u64,
        /// The line of its first occurrence.
        first_line: u64,
    },
}

impl ParseError {
    /// A stable snake_case identifier of the variant, e.g. `"too_few_entries"`.
    pub fn name(&self) -> &'static str {
        match self {
            ParseError::MissingBanner { .. } => "missing_banner",
            ParseError::BadBanner { .. } => "bad_banner",
            ParseError::UnknownObject { .. } => "unknown_object",
            ParseError::UnknownFormat { .. } => "unknown_format",
            ParseError::UnknownField { .. } => "unknown_field",
            ParseError::UnknownSymmetry { .. } => "unknown_symmetry",
            ParseError::ArrayPattern => "array_pattern",
            ParseError::MissingSizeLine => "missing_size_line",
            ParseError::BadSizeLine { .. } => "bad_size_line",
            ParseError::TooLarge { .. } => "too_large",
            ParseError::OutOfMemory { .. } => "out_of_memory",
            ParseError::JobTooLarge { .. } => "job_too_large",
            ParseError::NotSquare { .. } => "not_square",
            ParseError::TooFewEntries { .. } => "too_few_entries",
            ParseError::TooManyEntries { .. } => "too_many_entries",
            ParseError::BadIndex { .. } => "bad_index",
            ParseError::IndexOutOfRange { .. } => "index_out_of_range",
            ParseError::BadValue { .. } => "bad_value",
            ParseError::WrongTokenCount { .. } => "wrong_token_count",
            ParseError::AboveDiagonal { .. } => "above_diagonal",
            ParseError::SkewDiagonal { .. } => "skew_diagonal",
            ParseError::HermitianDiagonal { .. } => "hermitian_diagonal",
            ParseError::IntegerOverflow { .. } => "integer_overflow",
            ParseError::TooLong { .. } => "too_long",
            ParseError::NotUtf8 => "not_utf8",
            ParseError::Gzip { .. } => "gzip",
            ParseError::RepeatedIndex { .. } => "repeated_index",
            ParseError::PermutationIndexOutOfRange { .. } => "index_out_of_range",
            ParseError::WrongLength { .. } => "wrong_length",
        }
    }
}

/// Converts the sparse crate's size error into the line-level error.
impl From<SparseError> for ParseError {
    fn from(e: SparseError) -> Self {
        match e {
            SparseError::TooLarge { what, value, max } => ParseError::TooLarge { what, value, max },
            SparseError::OutOfMemory { what, bytes } => ParseError::OutOfMemory { what, bytes },
            other => ParseError::BadSizeLine {
                expected: "a valid matrix size",
                found: other.to_string(),
            },
        }
    }
}

/// At most 60 characters of `bytes`, lossily decoded, for error messages.
pub(crate) fn excerpt(bytes: &[u8]) -> String {
    const MAX: usize = 60;
    let text = String::from_utf8_lossy(bytes);
    let trimmed = text.trim();
    if trimmed.chars().count() <= MAX {
        trimmed.to_string()
    } else {
        let mut s: String = trimmed.chars().take(MAX).collect();
        s.push('…');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_file_and_line() {
        let e = MtxError::Parse {
            path: Some(PathBuf::from("a.mtx")),
            line: 7,
            kind: ParseError::TooManyEntries { expected: 3 },
        };
        assert_eq!(
            e.to_string(),
            "a.mtx:7: more entries than the 3 the size line announces"
        );
        let e = MtxError::at(2, ParseError::MissingSizeLine);
        assert!(e.to_string().starts_with("<input>:2: "));
        assert_eq!(e.line(), Some(2));
        assert_eq!(e.parse_error().unwrap().name(), "missing_size_line");
    }

    #[test]
    fn excerpt_shortens() {
        assert_eq!(excerpt(b"  abc \r"), "abc");
        assert_eq!(excerpt(&[b'x'; 100]).chars().count(), 61);
    }
}
