//! Lin-Kernighan: a variable-depth sequence of 2-opt flips that keeps `t1` fixed and moves the free end,
//! stopping at the best closed tour found along the way.
//!
//! At level `i` the path end `t2i` gains an edge `(t2i, t2i+1)` to a candidate neighbour and loses
//! `(t2i+2, t2i+1)` (`t2i+2` = the predecessor of `t2i+1` walking away from `t1`), which is one flip.
//! The partial gain `G_i = Σ removed − Σ added` must stay positive (gain criterion); an edge added is
//! never removed and an edge removed never re-added in the same move. Alternatives at level `i` are
//! ordered by `c(t2i+1, t2i+2) − c(t2i, t2i+1)` (the linkern look-ahead) and the first `breadth[i]` are
//! tried with backtracking (1 beyond the listed levels), up to `depth` levels.
//!
//! Cost per search from `t1`: O(Π breadth[i] × depth × K) evaluations plus the flips made (and undone).
//! Source: Lin & Kernighan (1973); the flip formulation, look-ahead and breadth limits of Applegate,
//! Cook & Rohe, "Chained Lin-Kernighan for large traveling salesman problems" (2003) and of Johnson &
//! McGeoch (1997) section 3.4; thesis (Lorenzo 2011) section 4.2 uses this solver. Caller:
//! [`crate::local_search::descend`] via [`crate::solve_path`] and the kick loop.

use crate::local_search::{Context, Improver};
use crate::tour::{Dir, Tour};

/// One alternative at a level: add `(end, t3)`, remove `(t4, t3)`.
#[derive(Clone, Copy)]
struct Step {
    t3: usize,
    t4: usize,
    added: i64,
    removed: i64,
}

/// The Lin-Kernighan improver with its scratch space.
pub(crate) struct LinKernighan {
    depth: usize,
    breadth: Vec<usize>,
    /// Flips applied in the current move, as forward `flip` arguments.
    flips: Vec<[usize; 4]>,
    added: Vec<(usize, usize)>,
    removed: Vec<(usize, usize)>,
    /// Per-level scratch for the alternatives.
    alternatives: Vec<Vec<Step>>,
    best_gain: i64,
    best_len: usize,
    /// The fixed node of the current move.
    t1: usize,
    /// Direction of the current move (`t2 = succ(t1)`).
    dir: Dir,
}

fn edge(a: usize, b: usize) -> (usize, usize) {
    (a.min(b), a.max(b))
}

impl LinKernighan {
    /// An improver searching `depth` levels with `breadth[i]` alternatives at level `i`.
    pub(crate) fn new(depth: usize, breadth: Vec<usize>) -> Self {
        Self {
            depth,
            breadth,
            flips: Vec::new(),
            added: Vec::new(),
            removed: Vec::new(),
            alternatives: Vec::new(),
            best_gain: 0,
            best_len: 0,
            t1: 0,
            dir: Dir::Forward,
        }
    }

    fn breadth_at(&self, level: usize) -> usize {
        self.breadth.get(level).copied().unwrap_or(1)
    }

    /// The gainful alternatives from path end `end`, best look-ahead first.
    fn alternatives_from<T: Tour>(
        &self,
        ctx: &Context<'_>,
        tour: &T,
        end: usize,
        gain: i64,
        out: &mut Vec<Step>,
    ) {
        let (dir, t1) = (self.dir, self.t1);
        out.clear();
        let end_succ = dir.succ(tour, end);
        for (t3, added) in ctx.neighbours.of(end) {
            // Gain criterion, with Lin & Kernighan's stopping rule: the partial gain must beat the best
            // closed gain found so far.
            if gain - added <= self.best_gain {
                break;
            }
            if t3 == t1 || t3 == end_succ || self.removed.contains(&edge(end, t3)) {
                continue;
            }
            let t4 = dir.pred(tour, t3);
            if self.added.contains(&edge(t4, t3)) {
                continue;
            }
            let removed = ctx.cost(t4, t3);
            out.push(Step {
                t3,
                t4,
                added,
                removed,
            });
        }
        out.sort_by_key(|s| (s.added - s.removed, s.t3));
    }

    /// Extends the move from path end `end` with partial gain `gain` at `level`.
    fn extend<T: Tour>(
        &mut self,
        ctx: &Context<'_>,
        tour: &mut T,
        end: usize,
        gain: i64,
        level: usize,
    ) {
        let (dir, t1) = (self.dir, self.t1);
        if self.alternatives.len() <= level {
            self.alternatives.resize_with(level + 1, Vec::new);
        }
        let mut alts = std::mem::take(&mut self.alternatives[level]);
        self.alternatives_from(ctx, tour, end, gain, &mut alts);
        alts.truncate(self.breadth_at(level));
        for step in alts.iter().copied() {
            let Step {
                t3,
                t4,
                added,
                removed,
            } = step;
            dir.flip(tour, t1, end, t4, t3);
            self.flips.push(forward_args(dir, t1, end, t4, t3));
            self.added.push(edge(end, t3));
            self.removed.push(edge(t4, t3));
            let partial = gain - added + removed;
            let closed = partial - ctx.cost(t4, t1);
            if closed > self.best_gain {
                self.best_gain = closed;
                self.best_len = self.flips.len();
            }
            if level + 1 < self.depth {
                self.extend(ctx, tour, t4, partial, level + 1);
            }
            if self.best_gain > 0 {
                break;
            }
            self.undo_last(tour);
            self.added.pop();
            self.removed.pop();
        }
        self.alternatives[level] = alts;
    }

    fn undo_last<T: Tour>(&mut self, tour: &mut T) {
        let [a, b, c, d] = self.flips.pop().expect("a flip to undo");
        tour.flip(a, c, b, d);
    }
}

/// The forward `flip` arguments that `dir.flip(a, b, c, d)` uses.
fn forward_args(dir: Dir, a: usize, b: usize, c: usize, d: usize) -> [usize; 4] {
    match dir {
        Dir::Forward => [a, b, c, d],
        Dir::Backward => [d, c, b, a],
    }
}

impl Improver for LinKernighan {
    fn improve<T: Tour>(
        &mut self,
        ctx: &Context<'_>,
        tour: &mut T,
        t1: usize,
        touched: &mut Vec<usize>,
    ) -> i64 {
        if tour.len() < 4 {
            return 0;
        }
        for dir in Dir::BOTH {
            let t2 = dir.succ(tour, t1);
            self.flips.clear();
            self.added.clear();
            self.removed.clear();
            self.removed.push(edge(t1, t2));
            self.best_gain = 0;
            self.best_len = 0;
            self.t1 = t1;
            self.dir = dir;
            self.extend(ctx, tour, t2, ctx.cost(t1, t2), 0);
            if self.best_gain > 0 {
                while self.flips.len() > self.best_len {
                    self.undo_last(tour);
                }
                for f in &self.flips {
                    touched.extend_from_slice(f);
                }
                return self.best_gain;
            }
        }
        0
    }
}
