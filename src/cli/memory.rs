//! A job's memory, reserved before it starts: the estimated peak is reserved fallibly (and given
//! back at once), so that a matrix or an option too large for the memory this process may use
//! (physical memory, or a `ulimit -v` / `prlimit --as` cap) ends in a clear error instead of an
//! abort partway through. The estimates are per row plus column and per nonzero, about 1.5x the
//! peak resident memory measured (`/usr/bin/time -f %M`) on a 3D Poisson grid of 216,000 rows and
//! 1.49 million nonzeros and on a file declaring 2^26 rows with 3 entries.

use anyhow::bail;

pub use spmv_reorder::mtx::Footprint;

/// `info`: the matrix, its pattern and a transpose for the symmetry check.
pub const INFO: Footprint = Footprint {
    per_dim: 24,
    per_nnz: 48,
};

/// The main job and `evaluate`: the matrix, the reordered copy, samples, windows, the graph.
pub const REORDER: Footprint = Footprint {
    per_dim: 64,
    per_nnz: 96,
};

/// `sample`, `trace-kernel`, `bench`: the matrix, a real copy, a sample or a permuted copy.
pub const KERNEL: Footprint = Footprint {
    per_dim: 32,
    per_nnz: 64,
};

/// `gen`: the triplets, the CSR matrix and the written text.
pub const GENERATE: Footprint = Footprint {
    per_dim: 32,
    per_nnz: 72,
};

/// Reserves `bytes` and gives them back, or explains that `what` needs more memory than this
/// process can have.
///
/// # Errors
/// When the reservation fails.
pub fn reserve(what: &str, bytes: u64) -> anyhow::Result<()> {
    if !spmv_reorder::mtx::can_allocate(bytes) {
        bail!(
            "{what} would need about {} of memory, more than this process can allocate",
            human(bytes)
        );
    }
    Ok(())
}

/// [`reserve`] for a job of `footprint` on a matrix of `nrows` x `ncols` with `nnz` nonzeros.
///
/// # Errors
/// As [`reserve`].
pub fn reserve_for(
    what: &str,
    footprint: Footprint,
    nrows: usize,
    ncols: usize,
    nnz: usize,
) -> anyhow::Result<()> {
    reserve(
        &format!("{what} of a {nrows} x {ncols} matrix with {nnz} nonzeros"),
        footprint.bytes(nrows, ncols, nnz as u64),
    )
}

/// Bytes as GB or MB.
fn human(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
    } else {
        format!("{:.0} MiB", bytes as f64 / (1u64 << 20) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_impossible_reservation_is_an_error_naming_the_size() {
        assert!(reserve("a small job", 1 << 20).is_ok());
        let e = reserve("a huge job", u64::MAX / 2).unwrap_err().to_string();
        assert!(
            e.starts_with("a huge job would need about") && e.contains("GiB"),
            "{e}"
        );
        assert_eq!(INFO.bytes(usize::MAX, usize::MAX, u64::MAX), u64::MAX);
    }
}
