//! Checking that an expanded matrix has the symmetry of triangular storage, and counting the
//! entries that storage keeps. The check looks each entry's mirror up in its row
//! ([`CsrMatrix::first_unmirrored`]): `O(nnz log(row length))`, parallel over rows, and no
//! memory beyond the matrix (a transpose would hold a second copy of it while the file is
//! written).
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
/// first entry (1-based, in row order) whose mirror is missing or different.
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
    let mirror = mirror::<T>(symmetry);
    let skew = symmetry == Symmetry::SkewSymmetric;
    // A skew entry the reader could not mirror back (the most negative integer, whose negation
    // wraps to itself) is not skew-symmetric, whatever the wrapped value says.
    let mirrored = |i: usize, j: usize, a_ij: T, a_ji: T| {
        a_ij.same(mirror(a_ji))
            && (!skew || a_ji.has_negation())
            && (i != j || !skew || skew_diagonal_ok(a_ij))
    };
    match a.first_unmirrored(mirrored) {
        Some((row, col)) => Err(MtxError::NotSymmetric {
            path: None,
            symmetry,
            row: row as u64 + 1,
            col: col as u64 + 1,
        }),
        None => Ok(()),
    }
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

    #[test]
    fn not_symmetric_by_value_nor_by_pattern() {
        let by_value = m(3, vec![(0, 2, 1.0), (2, 0, 1.5), (1, 1, 4.0)]);
        assert!(matches!(
            check(&by_value, Symmetry::Symmetric).unwrap_err(),
            MtxError::NotSymmetric { row: 1, col: 3, .. }
        ));
        let by_pattern = m(3, vec![(0, 2, 1.0), (2, 0, 1.0), (2, 1, 5.0)]);
        assert!(matches!(
            check(&by_pattern, Symmetry::Symmetric).unwrap_err(),
            MtxError::NotSymmetric { row: 3, col: 2, .. }
        ));
        let pattern = m(3, vec![(0, 2, ()), (2, 0, ()), (1, 2, ())]);
        assert!(matches!(
            check(&pattern, Symmetry::Symmetric).unwrap_err(),
            MtxError::NotSymmetric { row: 2, col: 3, .. }
        ));
        let integer = m(2, vec![(0, 1, 7i64), (1, 0, -7)]);
        assert!(check(&integer, Symmetry::SkewSymmetric).is_ok());
        assert!(check(&integer, Symmetry::Symmetric).is_err());
        // -i64::MIN does not exist: its wrapped negation must not pass for a mirror, since the
        // reader would refuse the file.
        let most_negative = m(2, vec![(0, 1, i64::MIN), (1, 0, i64::MIN)]);
        assert!(check(&most_negative, Symmetry::SkewSymmetric).is_err());
    }

    #[test]
    fn complex_skew_and_hermitian_by_value() {
        let z = Complex64::new;
        let skew = m(2, vec![(0, 1, z(1.0, 2.0)), (1, 0, z(-1.0, -2.0))]);
        assert!(check(&skew, Symmetry::SkewSymmetric).is_ok());
        assert!(check(&skew, Symmetry::Hermitian).is_err());
        let conjugated = m(2, vec![(0, 1, z(1.0, 2.0)), (1, 0, z(1.0, 2.0))]);
        assert!(matches!(
            check(&conjugated, Symmetry::Hermitian).unwrap_err(),
            MtxError::NotSymmetric { row: 1, col: 2, .. }
        ));
        assert!(check(&conjugated, Symmetry::Symmetric).is_ok());
        let skew_diagonal = m(2, vec![(1, 1, z(0.0, 1.0))]);
        assert!(matches!(
            check(&skew_diagonal, Symmetry::SkewSymmetric).unwrap_err(),
            MtxError::NotSymmetric { row: 2, col: 2, .. }
        ));
    }

    /// A matrix of many rows, symmetric but for one value far down: found, and named, on any
    /// number of threads.
    #[test]
    fn one_wrong_value_among_many_rows() {
        let n = 20_000;
        let mut t: Vec<_> = (0..n)
            .flat_map(|i| [(i, (i * 17) % n, i as f64), ((i * 17) % n, i, i as f64)])
            .collect();
        let a = m(n, t.clone());
        t.push((15_001, (15_001 * 17) % n, 0.5));
        let b = m(n, t);
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            assert!(pool.install(|| check(&a, Symmetry::Symmetric)).is_ok());
            let e = pool.install(|| check(&b, Symmetry::Symmetric)).unwrap_err();
            assert!(
                matches!(e, MtxError::NotSymmetric { row: 15_002, col, .. } if col == (15_001 * 17) % n as u64 + 1),
                "{e}"
            );
        }
    }
}
