//! Parsing the body (the lines after the size line) in chunks: `O(bytes)` work, split over the
//! threads of the current rayon pool with no locks.
//!
//! The body is cut at line breaks into chunks of about `chunk_bytes` ([`split_lines`]); each chunk
//! is parsed into its own buffers ([`parse_chunk`]) and remembers how many line breaks it holds and
//! where it failed. [`check_entries`] then walks the chunks in file order, so the reported error is
//! the first one in the file with its exact line number, whatever the number of threads or the
//! chunk size: parallel parsing reports what a sequential reader would. Called by `read.rs`.

use crate::error::{MtxError, ParseError};
use crate::header::{Format, Symmetry};
use crate::value::{is_space, MtxValue, Tokens};
use rayon::prelude::*;

/// What a body line must hold, from the header and the size line.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout {
    pub format: Format,
    pub symmetry: Symmetry,
    pub nrows: usize,
    pub ncols: usize,
}

/// The entries of one chunk, in file order, and where the chunk failed.
///
/// A chunk may also be a *summary*: its counts and failure without its entries (the vectors are
/// empty), when the entries went into a buffer shared by several chunks ([`parse_chunk_into`]).
#[derive(Debug)]
pub(crate) struct Chunk<T> {
    /// 0-based rows (coordinate format only).
    pub rows: Vec<u32>,
    /// 0-based columns (coordinate format only).
    pub cols: Vec<u32>,
    /// Values (one per entry line).
    pub vals: Vec<T>,
    /// Entries parsed (`vals.len()` unless a summary).
    count: usize,
    /// Whether the entries are sorted by row then column without repeats, when known.
    pub row_major: Option<bool>,
    /// Line breaks in the chunk.
    newlines: u64,
    /// The first bad line, if any (parsing of the chunk stops there).
    failure: Option<Failure>,
}

#[derive(Debug, Clone)]
struct Failure {
    /// Line breaks in the chunk before the bad line.
    line: u64,
    /// True when the bad line is an entry line (not a comment).
    entry_line: bool,
    kind: ParseError,
}

impl<T> Chunk<T> {
    /// A chunk with no entries.
    pub(crate) fn empty() -> Self {
        Chunk {
            rows: Vec::new(),
            cols: Vec::new(),
            vals: Vec::new(),
            count: 0,
            newlines: 0,
            failure: None,
            row_major: None,
        }
    }

    /// A chunk of the given entries (no line counts: the entries of several chunks), and
    /// whether they are in row-major order when that is known.
    pub(crate) fn of_entries(
        rows: Vec<u32>,
        cols: Vec<u32>,
        vals: Vec<T>,
        row_major: Option<bool>,
    ) -> Self {
        Chunk {
            rows,
            cols,
            vals,
            row_major,
            ..Chunk::empty()
        }
        .seal()
    }

    /// Entries parsed.
    pub(crate) fn len(&self) -> usize {
        self.count
    }

    /// The chunk without its entries.
    pub(crate) fn summary(&self) -> Self {
        Chunk {
            count: self.count,
            newlines: self.newlines,
            failure: self.failure.clone(),
            ..Chunk::empty()
        }
    }

    /// Makes a chunk that received the entries of others ([`parse_chunk_into`]) count them.
    pub(crate) fn seal(mut self) -> Self {
        self.count = self.vals.len();
        self
    }

    /// True when every line of the chunk parsed.
    pub(crate) fn is_clean(&self) -> bool {
        self.failure.is_none()
    }

    /// Line breaks in `bytes`, the chunk's text (counted when parsing stopped early; `bytes` may
    /// be empty for a clean chunk whose text was released).
    pub(crate) fn line_breaks(&self, bytes: &[u8]) -> u64 {
        if self.is_clean() {
            self.newlines
        } else {
            memchr::memchr_iter(b'\n', bytes).count() as u64
        }
    }
}

/// Cuts `body` after line breaks into chunks of at least `target` bytes (the last may be shorter).
pub(crate) fn split_lines(body: &[u8], target: usize) -> Vec<&[u8]> {
    let target = target.max(1);
    let mut chunks = Vec::with_capacity(body.len() / target + 1);
    let mut start = 0;
    while start < body.len() {
        let probe = start + target;
        let end = if probe >= body.len() {
            body.len()
        } else {
            memchr::memchr(b'\n', &body[probe - 1..]).map_or(body.len(), |i| probe + i)
        };
        chunks.push(&body[start..end]);
        start = end;
    }
    chunks
}

/// What a line is, before parsing its numbers.
enum LineKind {
    Blank,
    Comment,
    Entry,
}

