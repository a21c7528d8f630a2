//! [`BinaryError`]: what is wrong with a binary matrix file (npz or PETSc), and [`BinaryFormat`],
//! which of the two it is. Binary files have no lines: errors name the array (npz) or the part
//! of the file (PETSc) and the position of the element within it, 0-based as in those formats.

use std::fmt;

/// A binary matrix file format, chosen by the file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BinaryFormat {
    /// scipy's `save_npz` layout: a zip archive of NumPy `.npy` arrays (`.npz`).
    Npz,
    /// PETSc's binary matrix format, as `MatView` writes and `MatLoad` reads (`.petsc`).
    Petsc,
}

impl fmt::Display for BinaryFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BinaryFormat::Npz => "npz",
            BinaryFormat::Petsc => "PETSc binary",
        })
    }
}

/// What is wrong with a binary matrix file.
///
/// [`BinaryError::name`] gives a stable snake_case identifier per variant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BinaryError {
    /// The zip archive of an npz file cannot be read.
    #[error("not a readable zip archive (an .npz file is a zip of .npy arrays): {message}")]
    Zip {
        /// The zip reader's message.
        message: String,
    },
    /// An array scipy's layout needs is missing from the archive.
    #[error("the archive has no array `{name}` (scipy.sparse.save_npz writes it)")]
    MissingArray {
        /// The array's name, without `.npy`.
        name: &'static str,
    },
    /// An `.npy` member is malformed.
    #[error("array `{array}`: {problem}")]
    BadNpy {
        /// The array's name.
        array: &'static str,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// An array's element type is not one this reader handles.
    #[error("array `{array}` has element type `{dtype}`, which is not supported here")]
    UnsupportedDtype {
        /// The array's name.
        array: &'static str,
        /// NumPy's `descr` of the element type.
        dtype: String,
    },
    /// The sparse format stored is not CSR, CSC or COO.
    #[error("sparse format `{found}` is not supported (expected csr, csc or coo)")]
    UnsupportedLayout {
        /// The format named in the file.
        found: String,
    },
    /// An array has the wrong number of elements.
    #[error("{what} has {found} elements, expected {expected}")]
    WrongLength {
        /// The array or part of the file.
        what: &'static str,
        /// Elements needed.
        expected: u64,
        /// Elements found.
        found: u64,
    },
    /// An index lies outside its dimension.
    #[error("{what}[{position}] = {index} is outside 0..{dim}")]
    IndexOutOfRange {
        /// The array or part of the file.
        what: &'static str,
        /// 0-based position of the element.
        position: u64,
        /// The index found.
        index: i128,
        /// The dimension.
        dim: u64,
    },
    /// Row (or column) offsets that decrease, or do not start at 0.
    #[error("{what}[{position}] = {found} is below the offset before it (offsets start at 0 and never decrease)")]
    NotMonotone {
        /// The array.
        what: &'static str,
        /// 0-based position of the element.
        position: u64,
        /// The offset found.
        found: i128,
    },
    /// A value does not fit the field it is read into.
    #[error("{what}[{position}] = {value} does not fit a 64-bit signed integer")]
    ValueOutOfRange {
        /// The array.
        what: &'static str,
        /// 0-based position of the element.
        position: u64,
        /// The value found.
        value: i128,
    },
    /// Duplicate integer entries whose sum does not fit 64 bits.
    #[error("the sum of the duplicate entries at row {row}, column {col} (0-based) overflows a 64-bit integer")]
    IntegerOverflow {
        /// 0-based row.
        row: u64,
        /// 0-based column.
        col: u64,
    },
    /// A size in the file is negative or too large.
    #[error("{what} = {value} is outside 0..={max}")]
    BadSize {
        /// Which size.
        what: &'static str,
        /// Its value.
        value: i128,
        /// The largest supported.
        max: u64,
    },
    /// The file ends early.
    #[error("the file ends inside {what}, which needs {needed} bytes")]
    Truncated {
        /// The array or part of the file.
        what: &'static str,
        /// Bytes it needs.
        needed: u64,
    },
    /// A PETSc file that does not start with a matrix's class id.
    #[error("expected PETSc's matrix class id 1211216 at the start (32- or 64-bit, big-endian), found {found}")]
    NotAPetscMatrix {
        /// The first 32-bit big-endian word.
        found: u64,
    },
    /// A PETSc file's size fits no value width.
    #[error("{bytes} bytes follow the column indices; {nnz} values of 4, 8 or 16 bytes (single, double or complex scalars) do not fill them")]
    UnknownScalar {
        /// Bytes after the column indices.
        bytes: u64,
        /// Nonzeros of the header.
        nnz: u64,
    },
    /// PETSc's dense binary layout (a nonzero count of -1), which this reader does not handle.
    #[error("the dense PETSc layout (nonzero count -1) is not supported; save the matrix as AIJ")]
    DenseLayout,
    /// Memory for an array could not be reserved.
    #[error("cannot allocate {bytes} bytes for {what}")]
    OutOfMemory {
        /// What was being allocated.
        what: &'static str,
        /// How many bytes.
        bytes: u64,
    },
}

impl BinaryError {
    /// A stable snake_case identifier of the variant, e.g. `"index_out_of_range"`.
    pub fn name(&self) -> &'static str {
        match self {
            BinaryError::Zip { .. } => "zip",
            BinaryError::MissingArray { .. } => "missing_array",
            BinaryError::BadNpy { .. } => "bad_npy",
            BinaryError::UnsupportedDtype { .. } => "unsupported_dtype",
            BinaryError::UnsupportedLayout { .. } => "unsupported_layout",
            BinaryError::WrongLength { .. } => "wrong_length",
            BinaryError::IndexOutOfRange { .. } => "index_out_of_range",
            BinaryError::NotMonotone { .. } => "not_monotone",
            BinaryError::ValueOutOfRange { .. } => "value_out_of_range",
            BinaryError::IntegerOverflow { .. } => "integer_overflow",
            BinaryError::BadSize { .. } => "bad_size",
            BinaryError::Truncated { .. } => "truncated",
            BinaryError::NotAPetscMatrix { .. } => "not_a_petsc_matrix",
            BinaryError::UnknownScalar { .. } => "unknown_scalar",
            BinaryError::DenseLayout => "dense_layout",
            BinaryError::OutOfMemory { .. } => "out_of_memory",
        }
    }
}
