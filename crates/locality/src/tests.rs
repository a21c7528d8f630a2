//! Crate-level tests: the SPEC worked example and property tests against brute-force
//! (`HashSet`-based) oracles, rows and columns, sequential and parallel.

use crate::index::EntryCodec;
use crate::*;
use proptest::prelude::*;
use spmv_reorder_sparse::CsrMatrix;
use std::collections::HashSet;

/// SPEC section 2 worked example: r0={0,1}, r1={1,2}, r2={5}, r3={0,1,2} (6 columns).
pub(crate) fn spec_example() -> CsrMatrix<f64> {
    let rows: [&[usize]; 4] = [&[0, 1], &[1, 2], &[5], &[0, 1, 2]];
    let t = rows
        .iter()
        .enumerate()
        .flat_map(|(i, cols)| cols.iter().map(move |&j| (i, j, 1.0)));
    CsrMatrix::from_triplets(4, 6, t).unwrap()
}

fn sets<T: spmv_reorder_sparse::Value>(a: &CsrMatrix<T>, windows: &Windows) -> Vec<HashSet<u32>> {
    (0..windows.len())
        .map(|g| {
            windows
                .rows(g)
                .flat_map(|i| a.row(i).0.iter().copied())
                .collect()
        })
        .collect()
}

fn sym_diff(s: &HashSet<u32>, t: &HashSet<u32>) -> u64 {
    s.symmetric_difference(t).count() as u64
}

fn brute_windowed(a: &CsrMatrix<f64>, windows: &Windows) -> u64 {
    let f = sets(a, windows);
    f.windows(2).map(|p| sym_diff(&p[0], &p[1])).sum()
}

/// Best `k` candidates of every window by the rank, from all pairs.
fn brute_candidates(f: &[HashSet<u32>], k: usize, rank: CandidateRank) -> Vec<Vec<(u32, u32)>> {
    (0..f.len())
        .map(|g| {
            let mut all: Vec<(u32, u32, u64)> = (0..f.len())
                .filter(|&h| h != g)
                .map(|h| {
                    (
                        h as u32,
                        f[g].intersection(&f[h]).count() as u32,
                        sym_diff(&f[g], &f[h]),
                    )
                })
                .filter(|c| c.1 > 0)
                .collect();
            all.sort_by_key(|&(h, a, cost)| match rank {
                CandidateRank::Overlap => (u64::MAX - a as u64, cost, h),
                CandidateRank::Cost => (cost, u64::MAX - a as u64, h),
            });
            all.into_iter().take(k).map(|(h, a, _)| (h, a)).collect()
        })
        .collect()
}

fn graph_candidates(g: &WindowGraph) -> Vec<Vec<(u32, u32)>> {
    (0..g.len()).map(|w| g.candidates(w).collect()).collect()
}

/// Cheapest Hamiltonian path cost by trying every order (small `n` only).
fn brute_best_path(g: &WindowGraph) -> u64 {
    fn extend(
        g: &WindowGraph,
        path: &mut Vec<usize>,
        used: &mut [bool],
        cost: u64,
        best: &mut u64,
    ) {
        if path.len() == used.len() {
            *best = (*best).min(cost);
            return;
        }
        for h in 0..used.len() {
            if !used[h] {
                let step = path.last().map_or(0, |&last| g.distance(last, h));
                used[h] = true;
                path.push(h);
                extend(g, path, used, cost + step, best);
                path.pop();
                used[h] = false;
            }
        }
    }
    let mut best = u64::MAX;
    extend(g, &mut Vec::new(), &mut vec![false; g.len()], 0, &mut best);
    if g.is_empty() {
        0
    } else {
        best
    }
}

fn arb_matrix(max_rows: usize, max_cols: usize) -> impl Strategy<Value = CsrMatrix<f64>> {
    (1..=max_rows, 1..=max_cols).prop_flat_map(|(m, n)| {
        proptest::collection::vec((0..m, 0..n), 0..4 * (m + n)).prop_map(move |t| {
            CsrMatrix::from_triplets(m, n, t.into_iter().map(|(i, j)| (i, j, 1.0))).unwrap()
        })
    })
}

/// A matrix and a random partition of its rows into windows.
fn arb_windowed(
    max_rows: usize,
    max_cols: usize,
) -> impl Strategy<Value = (CsrMatrix<f64>, Windows)> {
    arb_matrix(max_rows, max_cols).prop_flat_map(|a| {
        let m = a.nrows();
        proptest::collection::vec(any::<bool>(), m).prop_map(move |cuts| {
            let starts = (0..m).filter(|&i| i == 0 || cuts[i]).collect();
            (a.clone(), Windows::from_starts(m, starts).unwrap())
        })
    })
}

