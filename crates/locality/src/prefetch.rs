//! A software prefetch: asks the memory system for the cache line of an element without waiting
//! for it. The candidate search issues the random index reads of the next batches this way while
//! it computes the current one, so their misses overlap with work instead of stalling it (a plain
//! load cannot do this: it holds its place in the reorder buffer until the data arrives).
//! A no-op on targets other than x86-64.

/// Hints that `slice[at]` will be read soon. Does nothing when `at` is out of bounds.
#[inline(always)]
pub(crate) fn prefetch<T>(slice: &[T], at: usize) {
    if let Some(element) = slice.get(at) {
        prefetch_line(element);
    }
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(unsafe_code)]
fn prefetch_line<T>(element: &T) {
    use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
    // SAFETY: SSE, which `_mm_prefetch` needs, is part of the x86-64 baseline; a prefetch never
    // faults nor changes memory, and the address is a live reference anyway.
    unsafe { _mm_prefetch::<_MM_HINT_T0>((element as *const T).cast::<i8>()) }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn prefetch_line<T>(_element: &T) {}

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