#[inline]
fn classify(line: &[u8]) -> LineKind {
    match line.iter().find(|&&b| !is_space(b)) {
        None => LineKind::Blank,
        Some(b'%') => LineKind::Comment,
        Some(_) => LineKind::Entry,
    }
}

/// Iterates the lines of `bytes` (without their `\n`).
fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = Some(bytes);
    std::iter::from_fn(move || {
        let r = rest?;
        match memchr::memchr(b'\n', r) {
            Some(i) => {
                rest = Some(&r[i + 1..]);
                Some(&r[..i])
            }
            None => {
                rest = None;
                (!r.is_empty()).then_some(r)
            }
        }
    })
}

/// Parses the lines of one chunk into its own buffers; stops at the first bad line. The buffers
/// are sized by the chunk's lines, counted first (a pass at the speed of memory): a guess from
/// its bytes either grows them, copying what they hold into fresh memory, when lines are short
/// (patterns), or reserves far more than is used when they are long.
pub(crate) fn parse_chunk<T: MtxValue>(bytes: &[u8], layout: &Layout) -> Chunk<T> {
    let estimate = line_count(bytes);
    let mut data = Chunk::empty();
    data.vals.reserve(estimate);
    if layout.format == Format::Coordinate {
        data.rows.reserve(estimate);
        data.cols.reserve(estimate);
    }
    let summary = parse_chunk_into(bytes, layout, &mut data);
    Chunk {
        rows: data.rows,
        cols: data.cols,
        vals: data.vals,
        ..summary
    }
}

/// Where parsed entries go: a chunk's own vectors, or its region of arrays shared by all
/// chunks ([`crate::entry_arrays::Region`]).
pub(crate) trait EntrySink<T> {
    /// Appends a coordinate entry.
    fn push_entry(&mut self, row: u32, col: u32, value: T);
    /// Appends the value of an array entry.
    fn push_value(&mut self, value: T);
    /// Entries appended so far.
    fn entries(&self) -> usize;
}

impl<T> EntrySink<T> for Chunk<T> {
    #[inline(always)]
    fn push_entry(&mut self, row: u32, col: u32, value: T) {
        self.rows.push(row);
        self.cols.push(col);
        self.vals.push(value);
    }

    #[inline(always)]
    fn push_value(&mut self, value: T) {
        self.vals.push(value);
    }

    fn entries(&self) -> usize {
        self.vals.len()
    }
}

/// Lines of `bytes`: its line breaks, and one more when it does not end with one. Each entry
/// takes a line, so no chunk has more entries than this.
pub(crate) fn line_count(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
        + usize::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

/// Parses the lines of one chunk, appending its entries to `data` (shared by consecutive
/// chunks, or the chunk's region of the final arrays); returns the chunk's summary. Stops at
/// the first bad line.
pub(crate) fn parse_chunk_into<T: MtxValue, S: EntrySink<T>>(
    bytes: &[u8],
    layout: &Layout,
    data: &mut S,
) -> Chunk<T> {
    let before = data.entries();
    let mut summary = Chunk::empty();
    let coordinate = layout.format == Format::Coordinate;
    let mut pos = 0;
    while pos < bytes.len() {
        if coordinate {
            if let Some((row, col, value, len)) = plain_entry::<T>(&bytes[pos..], layout) {
                data.push_entry(row, col, value);
                summary.newlines += 1;
                pos += len;
                continue;
            }
        }
        let end = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |i| pos + i);
        if let Err((entry_line, kind)) = parse_line(&bytes[pos..end], layout, data) {
            summary.failure = Some(Failure {
                line: summary.newlines,
                entry_line,
                kind,
            });
            summary.count = data.entries() - before;
            return summary;
        }
        summary.newlines += 1;
        pos = end + 1;
    }
    if bytes.last() != Some(&b'\n') && !bytes.is_empty() {
        summary.newlines -= 1;
    }
    summary.count = data.entries() - before;
    summary
}

/// The coordinate entry at the start of `text` when its line is a plain, valid one; with the
/// length of the line and its line break. `None` sends the line to [`parse_line`], which handles
/// comments and blank lines and builds the error of a bad line: this fast path finds no line
/// end first and builds no error.
#[inline(always)]
fn plain_entry<T: MtxValue>(text: &[u8], layout: &Layout) -> Option<(u32, u32, T, usize)> {
    let mut tokens = Tokens::new(text, 2 + T::NUMBERS);
    let row = tokens.index("row", layout.nrows).ok()?;
    let col = tokens.index("column", layout.ncols).ok()?;
    let value = T::parse(&mut tokens).ok()?;
    tokens.finish().ok()?;
    if layout.symmetry.is_triangular() && check_triangle(layout.symmetry, row, col, value).is_err()
    {
        return None;
    }
    Some((row, col, value, (tokens.position() + 1).min(text.len())))
}

