//! scipy's sparse `.npz` files, as `scipy.sparse.save_npz` writes and `load_npz` reads them: a
//! zip archive (stored or deflated) of `.npy` arrays `format` (`csr`, `csc` or `coo`), `shape`,
//! `data`, and `indices` + `indptr` (CSR, CSC) or `row` + `col` (COO; `coords` of shape
//! `(2, nnz)` also read). `O(nnz + rows)` time; memory is the matrix plus one block of raw bytes
//! (plus its transpose for CSC). Called by `files.rs`.
//!
//! Reading: indices of any integer width (checked against the shape), values of type bool (a
//! pattern), any integer (`i64`, `u64` checked), `f4`/`f8` (real) or `c8`/`c16` (complex), either
//! byte order. Unsorted rows are sorted and duplicates summed, as scipy's `sum_duplicates` does.
//! Writing: CSR, stored (not deflated, for speed: `load_npz` reads both), `int32` indices when
//! the nonzeros and columns fit, `int64` otherwise, as scipy chooses; values `<f8`, `<i8`,
//! `<c16`, or `|b1` (all `True`) for a pattern.

use crate::assemble;
use crate::binary_error::{BinaryError, BinaryFormat};
use crate::body::{Chunk, Layout};
use crate::error::MtxError;
use crate::header::{Format, Header, Symmetry};
use crate::npy::{self, Dtype, Kind};
use crate::occupied;
use crate::options::{Pool, Progress, ReadOptions};
use crate::output::{write_file_output, CountedWriter};
use crate::read::{Assembled, Assembly};
use crate::value::MtxValue;
use crate::MatrixMarket;
use spmv_reorder_sparse::{AnyCsr, Complex64, CsrMatrix, Occupancy, SparseError};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, Write};
use std::path::Path;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

const FORMAT: BinaryFormat = BinaryFormat::Npz;

fn err(kind: BinaryError) -> MtxError {
    MtxError::binary(FORMAT, kind)
}

/// A value type with an `.npy` element form.
pub(crate) trait NpzValue: MtxValue {
    /// The `descr` it is written with.
    const DESCR: &'static str;
    /// The value of one element of `dtype` (`position` for errors).
    fn from_npy(bytes: &[u8], dtype: Dtype, position: u64) -> Result<Self, BinaryError>;
    /// Appends the value's bytes in [`Self::DESCR`].
    fn to_npy(self, out: &mut Vec<u8>);
}

