//! Poisson grids: `A = -Δ_h` by the 5-point (2D) and 7-point (3D) stencils, natural ordering.
//! `O(nnz)`, parallel over grid planes. Rows are grid points `x + nx*(y + ny*z)`.

use crate::GenError;
use rayon::prelude::*;
use spmv_reorder_sparse::{CsrMatrix, MAX_DIM};

/// 2D 5-point Laplacian on an `nx x ny` grid: 4 on the diagonal, -1 for each grid neighbour.
///
/// # Errors
/// [`GenError::InvalidParameter`] for a zero dimension or more than `u32::MAX` points.
pub fn poisson2d(nx: usize, ny: usize) -> Result<CsrMatrix<f64>, GenError> {
    stencil(&[nx, ny, 1])
}

/// 3D 7-point Laplacian on an `nx x ny x nz` grid: 6 on the diagonal, -1 for each grid neighbour.
///
/// # Errors
/// [`GenError::InvalidParameter`] for a zero dimension or more than `u32::MAX` points.
pub fn poisson3d(nx: usize, ny: usize, nz: usize) -> Result<CsrMatrix<f64>, GenError> {
    stencil(&[nx, ny, nz])
}

fn stencil(dims: &[usize; 3]) -> Result<CsrMatrix<f64>, GenError> {
    for (name, &d) in ["nx", "ny", "nz"].iter().zip(dims) {
        if d == 0 {
            return Err(GenError::invalid(name, d, "at least 1"));
        }
    }
    let n = dims
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|&n| n <= MAX_DIM)
        .ok_or_else(|| {
            GenError::invalid("grid size", format!("{dims:?}"), "at most 2^32-1 points")
        })?;
    let active = dims.iter().filter(|&&d| d > 1).count().max(1);
    let diag = 2.0 * active as f64;
    let [nx, ny, _] = *dims;
    // Neighbour offsets in increasing index order: -z, -y, -x, self, +x, +y, +z.
    let rows: Vec<Vec<(u32, f64)>> = (0..n)
        .into_par_iter()
        .map(|i| {
            let (x, y, z) = (i % nx, (i / nx) % ny, i / (nx * ny));
            let mut r = Vec::with_capacity(7);
            if z > 0 {
                r.push(((i - nx * ny) as u32, -1.0));
            }
            if y > 0 {
                r.push(((i - nx) as u32, -1.0));
            }
            if x > 0 {
                r.push(((i - 1) as u32, -1.0));
            }
            r.push((i as u32, diag));
            if x + 1 < nx {
                r.push(((i + 1) as u32, -1.0));
            }
            if y + 1 < ny {
                r.push(((i + nx) as u32, -1.0));
            }
            if z + 1 < dims[2] {
                r.push(((i + nx * ny) as u32, -1.0));
            }
            r
        })
        .collect();
    Ok(from_sorted_rows(n, n, rows))
}

/// Assembles CSR arrays from rows whose entries are already sorted by column and unique.
pub(crate) fn from_sorted_rows(
    nrows: usize,
    ncols: usize,
    rows: Vec<Vec<(u32, f64)>>,
) -> CsrMatrix<f64> {
    let mut row_ptr = Vec::with_capacity(nrows + 1);
    row_ptr.push(0);
    let nnz: usize = rows.iter().map(Vec::len).sum();
    let mut col_idx = Vec::with_capacity(nnz);
    let mut values = Vec::with_capacity(nnz);
    for r in rows {
        for (c, v) in r {
            col_idx.push(c);
            values.push(v);
        }
        row_ptr.push(col_idx.len());
    }
    CsrMatrix::new_unchecked(nrows, ncols, row_ptr, col_idx, values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poisson3d_counts_and_symmetry() {
        let a = poisson3d(5, 4, 3).unwrap();
        let n = 60;
        // Each axis of length L contributes 2*(L-1)*(other points) off-diagonal entries.
        let off = 2 * (4 * 4 * 3 + 3 * 5 * 3 + 2 * 5 * 4);
        assert_eq!((a.nrows(), a.nnz()), (n, n + off));
        assert_eq!(a.transpose(), a);
        // Row sums are zero in the interior (Laplacian), positive on the boundary.
        let mut y = vec![0.0; n];
        a.mul_vec_reference(&vec![1.0; n], &mut y);
        assert!(y.iter().all(|&s| s >= 0.0));
        assert_eq!(y[1 + 5 * (1 + 4)], 0.0);
    }

    #[test]
    fn validates_through_checked_constructor() {
        let a = poisson2d(7, 3).unwrap();
        let (m, n, p, c, v) = a.clone().into_parts();
        assert_eq!(CsrMatrix::new(m, n, p, c, v).unwrap(), a);
    }

    #[test]
    fn zero_dimension_is_an_error() {
        assert!(matches!(
            poisson3d(3, 0, 2),
            Err(GenError::InvalidParameter { name: "ny", .. })
        ));
        assert!(poisson3d(1 << 11, 1 << 11, 1 << 11).is_err());
    }
}
