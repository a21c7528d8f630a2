//! Matrix Market files for spmv-reorder: the whole format, read and written fast and faithfully.
//!
//! - [`read_path`] / [`read`] / [`read_bytes`] give a [`MatrixMarket`]: the [`Header`]
//!   ([`Format`], `Field`, [`Symmetry`]), the comments, and the *expanded* matrix (both triangles)
//!   as an [`AnyCsr`](spmv_reorder_sparse::AnyCsr) ready for computation.
//! - [`write_path`] / [`write()`] write it back, by default in the storage it was read from, with
//!   [`WriteOptions`] to change the format or symmetry.
//! - [`read_path_occupied`] / [`read_occupied`] give only the rows and columns that hold entries ([`Occupied`]),
//!   so that a tiny file declaring billions of rows costs its entries; [`read_binary`] reads an
//!   `.npz` or PETSc binary matrix from any reader.
//! - [`read_permutation`] / [`write_permutation`]: permutation files (one 1-based old index per
//!   line, in new order; [`PermutationFormat`] for 0-based and inverse files).
//!   [`write_atomically`]: any other output file, written atomically.
//! - [`OutputPlan`]: the files of one run, checked before any is written, so that no output
//!   replaces an input or another output (the same file after links, however spelt).
//! - [`MtxError`] is the one error type; input errors carry the path and line ([`ParseError`]).
//!
//! ```
//! use spmv_reorder_mtx::{read, write, ReadOptions, Symmetry, WriteOptions};
//! use spmv_reorder_sparse::AnyCsr;
//!
//! let text = "%%MatrixMarket matrix coordinate integer symmetric\n\
//!             % a 3 x 3 example\n\
//!             3 3 3\n\
//!             1 1 4\n\
//!             3 1 -1\n\
//!             3 3 2\n";
//! let m = read(text.as_bytes(), &ReadOptions::default())?;
//! assert_eq!(m.header.symmetry, Symmetry::Symmetric);
//! assert_eq!((m.stored_nnz(), m.nnz()), (3, 4)); // (1,3) is the mirror of (3,1)
//! let AnyCsr::Integer(a) = &m.matrix else { unreachable!() };
//! assert_eq!(a.row(0), (&[0, 2][..], &[4, -1][..]));
//!
//! // Written back as it was read: integer field, symmetric storage, same comments.
//! let mut out = Vec::new();
//! write(&mut out, &m, &WriteOptions::default())?;
//! assert_eq!(String::from_utf8(out).unwrap(), text);
//!
//! // Errors name the line (and the file, when read from a path).
//! let bad = text.replace("3 1 -1", "1 3 -1");
//! let err = read(bad.as_bytes(), &ReadOptions::default()).unwrap_err();
//! assert_eq!(err.line(), Some(5));
//! assert_eq!(err.to_string(), "<input>:5: entry (1, 3) is above the diagonal, \
//!                              but symmetric storage holds only the lower triangle");
//! # Ok::<(), spmv_reorder_mtx::MtxError>(())
//! ```
//!
//! # Crate features
//! None.
//!
//! # Design decisions
//! - **Read while parsing, in parallel, without locks.** The calling thread reads the input in
//!   blocks of whole lines (gunzipping when it starts with the gzip magic bytes, whatever its name)
//!   and hands each block to the rayon pool (`ReadOptions::threads`), which parses it while the
//!   next is read. Coordinate entries go straight into the final row, column and value arrays:
//!   each block gets the region at the offset the lines before it give (a line holds at most one
//!   entry), reserved and not zeroed. The reader stays at most two blocks per thread ahead, so the
//!   buffers of parsed blocks are reused. With one thread, blocks are parsed between reads on the
//!   calling thread. Entries already in row-major order (as CSR codes write them) are the CSR
//!   arrays; others are placed by row ranges, each thread owning a disjoint region. The only
//!   `unsafe` is the one `set_len` over the slots the parsing threads report written. Each block
//!   counts its line breaks, so errors carry the exact line whatever the thread count or block
//!   size, and the reported error is the first in the file, as a sequential reader would report
//!   it (except that a broken gzip stream is reported first: what it decoded cannot be trusted).
//!   A block's text is kept only while an error could still have to be located in it.
//! - **Expanded in memory, triangular on disk.** Computation wants both triangles; files of
//!   symmetric matrices store one. Reading mirrors each off-diagonal entry (negated for
//!   skew-symmetric, conjugated for Hermitian). Writing with a triangular symmetry first checks that
//!   the matrix really has it ([`MtxError::NotSymmetric`] otherwise), then writes the lower
//!   triangle. Only the lower triangle may be stored: an entry above the diagonal in a symmetric
//!   file is an error (scipy silently accepts it), as is a diagonal entry in skew-symmetric storage
//!   and a non-real diagonal entry of a Hermitian matrix.
//! - **Faithful values.** The field stays what it was (integers stay `i64`, patterns stay
//!   patterns); reals are written in shortest round-trip form (`ryu`) and parsed exactly
//!   (`fast-float2`), so write-then-read gives back every bit. `inf` and `nan` are accepted.
//! - **Duplicates are summed**, as scipy does (in file order); `stored_nnz` then counts the merged
//!   entries. `array` files become dense CSR matrices (every value, zeros included) so they can be
//!   written back exactly.
//! - **Lenient where harmless**: banner words in any case, `double` for `real`, tabs, CRLF, blank
//!   lines and `%` comment lines anywhere (comments after the size line are not kept), `hermitian`
//!   with a real field (it then means symmetric).
//! - **Checked sizes**: dimensions over `u32::MAX` (the column index type) are errors; entry counts
//!   are `u64` then `usize`; large arrays are reserved with `try_reserve` so an absurd size line gives
//!   [`ParseError::OutOfMemory`] instead of an abort.
//! - **Atomic output**: every file is written to a temporary file in its directory
//!   (`.NAME.XXXXXX.spmv-reorder.tmp`) and renamed, so no half-written output is ever left; the
//!   binary removes the temporary files on `SIGINT`/`SIGTERM` ([`remove_temporary_files`]). A
//!   symbolic link is followed (the link stays), a device or FIFO is written in place (never
//!   replaced by a file), a directory is refused. `-` means stdout.
#![deny(unsafe_code)]
#![deny(missing_docs)]

