//! The buffers of a stream's blocks, reused once parsed: while reading, the memory of parsed
//! blocks holds the next ones, saving the page faults of fresh memory. Called by `stream.rs`.

use crate::body::Chunk;
use crate::read::Preamble;

/// Reuses the memory of parsed blocks for the next ones, saving the page faults of fresh memory.
///
/// The bytes of a block are kept only while they may be needed to locate an error: a block is
/// released once every block before it is parsed, it has no bad line, and the entries up to its
/// end do not exceed the size line's count (so the "too many entries" line cannot fall in it).
/// `array` bodies keep everything (a non-real Hermitian diagonal is located after assembly).
pub(crate) struct Recycler<T> {
    enabled: bool,
    expected: u64,
    /// Entries of the blocks released so far, all before `next`.
    entries: u64,
    /// The first block not yet released.
    next: usize,
    /// Parsed blocks by index (`None`: not parsed yet).
    done: Vec<Option<(Vec<u8>, Chunk<T>)>>,
    free: Vec<Vec<u8>>,
}

impl<T> Recycler<T> {
    pub(crate) fn new(pre: &Preamble) -> Self {
        Recycler {
            enabled: pre.header.format == crate::Format::Coordinate,
            expected: pre.size.entries,
            entries: 0,
            next: 0,
            done: Vec::new(),
            free: Vec::new(),
        }
    }

    /// An empty buffer, reused when one is free.
    pub(crate) fn buffer(&mut self) -> Vec<u8> {
        self.free.pop().unwrap_or_default()
    }

    /// Takes a parsed block; releases the blocks that can no longer matter.
    pub(crate) fn absorb(&mut self, (index, bytes, chunk): (usize, Vec<u8>, Chunk<T>)) {
        if self.done.len() <= index {
            self.done.resize_with(index + 1, || None);
        }
        self.done[index] = Some((bytes, chunk));
        while self.enabled {
            let Some(Some((bytes, chunk))) = self.done.get_mut(self.next) else {
                break;
            };
            let entries = self.entries + chunk.len() as u64;
            if !chunk.is_clean() || entries > self.expected {
                self.enabled = false;
                break;
            }
            let mut released = std::mem::take(bytes);
            released.clear();
            self.free.push(released);
            self.entries = entries;
            self.next += 1;
        }
    }

    pub(crate) fn into_blocks(self) -> Vec<(usize, Vec<u8>, Chunk<T>)> {
        self.done
            .into_iter()
            .enumerate()
            .filter_map(|(i, d)| d.map(|(b, c)| (i, b, c)))
            .collect()
    }
}
