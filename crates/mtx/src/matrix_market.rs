//! [`MatrixMarket`]: a matrix as read from (or to be written to) a Matrix Market file.

use crate::error::MtxError;
use crate::header::{array_values, Format, Header, Symmetry};
use crate::symmetry;
use spmv_reorder_sparse::{AnyCsr, Permutation, SparseError};

/// A Matrix Market file in memory: its header, its comments and the expanded matrix.
///
/// # Invariants
/// `matrix` holds both triangles (the expanded matrix, ready for computation) whatever
/// `header.symmetry` says; `header.symmetry` is the storage the file used and, by default, the
/// one it is written back with. Not checked on construction by struct literal: the writer checks
/// the symmetry (and uses `matrix.field()`, not `header.field`).
#[derive(Debug, Clone, PartialEq)]
pub struct MatrixMarket {
    /// Format, field and symmetry of the file.
    pub header: Header,
    /// Comment lines of the header, without their leading `%`.
    pub comments: Vec<String>,
    /// The expanded matrix (both triangles). Duplicated entries of the file are summed.
    pub matrix: AnyCsr,
}

impl MatrixMarket {
    /// A general coordinate matrix with the field of `matrix` and no comments.
    pub fn general(matrix: AnyCsr) -> Self {
        MatrixMarket {
            header: Header::general(matrix.field()),
            comments: Vec::new(),
            matrix,
        }
    }

    /// `matrix` with the header of its field, to be stored as `format` and `symmetry`.
    ///
    /// # Errors
    /// As [`Self::check_symmetry`], and [`MtxError::Unsupported`] for a pattern in array format.
    pub fn with_storage(
        matrix: AnyCsr,
        format: Format,
        symmetry: Symmetry,
    ) -> Result<Self, MtxError> {
        let header = Header {
            format,
            field: matrix.field(),
            symmetry,
        };
        header.validate().map_err(|e| MtxError::Unsupported {
            path: None,
            what: e.to_string(),
        })?;
        let m = MatrixMarket {
            header,
            comments: Vec::new(),
            matrix,
        };
        m.check_symmetry()?;
        Ok(m)
    }

    /// `P·A·Qᵀ` (`P = rows`, `Q = cols`) in the same field and format, with the same comments.
    ///
    /// The storage's symmetry is kept when `rows` and `cols` are one permutation, without a
    /// check: `P·A·Pᵀ` has the symmetry of `A`, since an entry `(i, j)` and its mirror `(j, i)`
    /// move together, to `(p(i), p(j))` and `(p(j), p(i))`. So the fact is carried from `A`
    /// rather than checked again on the permuted matrix (a check that costs, on the largest
    /// matrices, as much time as permuting). Otherwise the result is general. `A` having its
    /// header's symmetry is this type's invariant (which the writer checks).
    ///
    /// # Errors
    /// [`SparseError::LengthMismatch`] when a permutation's length differs from the dimension.
    pub fn permuted(&self, rows: &Permutation, cols: &Permutation) -> Result<Self, SparseError> {
        self.permuted_with_progress(rows, cols, &|_| {})
    }

    /// [`Self::permuted`], telling `rows_done` of the rows written, on any thread
    /// ([`CsrMatrix::permute_with_progress`](spmv_reorder_sparse::CsrMatrix::permute_with_progress)).
    ///
    /// # Errors
    /// As [`Self::permuted`].
    pub fn permuted_with_progress(
        &self,
        rows: &Permutation,
        cols: &Permutation,
        rows_done: &(dyn Fn(usize) + Sync),
    ) -> Result<Self, SparseError> {
        let symmetry = match rows == cols {
            true => self.header.symmetry,
            false => Symmetry::General,
        };
        Ok(MatrixMarket {
            header: Header {
                symmetry,
                ..self.header
            },
            comments: self.comments.clone(),
            matrix: self.matrix.permute_with_progress(rows, cols, rows_done)?,
        })
    }

