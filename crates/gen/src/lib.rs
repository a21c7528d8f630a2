//! Matrix generators for benchmark sizes the bundled real matrices do not reach.
//!
//! - [`poisson2d`], [`poisson3d`]: 5-point and 7-point finite-difference Laplacians on a grid, in
//!   natural (lexicographic) order: the best case for locality.
//! - [`banded_gaussian`]: the banded matrix of the thesis (section 4.4.1.1), whose nonzeros per row
//!   follow a Gaussian bell, with parameters [`BandedGaussian`].
//! - [`random_geometric`]: a random geometric graph in the unit square (mesh-like, irregular).
//! - [`rmat`]: a power-law R-MAT graph (Graph500 parameters by default), with hub columns.
//! - [`shuffle_symmetric`]: a seeded random symmetric permutation
//!   ([`Permutation::random`](spmv_reorder_sparse::Permutation::random)), the
//!   classic way to destroy locality that a reordering must recover.
//!
//! ```
//! use spmv_reorder_gen::{poisson2d, shuffle_symmetric};
//!
//! let a = poisson2d(4, 3).unwrap();
//! assert_eq!((a.nrows(), a.nnz()), (12, 12 + 2 * (3 * 3 + 4 * 2)));
//! let (b, p) = shuffle_symmetric(&a, 7).unwrap();
//! assert_eq!(b, a.permute_symmetric(&p).unwrap());
//! ```
//!
//! # Crate features
//! None.
//!
//! # Design decisions
//! - Every random generator takes a seed and uses `Xoshiro256PlusPlus`, whose stream is fixed by its
//!   specification, so the same seed gives the same matrix on every machine and version.
//! - Generators return `CsrMatrix<f64>` with meaningful values (Laplacian stencils, graph
//!   Laplacians plus identity), so the matrices are realistic SpMV operands, not just patterns.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod banded;
mod error;
mod geometric;
mod grid;
mod rmat;
mod shuffle;

pub use banded::{banded_gaussian, BandedGaussian};
pub use error::GenError;
pub use geometric::random_geometric;
pub use grid::{poisson2d, poisson3d};
pub use rmat::{rmat, Rmat};
pub use shuffle::shuffle_symmetric;

/// The seeded generator every random generator of this crate uses.
pub(crate) fn rng(seed: u64) -> rand_xoshiro::Xoshiro256PlusPlus {
    use rand::SeedableRng;
    rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed)
}
