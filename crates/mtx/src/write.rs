//! Writing a Matrix Market text: `O(nnz)` for coordinate, `O(m·n)` for array output.
//!
//! The field written is always the matrix's own (an integer matrix stays integer, a pattern stays a
//! pattern); reals are written in shortest round-trip form, so reading the output gives back every
//! value bit for bit. Triangular storage writes the lower triangle of the expanded matrix after
//! checking the symmetry. The body is cut into ranges of rows (or columns, for array output) of
//! about `chunk_lines` lines; a batch of ranges is formatted in parallel, each into its own buffer,
//! then the buffers are written in order on the calling thread (so the writer need not be `Send`).

use crate::error::MtxError;
use crate::header::{Format, Header, Symmetry};
use crate::options::{no_progress, Pool, Progress, WriteOptions};
use crate::symmetry::{self, is_stored};
use crate::value::MtxValue;
use crate::MatrixMarket;
use rayon::prelude::*;
use spmv_reorder_sparse::{AnyCsr, CsrMatrix, Field};
use std::io::Write;
use std::ops::Range;

/// Lines per formatted range unless [`WriteOptions::chunk_lines`] says otherwise.
const DEFAULT_CHUNK_LINES: usize = 1 << 16;

/// Writes `m` as Matrix Market text to `w` (never compressed; see [`crate::write_path`]).
///
/// The header is `m.header` with the format and symmetry of `opts` when given, and the field of
/// `m.matrix`.
///
/// # Errors
/// [`MtxError::Unsupported`] for a pattern in array format or a rectangular matrix in triangular
/// storage, [`MtxError::NotSymmetric`] when the values lack the symmetry to write,
/// [`MtxError::Io`] when writing fails, [`MtxError::ThreadPool`].
pub fn write<W: Write>(w: W, m: &MatrixMarket, opts: &WriteOptions) -> Result<(), MtxError> {
    write_with_progress(w, m, opts, &no_progress)
}

/// [`write()`], telling `progress` the rows (columns for `array` output) written so far.
pub(crate) fn write_with_progress<W: Write>(
    mut w: W,
    m: &MatrixMarket,
    opts: &WriteOptions,
    progress: Progress<'_>,
) -> Result<(), MtxError> {
    let header = output_header(m, opts)?;
    let pool = Pool::new(opts.threads)?;
    let chunk_lines = opts.chunk_lines.unwrap_or(DEFAULT_CHUNK_LINES).max(1);
    let job = Job {
        header,
        comments: &m.comments,
        pool: &pool,
        chunk_lines,
        progress,
    };
    match &m.matrix {
        AnyCsr::Real(a) => job.run(&mut w, a),
        AnyCsr::Integer(a) => job.run(&mut w, a),
        AnyCsr::Complex(a) => job.run(&mut w, a),
        AnyCsr::Pattern(a) => job.run(&mut w, a),
    }?;
    w.flush().map_err(|e| MtxError::io("write", e))
}

/// The header written for `m` with `opts`.
fn output_header(m: &MatrixMarket, opts: &WriteOptions) -> Result<Header, MtxError> {
    let header = Header {
        format: opts.format.unwrap_or(m.header.format),
        field: m.matrix.field(),
        symmetry: opts.symmetry.unwrap_or(m.header.symmetry),
    };
    if header.format == Format::Array && header.field == Field::Pattern {
        return Err(MtxError::Unsupported {
            path: None,
            what: "a pattern matrix in array format (array stores values)".into(),
        });
    }
    Ok(header)
}

/// One write: what to write and how.
struct Job<'a> {
    header: Header,
    comments: &'a [String],
    pool: &'a Pool,
    chunk_lines: usize,
    progress: Progress<'a>,
}

impl Job<'_> {
    fn run<T: MtxValue, W: Write>(&self, w: &mut W, a: &CsrMatrix<T>) -> Result<(), MtxError> {
        let symmetry = self.header.symmetry;
        self.pool.install(|| symmetry::check(a, symmetry))?;
        let io = |e| MtxError::io("write", e);
        w.write_all(self.preamble(a).as_bytes()).map_err(io)?;
        match self.header.format {
            Format::Coordinate => {
                let ranges = row_ranges(a.row_ptr(), self.chunk_lines);
                self.write_ranges(w, &ranges, |rows, out| {
                    coordinate_lines(a, symmetry, rows, out)
                })
            }
            Format::Array => {
                let columns = a.transpose();
                let per_range = (self.chunk_lines / a.nrows().max(1)).max(1);
                let ranges: Vec<Range<usize>> = (0..a.ncols())
                    .step_by(per_range)
                    .map(|j| j..(j + per_range).min(a.ncols()))
                    .collect();
                self.write_ranges(w, &ranges, |cols, out| {
                    array_lines(&columns, symmetry, cols, out)
                })
            }
        }
    }

    /// Banner, comments and size line.
    fn preamble<T: MtxValue>(&self, a: &CsrMatrix<T>) -> String {
        let mut text = format!("{}\n", self.header);
        for c in self.comments {
            text.push('%');
            text.push_str(c);
            text.push('\n');
        }
        match self.header.format {
            Format::Coordinate => {
                let stored = symmetry::stored_count(a, self.header.symmetry);
                text.push_str(&format!("{} {} {stored}\n", a.nrows(), a.ncols()));
            }
            Format::Array => text.push_str(&format!("{} {}\n", a.nrows(), a.ncols())),
        }
        text
    }

    /// Formats `ranges` in parallel batches and writes them in order.
    fn write_ranges<W: Write>(
        &self,
        w: &mut W,
        ranges: &[Range<usize>],
        format: impl Fn(Range<usize>, &mut Vec<u8>) + Sync,
    ) -> Result<(), MtxError> {
        let batch = 4 * self.pool.threads();
        for group in ranges.chunks(batch) {
            let buffers: Vec<Vec<u8>> = self.pool.install(|| {
                group
                    .par_iter()
                    .map(|r| {
                        let mut out = Vec::with_capacity(self.chunk_lines * 24);
                        format(r.clone(), &mut out);
                        out
                    })
                    .collect()
            });
            for b in &buffers {
                w.write_all(b).map_err(|e| MtxError::io("write", e))?;
            }
            if let (Some(done), Some(all)) = (group.last(), ranges.last()) {
                (self.progress)(done.end as u64, all.end as u64);
            }
        }
        Ok(())
    }
}

