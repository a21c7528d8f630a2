//! Checking that an expanded matrix has the symmetry of triangular storage, and counting the
//! entries that storage keeps. `O(nnz + n)` (one transpose).
//!
//! A matrix is symmetric when `A[i][j] == A[j][i]`, skew-symmetric when `A[i][j] == -A[j][i]`
//! (so its diagonal is zero), Hermitian when `A[i][j] == conj(A[j][i])` (so its diagonal is real),
//! each for every stored position, with the structure symmetric too. NaN counts as equal to NaN.
//! Called by the writer and by [`crate::MatrixMarket::check_symmetry`].

use crate::assemble::mirror;
use crate::error::MtxError;
use crate::header::Symmetry;
use crate::value::MtxValue;
use spmv_reorder_sparse::CsrMatrix;

/// True when `(row, col)` is stored by `symmetry` (the lower triangle, strictly for skew).
pub(crate) fn is_stored(symmetry: Symmetry, row: usize, col: usize) -> bool {
    match symmetry {
        Symmetry::General => true,
        Symmetry::Symmetric | Symmetry::Hermitian => col <= row,
        Symmetry::SkewSymmetric => col < row,
    }
}

/// Entries of `a` that storage with `symmetry` keeps.
pub(crate) fn stored_count<T: MtxValue>(a: &CsrMatrix<T>, symmetry: Symmetry) -> usize {
    if symmetry == Symmetry::General {
        return a.nnz();
    }
    (0..a.nrows())
        .map(|i| {
            a.row(i)
                .0
                .iter()
                .filter(|&&c| is_stored(symmetry, i, c as usize))
                .count()
        })
        .sum()
}

/// Checks that `a` is square and has `symmetry`.
///
/// # Errors
/// [`MtxError::Unsupported`] for a rectangular matrix, [`MtxError::NotSymmetric`] naming the
/// first entry (1-based) whose mirror is missing or different.
pub(crate) fn check<T: MtxValue>(a: &CsrMatrix<T>, symmetry: Symmetry) -> Result<(), MtxError> {
    if symmetry == Symmetry::General {
        return Ok(());
    }
    if a.nrows() != a.ncols() {
        return Err(MtxError::Unsupported {
            path: None,
            what: format!(
                "a {} x {} matrix in {symmetry} storage (it needs a square matrix)",
                a.nrows(),
                a.ncols()
            ),
        });
    }
    let t = a.transpose();
    let mirror = mirror::<T>(symmetry);
    for i in 0..a.nrows() {
        if let Some((row, col)) = first_mismatch(i, a.row(i), t.row(i), mirror, symmetry) {
            return Err(MtxError::NotSymmetric {
                path: None,
                symmetry,
                row: row as u64 + 1,
                col: col as u64 + 1,
            });
        }
    }
    Ok(())
}

/// The first position of row `i` where `A[i][j] != mirror(A[j][i])`, as an entry of `A` that
/// exists: `(i, j)`, or `(j, i)` when only the mirror is stored.
fn first_mismatch<T: MtxValue>(
    i: usize,
    (a_cols, a_vals): (&[u32], &[T]),
    (t_cols, t_vals): (&[u32], &[T]),
    mirror: fn(T) -> T,
    symmetry: Symmetry,
) -> Option<(usize, usize)> {
    let (mut p, mut q) = (0, 0);
    while p < a_cols.len() || q < t_cols.len() {
        let a_col = a_cols.get(p).copied().unwrap_or(u32::MAX);
        let t_col = t_cols.get(q).copied().unwrap_or(u32::MAX);
        if a_col < t_col {
            return Some((i, a_col as usize));
        }
        if t_col < a_col {
            return Some((t_col as usize, i));
        }
        let j = a_col as usize;
        let mirrored = a_vals[p].same(mirror(t_vals[q]));
        let diagonal_ok =
            i != j || symmetry != Symmetry::SkewSymmetric || skew_diagonal_ok(a_vals[p]);
        if !mirrored || !diagonal_ok {
            return Some((i, j));
        }
        p += 1;
        q += 1;
    }
    None
}

/// A diagonal entry of a skew-symmetric matrix must be zero (a pattern entry never is).
fn skew_diagonal_ok<T: MtxValue>(v: T) -> bool {
    T::NUMBERS > 0 && v == T::zero()
}

#[cfg(test)]
mod tests {
    use super::*;
    use spmv_reorder_sparse::Complex64;

    fn m<T: MtxValue>(n: usize, t: Vec<(usize, usize, T)>) -> CsrMatrix<T> {
        CsrMatrix::from_triplets(n, n, t).unwrap()
    }

    #[test]
    fn symmetric_and_not() {
        let a = m(3, vec![(0, 1, 2.0), (1, 0, 2.0), (2, 2, 1.0)]);
        assert!(check(&a, Symmetry::Symmetric).is_ok());
        assert_eq!(stored_count(&a, Symmetry::Symmetric), 2);
        let e = check(&a, Symmetry::SkewSymmetric).unwrap_err();
        assert!(matches!(e, MtxError::NotSymmetric { row: 1, col: 2, .. }));
        let b = m(3, vec![(0, 1, 2.0), (2, 2, 1.0)]);
        assert!(matches!(
            check(&b, Symmetry::Symmetric).unwrap_err(),
            MtxError::NotSymmetric { row: 1, col: 2, .. }
        ));
        let c = m(3, vec![(1, 0, 2.0)]);
        assert!(matches!(
            check(&c, Symmetry::Symmetric).unwrap_err(),
            MtxError::NotSymmetric { row: 2, col: 1, .. }
        ));
    }

    #[test]
    fn skew_and_hermitian() {
        let s = m(2, vec![(0, 1, 2.0), (1, 0, -2.0), (0, 0, 0.0)]);
        assert!(check(&s, Symmetry::SkewSymmetric).is_ok());
        assert_eq!(stored_count(&s, Symmetry::SkewSymmetric), 1);
        let z = Complex64::new;
        let h = m(
            2,
            vec![
                (0, 1, z(1.0, 2.0)),
                (1, 0, z(1.0, -2.0)),
                (1, 1, z(3.0, 0.0)),
            ],
        );
        assert!(check(&h, Symmetry::Hermitian).is_ok());
        assert!(check(&h, Symmetry::Symmetric).is_err());
        let bad = m(1, vec![(0, 0, z(1.0, 1.0))]);
        assert!(check(&bad, Symmetry::Hermitian).is_err());
        let p = m(2, vec![(0, 0, ())]);
        assert!(check(&p, Symmetry::SkewSymmetric).is_err());
        assert!(check(&p, Symmetry::Symmetric).is_ok());
    }

    #[test]
    fn nan_mirrors_nan_and_rectangles_are_refused() {
        let a = m(2, vec![(0, 1, f64::NAN), (1, 0, f64::NAN)]);
        assert!(check(&a, Symmetry::Symmetric).is_ok());
        let r: CsrMatrix<f64> = CsrMatrix::from_triplets(2, 3, vec![]).unwrap();
        assert!(matches!(
            check(&r, Symmetry::Symmetric),
            Err(MtxError::Unsupported { .. })
        ));
        assert!(check(&r, Symmetry::General).is_ok());
    }
}
