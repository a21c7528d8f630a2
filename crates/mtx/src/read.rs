//! Reading a Matrix Market text: banner, comments and size line sequentially (`O(header)`), then
//! the body in parallel chunks (`body.rs`) and the expanded CSR matrix (`assemble.rs`).
//! `read_bytes` parses text in memory; `read` and `read_path` stream through `stream.rs`.

use crate::assemble::{self, ArrayError};
use crate::binary_error::BinaryFormat;
use crate::body::{self, Chunk, Layout};
use crate::error::{MtxError, ParseError};
use crate::header::{Format, Header, Size};
use crate::input::{self, Counted};
use crate::options::{no_progress, Footprint, Pool, Progress, ReadOptions};
use crate::stream;
use crate::value::MtxValue;
use crate::MatrixMarket;
use spmv_reorder_sparse::{AnyCsr, Complex64, CsrMatrix, Field, Occupancy};
use std::io::{Read, Seek};
use std::path::Path;

/// Reads a matrix file: by its extension scipy's `.npz` or PETSc's binary `.petsc`
/// ([`binary_format_of`](crate::binary_format_of)), otherwise Matrix Market (plain or gzip,
/// detected by its first bytes); `-` reads Matrix Market from stdin. The calling thread reads
/// while the pool parses what was read. Binary files give a general coordinate header and no
/// comments.
///
/// # Errors
/// [`MtxError::Io`] when the file cannot be read, [`MtxError::Parse`] naming the path and line of
/// the first problem of the file, [`MtxError::Binary`] naming the path and what is wrong with a
/// binary file, [`MtxError::ThreadPool`] when `opts.threads` cannot be started.
pub fn read_path(path: &Path, opts: &ReadOptions) -> Result<MatrixMarket, MtxError> {
    read_path_with_progress(path, opts, &no_progress)
}

/// [`read_path`], telling `progress` the bytes read of the file's size as it goes.
///
/// # Errors
/// As [`read_path`].
pub fn read_path_with_progress(
    path: &Path,
    opts: &ReadOptions,
    progress: Progress<'_>,
) -> Result<MatrixMarket, MtxError> {
    read_path_as(path, opts, progress, Assembly::Whole).map(|(m, _)| m)
}

/// [`read_path_with_progress`], building the matrix as `assembly` says (the occupancy second
/// with [`Assembly::Occupied`]).
pub(crate) fn read_path_as(
    path: &Path,
    opts: &ReadOptions,
    progress: Progress<'_>,
    assembly: Assembly,
) -> Result<(MatrixMarket, Option<Occupancy>), MtxError> {
    let named = |e: MtxError| e.with_path(Some(path.to_path_buf()));
    if input::is_dash(path) {
        let stdin = std::io::stdin().lock();
        return stream::read_stream_as(stdin, None, opts, assembly, progress).map_err(named);
    }
    let file = std::fs::File::open(path).map_err(|e| named(MtxError::io("open", e)))?;
    let size = file.metadata().ok().map(|m| m.len());
    match crate::binary_format_of(path) {
        Some(format) => {
            let file = Counted::new(file, size.unwrap_or(0), progress);
            read_binary_as(file, size.unwrap_or(0), format, opts, assembly)
                .and_then(|read| crate::occupied::occupied_part(read, assembly, format))
        }
        None => stream::read_stream_as(file, size, opts, assembly, progress),
    }
    .map_err(named)
}

/// Reads a matrix in a binary `format` (scipy's `.npz` or PETSc's binary) of `len` bytes from
/// `reader`, as [`read_path`] reads a file of that extension: a general coordinate header and
/// no comments.
///
/// # Errors
/// [`MtxError::Io`] when the reader fails, [`MtxError::Binary`] naming what is wrong with the
/// file, [`MtxError::ThreadPool`] when `opts.threads` cannot be started.
pub fn read_binary<R: Read + Seek + Send>(
    reader: R,
    len: u64,
    format: BinaryFormat,
    opts: &ReadOptions,
) -> Result<MatrixMarket, MtxError> {
    read_binary_as(reader, len, format, opts, Assembly::Whole).map(|(m, _)| m)
}

