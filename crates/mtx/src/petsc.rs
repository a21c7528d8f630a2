//! PETSc's binary matrix format, as `MatView` writes an AIJ matrix to a binary viewer and
//! `MatLoad` reads it (PETSc manual, `MatLoad`): big-endian `PetscInt` class id 1211216, rows,
//! columns, nonzeros, the nonzeros of each row, the 0-based column indices of all nonzeros, then
//! the `PetscScalar` values. `O(nnz + rows)` time; memory is the matrix plus one block.
//! Called by `files.rs`.
//!
//! - `PetscInt` is 32 bits, or 64 in builds configured `--with-64-bit-indices`: the class id tells
//!   which (its first four bytes are zero in 64-bit files). Both are read; 32 bits are written
//!   when rows, columns and nonzeros fit, 64 otherwise.
//! - `PetscScalar` is a double, a single (`--with-precision=single`) or a complex double
//!   (`--with-scalar-type=complex`): the bytes left after the column indices tell which (when
//!   another object such as a vector follows the matrix, doubles are assumed). Reals and
//!   integers are written as doubles (an integer beyond 2^53 is refused: it would not be exact),
//!   complex values as complex doubles, patterns as ones.
//! - Column indices within a row are sorted by `MatView`; unsorted rows are sorted and duplicates
//!   summed all the same. The dense layout (nonzeros -1) is refused.

use crate::assemble;
use crate::binary_error::{BinaryError, BinaryFormat};
use crate::error::MtxError;
use crate::header::Header;
use crate::npy::{self, Dtype, Kind};
use crate::options::{Pool, Progress, ReadOptions};
use crate::output::{write_output, CountedWriter};
use crate::MatrixMarket;
use spmv_reorder_sparse::{AnyCsr, Complex64, CsrMatrix};
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// `MAT_FILE_CLASSID`.
pub(crate) const MAT_CLASSID: u32 = 1_211_216;
/// Class ids of the objects that may follow a matrix in one file (`Vec`, `IS`).
const FOLLOWING_CLASSIDS: [u32; 3] = [1_211_214, MAT_CLASSID, 1_211_218];

const FORMAT: BinaryFormat = BinaryFormat::Petsc;

fn err(kind: BinaryError) -> MtxError {
    MtxError::binary(FORMAT, kind)
}

/// A big-endian array of `count` elements of `dtype`, as npy's reader sees it.
fn array(kind: Kind, size: usize, count: u64) -> npy::Header {
    npy::Header {
        descr: String::new(),
        dtype: Dtype {
            kind,
            size,
            big_endian: true,
        },
        shape: vec![count],
    }
}

/// Reads the first matrix of a PETSc binary file of `len` bytes from `file`.
///
/// # Errors
/// [`MtxError::Io`] when the file cannot be read, [`MtxError::Binary`] naming what is wrong.
pub(crate) fn read_petsc<R: Read + Seek>(
    file: R,
    len: u64,
    opts: &ReadOptions,
) -> Result<MatrixMarket, MtxError> {
    let mut r = BufReader::with_capacity(1 << 20, file);
    let width = index_width(&mut r)?;
    let ints = |r: &mut BufReader<R>, what, count| -> Result<Vec<i128>, MtxError> {
        npy::read_data(r, &array(Kind::Int, width, count), what, |_, b| {
            Ok(npy::integer(b, array(Kind::Int, width, 0).dtype))
        })
        .map_err(err)
    };
    let sizes = ints(&mut r, "the header", 3)?;
    let (nrows, ncols, nnz) = (sizes[0], sizes[1], sizes[2]);
    if nnz == -1 {
        return Err(err(BinaryError::DenseLayout));
    }
    let dim = |what, value: i128, max: u64| {
        if (0..=i128::from(max)).contains(&value) {
            Ok(value as u64)
        } else {
            Err(err(BinaryError::BadSize { what, value, max }))
        }
    };
    let nrows = dim("rows", nrows, u64::from(u32::MAX))?;
    let ncols = dim("columns", ncols, u64::from(u32::MAX))?;
    let nnz = dim("nonzeros", nnz, len)?;
    let header_bytes = 4 * width as u64;
    let needed = header_bytes + (nrows + nnz) * width as u64;
    if needed > len {
        return Err(err(BinaryError::Truncated {
            what: "the row lengths and column indices",
            needed: needed - header_bytes,
        }));
    }
    let row_ptr = read_row_ptr(&mut r, width, nrows, nnz)?;
    let col_idx = read_col_idx(&mut r, width, nnz, ncols)?;
    let scalar = scalar_bytes(&mut r, len - needed, nnz)?;
    let shape = (nrows as usize, ncols as usize);
    let pool = Pool::new(opts.threads)?;
    let matrix = match read_values(&mut r, scalar, nnz)? {
        Values::Complex(vals) => AnyCsr::Complex(
            pool.install(|| assemble::canonical(shape.0, shape.1, row_ptr, col_idx, vals))
                .map_err(err)?,
        ),
        Values::Real(vals) => AnyCsr::Real(
            pool.install(|| assemble::canonical(shape.0, shape.1, row_ptr, col_idx, vals))
                .map_err(err)?,
        ),
    };
    Ok(MatrixMarket {
        header: Header::general(matrix.field()),
        comments: Vec::new(),
        matrix,
    })
}

