//! Test helpers: generated matrices and the measures the tests check orderings against.

use crate::envelope::bandwidth;
use spmv_reorder_sparse::{CsrMatrix, Permutation, Value};

/// The 5-point stencil pattern of a `w x h` grid (node `y·w + x`), with the diagonal.
pub(crate) fn grid(w: usize, h: usize) -> CsrMatrix<()> {
    let mut t = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let v = y * w + x;
            t.push((v, v, ()));
            if x + 1 < w {
                t.extend([(v, v + 1, ()), (v + 1, v, ())]);
            }
            if y + 1 < h {
                t.extend([(v, v + w, ()), (v + w, v, ())]);
            }
        }
    }
    CsrMatrix::from_triplets(w * h, w * h, t).unwrap()
}

/// `P·A·Pᵀ` for a seeded random `P`.
pub(crate) fn shuffled_symmetric<T: Value>(a: &CsrMatrix<T>, seed: u64) -> CsrMatrix<T> {
    a.permute_symmetric(&Permutation::random(a.nrows(), seed))
        .unwrap()
}

/// Bandwidth of `P·A·Pᵀ`.
pub(crate) fn bandwidth_after<T: Value>(a: &CsrMatrix<T>, p: &Permutation) -> usize {
    bandwidth(a, p).unwrap()
}

/// SPEC section 2's `D = Σ_i |C_i xor C_{i+1}|` of `P·A` (a column permutation leaves it unchanged).
pub(crate) fn distance_sum_after<T: Value>(a: &CsrMatrix<T>, p: &Permutation) -> usize {
    p.new_to_old()
        .windows(2)
        .map(|w| {
            let (r, s) = (a.row(w[0]).0, a.row(w[1]).0);
            let shared = r.iter().filter(|c| s.binary_search(c).is_ok()).count();
            r.len() + s.len() - 2 * shared
        })
        .sum()
}

/// An unsymmetric banded `n x n` pattern: 4 random columns per row in `i..i+width` (clamped to the
/// last column), plus half the diagonal; about `4.5 n` entries, bandwidth below `width`.
pub(crate) fn banded_random(n: usize, width: usize, seed: u64) -> CsrMatrix<()> {
    let mut next = lcg(seed);
    let t: Vec<(usize, usize, ())> = (0..4 * n)
        .map(|k| (k / 4, (k / 4 + next() % width).min(n - 1), ()))
        .chain((0..n / 2).map(|i| (i, i, ())))
        .collect();
    CsrMatrix::from_triplets(n, n, t).unwrap()
}

/// An unsymmetric `n x n` pattern with `per_row` columns drawn at random in each row: a graph
/// whose breadth-first levels widen to thousands of nodes within a few steps.
pub(crate) fn random_graph(n: usize, per_row: usize, seed: u64) -> CsrMatrix<()> {
    let mut next = lcg(seed);
    let t: Vec<(usize, usize, ())> = (0..per_row * n)
        .map(|k| (k / per_row, next() % n, ()))
        .collect();
    CsrMatrix::from_triplets(n, n, t).unwrap()
}

/// A seeded linear congruential generator of 31-bit numbers.
fn lcg(seed: u64) -> impl FnMut() -> usize {
    let mut s = seed;
    move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 33) as usize
    }
}
