//! Random geometric graph: `n` points uniform in the unit square, an edge between points closer than
//! `r`, with `r` chosen for an expected degree. A mesh-like but irregular operand. `O(n + nnz)` with a
//! cell grid of side `r`.
//!
//! Points are numbered in order of their cell along a row-major sweep of the cell grid (as a mesh
//! generator would number them), so the natural order has realistic, imperfect locality; `--shuffle`
//! destroys it. The matrix is the graph Laplacian plus the identity: `deg(i) + 1` on the diagonal,
//! `-1` per edge (symmetric positive definite).

use crate::grid::from_sorted_rows;
use crate::{rng, GenError};
use rand::Rng;
use spmv_reorder_sparse::CsrMatrix;

/// A random geometric graph with `n` points and expected degree `avg_degree`.
///
/// # Errors
/// [`GenError::InvalidParameter`] when `n` is 0 or too large, or `avg_degree` is not positive or not
/// below `n`.
pub fn random_geometric(n: usize, avg_degree: f64, seed: u64) -> Result<CsrMatrix<f64>, GenError> {
    if n == 0 || n > spmv_reorder_sparse::MAX_DIM {
        return Err(GenError::invalid("n", n, "between 1 and 2^32-1"));
    }
    if !(avg_degree.is_finite() && avg_degree > 0.0 && avg_degree < n as f64) {
        return Err(GenError::invalid(
            "degree",
            avg_degree,
            "a positive number below n",
        ));
    }
    let radius = (avg_degree / (n as f64 * std::f64::consts::PI)).sqrt();
    let cells = ((1.0 / radius).floor() as usize).clamp(1, 1 << 15);
    let mut r = rng(seed);
    let mut pts: Vec<(usize, f64, f64)> = (0..n)
        .map(|_| {
            let (x, y): (f64, f64) = (r.random(), r.random());
            (cell_of(x, y, cells), x, y)
        })
        .collect();
    pts.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    // Points are now grouped by cell: cell_start[c]..cell_start[c+1].
    let mut cell_start = vec![0usize; cells * cells + 1];
    for p in &pts {
        cell_start[p.0 + 1] += 1;
    }
    for c in 0..cells * cells {
        cell_start[c + 1] += cell_start[c];
    }
    let r2 = radius * radius;
    let rows: Vec<Vec<(u32, f64)>> = (0..n)
        .map(|i| {
            let (c, x, y) = pts[i];
            let (cx, cy) = (c % cells, c / cells);
            let mut nbrs = Vec::new();
            for ny in cy.saturating_sub(1)..=(cy + 1).min(cells - 1) {
                for nx in cx.saturating_sub(1)..=(cx + 1).min(cells - 1) {
                    let cell = nx + ny * cells;
                    for (j, q) in pts
                        .iter()
                        .enumerate()
                        .take(cell_start[cell + 1])
                        .skip(cell_start[cell])
                    {
                        let d2 = (q.1 - x).powi(2) + (q.2 - y).powi(2);
                        if j != i && d2 < r2 {
                            nbrs.push((j as u32, -1.0));
                        }
                    }
                }
            }
            let deg = nbrs.len() as f64;
            nbrs.push((i as u32, deg + 1.0));
            nbrs.sort_unstable_by_key(|e| e.0);
            nbrs
        })
        .collect();
    Ok(from_sorted_rows(n, n, rows))
}

fn cell_of(x: f64, y: f64, cells: usize) -> usize {
    let cx = ((x * cells as f64) as usize).min(cells - 1);
    let cy = ((y * cells as f64) as usize).min(cells - 1);
    cx + cy * cells
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetric_with_expected_degree() {
        let a = random_geometric(20_000, 8.0, 3).unwrap();
        assert_eq!(a.transpose(), a);
        let mean_off = (a.nnz() - a.nrows()) as f64 / a.nrows() as f64;
        // Boundary effects lower the mean degree a little below the target.
        assert!((7.0..8.5).contains(&mean_off), "mean degree {mean_off}");
        let mut y = vec![0.0; a.nrows()];
        a.mul_vec_reference(&vec![1.0; a.nrows()], &mut y);
        assert!(
            y.iter().all(|&s| s == 1.0),
            "Laplacian + I has unit row sums"
        );
    }

    #[test]
    fn invalid_parameters() {
        assert!(random_geometric(0, 3.0, 1).is_err());
        assert!(random_geometric(10, 0.0, 1).is_err());
        assert!(random_geometric(10, f64::NAN, 1).is_err());
        assert_eq!(random_geometric(1, 0.5, 1).unwrap().nnz(), 1);
    }
}