/// Consecutive row ranges of about `lines` entries each (at least one row each).
fn row_ranges(row_ptr: &[usize], lines: usize) -> Vec<Range<usize>> {
    let nrows = row_ptr.len() - 1;
    let mut ranges = Vec::new();
    let mut start = 0;
    while start < nrows {
        let goal = row_ptr[start] + lines;
        let end = row_ptr
            .partition_point(|&o| o <= goal)
            .clamp(start + 1, nrows);
        ranges.push(start..end);
        start = end;
    }
    ranges
}

/// Appends `i j`, and the value unless it is a pattern, with 1-based indices.
#[inline]
fn coordinate_line<T: MtxValue>(i: usize, j: usize, v: T, out: &mut Vec<u8>) {
    let mut buf = itoa::Buffer::new();
    out.extend_from_slice(buf.format(i + 1).as_bytes());
    out.push(b' ');
    out.extend_from_slice(buf.format(j + 1).as_bytes());
    if T::NUMBERS > 0 {
        out.push(b' ');
        v.format(out);
    }
    out.push(b'\n');
}

/// The coordinate lines of `rows` that `symmetry` stores.
fn coordinate_lines<T: MtxValue>(
    a: &CsrMatrix<T>,
    symmetry: Symmetry,
    rows: Range<usize>,
    out: &mut Vec<u8>,
) {
    for i in rows {
        let (cols, vals) = a.row(i);
        for (&j, &v) in cols.iter().zip(vals) {
            if is_stored(symmetry, i, j as usize) {
                coordinate_line(i, j as usize, v, out);
            }
        }
    }
}

/// The array lines of columns `cols` (`columns` is `Aᵀ`: its row `j` is column `j` of `A`), with
/// zeros for absent entries, from the first row `symmetry` stores.
fn array_lines<T: MtxValue>(
    columns: &CsrMatrix<T>,
    symmetry: Symmetry,
    cols: Range<usize>,
    out: &mut Vec<u8>,
) {
    let nrows = columns.ncols();
    for j in cols {
        let first = match symmetry {
            Symmetry::General => 0,
            Symmetry::Symmetric | Symmetry::Hermitian => j,
            Symmetry::SkewSymmetric => j + 1,
        };
        let (rows, vals) = columns.row(j);
        let mut k = rows.partition_point(|&r| (r as usize) < first);
        for i in first..nrows {
            let v = if rows.get(k) == Some(&(i as u32)) {
                k += 1;
                vals[k - 1]
            } else {
                T::zero()
            };
            v.format(out);
            out.push(b'\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(m: &MatrixMarket, opts: &WriteOptions) -> String {
        let mut out = Vec::new();
        write(&mut out, m, opts).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn coordinate_output() {
        let a = CsrMatrix::from_triplets(2, 3, vec![(0, 2, 1.5), (1, 0, -2.0)]).unwrap();
        let mut m = MatrixMarket::general(AnyCsr::Real(a));
        m.comments.push(" made by a test".into());
        assert_eq!(
            text(&m, &WriteOptions::default()),
            "%%MatrixMarket matrix coordinate real general\n% made by a test\n2 3 2\n1 3 1.5\n2 1 -2.0\n"
        );
    }

    #[test]
    fn array_and_symmetric_output() {
        let a = CsrMatrix::from_triplets(2, 2, vec![(0, 0, 1i64), (1, 0, 7), (0, 1, 7)]).unwrap();
        let m = MatrixMarket::general(AnyCsr::Integer(a));
        let sym = WriteOptions {
            symmetry: Some(Symmetry::Symmetric),
            ..Default::default()
        };
        assert_eq!(
            text(&m, &sym),
            "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n1 1 1\n2 1 7\n"
        );
        let arr = WriteOptions {
            format: Some(Format::Array),
            ..sym
        };
        assert_eq!(
            text(&m, &arr),
            "%%MatrixMarket matrix array integer symmetric\n2 2\n1\n7\n0\n"
        );
    }

    #[test]
    fn pattern_array_is_refused() {
        let a = CsrMatrix::from_triplets(1, 1, vec![(0, 0, ())]).unwrap();
        let m = MatrixMarket::general(AnyCsr::Pattern(a));
        let opts = WriteOptions {
            format: Some(Format::Array),
            ..Default::default()
        };
        assert!(matches!(
            write(Vec::new(), &m, &opts),
            Err(MtxError::Unsupported { .. })
        ));
    }

    #[test]
    fn ranges_cover_rows() {
        let ptr = [0, 3, 3, 10, 11];
        for lines in 1..12 {
            let r = row_ranges(&ptr, lines);
            assert_eq!(r.first().unwrap().start, 0);
            assert_eq!(r.last().unwrap().end, 4);
            assert!(r
                .windows(2)
                .all(|w| w[0].end == w[1].start && w[0].start < w[0].end));
        }
        assert!(row_ranges(&[0], 5).is_empty());
    }
}