/// A square matrix whose pattern is symmetric, or (`flaw`) symmetric but for one entry of a
/// row's fifth column or later, which the mirrored index's probe does not look at, so only the
/// candidate search can find it.
fn arb_symmetric(max_rows: usize) -> impl Strategy<Value = (CsrMatrix<f64>, bool)> {
    (1..=max_rows, any::<bool>()).prop_flat_map(|(n, flaw)| {
        proptest::collection::vec((0..n, 0..n), 0..4 * n).prop_map(move |t| {
            let mut pairs: Vec<(usize, usize)> =
                t.iter().flat_map(|&(i, j)| [(i, j), (j, i)]).collect();
            // Row 0 holds columns 0..5 and their mirrors; with `flaw`, (0, n-1) loses its mirror.
            pairs.extend((0..n.min(5)).flat_map(|j| [(0, j), (j, 0)]));
            let flawed = flaw && n > 5;
            if flawed {
                pairs.retain(|&(i, j)| (i, j) != (n - 1, 0));
                pairs.push((0, n - 1));
            }
            let a = CsrMatrix::from_triplets(n, n, pairs.into_iter().map(|(i, j)| (i, j, 1.0)))
                .unwrap();
            (a, flawed)
        })
    })
}

fn pools() -> Vec<rayon::ThreadPool> {
    [1, 3]
        .iter()
        .map(|&t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn distances_match_brute_force((a, w) in arb_windowed(24, 16)) {
        for axis in [Axis::Rows, Axis::Columns] {
            let b = axis.pattern(&a).map_values(|()| 1.0);
            let rows = Windows::single_rows(b.nrows());
            let expect_d = brute_windowed(&b, &rows);
            for par in [Parallelism::Sequential, Parallelism::Rayon] {
                prop_assert_eq!(total_distance(&b, par), expect_d);
                prop_assert_eq!(windowed_distance(&b, &rows, par).unwrap(), expect_d);
            }
            let d: u64 = (0..b.nrows().saturating_sub(1)).map(|i| row_distance(&b, i, i + 1)).sum();
            prop_assert_eq!(d, expect_d);
        }
        for par in [Parallelism::Sequential, Parallelism::Rayon] {
            prop_assert_eq!(windowed_distance(&a, &w, par).unwrap(), brute_windowed(&a, &w));
        }
        let cols = Axis::Columns.pattern(&a).map_values(|()| 1.0);
        let cw = Windows::fixed(cols.nrows(), 2).unwrap();
        prop_assert_eq!(windowed_distance(&cols, &cw, Parallelism::Rayon).unwrap(), brute_windowed(&cols, &cw));
    }

    #[test]
    fn variable_windows_match_brute_force((a, _) in arb_windowed(700, 16)) {
        // A window starts at row 0 and wherever `d(j-1, j) >= D/n`, with `D` and `d` from sets.
        // Up to 700 rows: chunks of more than 64 rows span several words of start flags.
        let f = sets(&a, &Windows::single_rows(a.nrows()));
        let d: Vec<u64> = f.windows(2).map(|p| sym_diff(&p[0], &p[1])).collect();
        let (total, n) = (d.iter().sum::<u64>(), a.nrows() as u64);
        let mut expect: Vec<usize> = (1..a.nrows()).filter(|&j| d[j - 1] * n >= total).collect();
        if n > 0 {
            expect.insert(0, 0);
        }
        expect.push(a.nrows());
        for par in [Parallelism::Sequential, Parallelism::Rayon] {
            let windows = Windows::variable(&a, par);
            prop_assert_eq!(windows.starts(), &expect[..]);
        }
    }

    #[test]
    fn footprints_match_brute_force((a, w) in arb_windowed(24, 16)) {
        // Windows of one, two and more rows (merged, sorted), and one row per window, which
        // borrows the matrix's arrays instead of copying them.
        let rows = Windows::single_rows(a.nrows());
        for windows in [&w, &rows] {
            let expect: Vec<Vec<u32>> = sets(&a, windows)
                .into_iter()
                .map(|f| {
                    let mut f: Vec<u32> = f.into_iter().collect();
                    f.sort_unstable();
                    f
                })
                .collect();
            for par in [Parallelism::Sequential, Parallelism::Rayon] {
                let f = Footprints::new(&a, windows, par).unwrap();
                prop_assert_eq!(f.len(), windows.len());
                prop_assert_eq!(f.offsets().len(), windows.len() + 1);
                prop_assert_eq!(f.entries(), *f.offsets().last().unwrap());
                for (g, e) in expect.iter().enumerate() {
                    prop_assert_eq!(f.get(g), &e[..]);
                }
            }
        }
        let f = Footprints::new(&a, &rows, Parallelism::Rayon).unwrap();
        prop_assert!(f.are_rows_of(&a));
    }

    #[test]
    fn candidates_match_brute_force_top_k((a, w) in arb_windowed(24, 16), k in 0usize..6, by_cost in any::<bool>()) {
        let rank = if by_cost { CandidateRank::Cost } else { CandidateRank::Overlap };
        let f = sets(&a, &w);
        let expect = brute_candidates(&f, k, rank);
        let opts = GraphOptions::default().with_neighbours(k).with_rank(rank);
        let seq = WindowGraph::build(&a, &w, &opts.with_parallelism(Parallelism::Sequential)).unwrap();
        prop_assert_eq!(seq.bounded_columns(), 0);
        prop_assert_eq!(graph_candidates(&seq), expect);
        // Wide offsets, lengths looked up instead of packed and the inverted index where the
        // mirrored one would do give the same graph.
        let f_seq = Footprints::new(&a, &w, Parallelism::Sequential).unwrap();
        let seq_opts = opts.with_parallelism(Parallelism::Sequential);
        let wide = WindowGraph::with_index::<usize>(f_seq, &seq_opts, EntryCodec::tight(), graph::Mirror::None);
        prop_assert_eq!(&wide, &seq);
        for pool in pools() {
            let par = pool.install(|| WindowGraph::build(&a, &w, &opts).unwrap());
            prop_assert_eq!(&par, &seq);
        }
        for g in 0..w.len() {
            prop_assert_eq!(seq.footprint_len(g), f[g].len());
            for h in 0..w.len() {
                prop_assert_eq!(seq.distance(g, h), sym_diff(&f[g], &f[h]));
            }
        }
    }

    #[test]
    fn symmetric_patterns_index_themselves((a, flawed) in arb_symmetric(40), k in 1usize..6, limit in 2usize..40) {
        // One row per window: the graph is built on the mirrored index, or (flawed) the search
        // finds the missing mirror and builds again on the inverted index.
        let rows = Windows::single_rows(a.nrows());
        let f = Footprints::new(&a, &rows, Parallelism::Sequential).unwrap();
        let mirrored = index::ColumnIndex::<u32>::mirrored(&f, EntryCodec::new(f.len()), Parallelism::Sequential, limit);
        prop_assert!(mirrored.is_some(), "the probe finds no missing mirror");
        let inverted = index::ColumnIndex::<u32>::new(&f, EntryCodec::new(f.len()), Parallelism::Sequential);
        prop_assert_eq!(mirrored.unwrap() == inverted, !flawed);
        let opts = GraphOptions::default().with_neighbours(k);
        let g = WindowGraph::build(&a, &rows, &opts).unwrap();
        prop_assert_eq!(graph_candidates(&g), brute_candidates(&sets(&a, &rows), k, CandidateRank::Overlap));
        for pool in pools() {
            let par = pool.install(|| WindowGraph::build(&a, &rows, &opts).unwrap());
            prop_assert_eq!(&par, &g);
        }
        // Hub columns bounded around each window: the same graph on the inverted index.
        let bounded = opts.with_hub_limit(limit);
        let on_mirror = WindowGraph::build(&a, &rows, &bounded).unwrap();
        let wide = WindowGraph::with_index::<usize>(f, &bounded, EntryCodec::tight(), graph::Mirror::None);
        prop_assert_eq!(&on_mirror, &wide);
    }

    #[test]
    fn windows_of_symmetric_rows_are_indexed_through_the_rows(
        (a, flawed) in arb_symmetric(40),
        cuts in proptest::collection::vec(any::<bool>(), 40),
        k in 1usize..6,
    ) {
        // Windows of consecutive rows: the index is read from the rows, or (flawed) is found
        // wrong, by its size or by the search, and built again by inversion.
        let n = a.nrows();
        let w = Windows::from_starts(n, (0..n).filter(|&i| i == 0 || cuts[i]).collect()).unwrap();
        let f = Footprints::new(&a, &w, Parallelism::Sequential).unwrap();
        let codec = EntryCodec::new(f.len());
        let rows = Footprints::rows_of(&a);
        let through = index::ColumnIndex::<u32>::through_windows(&rows, &w, &f, codec, Parallelism::Sequential, usize::MAX);
        let inverted = index::ColumnIndex::<u32>::new(&f, codec, Parallelism::Sequential);
        if !flawed {
            prop_assert_eq!(through, Some(inverted));
        }
        let opts = GraphOptions::default().with_neighbours(k);
        let g = WindowGraph::build(&a, &w, &opts).unwrap();
        prop_assert_eq!(graph_candidates(&g), brute_candidates(&sets(&a, &w), k, CandidateRank::Overlap));
        let wide = WindowGraph::with_index::<usize>(f, &opts, EntryCodec::tight(), graph::Mirror::None);
        prop_assert_eq!(&g, &wide);
    }

    #[test]
    fn bounded_candidates_stay_exact((a, w) in arb_windowed(24, 6), limit in 0usize..4) {
        let f = sets(&a, &w);
        let opts = GraphOptions::default().with_hub_limit(limit).with_neighbours(3);
        let g = WindowGraph::build(&a, &w, &opts).unwrap();
        let f_all = Footprints::new(&a, &w, Parallelism::Rayon).unwrap();
        prop_assert_eq!(&WindowGraph::with_index::<usize>(f_all, &opts, EntryCodec::tight(), graph::Mirror::None), &g);
        let expect_bounded = (0..a.ncols() as u32)
            .filter(|c| f.iter().filter(|s| s.contains(c)).count() > limit)
            .count();
        prop_assert_eq!(g.bounded_columns(), expect_bounded);
        for x in 0..g.len() {
            let candidates: Vec<(u32, u32)> = g.candidates(x).collect();
            prop_assert!(candidates.len() <= 3);
            prop_assert_eq!(candidates.iter().map(|c| c.0).collect::<HashSet<_>>().len(), candidates.len());
            for (h, o) in candidates {
                prop_assert!(h as usize != x);
                prop_assert_eq!(o as usize, f[x].intersection(&f[h as usize]).count());
                prop_assert!(o > 0);
            }
        }
    }

    #[test]
    fn path_cost_is_windowed_distance_of_the_reordered_matrix(
        (a, w) in arb_windowed(20, 12),
        seed in any::<u64>(),
    ) {
        let g = WindowGraph::build(&a, &w, &GraphOptions::default()).unwrap();
        let mut order: Vec<usize> = (0..w.len()).collect();
        let mut s = seed | 1;
        for i in (1..order.len()).rev() {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            order.swap(i, (s % (i as u64 + 1)) as usize);
        }
        let p = w.row_order(&order).unwrap();
        let b = a.permute(&p, &spmv_reorder_sparse::Permutation::identity(a.ncols())).unwrap();
        let bw = w.reordered(&order).unwrap();
        let cost = path_cost(&g, &order).unwrap();
        prop_assert_eq!(cost, windowed_distance(&b, &bw, Parallelism::Rayon).unwrap());
        prop_assert_eq!(cost, brute_windowed(&b, &bw));
        prop_assert!(g.path_lower_bound() <= cost);
    }

    #[test]
    fn lower_bound_never_beats_the_best_path(
        (a, w) in arb_windowed(7, 8),
        limit in prop_oneof![Just(usize::MAX), 0usize..4],
    ) {
        // Small hub limits bound columns, whose windows' costs are then only bounded below.
        let opts = GraphOptions::default().with_neighbours(2).with_hub_limit(limit);
        let g = WindowGraph::build(&a, &w, &opts).unwrap();
        prop_assert!(g.path_lower_bound() <= brute_best_path(&g));
    }
}

#[test]
fn rectangular_matrices_have_no_symmetric_model() {
    let a: CsrMatrix<f64> = CsrMatrix::from_triplets(2, 3, vec![]).unwrap();
    assert_eq!(
        check_symmetric_model(&a),
        Err(LocalityError::NotSquare { nrows: 2, ncols: 3 })
    );
    assert!(check_symmetric_model(&spec_example()).is_err());
    let sq: CsrMatrix<()> = CsrMatrix::from_triplets(3, 3, vec![]).unwrap();
    assert!(check_symmetric_model(&sq).is_ok());
    let empty: CsrMatrix<()> = CsrMatrix::from_triplets(0, 0, vec![]).unwrap();
    assert!(check_symmetric_model(&empty).is_ok());
}

#[test]
fn spec_worked_example_end_to_end() {
    let a = spec_example();
    let par = Parallelism::Rayon;
    assert_eq!(total_distance(&a, par), 9);
    let rows = Windows::single_rows(4);
    let g = WindowGraph::build(&a, &rows, &GraphOptions::default()).unwrap();
    assert_eq!(g.windowed_distance(par), 9);
    assert_eq!(path_cost(&g, &[0, 3, 1, 2]).unwrap(), 5);
    // Best path: r2 is 3 from r0 and r1 and 4 from r3; 0-3-1 costs 2; best total 5 (0-3-1-2).
    assert_eq!(brute_best_path(&g), 5);
    assert!(g.path_lower_bound() <= 5);
    assert_eq!(
        windowed_distance(&a, &Windows::fixed(4, 2).unwrap(), par).unwrap(),
        1
    );
}