    /// Checks that the matrix has the symmetry of the header.
    ///
    /// # Errors
    /// [`MtxError::NotSymmetric`] naming the first entry without its mirror,
    /// [`MtxError::Unsupported`] for a rectangular matrix with a triangular symmetry.
    pub fn check_symmetry(&self) -> Result<(), MtxError> {
        let s = self.header.symmetry;
        match &self.matrix {
            AnyCsr::Real(a) => symmetry::check(a, s),
            AnyCsr::Integer(a) => symmetry::check(a, s),
            AnyCsr::Complex(a) => symmetry::check(a, s),
            AnyCsr::Pattern(a) => symmetry::check(a, s),
        }
    }

    /// Entries the file stores with this header: every stored entry for `general`, the lower
    /// triangle otherwise (strictly lower for skew-symmetric); all values of the stored part for
    /// `array` format.
    pub fn stored_nnz(&self) -> usize {
        let s = self.header.symmetry;
        if self.header.format == Format::Array {
            let (m, n) = (self.matrix.nrows() as u64, self.matrix.ncols() as u64);
            return array_values(m, n, s).map_or(usize::MAX, |v| v as usize);
        }
        match &self.matrix {
            AnyCsr::Real(a) => symmetry::stored_count(a, s),
            AnyCsr::Integer(a) => symmetry::stored_count(a, s),
            AnyCsr::Complex(a) => symmetry::stored_count(a, s),
            AnyCsr::Pattern(a) => symmetry::stored_count(a, s),
        }
    }

    /// Rows of the matrix.
    pub fn nrows(&self) -> usize {
        self.matrix.nrows()
    }

    /// Columns of the matrix.
    pub fn ncols(&self) -> usize {
        self.matrix.ncols()
    }

    /// Entries of the expanded matrix (both triangles).
    pub fn nnz(&self) -> usize {
        self.matrix.nnz()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spmv_reorder_sparse::CsrMatrix;

    #[test]
    fn storage_counts() {
        let a =
            CsrMatrix::from_triplets(3, 3, vec![(0, 1, 1.0), (1, 0, 1.0), (2, 2, 4.0)]).unwrap();
        let m = MatrixMarket::with_storage(
            AnyCsr::Real(a.clone()),
            Format::Coordinate,
            Symmetry::Symmetric,
        )
        .unwrap();
        assert_eq!((m.stored_nnz(), m.nnz()), (2, 3));
        let d = MatrixMarket::with_storage(AnyCsr::Real(a), Format::Array, Symmetry::Symmetric)
            .unwrap();
        assert_eq!(d.stored_nnz(), 6);
        let p = CsrMatrix::from_triplets(1, 1, vec![(0, 0, ())]).unwrap();
        let e = MatrixMarket::with_storage(AnyCsr::Pattern(p), Format::Array, Symmetry::General);
        assert!(matches!(e, Err(MtxError::Unsupported { .. })));
    }

    #[test]
    fn a_symmetric_permutation_keeps_the_storage_and_the_symmetry() {
        let a = CsrMatrix::from_triplets(
            3,
            3,
            vec![
                (0, 1, 2.0),
                (1, 0, 2.0),
                (2, 0, -1.0),
                (0, 2, -1.0),
                (1, 1, 3.0),
            ],
        )
        .unwrap();
        let mut m = MatrixMarket::with_storage(
            AnyCsr::Real(a.clone()),
            Format::Coordinate,
            Symmetry::Symmetric,
        )
        .unwrap();
        m.comments.push(" kept".into());
        let p = Permutation::from_new_to_old(vec![2, 0, 1]).unwrap();
        let b = m.permuted(&p, &p).unwrap();
        assert_eq!(b.header, m.header);
        assert_eq!(b.comments, m.comments);
        assert_eq!(b.matrix, AnyCsr::Real(a.permute(&p, &p).unwrap()));
        assert!(b.check_symmetry().is_ok());
        let q = Permutation::identity(3);
        let general = m.permuted(&p, &q).unwrap();
        assert_eq!(general.header.symmetry, Symmetry::General);
        assert!(matches!(
            m.permuted(&Permutation::identity(2), &q),
            Err(SparseError::LengthMismatch { .. })
        ));
    }
}