/// [`read_binary`], building the matrix as `assembly` says where the format allows (the
/// occupancy comes second when only the occupied part was built).
fn read_binary_as<R: Read + Seek + Send>(
    reader: R,
    len: u64,
    format: BinaryFormat,
    opts: &ReadOptions,
    assembly: Assembly,
) -> Result<(MatrixMarket, Option<Occupancy>), MtxError> {
    match format {
        BinaryFormat::Npz => crate::npz::read_npz(reader, opts, assembly),
        BinaryFormat::Petsc => crate::petsc::read_petsc(reader, len, opts).map(|m| (m, None)),
    }
}

/// Reads a Matrix Market text (plain or gzip) from any reader.
///
/// # Errors
/// As [`read_path`], without a path in the errors.
pub fn read<R: Read>(reader: R, opts: &ReadOptions) -> Result<MatrixMarket, MtxError> {
    stream::read_stream(reader, None, opts)
}

/// Reads a Matrix Market text already in memory (not compressed).
///
/// # Errors
/// As [`read`].
pub fn read_bytes(bytes: &[u8], opts: &ReadOptions) -> Result<MatrixMarket, MtxError> {
    let pre = Preamble::parse(bytes)?;
    pre.admit(opts.footprint)?;
    let pool = Pool::new(opts.threads)?;
    let body = &bytes[pre.body_offset..];
    let matrix = pool.install(|| match pre.header.field {
        Field::Real => read_body::<f64>(body, &pre, opts).map(AnyCsr::Real),
        Field::Integer => read_body::<i64>(body, &pre, opts).map(AnyCsr::Integer),
        Field::Complex => read_body::<Complex64>(body, &pre, opts).map(AnyCsr::Complex),
        Field::Pattern => read_body::<()>(body, &pre, opts).map(AnyCsr::Pattern),
    })?;
    Ok(MatrixMarket {
        header: pre.header,
        comments: pre.comments,
        matrix,
    })
}

/// Everything before the body.
pub(crate) struct Preamble {
    pub header: Header,
    pub comments: Vec<String>,
    pub size: Size,
    /// Line number of the size line.
    pub size_line: u64,
    /// Offset of the body in the bytes parsed.
    pub body_offset: usize,
    /// Line number of the body's first line.
    pub body_line: u64,
}

impl Preamble {
    /// What every body line must hold.
    pub(crate) fn layout(&self) -> Layout {
        Layout {
            format: self.header.format,
            symmetry: self.header.symmetry,
            nrows: self.size.nrows,
            ncols: self.size.ncols,
        }
    }

    /// Refuses, at the size line, sizes whose job (`footprint`) cannot have its memory.
    pub(crate) fn admit(&self, footprint: Option<Footprint>) -> Result<(), MtxError> {
        let Some(f) = footprint else { return Ok(()) };
        f.admit(self.size.nrows, self.size.ncols, self.size.entries)
            .map_err(|k| MtxError::at(self.size_line, k))
    }

    /// Parses the banner, comments and size line at the start of `bytes`.
    ///
    /// # Errors
    /// [`MtxError::Parse`] with the line of the first problem; [`ParseError::MissingSizeLine`]
    /// when `bytes` ends before the size line.
    pub(crate) fn parse(bytes: &[u8]) -> Result<Self, MtxError> {
        let mut lines = HeaderLines {
            bytes,
            offset: 0,
            line: 0,
        };
        let banner = lines.next().unwrap_or_default();
        // A byte-order mark, as some Windows editors save UTF-8, is not part of the banner.
        let banner = banner.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(banner);
        let header = Header::parse(banner).map_err(|k| MtxError::at(1, k))?;
        let mut comments = Vec::new();
        loop {
            let Some(text) = lines.next() else {
                return Err(MtxError::at(lines.end_line(), ParseError::MissingSizeLine));
            };
            let at = |k| MtxError::at(lines.line, k);
            let trimmed = text.trim_ascii_start();
            if trimmed.is_empty() {
                continue;
            }
            if trimmed[0] == b'%' {
                comments.push(comment_text(trimmed).map_err(at)?);
                continue;
            }
            let size = Size::parse(text, &header).map_err(at)?;
            return Ok(Preamble {
                header,
                comments,
                size,
                size_line: lines.line,
                body_offset: lines.offset,
                body_line: lines.line + 1,
            });
        }
    }
}