impl NpzValue for f64 {
    const DESCR: &'static str = "<f8";
    fn from_npy(bytes: &[u8], dtype: Dtype, _: u64) -> Result<Self, BinaryError> {
        Ok(npy::float(bytes, dtype.big_endian))
    }
    fn to_npy(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl NpzValue for i64 {
    const DESCR: &'static str = "<i8";
    fn from_npy(bytes: &[u8], dtype: Dtype, position: u64) -> Result<Self, BinaryError> {
        let value = npy::integer(bytes, dtype);
        i64::try_from(value).map_err(|_| BinaryError::ValueOutOfRange {
            what: "data",
            position,
            value,
        })
    }
    fn to_npy(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl NpzValue for Complex64 {
    const DESCR: &'static str = "<c16";
    fn from_npy(bytes: &[u8], dtype: Dtype, _: u64) -> Result<Self, BinaryError> {
        let (re, im) = bytes.split_at(bytes.len() / 2);
        Ok(Complex64::new(
            npy::float(re, dtype.big_endian),
            npy::float(im, dtype.big_endian),
        ))
    }
    fn to_npy(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.re.to_le_bytes());
        out.extend_from_slice(&self.im.to_le_bytes());
    }
}

impl NpzValue for () {
    const DESCR: &'static str = "|b1";
    fn from_npy(_: &[u8], _: Dtype, _: u64) -> Result<Self, BinaryError> {
        Ok(())
    }
    fn to_npy(self, out: &mut Vec<u8>) {
        out.push(1);
    }
}

/// The zip archive of an npz file.
type Archive<'r> = ZipArchive<BufReader<Box<dyn ReadSeek + 'r>>>;

/// What the archive reads from.
pub(crate) trait ReadSeek: Read + Seek + Send {}
impl<R: Read + Seek + Send> ReadSeek for R {}

/// Reads the sparse matrix of an npz file from `file`.
///
/// # Errors
/// [`MtxError::Io`] when the file cannot be read, [`MtxError::Binary`] naming what is wrong.
pub(crate) fn read_npz<'r, R: Read + Seek + Send + 'r>(
    file: R,
    opts: &ReadOptions,
    assembly: Assembly,
) -> Result<(MatrixMarket, Option<Occupancy>), MtxError> {
    let file: Box<dyn ReadSeek + 'r> = Box::new(file);
    let mut archive =
        ZipArchive::new(BufReader::with_capacity(1 << 20, file)).map_err(zip_error)?;
    let layout = read_text(&mut archive, "format")?;
    let (nrows, ncols) = read_shape(&mut archive)?;
    let data = {
        let (header, _) = member(&mut archive, "data")?;
        header
    };
    let pool = Pool::new(opts.threads)?;
    let shape = (nrows, ncols, assembly);
    let job = |archive: &mut Archive<'_>| match data.dtype.kind {
        Kind::Bool => {
            read_layout::<()>(archive, &layout, shape).map(|(a, o)| (AnyCsr::Pattern(a), o))
        }
        Kind::Int | Kind::Uint => {
            read_layout::<i64>(archive, &layout, shape).map(|(a, o)| (AnyCsr::Integer(a), o))
        }
        Kind::Float => {
            read_layout::<f64>(archive, &layout, shape).map(|(a, o)| (AnyCsr::Real(a), o))
        }
        Kind::Complex => {
            read_layout::<Complex64>(archive, &layout, shape).map(|(a, o)| (AnyCsr::Complex(a), o))
        }
        Kind::Text { .. } => Err(err(BinaryError::UnsupportedDtype {
            array: "data",
            dtype: data.descr.clone(),
        })),
    };
    let (matrix, occupancy) = pool.install(|| job(&mut archive))?;
    let file = MatrixMarket {
        header: Header::general(matrix.field()),
        comments: Vec::new(),
        matrix,
    };
    Ok((file, occupancy))
}

fn zip_error(e: zip::result::ZipError) -> MtxError {
    match e {
        zip::result::ZipError::Io(io) => MtxError::io("read", io),
        other => err(BinaryError::Zip {
            message: other.to_string(),
        }),
    }
}

/// The member `name.npy`, positioned after its header.
fn member<'a, 'r>(
    archive: &'a mut Archive<'r>,
    name: &'static str,
) -> Result<(npy::Header, impl Read + use<'a, 'r>), MtxError> {
    let mut file = match archive.by_name(&format!("{name}.npy")) {
        Ok(f) => f,
        Err(zip::result::ZipError::FileNotFound) => {
            return Err(err(BinaryError::MissingArray { name }))
        }
        Err(e) => return Err(zip_error(e)),
    };
    let header = npy::read_header(&mut file, name).map_err(err)?;
    Ok((header, file))
}

/// A 0-d text array such as `format` (`|S3` or `<U3`), without padding.
fn read_text(archive: &mut Archive<'_>, name: &'static str) -> Result<String, MtxError> {
    let (header, mut r) = member(archive, name)?;
    let Kind::Text { utf32 } = header.dtype.kind else {
        return Err(err(BinaryError::UnsupportedDtype {
            array: name,
            dtype: header.descr,
        }));
    };
    let raw = npy::read_data(&mut r, &header, name, |_, b| Ok(b.to_vec())).map_err(err)?;
    let bytes = raw.concat();
    let text: String = if utf32 {
        bytes
            .chunks_exact(4)
            .filter_map(|c| {
                let word: [u8; 4] = c.try_into().expect("4 bytes");
                let code = if header.dtype.big_endian {
                    u32::from_be_bytes(word)
                } else {
                    u32::from_le_bytes(word)
                };
                char::from_u32(code)
            })
            .collect()
    } else {
        String::from_utf8_lossy(&bytes).into_owned()
    };
    Ok(text.trim_end_matches('\0').to_string())
}

/// Rows and columns from `shape`, each a valid `u32` dimension.
fn read_shape(archive: &mut Archive) -> Result<(usize, usize), MtxError> {
    let (header, mut r) = member(archive, "shape")?;
    let dims = read_integers(&mut r, &header, "shape")?;
    let [nrows, ncols] = dims[..] else {
        return Err(err(BinaryError::WrongLength {
            what: "shape",
            expected: 2,
            found: dims.len() as u64,
        }));
    };
    let dim = |what, value: i128| {
        if (0..=i128::from(u32::MAX)).contains(&value) {
            Ok(value as usize)
        } else {
            Err(err(BinaryError::BadSize {
                what,
                value,
                max: u64::from(u32::MAX),
            }))
        }
    };
    Ok((dim("rows", nrows)?, dim("columns", ncols)?))
}

fn read_integers<R: Read>(
    r: &mut R,
    header: &npy::Header,
    what: &'static str,
) -> Result<Vec<i128>, MtxError> {
    require_integers(header, what)?;
    let dtype = header.dtype;
    npy::read_data(r, header, what, |_, b| Ok(npy::integer(b, dtype))).map_err(err)
}

fn require_integers(header: &npy::Header, what: &'static str) -> Result<(), MtxError> {
    match header.dtype.kind {
        Kind::Int | Kind::Uint => Ok(()),
        _ => Err(err(BinaryError::UnsupportedDtype {
            array: what,
            dtype: header.descr.clone(),
        })),
    }
}

fn require_len(header: &npy::Header, what: &'static str, expected: u64) -> Result<(), MtxError> {
    if header.shape.len() != 1 || header.len() != expected {
        return Err(err(BinaryError::WrongLength {
            what,
            expected,
            found: header.len(),
        }));
    }
    Ok(())
}

/// The matrix in the archive's `layout`, with values of type `T`, of `nrows x ncols` built as
/// `assembly` says (a COO file's occupied part is built alone; other layouts hold a row offset
/// per row, so they are read whole and their occupancy is left to the caller).
fn read_layout<T: NpzValue>(
    archive: &mut Archive<'_>,
    layout: &str,
    (nrows, ncols, assembly): (usize, usize, Assembly),
) -> Result<Assembled<T>, MtxError> {
    match layout {
        "csr" => read_compressed(archive, nrows, ncols).map(|a| (a, None)),
        // The transpose has a row offset per row of the shape, which the file need not hold.
        "csc" => read_compressed::<T>(archive, ncols, nrows)?
            .try_transpose()
            .map(|a| (a, None))
            .map_err(|e| match e {
                SparseError::OutOfMemory { what, bytes } => {
                    err(BinaryError::OutOfMemory { what, bytes })
                }
                other => unreachable!("a transpose fails only for memory: {other}"),
            }),
        "coo" => read_coo(archive, nrows, ncols, assembly),
        other => Err(err(BinaryError::UnsupportedLayout {
            found: other.to_string(),
        })),
    }
}

/// CSR arrays (`outer` rows of `inner` columns; CSC read as its transpose).
fn read_compressed<T: NpzValue>(
    archive: &mut Archive<'_>,
    outer: usize,
    inner: usize,
) -> Result<CsrMatrix<T>, MtxError> {
    let nnz = member(archive, "data")?.0.len();
    let offsets = {
        let (header, mut r) = member(archive, "indptr")?;
        read_offsets(&mut r, &header, outer as u64 + 1, nnz)?
    };
    let indices = {
        let (header, mut r) = member(archive, "indices")?;
        read_indices(&mut r, &header, "indices", nnz, inner as u64)?
    };
    let values = read_values(archive, nnz)?;
    assemble::canonical(outer, inner, offsets, indices, values).map_err(err)
}

/// COO arrays `row` and `col` (or `coords`), summed into CSR.
fn read_coo<T: NpzValue>(
    archive: &mut Archive<'_>,
    nrows: usize,
    ncols: usize,
    assembly: Assembly,
) -> Result<Assembled<T>, MtxError> {
    let nnz = member(archive, "data")?.0.len();
    let mut chunk = Chunk::empty();
    let has_rows = archive.index_for_name("row.npy").is_some();
    if has_rows {
        chunk.rows = {
            let (header, mut r) = member(archive, "row")?;
            read_indices(&mut r, &header, "row", nnz, nrows as u64)?
        };
        chunk.cols = {
            let (header, mut r) = member(archive, "col")?;
            read_indices(&mut r, &header, "col", nnz, ncols as u64)?
        };
    } else {
        let (mut header, mut r) = member(archive, "coords")?;
        if header.shape != [2, nnz] {
            return Err(err(BinaryError::WrongLength {
                what: "coords",
                expected: 2 * nnz,
                found: header.len(),
            }));
        }
        header.shape = vec![nnz];
        chunk.rows = read_indices(&mut r, &header, "coords", nnz, nrows as u64)?;
        chunk.cols = read_indices(&mut r, &header, "coords", nnz, ncols as u64)?;
    }
    chunk.vals = read_values(archive, nnz)?;
    let mut chunks = vec![chunk.seal()];
    if assembly == Assembly::Whole {
        return assemble::coordinate(nrows, ncols, chunks, Symmetry::General)
            .map(|a| (a, None))
            .map_err(|e| err(from_assembly(e)));
    }
    let layout = Layout {
        format: Format::Coordinate,
        symmetry: Symmetry::General,
        nrows,
        ncols,
    };
    let occupancy =
        occupied::compact_chunks(&layout, &mut chunks).map_err(|e| err(from_assembly(e)))?;
    let (m, n) = (occupancy.rows().len(), occupancy.cols().len());
    let a = assemble::coordinate(m, n, chunks, Symmetry::General)
        .map_err(|e| err(from_assembly(occupied::whole_indices(e, &occupancy))))?;
    Ok((a, Some(occupancy)))
}

/// What assembling COO entries can fail with, as a binary file's error.
fn from_assembly(e: crate::ParseError) -> BinaryError {
    match e {
        crate::ParseError::OutOfMemory { what, bytes } => BinaryError::OutOfMemory { what, bytes },
        crate::ParseError::IntegerOverflow { row, col, .. } => BinaryError::IntegerOverflow {
            row: row - 1,
            col: col - 1,
        },
        other => BinaryError::Zip {
            message: other.to_string(),
        },
    }
}

fn read_values<T: NpzValue>(archive: &mut Archive<'_>, nnz: u64) -> Result<Vec<T>, MtxError> {
    let (header, mut r) = member(archive, "data")?;
    require_len(&header, "data", nnz)?;
    let dtype = header.dtype;
    npy::read_data(&mut r, &header, "data", |k, b| T::from_npy(b, dtype, k)).map_err(err)
}

/// `nnz` indices, each in `0..dim`.
fn read_indices<R: Read>(
    r: &mut R,
    header: &npy::Header,
    what: &'static str,
    nnz: u64,
    dim: u64,
) -> Result<Vec<u32>, MtxError> {
    require_integers(header, what)?;
    require_len(header, what, nnz)?;
    let dtype = header.dtype;
    npy::read_data(r, header, what, |position, b| {
        let index = npy::integer(b, dtype);
        if (0..i128::from(dim)).contains(&index) {
            Ok(index as u32)
        } else {
            Err(BinaryError::IndexOutOfRange {
                what,
                position,
                index,
                dim,
            })
        }
    })
    .map_err(err)
}

/// `len` offsets from 0, never decreasing, ending at `nnz`.
fn read_offsets<R: Read>(
    r: &mut R,
    header: &npy::Header,
    len: u64,
    nnz: u64,
) -> Result<Vec<usize>, MtxError> {
    const WHAT: &str = "indptr";
    require_integers(header, WHAT)?;
    require_len(header, WHAT, len)?;
    let dtype = header.dtype;
    let mut before = 0i128;
    let offsets = npy::read_data(r, header, WHAT, |position, b| {
        let offset = npy::integer(b, dtype);
        if offset < before || (position == 0 && offset != 0) {
            return Err(BinaryError::NotMonotone {
                what: WHAT,
                position,
                found: offset,
            });
        }
        before = offset;
        Ok(offset as usize)
    })
    .map_err(err)?;
    if before != i128::from(nnz) {
        return Err(err(BinaryError::WrongLength {
            what: "data",
            expected: before as u64,
            found: nnz,
        }));
    }
    Ok(offsets)
}

/// Writes `m`'s matrix as scipy's CSR npz layout, atomically.
///
/// # Errors
/// [`MtxError::Io`] naming `path` when the file cannot be written.
pub(crate) fn write_npz(
    path: &Path,
    m: &MatrixMarket,
    progress: Progress<'_>,
) -> Result<(), MtxError> {
    write_file_output(path, |file| match &m.matrix {
        AnyCsr::Real(a) => write_csr(file, a, progress),
        AnyCsr::Integer(a) => write_csr(file, a, progress),
        AnyCsr::Complex(a) => write_csr(file, a, progress),
        AnyCsr::Pattern(a) => write_csr(file, a, progress),
    })
}

fn write_csr<T: NpzValue>(
    file: &mut File,
    a: &CsrMatrix<T>,
    progress: Progress<'_>,
) -> Result<(), MtxError> {
    let io = |e: std::io::Error| MtxError::io("write", e);
    let zip_io = |e: zip::result::ZipError| MtxError::io("write", std::io::Error::other(e));
    let wide = a.nnz() > i32::MAX as usize || a.ncols() > i32::MAX as usize;
    let index = if wide { "<i8" } else { "<i4" };
    let index_bytes = |i: usize, out: &mut Vec<u8>| {
        if wide {
            out.extend_from_slice(&(i as i64).to_le_bytes());
        } else {
            out.extend_from_slice(&(i as i32).to_le_bytes());
        }
    };
    let (nnz, nrows) = (a.nnz() as u64, a.nrows() as u64);
    let index_size = if wide { 8 } else { 4 };
    let total = (nnz + nrows + 1) * index_size + nnz * std::mem::size_of::<T>().max(1) as u64;
    let counted = CountedWriter::new(file, total, progress);
    let mut zip = ZipWriter::new(BufWriter::with_capacity(1 << 20, counted));
    start(&mut zip, "indices", index, &[nnz], index_size).map_err(zip_io)?;
    write_elements(&mut zip, a.col_idx().iter(), |&c, out| {
        index_bytes(c as usize, out)
    })
    .map_err(io)?;
    start(&mut zip, "indptr", index, &[nrows + 1], index_size).map_err(zip_io)?;
    write_elements(&mut zip, a.row_ptr().iter(), |&p, out| index_bytes(p, out)).map_err(io)?;
    start(&mut zip, "format", "|S3", &[], 3).map_err(zip_io)?;
    zip.write_all(b"csr").map_err(io)?;
    start(&mut zip, "shape", "<i8", &[2], 8).map_err(zip_io)?;
    write_elements(&mut zip, [a.nrows(), a.ncols()].iter(), |&d, out| {
        out.extend_from_slice(&(d as i64).to_le_bytes())
    })
    .map_err(io)?;
    let size = std::mem::size_of::<T>().max(1) as u64;
    start(&mut zip, "data", T::DESCR, &[nnz], size).map_err(zip_io)?;
    write_elements(&mut zip, a.values().iter(), |&v, out| v.to_npy(out)).map_err(io)?;
    zip.finish().map_err(zip_io)?.flush().map_err(io)
}

/// Starts the stored member `name.npy` and writes its header; `item` is bytes per element.
fn start<W: Write + Seek>(
    zip: &mut ZipWriter<W>,
    name: &str,
    descr: &str,
    shape: &[u64],
    item: u64,
) -> zip::result::ZipResult<()> {
    let bytes = npy::header_len(descr, shape) + shape.iter().product::<u64>() * item;
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Stored)
        .large_file(bytes >= u64::from(u32::MAX));
    zip.start_file(format!("{name}.npy"), options)?;
    npy::write_header(zip, descr, shape)?;
    Ok(())
}

/// Writes the bytes of `items`, encoded by `encode`, in blocks of about 1 MiB.
fn write_elements<E, W: Write>(
    w: &mut W,
    items: impl Iterator<Item = E>,
    encode: impl Fn(E, &mut Vec<u8>),
) -> std::io::Result<()> {
    let mut block = Vec::with_capacity((1 << 20) + 16);
    for item in items {
        encode(item, &mut block);
        if block.len() >= 1 << 20 {
            w.write_all(&block)?;
            block.clear();
        }
    }
    w.write_all(&block)
}