mod assemble;
mod binary_error;
mod body;
// One `set_len` over slots the parsing threads wrote, proved by their reports, so that the
// arrays of a read need no zeroing pass first.
#[allow(unsafe_code)]
mod entry_arrays;
mod error;
mod files;
mod header;
mod input;
mod matrix_market;
mod npy;
mod npz;
mod occupied;
mod options;
mod output;
mod permutation;
mod petsc;
mod plan;
mod read;
mod recycler;
mod stream;
mod symmetry;
mod target;
mod value;
mod write;

pub use binary_error::{BinaryError, BinaryFormat};
pub use error::{MtxError, ParseError};
pub use files::binary_format_of;
pub use header::{Format, Header, Symmetry};
pub use matrix_market::MatrixMarket;
pub use occupied::{read_occupied, read_path_occupied, Occupied};
pub use options::{Footprint, Progress, ReadOptions, WriteOptions};
pub use output::{
    remove_temporary_files, write_atomically, write_path, write_path_with_progress, StagedOutputs,
    TEMPORARY_SUFFIX,
};
pub use permutation::{
    read_permutation, read_permutation_as, read_permutation_from, read_permutation_of_len,
    write_permutation, write_permutation_as, IndexBase, PermutationFormat, PERMUTATION_DIRECTION,
};
pub use plan::OutputPlan;
pub use read::{read, read_binary, read_bytes, read_path, read_path_with_progress};
pub use spmv_reorder_sparse::{can_allocate, Field};
pub use write::write;
