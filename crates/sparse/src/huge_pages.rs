//! [`HugePageAlloc`]: the system allocator, asking Linux for transparent huge pages for large
//! blocks.

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks of this many bytes or more are advised (numpy's threshold): smaller ones hold less than
/// one aligned huge page of their own and are left to the system's choice.
pub const HUGE_PAGE_MIN_BYTES: usize = 4 << 20;

/// The huge page size of x86-64 and of 4 KiB-page arm64 kernels; the advice covers the aligned
/// huge pages that lie wholly inside a block.
const HUGE_PAGE_BYTES: usize = 2 << 20;

/// A global allocator: the system's, asking Linux for transparent huge pages for large blocks.
///
/// SpMV streams the matrix and reads `x` at random. With 4 KiB pages every array of a
/// million-row matrix spans thousands of pages: reads at random miss the TLB, and the hardware
/// prefetchers stop at every page boundary of the streams. Where the system leaves huge pages to
/// the program (`/sys/kernel/mm/transparent_hugepage/enabled` is `madvise`, the default of many
/// distributions), a block gets them only when asked with `madvise(MADV_HUGEPAGE)` before it is
/// first written. [`HugePageAlloc`] forwards every call to the system allocator and asks that for
/// each block of [`HUGE_PAGE_MIN_BYTES`] or more; numpy asks the same for its arrays of 4 MiB or
/// more, so that a product timed through scipy or MKL gets them too.
///
/// A binary opts in with one declaration; on other systems, and where huge pages are `never`, the
/// advice does nothing:
///
/// ```
/// use spmv_reorder_sparse::HugePageAlloc;
///
/// #[global_allocator]
/// static ALLOC: HugePageAlloc = HugePageAlloc;
///
/// fn main() {
///     let x = vec![1.0f64; 1 << 20]; // 8 MiB: advised before the ones are written
///     assert_eq!(x.iter().sum::<f64>(), (1 << 20) as f64);
/// }
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct HugePageAlloc;

// SAFETY: every method forwards to `System` with the caller's own arguments, so `System`'s
// guarantees hold unchanged; `advise` only sets a hint on pages inside the block that `System`
// returned and never reads, writes, moves or frees memory.
unsafe impl GlobalAlloc for HugePageAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which is `System`'s.
        let block = unsafe { System.alloc(layout) };
        advise(block, layout.size());
        block
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        let block = unsafe { System.alloc_zeroed(layout) };
        advise(block, layout.size());
        block
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract: `ptr` came from this
        // allocator (so from `System`) with `layout`.
        let block = unsafe { System.realloc(ptr, layout, new_size) };
        advise(block, new_size);
        block
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, so from `System`, with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Asks for huge pages over the aligned huge pages inside `[block, block + len)`, when the block
/// is large enough. A refused advice (an old kernel, huge pages compiled out) changes nothing, so
/// its result is ignored.
fn advise(block: *mut u8, len: usize) {
    if block.is_null() || len < HUGE_PAGE_MIN_BYTES {
        return;
    }
    let Some((start, bytes)) = aligned_inside(block as usize, len) else {
        return;
    };
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `[start, start + bytes)` lies inside the block just returned by `System` and
        // is made of whole pages; `MADV_HUGEPAGE` only marks the mapping as wanting huge pages
        // (the kernel may back its pages by huge ones, with the same contents), so no memory is
        // read, written or released.
        unsafe {
            libc::madvise(start as *mut libc::c_void, bytes, libc::MADV_HUGEPAGE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, bytes);
}

/// The first address and length of the whole huge pages inside `[addr, addr + len)`, if any.
fn aligned_inside(addr: usize, len: usize) -> Option<(usize, usize)> {
    let start = addr.checked_next_multiple_of(HUGE_PAGE_BYTES)?;
    let end = addr.checked_add(len)? / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
    (end > start).then(|| (start, end - start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_huge_pages_inside_the_block_are_advised() {
        let mib = 1 << 20;
        assert_eq!(aligned_inside(0, 4 * mib), Some((0, 4 * mib)));
        assert_eq!(aligned_inside(4096, 4 * mib), Some((2 * mib, 2 * mib)));
        assert_eq!(aligned_inside(4096, 4 * mib - 8192), None);
        assert_eq!(
            aligned_inside(2 * mib - 1, 2 * mib + 2),
            Some((2 * mib, 2 * mib))
        );
        assert_eq!(aligned_inside(usize::MAX - 10, 5), None);
    }

    /// A block of the threshold or more keeps its contents through growth and shrinking, and its
    /// mapping carries the advice (`hg` among the flags of `/proc/self/smaps`) on Linux.
    #[test]
    fn large_blocks_are_advised_and_behave_as_the_systems() {
        let alloc = HugePageAlloc;
        let size = 8 << 20;
        let layout = Layout::from_size_align(size, 8).unwrap();
        // SAFETY: a non-zero layout; the block is written and read within its bounds, grown with
        // the layout it has, and freed once with its current layout.
        unsafe {
            let block = alloc.alloc_zeroed(layout);
            assert!(!block.is_null());
            let words = block.cast::<u64>();
            assert_eq!(*words.add(size / 8 - 1), 0);
            for i in 0..size / 8 {
                *words.add(i) = i as u64;
            }
            #[cfg(target_os = "linux")]
            assert_advised(block as usize, size);
            let grown = alloc.realloc(block, layout, 2 * size);
            assert!(!grown.is_null());
            let words = grown.cast::<u64>();
            assert!((0..size / 8).all(|i| *words.add(i) == i as u64));
            #[cfg(target_os = "linux")]
            assert_advised(grown as usize, 2 * size);
            alloc.dealloc(grown, Layout::from_size_align(2 * size, 8).unwrap());
        }
    }

    #[test]
    fn small_blocks_are_served_as_by_the_system() {
        let alloc = HugePageAlloc;
        let layout = Layout::from_size_align(4096, 64).unwrap();
        // SAFETY: a non-zero layout, written within bounds and freed once with it.
        unsafe {
            let block = alloc.alloc(layout);
            assert!(!block.is_null());
            assert_eq!(block as usize % 64, 0);
            block.write_bytes(7, 4096);
            assert_eq!(*block.add(4095), 7);
            alloc.dealloc(block, layout);
        }
    }

    /// The mapping that holds the first whole huge page of the block is marked `hg`
    /// (`MADV_HUGEPAGE`) in `/proc/self/smaps`, when that file can be read.
    #[cfg(target_os = "linux")]
    fn assert_advised(addr: usize, len: usize) {
        let Ok(smaps) = std::fs::read_to_string("/proc/self/smaps") else {
            return;
        };
        let (page, _) = aligned_inside(addr, len).expect("a whole huge page inside");
        let mut inside = false;
        let mut found = false;
        for line in smaps.lines() {
            let range = line.split_whitespace().next().and_then(|r| {
                let (lo, hi) = r.split_once('-')?;
                Some((
                    usize::from_str_radix(lo, 16).ok()?,
                    usize::from_str_radix(hi, 16).ok()?,
                ))
            });
            if let Some((lo, hi)) = range {
                inside = lo <= page && page < hi;
                found |= inside;
            } else if inside && line.starts_with("VmFlags:") {
                assert!(
                    line.split_whitespace().any(|f| f == "hg"),
                    "the block's mapping is not advised: {line}"
                );
                return;
            }
        }
        assert!(!found, "the block's mapping lists no VmFlags");
    }
}
