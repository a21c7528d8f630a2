//! Regression and property tests, named after the issue they come from (`rNN`).

use proptest::prelude::*;
use spmv_reorder::locality::CacheModel;
use spmv_reorder::mtx::{read_bytes, write, MatrixMarket, ReadOptions, WriteOptions};
use spmv_reorder::reorder::{Method, PermuteMode, Reorderer};
use spmv_reorder::sparse::{AnyCsr, CsrMatrix};

fn arb_matrix() -> impl Strategy<Value = CsrMatrix<f64>> {
    (1usize..16, 1usize..16, any::<bool>()).prop_flat_map(|(m, n, square)| {
        let n = if square { m } else { n };
        proptest::collection::vec(
            (
                0..m,
                0..n,
                any::<f64>().prop_filter("finite", |v| v.is_finite()),
            ),
            0..60,
        )
        .prop_map(move |t| CsrMatrix::from_triplets(m, n, t).unwrap())
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// r07: for every mode and method, the file written for the reordered matrix reads back as
    /// exactly `P·A·Qᵀ`, values included, and `SpMV(P·A·Qᵀ)(Q·x) == P·(A·x)`.
    #[test]
    fn r07_written_reordering_reads_back_exactly(
        a in arb_matrix(),
        method in proptest::sample::select(Method::ALL.to_vec()),
        mode in proptest::sample::select(vec![None, Some(PermuteMode::Rows), Some(PermuteMode::Cols), Some(PermuteMode::Both)]),
        // On matrices this small the cache check computes no TSP path: without it, the path.
        check in any::<bool>(),
    ) {
        let model = check.then(CacheModel::default);
        let r = Reorderer::new().method(method).permute(mode).max_kicks(Some(50))
            .cache_check(model).run(&a).unwrap();
        let b = r.apply(&a).unwrap();
        let mut bytes = Vec::new();
        write(&mut bytes, &MatrixMarket::general(AnyCsr::Real(b.clone())), &WriteOptions::default()).unwrap();
        let back = read_bytes(&bytes, &ReadOptions::default()).unwrap();
        prop_assert_eq!(&back.matrix, &AnyCsr::Real(b.clone()));
        // Integer values make the products exact whatever the summation order.
        let a = a.map_values(|v| (v % 1000.0).trunc());
        let b = r.apply(&a).unwrap();
        let x: Vec<f64> = (0..a.ncols()).map(|j| 1.0 + j as f64).collect();
        let (mut ax, mut bx) = (vec![0.0; a.nrows()], vec![0.0; a.nrows()]);
        a.mul_vec_reference(&x, &mut ax);
        b.mul_vec_reference(&r.permute_input(&x), &mut bx);
        prop_assert_eq!(bx, r.rows.apply(&ax));
    }
}
