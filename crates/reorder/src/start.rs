//! The start of a side's TSP path: the order its rows are in when the windows are cut. With
//! [`StartOrder::Rcm`] the rows are first put in reverse Cuthill-McKee order of the side's full
//! pattern (`O(nnz)`), and the sampled pattern and its latencies follow them; with `greedy` and
//! `given` they stay in the input order. Called by [`crate::side`].

use crate::windows::SampledLatencies;
use crate::{ReorderError, StartOrder};
use spmv_reorder_locality::Windows;
use spmv_reorder_peers::{reverse_cuthill_mckee, RcmStart};
use spmv_reorder_sparse::{CsrMatrix, Permutation};
use std::borrow::Cow;

/// A side's rows in their start order.
pub(crate) struct Start<'a> {
    /// The start order's rows (`None`: the input order).
    pub(crate) first: Option<Permutation>,
    /// The pattern the windows are cut from, its rows in the start order.
    pub(crate) pattern: Cow<'a, CsrMatrix<()>>,
    /// The sampled latencies, their rows in the start order.
    latencies: Option<StartLatencies<'a>>,
}

/// [`SampledLatencies`] with the row maxima in the start order.
struct StartLatencies<'a> {
    entries: &'a [u32],
    row_max: Cow<'a, [Option<u32>]>,
}

impl<'a> Start<'a> {
    /// `pattern` (the sampled or full pattern of the side) and its `latencies` in the start order
    /// `order`; `structure` is the side's full pattern, which RCM orders from `rcm_start`.
    ///
    /// # Errors
    /// Those of the RCM ordering and of the permutation of `pattern`.
    pub(crate) fn new(
        order: StartOrder,
        rcm_start: RcmStart,
        structure: &CsrMatrix<()>,
        pattern: &'a CsrMatrix<()>,
        latencies: Option<SampledLatencies<'a>>,
    ) -> Result<Self, ReorderError> {
        let first = match order {
            StartOrder::Rcm => Some(reverse_cuthill_mckee(structure, rcm_start)?),
            StartOrder::Greedy | StartOrder::Given => None,
            StartOrder::Parts => {
                return Err(ReorderError::Incompatible(
                    "the parts start order comes with cache windows (window `cache`)".into(),
                ))
            }
        };
        Self::with_order(first, pattern, latencies)
    }

    /// `pattern` and its `latencies` with their rows in the order `first` (`None`: as they are).
    ///
    /// # Errors
    /// Those of the permutation of `pattern`.
    pub(crate) fn with_order(
        first: Option<Permutation>,
        pattern: &'a CsrMatrix<()>,
        latencies: Option<SampledLatencies<'a>>,
    ) -> Result<Self, ReorderError> {
        let latencies = latencies.map(|l| StartLatencies {
            entries: l.entries,
            row_max: Cow::Borrowed(l.row_max),
        });
        Ok(match &first {
            None => Start {
                first,
                pattern: Cow::Borrowed(pattern),
                latencies,
            },
            Some(p) => Start {
                pattern: Cow::Owned(pattern.permute_rows(p)?),
                latencies: latencies.map(|l| StartLatencies {
                    row_max: Cow::Owned(p.apply(&l.row_max)),
                    ..l
                }),
                first,
            },
        })
    }

    /// The latencies in the start order.
    pub(crate) fn latencies(&self) -> Option<SampledLatencies<'_>> {
        self.latencies.as_ref().map(|l| SampledLatencies {
            entries: l.entries,
            row_max: &l.row_max,
        })
    }
}

/// The rows of the input in the order of `windows` (cut in the start order `first`, `None` for the
/// input order) visited in `order`.
///
/// # Errors
/// [`ReorderError::Locality`] when `order` is not an order of the windows.
pub(crate) fn rows_in_order(
    first: Option<&Permutation>,
    windows: &Windows,
    order: &[usize],
) -> Result<Permutation, ReorderError> {
    let path_rows = windows.row_order(order)?;
    Ok(match first {
        Some(p) => p.then(&path_rows)?,
        None => path_rows,
    })
}

/// The number of nonzeros of the first `count` rows of `structure` in the start order `first`.
pub(crate) fn row_lengths(
    first: Option<&Permutation>,
    structure: &CsrMatrix<()>,
    count: usize,
) -> Vec<usize> {
    (0..count)
        .map(|g| structure.row_nnz(first.map_or(g, |p| p.new_to_old()[g])))
        .collect()
}