/// The `nnz` column indices, each checked to be below `ncols`.
fn read_col_idx<R: Read>(
    r: &mut R,
    width: usize,
    nnz: u64,
    ncols: u64,
) -> Result<Vec<u32>, MtxError> {
    npy::read_data(
        r,
        &array(Kind::Int, width, nnz),
        "column indices",
        |position, b| {
            let index = npy::integer(b, array(Kind::Int, width, 0).dtype);
            if (0..i128::from(ncols)).contains(&index) {
                Ok(index as u32)
            } else {
                Err(BinaryError::IndexOutOfRange {
                    what: "column indices",
                    position,
                    index,
                    dim: ncols,
                })
            }
        },
    )
    .map_err(err)
}

/// The values of a PETSc file, real or complex.
enum Values {
    Real(Vec<f64>),
    Complex(Vec<Complex64>),
}

/// The `nnz` values of `scalar` bytes each (16: complex, else real).
fn read_values<R: Read>(r: &mut R, scalar: usize, nnz: u64) -> Result<Values, MtxError> {
    let values = if scalar == 16 {
        let complex = |_, b: &[u8]| {
            Ok(Complex64::new(
                npy::float(&b[..8], true),
                npy::float(&b[8..], true),
            ))
        };
        Values::Complex(
            npy::read_data(r, &array(Kind::Complex, 16, nnz), "values", complex).map_err(err)?,
        )
    } else {
        let real = |_, b: &[u8]| Ok(npy::float(b, true));
        Values::Real(
            npy::read_data(r, &array(Kind::Float, scalar, nnz), "values", real).map_err(err)?,
        )
    };
    Ok(values)
}

/// Bytes per `PetscInt`, from the class id.
fn index_width<R: Read>(r: &mut R) -> Result<usize, MtxError> {
    let mut word = [0u8; 4];
    let mut next = |r: &mut R| -> Result<u32, MtxError> {
        r.read_exact(&mut word).map_err(|_| {
            err(BinaryError::Truncated {
                what: "the header",
                needed: 16,
            })
        })?;
        Ok(u32::from_be_bytes(word))
    };
    match next(r)? {
        MAT_CLASSID => Ok(4),
        0 => match next(r)? {
            MAT_CLASSID => Ok(8),
            other => Err(err(BinaryError::NotAPetscMatrix {
                found: u64::from(other),
            })),
        },
        other => Err(err(BinaryError::NotAPetscMatrix {
            found: u64::from(other),
        })),
    }
}

/// Row offsets from the row lengths, which must add up to `nnz`.
fn read_row_ptr<R: Read>(
    r: &mut R,
    width: usize,
    nrows: u64,
    nnz: u64,
) -> Result<Vec<usize>, MtxError> {
    const WHAT: &str = "row lengths";
    let dtype = array(Kind::Int, width, 0).dtype;
    let mut total = 0i128;
    let mut row_ptr = npy::read_data(r, &array(Kind::Int, width, nrows), WHAT, |position, b| {
        let before = total;
        let length = npy::integer(b, dtype);
        if !(0..=i128::from(nnz)).contains(&length) || before + length > i128::from(nnz) {
            return Err(BinaryError::IndexOutOfRange {
                what: WHAT,
                position,
                index: length,
                dim: nnz - before as u64 + 1,
            });
        }
        total += length;
        Ok(before as usize)
    })
    .map_err(err)?;
    if total != i128::from(nnz) {
        return Err(err(BinaryError::WrongLength {
            what: "the nonzeros of the row lengths",
            expected: nnz,
            found: total as u64,
        }));
    }
    row_ptr.push(nnz as usize);
    Ok(row_ptr)
}

/// Bytes per scalar: what fills the `rest` of the file exactly (16, 8 or 4 per value), or 8
/// when another PETSc object follows the values.
fn scalar_bytes<R: Read + Seek>(r: &mut R, rest: u64, nnz: u64) -> Result<usize, MtxError> {
    if nnz == 0 {
        return Ok(8);
    }
    for size in [8, 16, 4] {
        if rest == size * nnz {
            return Ok(size as usize);
        }
    }
    if rest > 8 * nnz + 4 {
        let start = r.stream_position().map_err(|e| MtxError::io("read", e))?;
        let io = |e| MtxError::io("read", e);
        r.seek(SeekFrom::Start(start + 8 * nnz)).map_err(io)?;
        let mut word = [0u8; 4];
        r.read_exact(&mut word).map_err(io)?;
        r.seek(SeekFrom::Start(start)).map_err(io)?;
        if FOLLOWING_CLASSIDS.contains(&u32::from_be_bytes(word)) {
            return Ok(8);
        }
    }
    Err(err(BinaryError::UnknownScalar { bytes: rest, nnz }))
}

