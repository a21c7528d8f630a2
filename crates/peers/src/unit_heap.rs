//! A max-priority queue over node ids whose keys only move by ±1: Gorder's *unit heap*.
//!
//! Wei, Yu, Lu, Lin, "Speedup Graph Processing by Graph Ordering", SIGMOD 2016, section 4.2. One
//! doubly-linked bucket per key value; a node moves to the neighbouring bucket in `O(1)` on an
//! increment or decrement. `pop_max` walks the top pointer down over empty buckets; the pointer
//! only rises by one per increment, so that walk is amortised `O(1)` per update. Called by
//! [`crate::gorder`].

const NIL: u32 = u32::MAX;

/// Buckets of nodes by integer key.
///
/// # Invariants
/// A node is *present* until [`UnitHeap::remove`]d; each present node is in exactly the bucket of its
/// key; `top` is at least the largest key of a present node.
pub(crate) struct UnitHeap {
    key: Vec<u32>,
    prev: Vec<u32>,
    next: Vec<u32>,
    present: Vec<bool>,
    head: Vec<u32>,
    top: usize,
}

impl UnitHeap {
    /// All of `0..n` present with key 0.
    pub(crate) fn new(n: usize) -> Self {
        let mut heap = Self {
            key: vec![0; n],
            prev: vec![NIL; n],
            next: vec![NIL; n],
            present: vec![true; n],
            head: vec![NIL],
            top: 0,
        };
        for v in (0..n).rev() {
            heap.link(v);
        }
        heap
    }

    /// True while `v` has not been removed.
    pub(crate) fn contains(&self, v: usize) -> bool {
        self.present[v]
    }

    /// Raises the key of a present node by one; ignores removed nodes.
    pub(crate) fn increment(&mut self, v: usize) {
        if !self.present[v] {
            return;
        }
        self.unlink(v);
        self.key[v] += 1;
        let k = self.key[v] as usize;
        if k == self.head.len() {
            self.head.push(NIL);
        }
        self.top = self.top.max(k);
        self.link(v);
    }

    /// Lowers the key of a present node by one; ignores removed nodes.
    ///
    /// # Panics
    /// If the key is already 0 (a caller bug: every decrement undoes an earlier increment).
    pub(crate) fn decrement(&mut self, v: usize) {
        if !self.present[v] {
            return;
        }
        assert!(self.key[v] > 0, "unit heap key underflow");
        self.unlink(v);
        self.key[v] -= 1;
        self.link(v);
    }

    /// Removes and returns a node of the largest key, if that key is positive.
    pub(crate) fn pop_positive_max(&mut self) -> Option<usize> {
        while self.top > 0 && self.head[self.top] == NIL {
            self.top -= 1;
        }
        if self.top == 0 {
            return None;
        }
        let v = self.head[self.top] as usize;
        self.remove(v);
        Some(v)
    }

    /// Removes a present node.
    ///
    /// # Panics
    /// If `v` was already removed (a caller bug).
    pub(crate) fn remove(&mut self, v: usize) {
        assert!(self.present[v], "node {v} removed twice");
        self.unlink(v);
        self.present[v] = false;
    }

    fn link(&mut self, v: usize) {
        let k = self.key[v] as usize;
        let old = self.head[k];
        self.prev[v] = NIL;
        self.next[v] = old;
        if old != NIL {
            self.prev[old as usize] = v as u32;
        }
        self.head[k] = v as u32;
    }

    fn unlink(&mut self, v: usize) {
        let (p, n) = (self.prev[v], self.next[v]);
        if p == NIL {
            self.head[self.key[v] as usize] = n;
        } else {
            self.next[p as usize] = n;
        }
        if n != NIL {
            self.prev[n as usize] = p;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_largest_key_and_only_positive_ones() {
        let mut h = UnitHeap::new(4);
        assert_eq!(h.pop_positive_max(), None);
        h.increment(2);
        h.increment(2);
        h.increment(1);
        h.increment(3);
        h.decrement(3);
        assert_eq!(h.pop_positive_max(), Some(2));
        assert!(!h.contains(2));
        h.increment(2); // removed: ignored
        assert_eq!(h.pop_positive_max(), Some(1));
        assert_eq!(h.pop_positive_max(), None);
        h.remove(0);
        h.remove(3);
        assert_eq!(h.pop_positive_max(), None);
    }

    #[test]
    fn matches_a_naive_max_under_random_updates() {
        let n = 30;
        let mut h = UnitHeap::new(n);
        let mut keys = vec![0u32; n];
        let mut alive = vec![true; n];
        let mut s = 12345u64;
        for _ in 0..3000 {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let v = (s >> 33) as usize % n;
            match (s >> 20) % 5 {
                0 | 1 => {
                    h.increment(v);
                    keys[v] += alive[v] as u32;
                }
                2 if keys[v] > 0 && alive[v] => {
                    h.decrement(v);
                    keys[v] -= 1;
                }
                3 => {
                    let best = (0..n).filter(|&u| alive[u]).map(|u| keys[u]).max();
                    match h.pop_positive_max() {
                        Some(u) => {
                            assert_eq!(Some(keys[u]), best);
                            alive[u] = false;
                        }
                        None => assert!(best.unwrap_or(0) == 0),
                    }
                }
                _ => {}
            }
        }
    }
}
