//! Array tour: `order[pos[v]] == v`, flips reverse the shorter side.
//!
//! Cost: `next`/`prev`/`between` O(1); `flip` O(min(k, n - k)) for a reversal of `k` nodes, so at most
//! `n / 2` swaps. Reversing the complement instead of the segment yields the same cycle read backwards; a
//! `reversed` flag restores the orientation callers expect. Source: Fredman et al. (1995), section 2
//! ("array representation"); Johnson & McGeoch (1997). Caller: [`crate::solve_path`].

use super::Tour;

/// Array with position index and lazy orientation.
///
/// # Invariants
/// `order[pos[v]] == v` for all `v`; when `reversed`, the logical successor is the physical predecessor.
#[derive(Debug, Clone)]
pub struct ArrayTour {
    order: Vec<u32>,
    pos: Vec<u32>,
    reversed: bool,
}

impl ArrayTour {
    #[inline]
    fn phys_next(&self, a: usize) -> usize {
        let p = self.pos[a] as usize + 1;
        self.order[if p == self.order.len() { 0 } else { p }] as usize
    }

    #[inline]
    fn phys_prev(&self, a: usize) -> usize {
        let p = self.pos[a] as usize;
        self.order[if p == 0 { self.order.len() - 1 } else { p - 1 }] as usize
    }

    /// Reverses the physical stretch from position `i` forward to position `j` (cyclic).
    fn reverse_positions(&mut self, i: usize, j: usize) {
        let n = self.order.len();
        let len = (j + n - i) % n + 1;
        let (mut i, mut j) = (i, j);
        for _ in 0..len / 2 {
            self.order.swap(i, j);
            self.pos[self.order[i] as usize] = i as u32;
            self.pos[self.order[j] as usize] = j as u32;
            i = if i + 1 == n { 0 } else { i + 1 };
            j = if j == 0 { n - 1 } else { j - 1 };
        }
    }
}

impl Tour for ArrayTour {
    fn from_order(order: &[usize]) -> Self {
        let mut pos = vec![0u32; order.len()];
        for (i, &v) in order.iter().enumerate() {
            pos[v] = i as u32;
        }
        Self {
            order: order.iter().map(|&v| v as u32).collect(),
            pos,
            reversed: false,
        }
    }

    fn len(&self) -> usize {
        self.order.len()
    }

    #[inline]
    fn next(&self, a: usize) -> usize {
        if self.reversed {
            self.phys_prev(a)
        } else {
            self.phys_next(a)
        }
    }

    #[inline]
    fn prev(&self, a: usize) -> usize {
        if self.reversed {
            self.phys_next(a)
        } else {
            self.phys_prev(a)
        }
    }

    fn between(&self, a: usize, b: usize, c: usize) -> bool {
        let n = self.order.len();
        let (pa, pb, pc) = (
            self.pos[a] as usize,
            self.pos[b] as usize,
            self.pos[c] as usize,
        );
        if self.reversed {
            (pa + n - pb) % n <= (pa + n - pc) % n
        } else {
            (pb + n - pa) % n <= (pc + n - pa) % n
        }
    }

    fn flip(&mut self, a: usize, b: usize, c: usize, d: usize) {
        debug_assert_eq!(self.next(a), b, "flip: b must follow a");
        debug_assert_eq!(self.next(c), d, "flip: d must follow c");
        let n = self.order.len();
        // Physical stretch holding the logical walk b..=c.
        let (start, end) = if self.reversed {
            (self.pos[c] as usize, self.pos[b] as usize)
        } else {
            (self.pos[b] as usize, self.pos[c] as usize)
        };
        let len = (end + n - start) % n + 1;
        if 2 * len <= n {
            self.reverse_positions(start, end);
        } else {
            // The complement a..d (physically end+1 ..= start-1) reversed is the same cycle read backwards.
            if len < n {
                self.reverse_positions((end + 1) % n, (start + n - 1) % n);
            }
            self.reversed = !self.reversed;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_model() {
        super::super::tests::check_against_model::<ArrayTour>();
    }

    #[test]
    fn small_tours() {
        let mut t = ArrayTour::from_order(&[0, 1, 2]);
        t.flip(0, 1, 1, 2);
        assert_eq!(t.order_from(0), vec![0, 1, 2]);
        let t = ArrayTour::from_order(&[0]);
        assert_eq!(t.next(0), 0);
    }
}