/// Writes `m`'s matrix in PETSc's binary format, atomically.
///
/// # Errors
/// [`MtxError::Unsupported`] for an integer value that a double cannot hold exactly,
/// [`MtxError::Io`] naming `path` when the file cannot be written.
pub(crate) fn write_petsc(
    path: &Path,
    m: &MatrixMarket,
    progress: Progress<'_>,
) -> Result<(), MtxError> {
    write_output(path, |w| {
        let mut w = CountedWriter::new(w, file_size(&m.matrix), progress);
        write_matrix(&mut w, &m.matrix)
    })
}

/// Bytes of the PETSc file of `a`.
fn file_size(a: &AnyCsr) -> u64 {
    let (rows, nnz) = (a.nrows() as u64, a.nnz() as u64);
    let int = if is_wide(a.nrows(), a.ncols(), a.nnz()) {
        8
    } else {
        4
    };
    let scalar = if a.field() == spmv_reorder_sparse::Field::Complex {
        16
    } else {
        8
    };
    int * (4 + rows + nnz) + scalar * nnz
}

/// True when a dimension or the nonzeros need 64-bit `PetscInt`.
fn is_wide(nrows: usize, ncols: usize, nnz: usize) -> bool {
    let max = i32::MAX as usize;
    nrows > max || ncols > max || nnz > max
}

fn write_matrix(w: &mut dyn Write, matrix: &AnyCsr) -> Result<(), MtxError> {
    match matrix {
        AnyCsr::Real(a) => write_aij(w, a, |&v, out| push_f64(v, out)),
        AnyCsr::Integer(a) => {
            check_exact(a)?;
            write_aij(w, a, |&v, out| push_f64(v as f64, out))
        }
        AnyCsr::Complex(a) => write_aij(w, a, |v, out| {
            push_f64(v.re, out);
            push_f64(v.im, out);
        }),
        AnyCsr::Pattern(a) => write_aij(w, a, |_, out| push_f64(1.0, out)),
    }
}

fn push_f64(v: f64, out: &mut Vec<u8>) {
    out.extend_from_slice(&v.to_be_bytes());
}

/// Refuses integers that a double does not hold exactly (beyond 2^53 in magnitude).
fn check_exact(a: &CsrMatrix<i64>) -> Result<(), MtxError> {
    const EXACT: u64 = 1 << 53;
    for i in 0..a.nrows() {
        let (cols, vals) = a.row(i);
        if let Some(k) = vals.iter().position(|v| v.unsigned_abs() > EXACT) {
            return Err(MtxError::Unsupported {
                path: None,
                what: format!(
                    "the integer {} at ({}, {}) as a PETSc scalar: a double does not hold it \
                     exactly (write .mtx or .npz instead)",
                    vals[k],
                    i + 1,
                    cols[k] + 1
                ),
            });
        }
    }
    Ok(())
}

fn write_aij<T: spmv_reorder_sparse::Value>(
    w: &mut dyn Write,
    a: &CsrMatrix<T>,
    scalar: impl Fn(&T, &mut Vec<u8>),
) -> Result<(), MtxError> {
    let io = |e| MtxError::io("write", e);
    let wide = is_wide(a.nrows(), a.ncols(), a.nnz());
    let int = move |v: usize, out: &mut Vec<u8>| {
        if wide {
            out.extend_from_slice(&(v as u64).to_be_bytes());
        } else {
            out.extend_from_slice(&(v as u32).to_be_bytes());
        }
    };
    let mut block = Vec::with_capacity((1 << 20) + 32);
    let flush = |block: &mut Vec<u8>, w: &mut dyn Write, force: bool| {
        if force || block.len() >= 1 << 20 {
            w.write_all(block)?;
            block.clear();
        }
        std::io::Result::Ok(())
    };
    for v in [MAT_CLASSID as usize, a.nrows(), a.ncols(), a.nnz()] {
        int(v, &mut block);
    }
    for i in 0..a.nrows() {
        int(a.row_nnz(i), &mut block);
        flush(&mut block, w, false).map_err(io)?;
    }
    for &c in a.col_idx() {
        int(c as usize, &mut block);
        flush(&mut block, w, false).map_err(io)?;
    }
    for v in a.values() {
        scalar(v, &mut block);
        flush(&mut block, w, false).map_err(io)?;
    }
    flush(&mut block, w, true).map_err(io)
}
