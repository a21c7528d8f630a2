//! spmv-reorder-spmv: the parallel SpMV engine `y = A·x` that measures what a reordering gains.
//!
//! - [`SpmvPlan`] multiplies a [`CsrMatrix<f64>`](spmv_reorder_sparse::CsrMatrix) in thread blocks of one
//!   [`Kernel`]: static rows, nonzero-balanced rows, merge path (for very skewed rows), or
//!   dynamically claimed nonzero-balanced chunks (for cores shared with other processes).
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
//! let mut plan = SpmvPlan::new(&a, Kernel::NnzBalanced, team.threads());
//! // Before a long run of products: keep the faster of prefetching or not (matrices of 16 MiB
//! // and more; this one is left as it is).
//! assert_eq!(plan.tune_prefetch(&x, &mut y, Par::Team(&team), 5), None);
//! plan.mul_vec(&x, &mut y, Par::Team(&team));
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
//! - **Bitwise-reproducible row kernels, two accumulators.** Every row is summed by
//!   [`row_sum`](spmv_reorder_sparse::row_sum): even and odd positions in two accumulators from
//!   -0.0, added at the row's end. [`CsrMatrix::mul_vec_reference`](spmv_reorder_sparse::CsrMatrix::mul_vec_reference)
//!   calls the same function, so the row kernels stay bitwise equal to the oracle on any thread
//!   count. Two add chains instead of one measured a few percent faster once the loads were
//!   prefetched (one left-to-right chain per row then limits the loop).
//! - **Software prefetch, on large matrices whose columns stay near the diagonal.** When
//!   `values` and `col_idx` take at least [`PREFETCH_MIN_BYTES`], the unchecked body requests
//!   their cache lines [`PREFETCH_AHEAD`] bytes ahead, because the hardware prefetcher alone
//!   keeps too few misses in flight on large bandwidth-bound products. On matrices that fit in
//!   the caches the same instructions only cost, hence the size threshold; on a shuffled grid,
//!   whose `x` reads miss the caches, they compete with those reads, hence the second condition:
//!   7/8 of the nonzeros within [`PREFETCH_NEAR_COLUMNS`] of the diagonal ([`prefetch_pays`],
//!   counted in the pass that checks the column indices). That guess can be wrong either way
//!   (docs/results.md, "SpMV kernels"), so [`SpmvPlan::tune_prefetch`] times both choices and
//!   keeps the faster; the benchmark
//!   harness tunes every plan before its samples. `x` is not prefetched (its accesses depend on
//!   the column indices; prefetching it measured slower).
//! - **A team, not a pool per product.** The caller is thread 0 and persistent workers are threads
//!   1..; block `b` always runs on thread `b % threads`, the same thread that first-touched its
//!   pages. Workers are woken by our own spin-then-park pool ([`Dispatch::Spin`]) rather than
//!   rayon ([`Dispatch::Rayon`], kept for comparison): rayon's sleeping workers cost tens of
//!   microseconds per product, longer than a whole product on small matrices (see the
//!   `spmv_kernels` bench). With one thread nothing is dispatched at all.
//! - **A dynamic kernel for shared machines.** With static blocks a product waits for its slowest
//!   thread, so one preempted thread stalls the others when the cores are shared with other
//!   processes. [`Kernel::Dynamic`] cuts [`DYNAMIC_CHUNKS_PER_THREAD`] nonzero-balanced chunks per
//!   thread and lets each thread claim the next one (an atomic counter); rows stay whole, so it
//!   is bitwise equal to the reference too. It gives up the fixed chunk-to-thread affinity, which
//!   only matters with several NUMA nodes.
//! - **Pinning is verified.** Each thread pins itself through hwloc, reads its binding and last CPU
//!   back, and a mismatch is an error ([`SpmvError::PinningIgnored`]).
//! - **Placement by copying.** [`CsrMatrix`](spmv_reorder_sparse::CsrMatrix) owns `Vec`s, so a placed
//!   matrix is a copy whose `Vec`s were allocated uninitialised and first written by the designated
//!   threads. Large `Vec`s come fresh from the kernel (`mmap`), so first touch decides their node;
//!   small ones may reuse heap pages already touched, which the page report then shows.
//! - **Unsafe** is limited to the hot loop (`x[col]` without bounds checks, after the plan checked
//!   every column index once; the checked twin, which also skips the prefetch hints of
//!   [`spmv_reorder_sparse::prefetch`], is [`SpmvPlan::mul_vec_checked`]), to `set_len`
//!   after placement wrote every element, and to lending the job to the pool's workers for one
//!   broadcast (the rayon dispatch is the safe twin).
#![deny(missing_docs)]

pub mod bench;
mod error;
mod partition;
mod pinning;
pub mod placement;
mod pool;
mod spmv;
pub mod stream;
mod team;
mod topology;

pub use error::SpmvError;
pub use partition::{Block, Kernel, Partition, DYNAMIC_CHUNKS_PER_THREAD};
pub use pinning::{check_thread_count, Pinning};
pub use spmv::{
    mul_vec, prefetch_pays, SpmvPlan, PREFETCH_AHEAD, PREFETCH_MIN_BYTES, PREFETCH_NEAR_COLUMNS,
};
pub use team::{Dispatch, Par, Schedule, ThreadBinding, ThreadTeam};
pub use topology::{Cache, Core, NumaNode, Package, Pu, Topology, TopologySource};