/// Parses one line (without its line break) into `data`: `Err((entry_line, kind))` for a bad
/// line, `entry_line` telling whether it was an entry (not a comment).
fn parse_line<T: MtxValue, S: EntrySink<T>>(
    line: &[u8],
    layout: &Layout,
    data: &mut S,
) -> Result<(), (bool, ParseError)> {
    match classify(line) {
        LineKind::Blank => Ok(()),
        LineKind::Comment => check_utf8(line).map_err(|kind| (false, kind)),
        LineKind::Entry => parse_entry(line, layout, data).map_err(|kind| {
            let kind = if std::str::from_utf8(line).is_err() {
                ParseError::NotUtf8
            } else {
                kind
            };
            (true, kind)
        }),
    }
}

fn check_utf8(line: &[u8]) -> Result<(), ParseError> {
    std::str::from_utf8(line)
        .map(drop)
        .map_err(|_| ParseError::NotUtf8)
}

#[inline]
fn parse_entry<T: MtxValue, S: EntrySink<T>>(
    line: &[u8],
    layout: &Layout,
    data: &mut S,
) -> Result<(), ParseError> {
    match layout.format {
        Format::Coordinate => {
            let mut tokens = Tokens::new(line, 2 + T::NUMBERS);
            let row = tokens.index("row", layout.nrows)?;
            let col = tokens.index("column", layout.ncols)?;
            let value = T::parse(&mut tokens)?;
            tokens.finish()?;
            if layout.symmetry.is_triangular() {
                check_triangle(layout.symmetry, row, col, value)?;
            }
            data.push_entry(row, col, value);
        }
        Format::Array => {
            let mut tokens = Tokens::new(line, T::NUMBERS);
            let value = T::parse(&mut tokens)?;
            tokens.finish()?;
            data.push_value(value);
        }
    }
    Ok(())
}

/// The constraints of triangular storage on one coordinate entry (0-based `row`, `col`).
fn check_triangle<T: MtxValue>(
    symmetry: Symmetry,
    row: u32,
    col: u32,
    value: T,
) -> Result<(), ParseError> {
    let (r, c) = (u64::from(row) + 1, u64::from(col) + 1);
    if row < col {
        return Err(ParseError::AboveDiagonal {
            symmetry,
            row: r,
            col: c,
        });
    }
    if symmetry == Symmetry::SkewSymmetric && !value.has_negation() {
        return Err(ParseError::IntegerOverflow {
            what: "the mirror (the negation) of this entry",
            row: c,
            col: r,
        });
    }
    if row == col {
        match symmetry {
            Symmetry::SkewSymmetric => return Err(ParseError::SkewDiagonal { index: r }),
            Symmetry::Hermitian if !value.is_real() => {
                return Err(ParseError::HermitianDiagonal { index: r })
            }
            _ => {}
        }
    }
    Ok(())
}

/// Parses every chunk on the current rayon pool.
pub(crate) fn parse_chunks<T: MtxValue>(chunks: &[&[u8]], layout: &Layout) -> Vec<Chunk<T>> {
    chunks
        .par_iter()
        .map(|bytes| parse_chunk::<T>(bytes, layout))
        .collect()
}

/// Reports the first problem of the body in file order: a bad line, more entries than `expected`,
/// or fewer. `first_line` is the line number of the body's first line.
///
/// # Errors
/// [`MtxError::Parse`] with the exact line.
pub(crate) fn check_entries<T>(
    chunks: &[&[u8]],
    parsed: &[Chunk<T>],
    expected: u64,
    first_line: u64,
) -> Result<(), MtxError> {
    let mut entries_before = 0u64;
    let mut line_before = first_line;
    for (bytes, chunk) in chunks.iter().zip(parsed) {
        let entry_lines =
            chunk.len() as u64 + u64::from(chunk.failure.as_ref().is_some_and(|f| f.entry_line));
        if entries_before + entry_lines > expected {
            let extra = (expected - entries_before) as usize;
            return Err(MtxError::at(
                line_before + line_of_entry(bytes, extra),
                ParseError::TooManyEntries { expected },
            ));
        }
        if let Some(f) = &chunk.failure {
            return Err(MtxError::at(line_before + f.line, f.kind.clone()));
        }
        entries_before += chunk.len() as u64;
        line_before += chunk.newlines;
    }
    if entries_before < expected {
        return Err(MtxError::at(
            line_before,
            ParseError::TooFewEntries {
                expected,
                found: entries_before,
            },
        ));
    }
    Ok(())
}

