//! The even row splits after the default's order: made where RCM gathers a power-law graph's hub
//! rows, left alone where the rows are even, off for the other methods unless asked, and always a
//! permutation under which the product is the same.

use spmv_reorder_gen::{poisson2d, rmat, shuffle_symmetric, Rmat};
use spmv_reorder_reorder::row_split::row_split_imbalance;
use spmv_reorder_reorder::{Method, Reorderer, DEFAULT_ROW_SPLIT_THREADS};
use spmv_reorder_sparse::CsrMatrix;

/// A shuffled R-MAT graph of 2^12 vertices: RCM puts its hubs in a few middle levels.
fn shuffled_rmat() -> CsrMatrix<f64> {
    let graph = rmat(&Rmat {
        scale: 12,
        symmetric: true,
        ..Rmat::default()
    })
    .unwrap();
    shuffle_symmetric(&graph, 7).unwrap().0
}

/// `B·(Q·x)` against `P·(A·x)`: the reordered product is the permuted one, value for value.
fn assert_same_product(a: &CsrMatrix<f64>, r: &spmv_reorder_reorder::Reordering) {
    let b = r.apply(a).unwrap();
    let x: Vec<f64> = (0..a.ncols()).map(|i| (i % 17) as f64 - 8.0).collect();
    let mut ax = vec![0.0; a.nrows()];
    a.mul_vec_reference(&x, &mut ax);
    let mut bqx = vec![0.0; b.nrows()];
    b.mul_vec_reference(&r.cols.apply(&x), &mut bqx);
    let pax = r.rows.apply(&ax);
    for (got, want) in bqx.iter().zip(&pax) {
        assert!(
            (got - want).abs() <= 1e-9 * want.abs().max(1.0),
            "{got} != {want}"
        );
    }
}

#[test]
fn the_default_spreads_rcms_hubs_over_the_splits() {
    let a = shuffled_rmat();
    let r = Reorderer::new().run(&a).unwrap();
    let splits = r
        .report
        .row_splits
        .expect("the default serves even row splits");
    assert_eq!(splits.threads, DEFAULT_ROW_SPLIT_THREADS);
    assert!(splits.spread, "{splits:?}");
    // Pieces of 128 rows: the heaviest of them holds more than a sixteenth of the nonzeros, so
    // 16 threads of 256 rows cannot all be even here, but 2 threads can.
    assert!(splits.imbalance_before > 2.0, "{splits:?}");
    assert!(
        splits.imbalance_after < splits.imbalance_before,
        "{splits:?}"
    );
    let measured = |threads| row_split_imbalance(&r.rows, threads, |row| a.row_nnz(row));
    assert_eq!(measured(splits.threads), splits.imbalance_after);
    assert!(measured(2) < 1.05, "{}", measured(2));
    assert!(
        r.report
            .order
            .ends_with("pieces spread over even row splits"),
        "{}",
        r.report.order
    );
    assert_same_product(&a, &r);
}

#[test]
fn a_product_too_small_to_split_is_left_as_it_is() {
    // 128 rows: fewer than a block of 128 for each of 16 threads.
    let graph = rmat(&Rmat {
        scale: 7,
        symmetric: true,
        ..Rmat::default()
    })
    .unwrap();
    let a = shuffle_symmetric(&graph, 2).unwrap().0;
    let with = Reorderer::new().run(&a).unwrap();
    assert!(!with.report.row_splits.unwrap().spread);
    let without = Reorderer::new().row_split_threads(Some(0)).run(&a).unwrap();
    assert_eq!(with.rows.new_to_old(), without.rows.new_to_old());
}

#[test]
fn even_rows_are_left_in_their_order() {
    let (a, _) = shuffle_symmetric(&poisson2d(120, 120).unwrap(), 3).unwrap();
    let asked = Reorderer::new().run(&a).unwrap();
    let splits = asked.report.row_splits.unwrap();
    assert!(!splits.spread, "{splits:?}");
    assert_eq!(splits.imbalance_after, splits.imbalance_before);
    let off = Reorderer::new().row_split_threads(Some(0)).run(&a).unwrap();
    assert_eq!(off.rows.new_to_old(), asked.rows.new_to_old());
}

#[test]
fn other_methods_spread_only_when_asked() {
    let a = shuffled_rmat();
    let rcm = Reorderer::new().method(Method::Rcm);
    let plain = rcm.clone().run(&a).unwrap();
    assert_eq!(plain.report.row_splits, None);
    let asked = rcm.row_split_threads(Some(4)).run(&a).unwrap();
    let splits = asked.report.row_splits.unwrap();
    assert!(
        splits.spread && splits.imbalance_after < splits.imbalance_before,
        "{splits:?}"
    );
    assert_same_product(&a, &asked);
    // Off for the default too when asked, and then the report says nothing of it.
    let off = Reorderer::new().row_split_threads(Some(1)).run(&a).unwrap();
    assert_eq!(off.report.row_splits, None);
}
