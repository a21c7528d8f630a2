//! spmv-reorder-spmv: the parallel SpMV engine `y = A·x` that measures what a reordering gains.
//!
//! - [`SpmvPlan`] multiplies a [`CsrMatrix<f64>`](spmv_reorder_sparse::CsrMatrix) in thread blocks of one
//!   [`Kernel`]: static rows, nonzero-balanced rows, or merge path (for very skewed rows).
//! - [`ThreadTeam`] is the pool: threads created once and pinned by a [`Pinning`] computed from a
//!   [`Topology`] (hwloc, or an hwloc XML file describing another machine); [`Par`] passes it to
//!   kernels.
//! - [`placement`] copies a matrix and vectors into memory first touched by the threads that use
//!   each block (or interleaved, bound to a node, or touched by the caller) and reports where the
//!   pages are.
//! - [`stream`] measures the STREAM triad with the same threads; [`bench`](mod@bench) times kernels against it
//!   (min/median/max, GFLOP/s, effective GB/s, load imbalance, roofline) and compares a matrix
//!   before and after a reordering.
//!
//! ```
//! use spmv_reorder_sparse::CsrMatrix;
//! use spmv_reorder_spmv::{Kernel, Par, Pinning, SpmvPlan, ThreadTeam, Topology};
//!
//! let a = CsrMatrix::from_triplets(3, 3, vec![(0, 0, 2.0), (1, 2, 1.0), (2, 1, 3.0)]).unwrap();
//! let x = [1.0, 2.0, 3.0];
//! let team = ThreadTeam::new(&Topology::this_system().unwrap(), 1, &Pinning::None).unwrap();
//! let mut y = vec![0.0; 3];
//! SpmvPlan::new(&a, Kernel::NnzBalanced, team.threads()).mul_vec(&x, &mut y, Par::Team(&team));
//! assert_eq!(y, [2.0, 3.0, 6.0]);
//! ```
//!
//! # Crate features
//! None. hwloc (the C library, 2.x) must be installed: `apt-get install libhwloc-dev libudev-dev
//! pkg-config`.
//!
//! # Design decisions
//! - **One block body for every kernel.** A block is a row range plus a nonzero range; the row
//!   kernels differ from merge path only in how the ranges are cut ([`Partition`]). Merge path's
//!   split rows return a partial sum that is added after the parallel phase, so blocks still write
//!   disjoint `split_at_mut` regions of `y` and nothing is locked while computing.
//! - **Bitwise-reproducible row kernels.** Rows are summed left to right with the expression of
//!   [`CsrMatrix::mul_vec_reference`](spmv_reorder_sparse::CsrMatrix::mul_vec_reference): no
//!   multiple accumulators. SpMV is memory-bound, so the extra add latency is hidden by the loads.
//! - **A team, not a pool per product.** The caller is thread 0 and rayon workers are threads
//!   1.., driven by one `spawn_broadcast` per product; block `b` always runs on thread
//!   `b % threads`, the same thread that first-touched its pages. With one thread nothing is
//!   dispatched at all, which matters for the small matrices where SpMV takes microseconds.
//! - **Pinning is verified.** Each thread pins itself through hwloc, reads its binding and last CPU
//!   back, and a mismatch is an error ([`SpmvError::PinningIgnored`]).
//! - **Placement by copying.** [`CsrMatrix`](spmv_reorder_sparse::CsrMatrix) owns `Vec`s, so a placed
//!   matrix is a copy whose `Vec`s were allocated uninitialised and first written by the designated
//!   threads. Large `Vec`s come fresh from the kernel (`mmap`), so first touch decides their node;
//!   small ones may reuse heap pages already touched, which the page report then shows.
//! - **Unsafe** is limited to the hot loop (`x[col]` without bounds checks, after the plan checked
//!   every column index once; the checked twin is [`SpmvPlan::mul_vec_checked`]) and to `set_len`
//!   after placement wrote every element.
#![deny(missing_docs)]

pub mod bench;
mod error;
mod partition;
mod pinning;
pub mod placement;
mod spmv;
pub mod stream;
mod team;
mod topology;

pub use error::SpmvError;
pub use partition::{Block, Kernel, Partition};
pub use pinning::{check_thread_count, Pinning};
pub use spmv::{mul_vec, SpmvPlan};
pub use team::{Par, ThreadBinding, ThreadTeam};
pub use topology::{Cache, Core, NumaNode, Package, Pu, Topology, TopologySource};
