//! A max-priority queue over node ids with integer keys in `0..=max`: Gorder's *unit heap*,
//! generalised to steps larger than one.
//!
//! Wei, Yu, Lu, Lin, "Speedup Graph Processing by Graph Ordering", SIGMOD 2016, section 4.2: one
//! doubly-linked bucket per key value, so changing a node's key moves it between two buckets in
//! `O(1)`. The paper moves a node by ±1 per update; [`crate::gorder`] first sums the updates of one
//! step per node and moves each node once, which saves most of the list surgery when rows share many
//! columns. Decreases are lazy, as in the paper's code: a node whose key falls stays in its bucket
//! and moves down only when it reaches the top, so a key that falls and rises again within a few
//! steps (a row leaving the window, another entering) often moves nothing. `pop_positive_max` walks
//! the top pointer down over empty buckets; the pointer only rises by as much as keys rise, and a
//! node moves down at most once per fall of its key, so that work is amortised over the updates.

use spmv_reorder_sparse::prefetch;

const NIL: u32 = u32::MAX;

/// The key of a removed node (keys count shared columns and stay far below it).
const REMOVED: u32 = u32::MAX;

/// One node's bucket, lag and links, together: moving a node touches its own cache line and its
/// neighbours', not one line per field (moving nodes is a large share of Gorder's time on large
/// graphs).
#[derive(Clone, Copy)]
struct Node {
    /// The bucket the node is in: at least its key.
    bucket: u32,
    /// `bucket - key`: how far the key fell below the bucket since the node last moved.
    lag: u32,
    prev: u32,
    next: u32,
}

/// Buckets of nodes by integer key.
///
/// # Invariants
/// A node is *present* until [`BucketQueue::remove`]d (then its bucket is [`REMOVED`]); each
/// present node is in exactly one bucket, at least its key (lazy decrease, as the paper's unit heap
/// does: a key that falls leaves the node where it is, and the node moves down only when it reaches
/// the top, or up when its key passes its bucket again); `top` is at least the largest bucket of a
/// present node.
pub(crate) struct BucketQueue {
    nodes: Vec<Node>,
    head: Vec<u32>,
    top: usize,
}

impl BucketQueue {
    /// All of `0..n` present with key 0.
    pub(crate) fn new(n: usize) -> Self {
        let node = Node {
            bucket: 0,
            lag: 0,
            prev: NIL,
            next: NIL,
        };
        let mut queue = Self {
            nodes: vec![node; n],
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
        self.nodes[v].bucket != REMOVED
    }

    /// Starts loading `v`'s node into the cache (see [`prefetch`]); changes nothing.
    #[inline]
    pub(crate) fn prefetch(&self, v: usize) {
        prefetch(&self.nodes, v);
    }

    /// Adds `delta` to the key of a present node; ignores removed nodes.
    ///
    /// # Panics
    /// If the key would become negative (a caller bug: every decrease undoes an earlier increase).
    pub(crate) fn adjust(&mut self, v: usize, delta: i64) {
        if !self.contains(v) || delta == 0 {
            return;
        }
        let Node { bucket, lag, .. } = self.nodes[v];
        let key = i64::from(bucket) - i64::from(lag) + delta;
        assert!(key >= 0, "bucket queue key underflow");
        if key <= i64::from(bucket) {
            // Still at most its bucket: record the lag, move nothing.
            self.nodes[v].lag = (i64::from(bucket) - key) as u32;
            return;
        }
        let key = u32::try_from(key)
            .ok()
            .filter(|&k| k != REMOVED)
            .expect("key fits u32: it counts shared columns");
        self.unlink(v);
        self.nodes[v].bucket = key;
        self.nodes[v].lag = 0;
        let k = key as usize;
        if k >= self.head.len() {
            self.head.resize(k + 1, NIL);
        }
        self.top = self.top.max(k);
        self.link(v);
    }

    /// Removes and returns a node of the largest key, if that key is positive.
    ///
    /// Nodes met at the top whose key lags their bucket move down to their key first; the first
    /// node met with no lag has the largest key, since every key is at most its node's bucket.
    pub(crate) fn pop_positive_max(&mut self) -> Option<usize> {
        loop {
            while self.top > 0 && self.head[self.top] == NIL {
                self.top -= 1;
            }
            if self.top == 0 {
                return None;
            }
            let v = self.head[self.top] as usize;
            let lag = self.nodes[v].lag;
            if lag == 0 {
                self.remove(v);
                return Some(v);
            }
            self.unlink(v);
            self.nodes[v].bucket -= lag;
            self.nodes[v].lag = 0;
            self.link(v);
        }
    }

    /// Removes a present node.
    ///
    /// # Panics
    /// If `v` was already removed (a caller bug).
    pub(crate) fn remove(&mut self, v: usize) {
        assert!(self.contains(v), "node {v} removed twice");
        self.unlink(v);
        self.nodes[v].bucket = REMOVED;
    }

    fn link(&mut self, v: usize) {
        let k = self.nodes[v].bucket as usize;
        let old = self.head[k];
        self.nodes[v].prev = NIL;
        self.nodes[v].next = old;
        if old != NIL {
            self.nodes[old as usize].prev = v as u32;
        }
        self.head[k] = v as u32;
    }

    fn unlink(&mut self, v: usize) {
        let Node {
            bucket, prev, next, ..
        } = self.nodes[v];
        if prev == NIL {
            self.head[bucket as usize] = next;
        } else {
            self.nodes[prev as usize].next = next;
        }
        if next != NIL {
            self.nodes[next as usize].prev = prev;
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
