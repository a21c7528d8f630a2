//! Sparse matrix types shared by every crate of spmv-reorder.
//!
//! - [`CsrMatrix<T>`]: compressed sparse rows with `u32` column indices and `usize` offsets.
//! - [`Permutation`]: a bijection kept in both directions, with the convention
//!   `B = P·A·Qᵀ ⇒ B·(Q·x) = P·(A·x)`.
//! - [`row_sum`]: the one summation order of a row of `y = A·x` (two accumulators, even and odd
//!   positions), shared by the reference product and the parallel kernels.
//! - [`prefetch`]: a software prefetch hint for the hot loops that read ahead of themselves (SpMV
//!   kernels, the window graph's candidate search).
//! - [`overlap_kernel`]: the window graph's candidate search for one small window in AVX-512
//!   registers (sorting networks instead of a hash table), checked at run time.
//! - [`short_intersection`] and [`short_union`]: intersections of short sorted lists (a pair, or
//!   every pair of adjacent rows of a matrix) and unions of up to four, in AVX-512 registers.
//! - [`Value`]: the entry types, one per Matrix Market field (`f64`, `i64`, [`Complex64`], and `()`
//!   for patterns), and [`AnyCsr`], a matrix of any of them.
//! - [`HugePageAlloc`]: the system allocator, asking Linux for transparent huge pages for large
//!   blocks (the arrays of SpMV), for binaries to declare as their global allocator.
//!
//! The prefetch, these register kernels and the allocator are the crate's only `unsafe` code (so
//! that the crates above it need none); the prefetch and the kernels are each behind a safe
//! function that checks what the unsafe part relies on.
//!
//! ```
//! use spmv_reorder_sparse::{CsrMatrix, Permutation};
//!
//! let a = CsrMatrix::from_triplets(3, 3, vec![(0, 0, 2.0), (1, 2, 1.0), (2, 1, 3.0)]).unwrap();
//! let p = Permutation::from_new_to_old(vec![2, 0, 1]).unwrap();
//! let b = a.permute(&p, &p).unwrap(); // P·A·Pᵀ
//!
//! let x = [1.0, 2.0, 3.0];
//! let (mut ax, mut bqx) = (vec![0.0; 3], vec![0.0; 3]);
//! a.mul_vec_reference(&x, &mut ax);
//! b.mul_vec_reference(&p.apply(&x), &mut bqx);
//! assert_eq!(bqx, p.apply(&ax));
//! ```
//!
//! # Crate features
//! None.
//!
//! # Design decisions
//! - Column indices are `u32`: SpMV streams one index per nonzero, and 4 bytes instead of 8 is a
//!   measurable share of its memory traffic. Matrices with more than `u32::MAX` rows or columns are
//!   rejected with [`SparseError::TooLarge`]; nonzero counts and offsets are `usize`, so more than
//!   2^32 nonzeros are fine.
//! - Duplicated entries are summed (as scipy does) when a matrix is built from triplets.
//! - Pattern matrices are `CsrMatrix<()>`: a `Vec<()>` takes no memory and the generic code needs no
//!   special case.
#![deny(unsafe_code)]
#![deny(missing_docs)]

mod any;
mod csr;
mod error;
// The `GlobalAlloc` forwarding to the system allocator, and one `madvise` hint.
#[allow(unsafe_code)]
mod huge_pages;
mod memory;
mod mirror;
mod occupied;
// AVX-512 loads and stores in a measured hot loop, behind a checked safe function.
#[allow(unsafe_code)]
pub mod overlap_kernel;
mod perm;
mod permute;
mod prefetch;
mod row_sum;
// One AVX-512 masked load per call in a measured hot loop, behind a checked safe function.
#[allow(unsafe_code)]
pub mod short_intersection;
// Two AVX-512 registers of short lists per call in a measured hot loop, behind a checked safe
// function.
#[allow(unsafe_code)]
pub mod short_union;
mod transpose;
mod value;

pub use any::{AnyCsr, Field};
pub use csr::{rows_cut_by_nonzeros, split_by_offsets, CsrMatrix, MAX_DIM};
pub use error::SparseError;
pub use huge_pages::{HugePageAlloc, HUGE_PAGE_MIN_BYTES};
pub use memory::can_allocate;
pub use num_complex::Complex64;
pub use occupied::Occupancy;
pub use perm::Permutation;
pub use prefetch::prefetch;
pub use row_sum::row_sum;
pub use value::Value;

#[cfg(test)]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    fn arb_matrix() -> impl Strategy<Value = CsrMatrix<f64>> {
        (1usize..12, 1usize..12).prop_flat_map(|(m, n)| {
            proptest::collection::vec((0..m, 0..n, -100i32..100), 0..40).prop_map(move |t| {
                CsrMatrix::from_triplets(m, n, t.into_iter().map(|(i, j, v)| (i, j, v as f64)))
                    .unwrap()
            })
        })
    }

    proptest! {
        /// The law every reordering relies on: `SpMV(P·A·Qᵀ)(Q·x) == P·(A·x)`, exactly (integer values).
        #[test]
        fn permuted_product_law(a in arb_matrix(), s1 in any::<u64>(), s2 in any::<u64>()) {
            let p = Permutation::random(a.nrows(), s1);
            let q = Permutation::random(a.ncols(), s2);
            let b = a.permute(&p, &q).unwrap();
            let x: Vec<f64> = (0..a.ncols()).map(|j| (j as f64) * 0.5 - 3.0).collect();
            let mut ax = vec![0.0; a.nrows()];
            let mut bqx = vec![0.0; a.nrows()];
            a.mul_vec_reference(&x, &mut ax);
            b.mul_vec_reference(&q.apply(&x), &mut bqx);
            prop_assert_eq!(bqx, p.apply(&ax));
            // Undoing the permutation restores the matrix exactly.
            prop_assert_eq!(&b.permute(&p.inverse(), &q.inverse()).unwrap(), &a);
            // Rows alone: the same as with the identity on the columns.
            let rows_only = a.permute_rows(&p).unwrap();
            prop_assert_eq!(&rows_only, &a.permute(&p, &Permutation::identity(a.ncols())).unwrap());
            prop_assert!(a.permute_rows(&q).is_err() || a.nrows() == a.ncols());
        }

        #[test]
        fn transpose_matches_triplets(a in arb_matrix()) {
            let t = a.transpose();
            for i in 0..a.nrows() {
                let (c, v) = a.row(i);
                for (&j, &x) in c.iter().zip(v) {
                    let (tc, tv) = t.row(j as usize);
                    let k = tc.binary_search(&(i as u32)).unwrap();
                    prop_assert_eq!(tv[k], x);
                }
            }
            prop_assert_eq!(t.nnz(), a.nnz());
            prop_assert_eq!(a.pattern_transpose(), t.pattern());
        }

        /// The two-pass sort of large matrices gives the one-pass sort's transpose, whatever the
        /// stretches of rows and blocks of columns.
        #[test]
        fn two_pass_transpose_matches_one_pass(
            a in arb_matrix(),
            stretches in 1usize..6,
            columns in 1usize..64,
        ) {
            prop_assert_eq!(
                transpose::two_pass_with(&a, stretches, columns),
                transpose::one_pass_with(&a)
            );
        }
    }
}
