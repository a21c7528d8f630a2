//! `AnyCsr`: a CSR matrix of any Matrix Market field, so a file's values survive a reordering
//! unchanged (an integer matrix stays integer, a pattern stays a pattern).

use crate::{Complex64, CsrMatrix, Occupancy, Permutation, SparseError};

/// The value field of a matrix, as Matrix Market names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Field {
    /// `real` (or `double`): `f64`.
    Real,
    /// `integer`: `i64`.
    Integer,
    /// `complex`: [`Complex64`].
    Complex,
    /// `pattern`: structure only.
    Pattern,
}

impl Field {
    /// The Matrix Market spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Field::Real => "real",
            Field::Integer => "integer",
            Field::Complex => "complex",
            Field::Pattern => "pattern",
        }
    }
}

impl std::fmt::Display for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A CSR matrix whose value type is chosen at run time.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub enum AnyCsr {
    Real(CsrMatrix<f64>),
    Integer(CsrMatrix<i64>),
    Complex(CsrMatrix<Complex64>),
    Pattern(CsrMatrix<()>),
}

/// Applies `$body` to the inner matrix whatever its value type.
macro_rules! each {
    ($self:expr, $m:ident => $body:expr) => {
        match $self {
            AnyCsr::Real($m) => $body,
            AnyCsr::Integer($m) => $body,
            AnyCsr::Complex($m) => $body,
            AnyCsr::Pattern($m) => $body,
        }
    };
}

/// Like `each!`, rewrapping a matrix result in the same variant.
macro_rules! each_map {
    ($self:expr, $m:ident => $body:expr) => {
        match $self {
            AnyCsr::Real($m) => AnyCsr::Real($body),
            AnyCsr::Integer($m) => AnyCsr::Integer($body),
            AnyCsr::Complex($m) => AnyCsr::Complex($body),
            AnyCsr::Pattern($m) => AnyCsr::Pattern($body),
        }
    };
}

impl AnyCsr {
    /// The field of the values.
    pub fn field(&self) -> Field {
        match self {
            AnyCsr::Real(_) => Field::Real,
            AnyCsr::Integer(_) => Field::Integer,
            AnyCsr::Complex(_) => Field::Complex,
            AnyCsr::Pattern(_) => Field::Pattern,
        }
    }
    /// Rows.
    pub fn nrows(&self) -> usize {
        each!(self, m => m.nrows())
    }
    /// Columns.
    pub fn ncols(&self) -> usize {
        each!(self, m => m.ncols())
    }
    /// Stored entries.
    pub fn nnz(&self) -> usize {
        each!(self, m => m.nnz())
    }
    /// The structure alone.
    pub fn pattern(&self) -> CsrMatrix<()> {
        each!(self, m => m.pattern())
    }
    /// Runs `f` on the structure without copying it ([`CsrMatrix::with_pattern_lent`]).
    pub fn with_pattern_lent<R>(&mut self, f: impl FnOnce(&CsrMatrix<()>) -> R) -> R {
        each!(self, m => m.with_pattern_lent(f))
    }
    /// The real matrix used for computation (see [`crate::Value::to_f64`]).
    pub fn to_real(&self) -> CsrMatrix<f64> {
        match self {
            AnyCsr::Real(m) => m.clone(),
            other => each!(other, m => m.to_real()),
        }
    }
    /// The real matrix used for computation, borrowed when it is already real (no copy of a
    /// large matrix), converted otherwise.
    pub fn as_real(&self) -> std::borrow::Cow<'_, CsrMatrix<f64>> {
        each!(self, m => m.as_real())
    }
    /// `Aᵀ`.
    pub fn transpose(&self) -> Self {
        each_map!(self, m => m.transpose())
    }
    /// `P·A·Qᵀ`, values kept exactly.
    ///
    /// # Errors
    /// As [`CsrMatrix::permute`].
    pub fn permute(&self, rows: &Permutation, cols: &Permutation) -> Result<Self, SparseError> {
        self.permute_with_progress(rows, cols, &|_| {})
    }
    /// [`Self::permute`], telling `rows_done` of the rows written
    /// ([`CsrMatrix::permute_with_progress`]).
    ///
    /// # Errors
    /// As [`CsrMatrix::permute`].
    pub fn permute_with_progress(
        &self,
        rows: &Permutation,
        cols: &Permutation,
        rows_done: &(dyn Fn(usize) + Sync),
    ) -> Result<Self, SparseError> {
        Ok(each_map!(self, m => m.permute_with_progress(rows, cols, rows_done)?))
    }
    /// The rows and columns that hold entries ([`Occupancy::of`]).
    ///
    /// # Errors
    /// As [`Occupancy::of`].
    pub fn occupancy(&self) -> Result<Occupancy, SparseError> {
        each!(self, m => Occupancy::of(m))
    }
    /// The matrix without the rows and columns `occupancy` leaves out ([`Occupancy::restrict`]).
    ///
    /// # Errors
    /// As [`Occupancy::restrict`].
    pub fn restricted(&self, occupancy: &Occupancy) -> Result<Self, SparseError> {
        Ok(each_map!(self, m => occupancy.restrict(m)?))
    }
    /// The whole matrix of which this is the occupied part ([`Occupancy::expand`]).
    ///
    /// # Errors
    /// As [`Occupancy::expand`].
    pub fn expanded(&self, occupancy: &Occupancy) -> Result<Self, SparseError> {
        Ok(each_map!(self, m => occupancy.expand(m)?))
    }
    /// Entries on or below the diagonal.
    pub fn lower_triangle(&self) -> Self {
        each_map!(self, m => m.lower_triangle())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_lends_its_structure_and_gets_it_back() {
        let real = CsrMatrix::from_triplets(3, 3, vec![(0, 1, 2.5), (2, 0, -1.0)]).unwrap();
        let pattern = real.pattern();
        for mut m in [
            AnyCsr::Real(real.clone()),
            AnyCsr::Integer(real.map_values(|v| v as i64)),
            AnyCsr::Complex(real.map_values(|v| Complex64::new(v, 1.0))),
            AnyCsr::Pattern(pattern.clone()),
        ] {
            let before = m.clone();
            assert_eq!(m.with_pattern_lent(|p| p.clone()), pattern);
            assert_eq!(m, before);
        }
    }
}
