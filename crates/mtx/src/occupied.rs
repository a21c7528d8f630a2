//! Reading a matrix without its empty rows and columns: [`read_path_occupied`] gives the part of
//! the matrix that holds entries and its [`Occupancy`], so that what the reader and its caller
//! allocate follows the entries of the file, not the size it declares: a file of three entries
//! declaring 2^26 rows costs three entries, not 2^26 row offsets.
//!
//! Coordinate files (Matrix Market, and scipy's COO layout) are compacted before assembly
//! (`O(nnz log nnz)`, no per-row work). Array files and the other binary layouts hold every row
//! already (values, or row offsets), so they are read whole and restricted. Called by `read.rs`; used by `spmv-reorder info`.

use crate::binary_error::{BinaryError, BinaryFormat};
use crate::body::{Chunk, Layout};
use crate::error::{MtxError, ParseError};
use crate::options::no_progress;
use crate::read::{read_path_as, Assembly};
use crate::stream;
use crate::{Format, MatrixMarket, ReadOptions};
use rayon::prelude::*;
use spmv_reorder_sparse::{Occupancy, SparseError};
use std::io::Read;
use std::path::Path;

/// The occupied part of a matrix file and where it sits in the whole matrix.
///
/// # Invariants
/// `file.matrix` is `occupancy.rows().len() x occupancy.cols().len()`, entry `(k, l)` being
/// entry `(occupancy.rows()[k], occupancy.cols()[l])` of the whole matrix, which has no entry
/// elsewhere. `file.header` and `file.comments` are the file's, and `file.stored_nnz()` is the
/// whole matrix's (a square matrix keeps one list for rows and columns, so each entry stays on
/// its side of the diagonal).
#[derive(Debug, Clone, PartialEq)]
pub struct Occupied {
    /// The file, its matrix restricted to the occupied rows and columns.
    pub file: MatrixMarket,
    /// The occupied rows and columns of the whole matrix.
    pub occupancy: Occupancy,
}

impl Occupied {
    /// The occupied part of `m` (all of it for an array file, which stores every value).
    ///
    /// # Errors
    /// [`SparseError::OutOfMemory`] when the part cannot be allocated.
    pub fn of(m: &MatrixMarket) -> Result<Self, SparseError> {
        let occupancy = if m.header.format == Format::Array {
            Occupancy::all(m.nrows(), m.ncols())?
        } else {
            m.matrix.occupancy()?
        };
        Ok(Occupied {
            file: MatrixMarket {
                header: m.header,
                comments: m.comments.clone(),
                matrix: m.matrix.restricted(&occupancy)?,
            },
            occupancy,
        })
    }

    /// The whole matrix, its empty rows and columns put back: `O(nrows + nnz)`.
    ///
    /// # Errors
    /// [`SparseError::OutOfMemory`] when the whole matrix cannot be allocated.
    pub fn whole(&self) -> Result<MatrixMarket, SparseError> {
        Ok(MatrixMarket {
            header: self.file.header,
            comments: self.file.comments.clone(),
            matrix: self.file.matrix.expanded(&self.occupancy)?,
        })
    }
}

/// Reads a matrix file as [`read_path`](crate::read_path) does, building only the rows and
/// columns that hold entries.
///
/// # Errors
/// As [`read_path`](crate::read_path).
pub fn read_path_occupied(path: &Path, opts: &ReadOptions) -> Result<Occupied, MtxError> {
    let (file, occupancy) = read_path_as(path, opts, &no_progress, Assembly::Occupied)?;
    let occupancy = occupancy.expect("an occupied read gives the occupancy");
    Ok(Occupied { file, occupancy })
}

/// Reads a Matrix Market text (plain or gzip) as [`read`](crate::read()) does, building only
/// the rows and columns that hold entries.
///
/// # Errors
/// As [`read`](crate::read()).
pub fn read_occupied<R: Read>(reader: R, opts: &ReadOptions) -> Result<Occupied, MtxError> {
    let (file, occupancy) =
        stream::read_stream_as(reader, None, opts, Assembly::Occupied, &no_progress)?;
    let occupancy = occupancy.expect("an occupied read gives the occupancy");
    Ok(Occupied { file, occupancy })
}

/// The matrix read from a binary file, restricted when `assembly` asks for the occupied part
/// and the reader built the whole matrix.
pub(crate) fn occupied_part(
    (m, occupancy): (MatrixMarket, Option<Occupancy>),
    assembly: Assembly,
    format: BinaryFormat,
) -> Result<(MatrixMarket, Option<Occupancy>), MtxError> {
    if assembly == Assembly::Whole || occupancy.is_some() {
        return Ok((m, occupancy));
    }
    let binary = |e: SparseError| match e {
        SparseError::OutOfMemory { what, bytes } => {
            MtxError::binary(format, BinaryError::OutOfMemory { what, bytes })
        }
        other => unreachable!("the occupancy of a matrix fits it: {other}"),
    };
    let occupancy = m.matrix.occupancy().map_err(binary)?;
    let matrix = m.matrix.restricted(&occupancy).map_err(binary)?;
    Ok((MatrixMarket { matrix, ..m }, Some(occupancy)))
}

