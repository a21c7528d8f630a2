//! A software prefetch: asks the memory system for the cache line of an element without waiting
//! for it, so that a miss overlaps with work instead of stalling it (a plain load holds its place
//! in the reorder buffer until the data arrives). Used by the hot loops that read ahead of
//! themselves: the SpMV kernels (`values` and `col_idx` a fixed distance ahead) and the window
//! graph's candidate search (the index reads of the next batches). A no-op off x86-64.

/// Asks the CPU to bring the cache line of `data[index]` into L1 (x86-64; a no-op elsewhere).
/// `index` may be past the end: only the address is computed (`wrapping_add`), nothing is read.
///
/// ```
/// let data = [1u32, 2, 3];
/// spmv_reorder_sparse::prefetch(&data, 1);
/// spmv_reorder_sparse::prefetch(&data, usize::MAX); // a hint: any index is allowed
/// ```
#[inline(always)]
#[allow(unsafe_code)]
pub fn prefetch<T>(data: &[T], index: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = data.as_ptr().wrapping_add(index);
        // SAFETY: `prefetcht0` is a hint: it never faults and reads nothing architecturally, so
        // any address is allowed; SSE, its target feature, is part of the x86-64 baseline.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (data, index);
}

#[cfg(test)]
mod tests {
    use super::prefetch;

    #[test]
    fn prefetch_accepts_any_position_and_changes_nothing() {
        let data: Vec<u32> = (0..1000).collect();
        for at in [0, 1, 15, 16, 999, 1000, usize::MAX] {
            prefetch(&data, at);
        }
        prefetch::<u64>(&[], 0);
        assert!(data.iter().enumerate().all(|(i, &x)| x as usize == i));
    }
}
