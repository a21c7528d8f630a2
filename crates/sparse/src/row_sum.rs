//! `s = Σ_k term(k)` over one row's nonzeros: the summation order of every `y = A·x` in the
//! workspace.
//!
//! `O(len)` adds. Two accumulators, both starting from -0.0, take the even and the odd positions
//! of the row (counted from the row's first nonzero); they are added at the row's end. Two
//! independent add chains instead of one let a memory-bound kernel keep more loads in flight
//! (the `spmv_kernels` bench measures it). Called by [`CsrMatrix::mul_vec_reference`], the
//! oracle, and by every row kernel of `spmv-reorder-spmv`, which is why they agree bitwise.
//!
//! [`CsrMatrix::mul_vec_reference`]: crate::CsrMatrix::mul_vec_reference

use std::ops::Range;

/// The sum of `term(k)` for `k` in `range` in the workspace's one row order: `even + odd`, where
/// `even` sums the terms at `range.start`, `range.start + 2`, … and `odd` those at
/// `range.start + 1`, `range.start + 3`, …, each left to right from -0.0.
///
/// -0.0 is the additive identity of IEEE 754 (a sum starting from +0.0 would turn a row summing
/// to -0.0 into +0.0), so an empty row gives -0.0 and a one-term row gives its term exactly. A
/// NaN term makes the sum NaN. `term` is called once per index, in increasing order; it decides
/// how each product is formed (bounds-checked or not), this function only the order of the adds.
///
/// ```
/// use spmv_reorder_sparse::row_sum;
///
/// let t = [1e16, 1.0, -1e16, 1.0];
/// // (1e16 + -1e16) + (1.0 + 1.0): left to right would give 1.0.
/// assert_eq!(row_sum(0..4, |k| t[k]), 2.0);
/// assert!(row_sum(0..0, |_| unreachable!()).is_sign_negative());
/// ```
#[inline(always)]
pub fn row_sum(range: Range<usize>, mut term: impl FnMut(usize) -> f64) -> f64 {
    let (mut even, mut odd) = (-0.0, -0.0);
    let mut k = range.start;
    while k + 1 < range.end {
        even += term(k);
        odd += term(k + 1);
        k += 2;
    }
    if k < range.end {
        even += term(k);
    }
    even + odd
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The order spelled out for every length up to 9.
    #[test]
    fn even_and_odd_positions_are_summed_apart() {
        let t: Vec<f64> = (0..9).map(|i| 1.0 / (3.0 + i as f64)).collect();
        for start in [0, 1] {
            for end in start..=9 {
                let (mut even, mut odd) = (-0.0, -0.0);
                for (i, &term) in t[start..end].iter().enumerate() {
                    if i % 2 == 0 {
                        even += term;
                    } else {
                        odd += term;
                    }
                }
                let got = row_sum(start..end, |k| t[k]);
                assert_eq!(got.to_bits(), (even + odd).to_bits(), "{start}..{end}");
            }
        }
    }

    #[test]
    fn signed_zeros_and_nan() {
        let neg = |r: Range<usize>| row_sum(r, |_| -0.0).to_bits();
        for len in 0..5 {
            assert_eq!(neg(0..len), (-0.0f64).to_bits(), "len {len}");
        }
        assert_eq!(
            row_sum(0..3, |k| [-0.0, 0.0, -0.0][k]).to_bits(),
            0.0f64.to_bits()
        );
        assert!(row_sum(0..3, |k| [1.0, f64::NAN, 2.0][k]).is_nan());
        assert!(row_sum(0..4, |k| [f64::INFINITY, 1.0, f64::NEG_INFINITY, 1.0][k]).is_nan());
    }
}
