//! A max-priority queue over node ids with integer keys in `0..=max`: Gorder's *unit heap*,
//! generalised to steps larger than one.
//!
//! Wei, Yu, Lu, Lin, "Speedup Graph Processing by Graph Ordering", SIGMOD 2016, section 4.2: one
//! doubly-linked bucket per key value, so changing a node's key moves it between two buckets in
//! `O(1)`. The paper moves a node by ±1 per update; [`crate::gorder`] first sums the updates of one
//! step per node and moves each node once, which saves most of the list surgery when rows share many
//! columns. `pop_positive_max` walks the top pointer down over empty buckets; the pointer only rises
//! by as much as keys rise, so that walk is amortised over the updates.

const NIL: u32 = u32::MAX;

/// Buckets of nodes by integer key.
///
/// # Invariants
/// A node is *present* until [`BucketQueue::remove`]d; each present node is in exactly the bucket
/// of its key; `top` is at least the largest key of a present node.
pub(crate) struct BucketQueue {
    key: Vec<u32>,
    prev: Vec<u32>,
    next: Vec<u32>,
    present: Vec<bool>,
    head: Vec<u32>,
    top: usize,
}

impl BucketQueue {
    /// All of `0..n` present with key 0.
    pub(crate) fn new(n: usize) -> Self {
        let mut queue = Self {
            key: vec![0; n],
            prev: vec![NIL; n],
            next: vec![NIL; n],
            present: vec![true; n],
            head: vec![NIL],
            top: 0,
        };
        for v in (0..n).rev() {
            queue.link(v);
        }
        queue
    }

    /// True while `v` has not been removed.
    #[inline]
    pub(crate) fn contains(&self, v: usize) -> bool {
        self.present[v]
    }

    /// Adds `delta` to the key of a present node; ignores removed nodes.
    ///
    /// # Panics
    /// If the key would become negative (a caller bug: every decrease undoes an earlier increase).
    pub(crate) fn adjust(&mut self, v: usize, delta: i64) {
        if !self.present[v] || delta == 0 {
            return;
        }
        let key = i64::from(self.key[v]) + delta;
        assert!(key >= 0, "bucket queue key underflow");
        let key = u32::try_from(key).expect("key fits u32: it counts shared columns");
        self.unlink(v);
        self.key[v] = key;
        let k = key as usize;
        if k >= self.head.len() {
            self.head.resize(k + 1, NIL);
        }
        self.top = self.top.max(k);
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
        let mut q = BucketQueue::new(4);
        assert_eq!(q.pop_positive_max(), None);
        q.adjust(2, 2);
        q.adjust(1, 1);
        q.adjust(3, 5);
        q.adjust(3, -5);
        assert_eq!(q.pop_positive_max(), Some(2));
        assert!(!q.contains(2));
        q.adjust(2, 7); // removed: ignored
        assert_eq!(q.pop_positive_max(), Some(1));
        assert_eq!(q.pop_positive_max(), None);
        q.remove(0);
        q.remove(3);
        assert_eq!(q.pop_positive_max(), None);
    }

    #[test]
    fn matches_a_naive_max_under_random_updates() {
        let n = 30;
        let mut q = BucketQueue::new(n);
        let mut keys = vec![0i64; n];
        let mut alive = vec![true; n];
        let mut s = 12345u64;
        for _ in 0..5000 {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let v = (s >> 33) as usize % n;
            let step = ((s >> 40) % 4) as i64 + 1;
            match (s >> 20) % 5 {
                0 | 1 => {
                    q.adjust(v, step);
                    keys[v] += step * i64::from(alive[v]);
                }
                2 if alive[v] => {
                    let down = step.min(keys[v]);
                    q.adjust(v, -down);
                    keys[v] -= down;
                }
                3 => {
                    let best = (0..n).filter(|&u| alive[u]).map(|u| keys[u]).max();
                    match q.pop_positive_max() {
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
