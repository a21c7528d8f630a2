//! Integration tests: locality. The model on generated matrices (a shuffled Poisson grid), used as
//! the reordering pipeline uses it: windows and graph on a sample, permutation on the full matrix.

use spmv_reorder_gen::{poisson3d, shuffle_symmetric};
use spmv_reorder_locality::{
    check_symmetric_model, path_cost, total_distance, windowed_distance, Axis, GraphOptions,
    Parallelism, WindowGraph, Windows,
};
use spmv_reorder_sparse::CsrMatrix;

fn shuffled_grid(n: usize) -> (CsrMatrix<f64>, CsrMatrix<f64>) {
    let grid = poisson3d(n, n, n).unwrap();
    let (shuffled, _) = shuffle_symmetric(&grid, 7).unwrap();
    (grid, shuffled)
}

/// Keeps every third nonzero: a deterministic sample of the same shape.
fn every_third(a: &CsrMatrix<f64>) -> CsrMatrix<()> {
    let mut row_ptr = vec![0];
    let mut cols = Vec::new();
    for i in 0..a.nrows() {
        let start = a.row_ptr()[i];
        let row = a.row(i).0;
        cols.extend(
            row.iter()
                .enumerate()
                .filter(|(k, _)| (start + k).is_multiple_of(3))
                .map(|(_, &c)| c),
        );
        row_ptr.push(cols.len());
    }
    let nnz = cols.len();
    CsrMatrix::new(a.nrows(), a.ncols(), row_ptr, cols, vec![(); nnz]).unwrap()
}

#[test]
fn shuffling_a_grid_raises_its_distance() {
    let (grid, shuffled) = shuffled_grid(8);
    let par = Parallelism::Rayon;
    // In grid order consecutive rows share about 2 of their 7 columns; shuffled, almost none.
    assert!(total_distance(&shuffled, par) > total_distance(&grid, par) * 5 / 4);
    // Symmetric pattern: the column model equals the row model.
    let columns = Axis::Columns.pattern(&shuffled);
    assert_eq!(
        total_distance(&columns, par),
        total_distance(&shuffled, par)
    );
    assert!(check_symmetric_model(&shuffled).is_ok());
}

#[test]
fn graph_on_a_grid_has_exact_candidates() {
    let (_, a) = shuffled_grid(7);
    let rows = Windows::single_rows(a.nrows());
    let graph = WindowGraph::build(&a, &rows, &GraphOptions::default()).unwrap();
    assert_eq!(graph.bounded_columns(), 0);
    let identity: Vec<usize> = (0..graph.len()).collect();
    assert_eq!(
        path_cost(&graph, &identity).unwrap(),
        total_distance(&a, Parallelism::Rayon)
    );
    for g in 0..graph.len() {
        let candidates: Vec<(u32, u32)> = graph.candidates(g).collect();
        assert!(!candidates.is_empty());
        let n_g = graph.footprint_len(g) as u64;
        for &(h, a_gh) in &candidates {
            let n_h = graph.footprint_len(h as usize) as u64;
            assert_eq!(graph.distance(g, h as usize), n_g + n_h - 2 * a_gh as u64);
        }
        // Overlaps never increase along the list.
        assert!(candidates.windows(2).all(|w| w[0].1 >= w[1].1));
    }
    assert!(graph.path_lower_bound() <= total_distance(&a, Parallelism::Rayon));
}

#[test]
fn windows_from_a_sample_reorder_the_full_matrix() {
    let (_, a) = shuffled_grid(6);
    let sample = every_third(&a);
    let windows = Windows::variable(&sample, Parallelism::Rayon);
    let graph = WindowGraph::build(&sample, &windows, &GraphOptions::default()).unwrap();
    // Any window order expands to a row permutation of the full matrix that keeps windows whole.
    let order: Vec<usize> = (0..windows.len()).rev().collect();
    let p = windows.row_order(&order).unwrap();
    let b = a.permute_symmetric(&p).unwrap();
    assert_eq!(b.nnz(), a.nnz());
    let reordered = windows.reordered(&order).unwrap();
    let b_sample = sample
        .permute(&p, &spmv_reorder_sparse::Permutation::identity(a.ncols()))
        .unwrap();
    assert_eq!(
        windowed_distance(&b_sample, &reordered, Parallelism::Rayon).unwrap(),
        path_cost(&graph, &order).unwrap()
    );
}
