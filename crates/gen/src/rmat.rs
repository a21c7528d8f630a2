//! R-MAT power-law graphs (Chakrabarti, Zhan and Faloutsos, SDM 2004; the Graph500 generator):
//! each edge picks one of four quadrants with probabilities `a, b, c, d` recursively, `scale` levels
//! deep. Gives hub rows and columns that stress every locality method. `O(edges · scale)`.

use crate::{rng, GenError};
use rand::Rng;
use spmv_reorder_sparse::CsrMatrix;

/// Parameters of [`rmat`]; `Default` is Graph500's `a=0.57, b=c=0.19`, 16 edges per vertex.
#[derive(Debug, Clone, PartialEq)]
pub struct Rmat {
    /// `n = 2^scale` vertices.
    pub scale: u32,
    /// Edges drawn per vertex (before duplicates are merged).
    pub edge_factor: usize,
    /// Probability of the top-left quadrant.
    pub a: f64,
    /// Probability of the top-right quadrant.
    pub b: f64,
    /// Probability of the bottom-left quadrant (`d = 1 - a - b - c`).
    pub c: f64,
    /// Make the pattern symmetric (an undirected graph).
    pub symmetric: bool,
    /// Random seed.
    pub seed: u64,
}

impl Default for Rmat {
    fn default() -> Self {
        Self {
            scale: 16,
            edge_factor: 16,
            a: 0.57,
            b: 0.19,
            c: 0.19,
            symmetric: true,
            seed: 1,
        }
    }
}

/// Generates an R-MAT adjacency matrix: value 1 per distinct edge, self-loops dropped.
///
/// # Errors
/// [`GenError::InvalidParameter`] for `scale` outside `1..=31`, probabilities that are not a
/// distribution, or a zero edge factor.
pub fn rmat(p: &Rmat) -> Result<CsrMatrix<f64>, GenError> {
    if !(1..=31).contains(&p.scale) {
        return Err(GenError::invalid("scale", p.scale, "between 1 and 31"));
    }
    if p.edge_factor == 0 {
        return Err(GenError::invalid(
            "edge-factor",
            p.edge_factor,
            "at least 1",
        ));
    }
    let d = 1.0 - p.a - p.b - p.c;
    if [p.a, p.b, p.c]
        .iter()
        .any(|x| !(x.is_finite() && *x >= 0.0))
        || d < -1e-12
    {
        return Err(GenError::invalid(
            "a,b,c",
            format!("{},{},{}", p.a, p.b, p.c),
            "non-negative with a+b+c <= 1",
        ));
    }
    let n = 1usize << p.scale;
    let edges = n
        .checked_mul(p.edge_factor)
        .ok_or_else(|| GenError::invalid("edge-factor", p.edge_factor, "smaller"))?;
    let mut r = rng(p.seed);
    let mut triplets = Vec::with_capacity(if p.symmetric { 2 * edges } else { edges });
    for _ in 0..edges {
        let (mut i, mut j) = (0usize, 0usize);
        for level in (0..p.scale).rev() {
            let u: f64 = r.random();
            let bit = 1usize << level;
            if u < p.a {
            } else if u < p.a + p.b {
                j |= bit;
            } else if u < p.a + p.b + p.c {
                i |= bit;
            } else {
                i |= bit;
                j |= bit;
            }
        }
        if i != j {
            triplets.push((i, j, ()));
            if p.symmetric {
                triplets.push((j, i, ()));
            }
        }
    }
    Ok(CsrMatrix::from_triplets(n, n, triplets)?.map_values(|()| 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_law_has_hubs() {
        let a = rmat(&Rmat {
            scale: 12,
            edge_factor: 8,
            ..Rmat::default()
        })
        .unwrap();
        assert_eq!(a.transpose(), a);
        let degrees: Vec<usize> = (0..a.nrows()).map(|i| a.row_nnz(i)).collect();
        let max = *degrees.iter().max().unwrap();
        let mean = a.nnz() as f64 / a.nrows() as f64;
        assert!(max as f64 > 10.0 * mean, "max {max} mean {mean}");
        assert!((0..a.nrows()).all(|i| !a.row(i).0.contains(&(i as u32))));
    }

    #[test]
    fn invalid_parameters() {
        assert!(rmat(&Rmat {
            scale: 0,
            ..Rmat::default()
        })
        .is_err());
        assert!(rmat(&Rmat {
            a: 0.9,
            b: 0.2,
            ..Rmat::default()
        })
        .is_err());
        assert!(rmat(&Rmat {
            edge_factor: 0,
            ..Rmat::default()
        })
        .is_err());
    }
}
