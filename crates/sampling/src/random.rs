//! Random sampling: keep each nonzero independently with probability `p` (thesis 4.3, SPEC §5).
//!
//! Cost `O(s + n)` for `s` sampled entries of an `n`-row matrix: the gaps between kept nonzeros
//! are geometric, so one random draw per *kept* entry skips straight to the next one (no draw per
//! nonzero); the kept columns are gathered with independent loads, and the rows come from one
//! forward walk over `row_ptr`, which also writes the `n + 1` row offsets of the result (the only
//! `O(n)` part) and counts the rows left without a sample. Called by [`crate::sample`].

use crate::{Coverage, Sample, SamplingError};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use spmv_reorder_sparse::{CsrMatrix, Value};

/// The nonzeros of `matrix` kept independently with probability `p`, drawn from `seed`.
///
/// The same `(matrix, p, seed)` always gives the same sample. Latencies are unknown (all 0).
///
/// # Errors
/// [`SamplingError::InvalidProbability`] unless `0 <= p <= 1`.
pub fn random_sample<T: Value>(
    matrix: &CsrMatrix<T>,
    p: f64,
    seed: u64,
) -> Result<Sample, SamplingError> {
    let kept = sampled_positions(matrix.nnz(), p, seed)?;
    let (row_ptr, col_idx) = (matrix.row_ptr(), matrix.col_idx());
    let n = matrix.nrows();
    // Independent gathers: the out-of-order core overlaps their cache misses.
    let cols: Vec<u32> = kept.iter().map(|&k| col_idx[k]).collect();
    // Row offsets: walk the rows forward from sample to sample, filling the offsets of the rows in
    // between at once; the same walk counts the rows with nonzeros but no sample.
    let nonempty = |rows: std::ops::Range<usize>| {
        row_ptr[rows.start..=rows.end]
            .windows(2)
            .filter(|w| w[0] != w[1])
            .count()
    };
    let mut out_ptr = Vec::with_capacity(n + 1);
    let (mut row, mut j, mut unsampled) = (0usize, 0usize, 0usize);
    while j < kept.len() {
        let mut r = row;
        while row_ptr[r + 1] <= kept[j] {
            r += 1;
        }
        unsampled += nonempty(row..r);
        out_ptr.resize(r + 1, j); // rows row..=r start after the j samples so far
        let end = row_ptr[r + 1];
        while j < kept.len() && kept[j] < end {
            j += 1;
        }
        row = r + 1;
    }
    unsampled += nonempty(row..n);
    out_ptr.resize(n + 1, kept.len());
    let latency = vec![0; cols.len()];
    let sample = Sample::from_csr_parts(matrix, out_ptr, cols, latency, Some(unsampled));
    debug_assert_eq!(sample.coverage, Coverage::of(matrix, &sample.pattern));
    Ok(sample)
}

/// Increasing positions in `0..len`, each kept with probability `p`, by geometric skip-ahead.
///
/// # Errors
/// [`SamplingError::InvalidProbability`] unless `0 <= p <= 1`.
pub fn sampled_positions(len: usize, p: f64, seed: u64) -> Result<Vec<usize>, SamplingError> {
    if !(0.0..=1.0).contains(&p) {
        return Err(SamplingError::InvalidProbability { value: p });
    }
    if p == 0.0 {
        return Ok(Vec::new());
    }
    if p == 1.0 {
        return Ok((0..len).collect());
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let log_q = (-p).ln_1p(); // ln(1 - p) < 0
    let mut out = Vec::with_capacity((len as f64 * p * 1.1) as usize + 16);
    let mut k = 0usize;
    loop {
        // Number of rejected positions before the next kept one: Geometric(p) on {0, 1, ...}.
        let u: f64 = 1.0 - rng.random::<f64>(); // (0, 1]
        let skip = (u.ln() / log_q).floor();
        if skip >= (len - k) as f64 {
            break;
        }
        k += skip as usize;
        out.push(k);
        k += 1;
        if k >= len {
            break;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(n: usize) -> CsrMatrix<f64> {
        let mut t = Vec::new();
        for i in 0..n {
            for j in [i.wrapping_sub(1), i, i + 1] {
                if j < n {
                    t.push((i, j, 1.0));
                }
            }
        }
        CsrMatrix::from_triplets(n, n, t).unwrap()
    }

    #[test]
    fn extremes_keep_nothing_or_everything() {
        let a = grid(50);
        assert_eq!(random_sample(&a, 0.0, 1).unwrap().pattern.nnz(), 0);
        let all = random_sample(&a, 1.0, 1).unwrap();
        assert_eq!(all.pattern, a.pattern());
        assert_eq!(all.coverage.rows_without_sample, 0);
    }

    #[test]
    fn rejects_bad_probability() {
        let a = grid(5);
        for p in [-0.1, 1.5, f64::NAN] {
            assert!(matches!(
                random_sample(&a, p, 0),
                Err(SamplingError::InvalidProbability { .. })
            ));
        }
    }

    #[test]
    fn sample_is_a_subset_with_the_expected_size_and_is_seeded() {
        let a = grid(20_000); // 59_998 nonzeros
        let s = random_sample(&a, 0.02, 7).unwrap();
        let expected = a.nnz() as f64 * 0.02;
        let sd = (a.nnz() as f64 * 0.02 * 0.98).sqrt();
        assert!(
            (s.pattern.nnz() as f64 - expected).abs() < 5.0 * sd,
            "{}",
            s.pattern.nnz()
        );
        for i in 0..a.nrows() {
            for c in s.pattern.row(i).0 {
                assert!(a.row(i).0.binary_search(c).is_ok());
            }
        }
        assert_eq!(s, random_sample(&a, 0.02, 7).unwrap());
        assert_ne!(s.pattern, random_sample(&a, 0.02, 8).unwrap().pattern);
    }

    #[test]
    fn positions_are_uniform_over_the_range() {
        // Each position kept with probability p: the halves get about the same count.
        let pos = sampled_positions(1_000_000, 0.01, 3).unwrap();
        assert!(pos.windows(2).all(|w| w[0] < w[1]));
        let first_half = pos.iter().filter(|&&k| k < 500_000).count() as f64;
        let n = pos.len() as f64;
        assert!((first_half / n - 0.5).abs() < 0.02, "{first_half} of {n}");
        assert!((n - 10_000.0).abs() < 500.0, "{n}");
    }

    #[test]
    fn empty_rows_and_empty_matrix() {
        let a = CsrMatrix::from_triplets(4, 4, vec![(3, 3, 1.0)]).unwrap();
        let s = random_sample(&a, 1.0, 0).unwrap();
        assert_eq!(s.pattern.row_ptr(), &[0, 0, 0, 0, 1]);
        let e: CsrMatrix<f64> = CsrMatrix::from_triplets(0, 0, vec![]).unwrap();
        assert_eq!(random_sample(&e, 0.5, 0).unwrap().pattern.nnz(), 0);
    }
}