/// Line breaks before the `index`-th (0-based) entry line of `bytes`.
pub(crate) fn line_of_entry(bytes: &[u8], index: usize) -> u64 {
    lines(bytes)
        .enumerate()
        .filter(|(_, line)| matches!(classify(line), LineKind::Entry))
        .nth(index)
        .map_or(0, |(i, _)| i as u64)
}

/// The line number of the `index`-th (0-based) entry of the whole body.
pub(crate) fn line_of_body_entry<T>(
    chunks: &[&[u8]],
    parsed: &[Chunk<T>],
    index: usize,
    first_line: u64,
) -> u64 {
    let mut before = 0;
    let mut line = first_line;
    for (bytes, chunk) in chunks.iter().zip(parsed) {
        if index < before + chunk.len() {
            return line + line_of_entry(bytes, index - before);
        }
        before += chunk.len();
        line += chunk.newlines;
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAYOUT: Layout = Layout {
        format: Format::Coordinate,
        symmetry: Symmetry::General,
        nrows: 3,
        ncols: 3,
    };

    type Entries = Vec<(u32, u32, f64)>;

    fn check(body: &str, expected: u64, chunk: usize) -> Result<Entries, (u64, String)> {
        let chunks = split_lines(body.as_bytes(), chunk);
        let parsed = parse_chunks::<f64>(&chunks, &LAYOUT);
        check_entries(&chunks, &parsed, expected, 10).map_err(|e| {
            (
                e.line().unwrap(),
                e.parse_error().unwrap().name().to_string(),
            )
        })?;
        Ok(parsed
            .iter()
            .flat_map(|c| (0..c.len()).map(move |k| (c.rows[k], c.cols[k], c.vals[k])))
            .collect())
    }

    #[test]
    fn chunks_end_at_line_breaks() {
        let body = b"1 1 1\n2 2 2\n\n3 3 3";
        for target in 1..body.len() + 2 {
            let chunks = split_lines(body, target);
            assert_eq!(chunks.concat(), body.to_vec());
            for c in &chunks[..chunks.len() - 1] {
                assert_eq!(c.last(), Some(&b'\n'));
            }
        }
        assert!(split_lines(b"", 4).is_empty());
    }

    #[test]
    fn same_result_for_every_chunk_size() {
        let body = "1 1 1\n% note\n\n 2\t2 2.5\r\n3 1 -1\n";
        for target in 1..body.len() + 2 {
            let got = check(body, 3, target).unwrap();
            assert_eq!(got, vec![(0, 0, 1.0), (1, 1, 2.5), (2, 0, -1.0)]);
            assert_eq!(check(body, 2, target), Err((14, "too_many_entries".into())));
            assert_eq!(check(body, 4, target), Err((15, "too_few_entries".into())));
            let bad = body.replace("3 1 -1", "3 1 x");
            assert_eq!(check(&bad, 3, target), Err((14, "bad_value".into())));
            // The extra entry comes first: a sequential reader would stop there.
            assert_eq!(check(&bad, 2, target), Err((14, "too_many_entries".into())));
        }
    }

    #[test]
    fn last_line_without_break() {
        assert_eq!(
            check("1 1 1\n2 2 2", 3, 3),
            Err((11, "too_few_entries".into()))
        );
        assert_eq!(
            check("1 1 1\n2 2 2\n", 3, 3),
            Err((12, "too_few_entries".into()))
        );
    }

    #[test]
    fn triangle_rules() {
        let sym = Layout {
            symmetry: Symmetry::SkewSymmetric,
            ..LAYOUT
        };
        let c = parse_chunk::<f64>(b"2 1 1\n1 2 1\n", &sym);
        assert_eq!(c.failure.unwrap().kind.name(), "above_diagonal");
        let c = parse_chunk::<f64>(b"2 2 1\n", &sym);
        assert_eq!(c.failure.unwrap().kind.name(), "skew_diagonal");
    }

    #[test]
    fn non_utf8_is_named() {
        let c = parse_chunk::<f64>(b"1 1 \xff\n", &LAYOUT);
        assert_eq!(c.failure.unwrap().kind, ParseError::NotUtf8);
        let c = parse_chunk::<f64>(b"% caf\xe9\n", &LAYOUT);
        assert_eq!(c.failure.unwrap().kind, ParseError::NotUtf8);
    }
}