/// The occupancy of the entries in `chunks` (indices already checked against `layout`), their
/// indices rewritten to the occupied part's.
///
/// # Errors
/// [`ParseError::OutOfMemory`] when the index lists cannot be allocated.
pub(crate) fn compact_chunks<T: Send>(
    layout: &Layout,
    chunks: &mut [Chunk<T>],
) -> Result<Occupancy, ParseError> {
    let total: usize = chunks.iter().map(|c| c.rows.len()).sum();
    let gather = |side: fn(&Chunk<T>) -> &Vec<u32>| -> Result<Vec<u32>, ParseError> {
        let mut v = Vec::new();
        v.try_reserve_exact(total)
            .map_err(|_| ParseError::OutOfMemory {
                what: "the occupied rows and columns",
                bytes: total as u64 * 4,
            })?;
        chunks.iter().for_each(|c| v.extend_from_slice(side(c)));
        Ok(v)
    };
    let (rows, cols) = (gather(|c| &c.rows)?, gather(|c| &c.cols)?);
    let occupancy = Occupancy::from_indices(layout.nrows, layout.ncols, rows, cols)?;
    let occupied = "an entry's row and column are occupied";
    // Indices become their ranks among the occupied ones, an increasing map: a chunk known to
    // be in row-major order stays so.
    chunks.par_iter_mut().for_each(|c| {
        for r in &mut c.rows {
            *r = occupancy.compact_row(*r).expect(occupied);
        }
        for j in &mut c.cols {
            *j = occupancy.compact_col(*j).expect(occupied);
        }
    });
    Ok(occupancy)
}

/// `e`, raised while assembling the occupied part, with the whole matrix's row and column.
pub(crate) fn whole_indices(e: ParseError, occupancy: &Occupancy) -> ParseError {
    match e {
        ParseError::IntegerOverflow { what, row, col } => ParseError::IntegerOverflow {
            what,
            row: u64::from(occupancy.rows()[row as usize - 1]) + 1,
            col: u64::from(occupancy.cols()[col as usize - 1]) + 1,
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read_path;

    fn write_temp(name: &str, text: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(name), text).unwrap();
        dir
    }

    #[test]
    fn the_occupied_part_is_the_whole_matrix_without_its_empty_rows_and_columns() {
        let texts = [
            "%%MatrixMarket matrix coordinate real general\n9 7 4\n2 7 1\n9 1 2\n2 1 3\n2 7 4\n",
            "%%MatrixMarket matrix coordinate integer symmetric\n8 8 3\n3 3 1\n8 3 -2\n6 1 5\n",
            "%%MatrixMarket matrix coordinate complex hermitian\n5 5 2\n5 2 1 1\n4 4 2 0\n",
            "%%MatrixMarket matrix coordinate pattern general\n4 3 0\n",
            "%%MatrixMarket matrix array real general\n2 3\n1\n0\n2\n0\n0\n4\n",
        ];
        for text in texts {
            let dir = write_temp("a.mtx", text);
            let path = dir.path().join("a.mtx");
            let whole = read_path(&path, &ReadOptions::default()).unwrap();
            let part = read_path_occupied(&path, &ReadOptions::default()).unwrap();
            assert_eq!(part.file.stored_nnz(), whole.stored_nnz(), "{text}");
            assert_eq!(part.file.header, whole.header);
            assert_eq!(Occupied::of(&whole).unwrap(), part, "{text}");
            assert_eq!(part.whole().unwrap(), whole, "{text}");
            let occupied = part.occupancy.rows().len();
            assert_eq!(part.file.nrows(), occupied);
        }
    }

    #[test]
    fn a_huge_declared_size_costs_its_entries_and_overflow_names_the_whole_indices() {
        let text = "%%MatrixMarket matrix coordinate integer general\n4294967295 4294967295 3\n\
                    4294967295 7 9223372036854775807\n4294967295 7 1\n1 1 1\n";
        let dir = write_temp("a.mtx", text);
        let e = read_path_occupied(&dir.path().join("a.mtx"), &ReadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("(4294967295, 7)"), "{e}");
        let fine = text.replace("9223372036854775807", "2");
        std::fs::write(dir.path().join("b.mtx"), fine).unwrap();
        let part = read_path_occupied(&dir.path().join("b.mtx"), &ReadOptions::default()).unwrap();
        assert_eq!((part.file.nrows(), part.file.nnz()), (3, 2));
        assert_eq!(part.occupancy.rows(), &[0, 6, 4294967294]);
    }
}