/// The lines of the header, one at a time, with their numbers.
struct HeaderLines<'a> {
    bytes: &'a [u8],
    /// Start of the next line.
    offset: usize,
    /// Number of the line last returned.
    line: u64,
}

impl HeaderLines<'_> {
    /// The line where the file ends: after the last line break, or the last line when the file
    /// does not end with one (the convention of `body::check_entries` too).
    fn end_line(&self) -> u64 {
        if self.bytes.last().is_none_or(|&b| b == b'\n') {
            self.line + 1
        } else {
            self.line
        }
    }
}

impl<'a> Iterator for HeaderLines<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let rest = self.bytes.get(self.offset..).filter(|r| !r.is_empty())?;
        let len = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        self.offset = (self.offset + len + 1).min(self.bytes.len());
        self.line += 1;
        Some(&rest[..len])
    }
}

/// The text of a comment line after its `%`, without the line break.
fn comment_text(line: &[u8]) -> Result<String, ParseError> {
    let mut text = &line[1..];
    while let Some((&last, rest)) = text.split_last() {
        if last != b'\r' {
            break;
        }
        text = rest;
    }
    std::str::from_utf8(text)
        .map(str::to_owned)
        .map_err(|_| ParseError::NotUtf8)
}

/// Default chunk size: about 8 chunks per thread, between 64 KiB and 1 MiB (small blocks keep
/// the memory of the blocks read ahead small, and its page faults few).
pub(crate) fn default_chunk_bytes(body_len: usize, threads: usize) -> usize {
    (body_len / (8 * threads.max(1))).clamp(64 << 10, 1 << 20)
}

fn read_body<T: MtxValue>(
    body: &[u8],
    pre: &Preamble,
    opts: &ReadOptions,
) -> Result<CsrMatrix<T>, MtxError> {
    let target = opts
        .chunk_bytes
        .unwrap_or_else(|| default_chunk_bytes(body.len(), rayon::current_num_threads()));
    let chunks = body::split_lines(body, target);
    let parsed = body::parse_chunks::<T>(&chunks, &pre.layout());
    let summaries: Vec<Chunk<T>> = parsed.iter().map(Chunk::summary).collect();
    finish_body(&chunks, &summaries, parsed, pre, Assembly::Whole).map(|(a, _)| a)
}

/// Whether a reader builds the whole matrix or only its occupied rows and columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Assembly {
    /// The matrix as declared.
    Whole,
    /// The rows and columns that hold entries ([`crate::read_path_occupied`]).
    Occupied,
}

/// A matrix as assembled, and its occupancy when only the occupied part was built.
pub(crate) type Assembled<T> = (CsrMatrix<T>, Option<Occupancy>);

