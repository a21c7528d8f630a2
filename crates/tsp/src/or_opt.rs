//! Or-opt: move a segment of 1 to 3 consecutive nodes between two other adjacent nodes, possibly reversed.
//!
//! Cost per search from `t1`: O(segment lengths × 2 ends × K candidates × 2 sides) cost evaluations
//! (pruned by `c(end, c) < removal gain`), plus at most 3 flips. Source: Or, "Traveling salesman-type
//! combinatorial problems" (1976); the flip sequence of a segment insertion from Bentley (1992). The pure
//! (unreversed) insertion is a sequential 3-opt move that flip-based Lin-Kernighan cannot reach through
//! gainful 2-opt steps, so the LK improver falls back on this one. Caller: [`crate::local_search`].

use crate::local_search::{Context, Improver};
use crate::tour::{Dir, Tour};

/// Longest segment moved.
const MAX_SEGMENT: usize = 3;

/// First-improvement Or-opt over neighbour lists.
pub(crate) struct OrOpt;

/// A segment `first..=last` (forward) with its outside neighbours `p = prev(first)`, `q = next(last)`.
#[derive(Clone, Copy)]
struct Segment {
    p: usize,
    first: usize,
    last: usize,
    q: usize,
    /// The segment's nodes (`len` of them), for O(1) membership tests.
    nodes: [usize; MAX_SEGMENT],
    len: usize,
}

impl Segment {
    fn new<T: Tour>(tour: &T, first: usize, last: usize) -> Self {
        let mut nodes = [first; MAX_SEGMENT];
        let mut len = 1;
        let mut u = first;
        while u != last && len < MAX_SEGMENT {
            u = tour.next(u);
            nodes[len] = u;
            len += 1;
        }
        Self {
            p: tour.prev(first),
            first,
            last,
            q: tour.next(last),
            nodes,
            len,
        }
    }

    fn contains(&self, v: usize) -> bool {
        self.nodes[..self.len].contains(&v)
    }
}

impl Improver for OrOpt {
    fn improve<T: Tour>(
        &mut self,
        ctx: &Context<'_>,
        tour: &mut T,
        t1: usize,
        touched: &mut Vec<usize>,
    ) -> i64 {
        if tour.len() < MAX_SEGMENT + 3 {
            return 0;
        }
        for dir in Dir::BOTH {
            let mut other = t1;
            for len in 1..=MAX_SEGMENT {
                if len > 1 {
                    other = dir.succ(tour, other);
                }
                let (first, last) = match dir {
                    Dir::Forward => (t1, other),
                    Dir::Backward => (other, t1),
                };
                if len == 1 && dir == Dir::Backward {
                    continue; // same single-node segment as forward
                }
                let seg = Segment::new(tour, first, last);
                let gain = try_segment(ctx, tour, seg, touched);
                if gain > 0 {
                    return gain;
                }
            }
        }
        0
    }
}

/// Best-first search of insertion points for `seg`; applies the first improving one.
fn try_segment<T: Tour>(
    ctx: &Context<'_>,
    tour: &mut T,
    seg: Segment,
    touched: &mut Vec<usize>,
) -> i64 {
    let c = |a, b| ctx.cost(a, b);
    let removal = c(seg.p, seg.first) + c(seg.last, seg.q) - c(seg.p, seg.q);
    if removal <= 0 {
        return 0;
    }
    for (end, other_end) in [(seg.first, seg.last), (seg.last, seg.first)] {
        for (x, dex) in ctx.neighbours.of(end) {
            if dex >= removal {
                break;
            }
            if seg.contains(x) {
                continue;
            }
            for y in [tour.next(x), tour.prev(x)] {
                if seg.contains(y) {
                    continue;
                }
                let gain = removal - (dex + c(other_end, y) - c(x, y));
                if gain > 0 {
                    // `end` goes next to `x`, `other_end` next to `y`.
                    insert(tour, seg, x, y, end);
                    touched.extend_from_slice(&[seg.p, seg.q, seg.first, seg.last, x, y]);
                    return gain;
                }
            }
        }
    }
    0
}

/// Moves `seg` between the adjacent nodes `x`, `y`, with `end` (an end of the segment) next to `x`.
fn insert<T: Tour>(tour: &mut T, seg: Segment, x: usize, y: usize, end: usize) {
    // Normalise to the forward edge (u, v = next(u)); `u_end` is the segment end that must follow `u`.
    let (u, v, u_end) = if tour.next(x) == y {
        (x, y, end)
    } else {
        let other = if end == seg.first {
            seg.last
        } else {
            seg.first
        };
        (y, x, other)
    };
    let Segment {
        p, first, last, q, ..
    } = seg;
    // Tour: p [first..last] q .. u v ..  →  p q .. u [last..first] v ..
    tour.flip(p, first, u, v);
    tour.flip(p, u, q, last);
    if u_end == first {
        // → p q .. u [first..last] v ..
        tour.flip(u, last, first, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tour::ArrayTour;

    fn check_insert(order: &[usize], first: usize, last: usize, x: usize, y: usize, end: usize) {
        let mut t = ArrayTour::from_order(order);
        let seg = Segment::new(&t, first, last);
        insert(&mut t, seg, x, y, end);
        let other = if end == first { last } else { first };
        assert!(
            t.next(x) == end || t.prev(x) == end,
            "{:?}",
            t.order_from(0)
        );
        assert!(t.next(y) == other || t.prev(y) == other);
        let p = seg.p;
        assert!(t.next(p) == seg.q || t.prev(p) == seg.q);
    }

    #[test]
    fn insertion_in_all_orientations() {
        let order: Vec<usize> = (0..10).collect();
        for (x, y) in [(5, 6), (6, 5), (9, 0), (0, 9), (4, 5)] {
            for end in [1, 3] {
                check_insert(&order, 1, 3, x, y, end);
            }
        }
        check_insert(&order, 2, 2, 7, 8, 2);
    }
}
