//! Whether the memory a job is about to take can be had: reserved fallibly and given back at
//! once, so that a size too large for this process ends in an error instead of an abort partway
//! through filling it.

/// Whether `bytes` can be allocated now: physical memory, or a `ulimit -v` cap, refuses what it
/// cannot hold (as does a size beyond the address space).
///
/// ```
/// assert!(spmv_reorder_sparse::can_allocate(1 << 20));
/// assert!(!spmv_reorder_sparse::can_allocate(u64::MAX));
/// ```
pub fn can_allocate(bytes: u64) -> bool {
    usize::try_from(bytes).is_ok_and(|b| Vec::<u8>::new().try_reserve_exact(b).is_ok())
}