/// Checks the parsed chunks (bad lines, entry count: `summaries`, one per chunk of text in
/// `chunks`) and builds the expanded CSR matrix from the entries in `data`.
///
/// # Errors
/// [`MtxError::Parse`] with the line of the first problem.
pub(crate) fn finish_body<T: MtxValue>(
    chunks: &[&[u8]],
    parsed: &[Chunk<T>],
    mut data: Vec<Chunk<T>>,
    pre: &Preamble,
    assembly: Assembly,
) -> Result<Assembled<T>, MtxError> {
    body::check_entries(chunks, parsed, pre.size.entries, pre.body_line)?;
    let layout = pre.layout();
    let at_size_line = |kind| MtxError::at(pre.size_line, kind);
    match (pre.header.format, assembly) {
        (Format::Coordinate, Assembly::Whole) => {
            assemble::coordinate(layout.nrows, layout.ncols, data, layout.symmetry)
                .map(|a| (a, None))
                .map_err(at_size_line)
        }
        (Format::Coordinate, Assembly::Occupied) => {
            let occupancy =
                crate::occupied::compact_chunks(&layout, &mut data).map_err(at_size_line)?;
            let (m, n) = (occupancy.rows().len(), occupancy.cols().len());
            assemble::coordinate(m, n, data, layout.symmetry)
                .map(|a| (a, Some(occupancy.clone())))
                .map_err(|e| at_size_line(crate::occupied::whole_indices(e, &occupancy)))
        }
        (Format::Array, _) => {
            let values: Vec<T> = data.iter().flat_map(|c| c.vals.iter().copied()).collect();
            let a = assemble::array(layout.nrows, layout.ncols, &values, layout.symmetry).map_err(
                |e| match e {
                    ArrayError::Parse(kind) => at_size_line(kind),
                    ArrayError::HermitianDiagonal { entry, index } => MtxError::at(
                        body::line_of_body_entry(chunks, parsed, entry, pre.body_line),
                        ParseError::HermitianDiagonal {
                            index: index as u64 + 1,
                        },
                    ),
                },
            )?;
            // The file holds every value: its occupied part is all of it.
            let occupancy = (assembly == Assembly::Occupied)
                .then(|| Occupancy::all(layout.nrows, layout.ncols))
                .transpose()
                .map_err(|e| at_size_line(e.into()))?;
            Ok((a, occupancy))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(text: &str) -> Result<MatrixMarket, MtxError> {
        read_bytes(text.as_bytes(), &ReadOptions::default())
    }

    #[test]
    fn progress_counts_the_bytes_of_the_file_plain_or_gzip() {
        use std::io::Write;
        use std::sync::Mutex;
        let mut text = String::from("%%MatrixMarket matrix coordinate real general\n900 900 900\n");
        for i in 1..=900 {
            text.push_str(&format!("{i} {i} {i}.25\n"));
        }
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(text.as_bytes()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in [
            ("a.mtx", text.into_bytes()),
            ("a.mtx.gz", gz.finish().unwrap()),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, &bytes).unwrap();
            let told = Mutex::new(Vec::new());
            let progress = |done, total| told.lock().unwrap().push((done, total));
            let opts = ReadOptions {
                threads: Some(2),
                chunk_bytes: Some(1000),
                ..Default::default()
            };
            assert_eq!(
                read_path_with_progress(&path, &opts, &progress)
                    .unwrap()
                    .nnz(),
                900
            );
            let told = told.into_inner().unwrap();
            let size = bytes.len() as u64;
            assert!(told.len() > 1, "{name}: told more than once");
            assert!(told.iter().all(|&(_, total)| total == size), "{name}");
            assert!(
                told.windows(2).all(|w| w[0].0 <= w[1].0),
                "{name}: never back"
            );
            assert_eq!(told.last().unwrap().0, size, "{name}: all of it at the end");
        }
    }

    #[test]
    fn a_byte_order_mark_before_the_banner_is_skipped() {
        let text = "\u{feff}%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2.5\n";
        let m = read_str(text).unwrap();
        assert_eq!((m.nrows(), m.nnz()), (1, 1));
    }

    #[test]
    fn preamble_keeps_comments() {
        let m = read_str(
            "%%MatrixMarket matrix coordinate integer general\r\n% one\r\n\n%two\n 2 3 1\n1 3 -7\n",
        )
        .unwrap();
        assert_eq!(m.comments, vec![" one".to_string(), "two".to_string()]);
        let AnyCsr::Integer(a) = &m.matrix else {
            panic!()
        };
        assert_eq!((a.nrows(), a.ncols(), a.nnz()), (2, 3, 1));
        assert_eq!(a.row(0), (&[2u32][..], &[-7i64][..]));
    }

    #[test]
    fn preamble_errors_have_lines() {
        let e = read_str("").unwrap_err();
        assert_eq!(
            (e.line(), e.parse_error().unwrap().name()),
            (Some(1), "missing_banner")
        );
        let e = read_str("%%MatrixMarket matrix coordinate real general\n%c\n").unwrap_err();
        assert_eq!(
            (e.line(), e.parse_error().unwrap().name()),
            (Some(3), "missing_size_line")
        );
        let e = read_str("%%MatrixMarket matrix coordinate real general\n\n2 x 1\n").unwrap_err();
        assert_eq!(
            (e.line(), e.parse_error().unwrap().name()),
            (Some(3), "bad_size_line")
        );
    }

    #[test]
    fn default_chunks_are_bounded() {
        assert_eq!(default_chunk_bytes(0, 2), 64 << 10);
        assert_eq!(default_chunk_bytes(1 << 40, 1), 1 << 20);
    }
}
