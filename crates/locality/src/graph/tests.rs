use super::rank::{nearest, NarrowOverlap, Ranking, TopK, WideRank};
use super::*;
use crate::accumulate::HASH_MAX_WORK;
use crate::tests::spec_example;

/// Window `w`'s candidates as `(h, a(w,h))` pairs.
fn pairs(g: &WindowGraph<'_>, w: usize) -> Vec<(u32, u32)> {
    g.candidates(w).collect()
}

#[test]
fn spec_worked_example_graph() {
    let a = spec_example();
    let g = WindowGraph::build(&a, &Windows::single_rows(4), &GraphOptions::default()).unwrap();
    assert_eq!(g.len(), 4);
    // Overlaps: a(0,1)=1, a(0,3)=2, a(1,3)=2, row 2 overlaps nothing.
    assert_eq!(pairs(&g, 0), [(3, 2), (1, 1)]);
    assert_eq!(pairs(&g, 1), [(3, 2), (0, 1)]);
    assert_eq!(g.candidates(2).len(), 0);
    assert_eq!(pairs(&g, 3), [(0, 2), (1, 2)]);
    assert_eq!(g.footprint_len(3), 3);
    assert_eq!(g.distance(2, 3), 4);
    assert_eq!(g.windowed_distance(Parallelism::Rayon), 9);
    assert_eq!(path_cost(&g, &[0, 3, 1, 2]).unwrap(), 5);
    assert_eq!(g.bounded_columns(), 0);
    let two =
        WindowGraph::build(&a, &Windows::fixed(4, 2).unwrap(), &GraphOptions::default()).unwrap();
    assert_eq!(two.windowed_distance(Parallelism::Rayon), 1);
    assert_eq!(two.path_lower_bound(), 1);
    assert_eq!(pairs(&two, 0), [(1, 3)]);
}

#[test]
fn nearest_takes_a_window_around_g() {
    let list: Vec<u32> = (0..10).map(|x| x * 2).collect();
    let near =
        |g: u32, limit: usize| -> Vec<u32> { list[nearest(&list, |e| e < g, limit)].to_vec() };
    assert_eq!(near(8, 4), vec![4, 6, 8, 10, 12]);
    assert_eq!(near(0, 4), vec![0, 2, 4, 6, 8]);
    assert_eq!(near(18, 4), vec![10, 12, 14, 16, 18]);
    assert_eq!(near(18, 0), vec![18]);
    assert_eq!(near(6, 100).len(), 10);
}

#[test]
fn rank_keys_round_trip_and_order() {
    for rank in [CandidateRank::Overlap, CandidateRank::Cost] {
        let k = rank.encode(7, 3, 10);
        assert_eq!(rank.decode(k), (7, 3));
        assert!(rank.encode(7, 3, 10) < rank.encode(8, 3, 10));
    }
    let o = CandidateRank::Overlap;
    assert!(o.encode(9, 4, 100) < o.encode(1, 3, 1));
    assert!(o.encode(9, 4, 5) < o.encode(1, 4, 6));
    let c = CandidateRank::Cost;
    assert!(c.encode(9, 1, 5) < c.encode(1, 4, 6));
    assert!(c.encode(9, 4, 5) < c.encode(1, 3, 5));
    let mut top = TopK::new(3);
    for key in [5u128, 1, 9, 3, 7, 2] {
        top.offer(key);
    }
    assert_eq!(top.keys(), &[1, 2, 3]);
    top.clear();
    top.offer(4);
    top.offer(2);
    assert_eq!(top.keys(), &[2, 4]);
    for key in [9u128, 8, 7, 1] {
        top.offer(key);
    }
    assert_eq!(top.keys(), &[1, 2, 4]);
    top.clear();
    assert!(top.keys().is_empty());
    top.offer(5);
    assert_eq!(top.keys(), &[5]);
    let mut none = TopK::<u128>::new(0);
    none.offer(1);
    assert!(none.keys().is_empty());
    // The min/max chain keeps the smallest keys of any sequence, duplicates included.
    let mut x = 12345u64;
    for capacity in 1..10 {
        let mut top = TopK::<u64>::new(capacity);
        for len in 0..30 {
            top.clear();
            let mut offered = Vec::new();
            for _ in 0..len {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let key = (x >> 40) % 50;
                top.offer(key);
                offered.push(key);
            }
            offered.sort_unstable();
            offered.truncate(capacity);
            assert_eq!(top.keys(), &offered[..]);
        }
    }
}

#[test]
fn narrow_keys_order_like_wide_ones() {
    let codec = EntryCodec::new(1000);
    let narrow = NarrowOverlap { codec };
    let wide = WideRank {
        rank: CandidateRank::Overlap,
        codec,
    };
    let n_g = 9u64;
    // (window, n(h), overlap) with overlap <= min(n(g), n(h)).
    let mut candidates = Vec::new();
    for h in [0u32, 1, 2, 500, 998] {
        for n_h in [1u32, 2, 5, 9, 40] {
            for a in 1..=n_h.min(n_g as u32) {
                candidates.push((h, n_h, a));
            }
        }
    }
    let keys = |(h, n_h, a): (u32, u32, u32)| {
        let entry = codec.encode(h, n_h as usize);
        let cost = n_g + n_h as u64 - 2 * a as u64;
        (narrow.key(entry, a, cost), wide.key(entry, a, cost))
    };
    for &x in &candidates {
        let (nx, wx) = keys(x);
        assert_eq!(narrow.decode(nx), (x.0, x.2));
        assert_eq!(wide.decode(wx), (x.0, x.2));
        for &y in &candidates {
            let (ny, wy) = keys(y);
            assert_eq!(nx.cmp(&ny), wx.cmp(&wy), "{x:?} {y:?}");
        }
    }
}

#[test]
fn narrow_keys_only_when_every_length_is_packed() {
    let a = spec_example();
    let f = Footprints::new(&a, &Windows::single_rows(4), Parallelism::Sequential).unwrap();
    let overlap = CandidateRank::Overlap;
    assert!(NarrowOverlap::new(overlap, EntryCodec::new(4), &f).is_some());
    assert!(NarrowOverlap::new(CandidateRank::Cost, EntryCodec::new(4), &f).is_none());
    // One bit of length: footprints of length 1 or more are looked up, so the u128 path runs,
    // and it gives the same graph.
    assert!(NarrowOverlap::new(overlap, EntryCodec::tight(), &f).is_none());
    for k in [1, 2, 3] {
        let opts = GraphOptions::default().with_neighbours(k);
        let narrow = WindowGraph::with_index::<u32>(
            f.clone(),
            &opts,
            EntryCodec::new(4),
            Mirror::Footprints,
        );
        let wide =
            WindowGraph::with_index::<u32>(f.clone(), &opts, EntryCodec::tight(), Mirror::None);
        assert_eq!(narrow, wide);
    }
}

#[test]
fn degenerate_graphs() {
    let empty: CsrMatrix<()> = CsrMatrix::from_triplets(0, 0, vec![]).unwrap();
    let g = WindowGraph::build(&empty, &Windows::single_rows(0), &GraphOptions::default()).unwrap();
    assert!(g.is_empty());
    assert_eq!(g.path_lower_bound(), 0);
    assert_eq!(g.path_cost(&[], Parallelism::Rayon).unwrap(), 0);
    let one = CsrMatrix::from_triplets(1, 2, vec![(0, 1, 1.0)]).unwrap();
    let g = WindowGraph::build(&one, &Windows::single_rows(1), &GraphOptions::default()).unwrap();
    assert_eq!(g.candidates(0).len(), 0);
    assert_eq!(g.path_cost(&[0], Parallelism::Rayon).unwrap(), 0);
    let blank: CsrMatrix<f64> = CsrMatrix::from_triplets(4, 4, vec![]).unwrap();
    let g = WindowGraph::build(&blank, &Windows::single_rows(4), &GraphOptions::default()).unwrap();
    assert!((0..4).all(|w| g.candidates(w).len() == 0 && g.footprint_len(w) == 0));
    assert_eq!(g.path_lower_bound(), 0);
    let none = GraphOptions::default().with_neighbours(0);
    let example = spec_example();
    let g = WindowGraph::build(&example, &Windows::single_rows(4), &none).unwrap();
    assert!((0..4).all(|w| g.candidates(w).len() == 0));
}

#[test]
fn heavy_windows_use_the_dense_accumulator() {
    // Rows 0..100 hold columns 0..100 (work 100·100 > HASH_MAX_WORK per row); rows 100..150
    // hold one column 200 + i % 5, shared by 10 rows each.
    let dense_rows = (0..100).flat_map(|i| (0..100).map(move |j| (i, j, 1.0)));
    let light_rows = (100..150).map(|i| (i, 200 + i % 5, 1.0));
    let a = CsrMatrix::from_triplets(150, 205, dense_rows.chain(light_rows)).unwrap();
    const { assert!(100 * 100 > HASH_MAX_WORK) };
    let opts = GraphOptions::default()
        .with_neighbours(3)
        .with_hub_limit(usize::MAX);
    let g = WindowGraph::build(&a, &Windows::single_rows(150), &opts).unwrap();
    assert_eq!(pairs(&g, 0), [(1, 100), (2, 100), (3, 100)]);
    assert_eq!(pairs(&g, 57), [(0, 100), (1, 100), (2, 100)]);
    assert_eq!(pairs(&g, 101), [(106, 1), (111, 1), (116, 1)]);
    let seq = WindowGraph::build(
        &a,
        &Windows::single_rows(150),
        &opts.with_parallelism(Parallelism::Sequential),
    )
    .unwrap();
    assert_eq!(seq, g);
}

#[test]
fn windows_on_hub_columns_keep_a_useful_lower_bound() {
    // Every row holds the hub column 0 and three columns of its own: every pair of rows
    // shares exactly the hub, so every edge costs 4 + 4 - 2 = 6 and the best path 6·(n - 1).
    // With the hub bounded, a window's partial list may miss windows sharing it: its counted
    // costs (6 for the windows seen, 8 for the others) are lowered by 2, to 4 and 6, and the
    // bound is half of 4 + 4 per window less the ends' 4 + 4: 4·(n - 1). It used to be 0.
    let n = 50;
    let t: Vec<(usize, usize, f64)> = (0..n)
        .flat_map(|i| {
            [
                (i, 0, 1.0),
                (i, 1 + 3 * i, 1.0),
                (i, 2 + 3 * i, 1.0),
                (i, 3 + 3 * i, 1.0),
            ]
        })
        .collect();
    let a = CsrMatrix::from_triplets(n, 1 + 3 * n, t).unwrap();
    let bounded = GraphOptions::default()
        .with_hub_limit(10)
        .with_neighbours(4);
    let g = WindowGraph::build(&a, &Windows::single_rows(n), &bounded).unwrap();
    assert_eq!((g.bounded_columns(), g.bounded_windows()), (1, n));
    assert_eq!(g.path_lower_bound(), 4 * (n as u64 - 1));
    let order: Vec<usize> = (0..n).collect();
    assert_eq!(path_cost(&g, &order).unwrap(), 6 * (n as u64 - 1));
    // Unbounded, the costs are exact: every window's two cheapest are 6.
    let exact = WindowGraph::build(&a, &Windows::single_rows(n), &GraphOptions::default()).unwrap();
    assert_eq!(exact.path_lower_bound(), 6 * (n as u64 - 1));
}

#[test]
fn hub_columns_are_bounded_and_counted() {
    // Column 0 is in every row (a hub); column 1 + i/10 groups rows by tens.
    let n = 100;
    let t: Vec<(usize, usize, f64)> = (0..n)
        .flat_map(|i| [(i, 0, 1.0), (i, 1 + i / 10, 1.0)])
        .collect();
    let a = CsrMatrix::from_triplets(n, 11, t).unwrap();
    let opts = GraphOptions::default()
        .with_hub_limit(20)
        .with_neighbours(4);
    let g = WindowGraph::build(&a, &Windows::single_rows(n), &opts).unwrap();
    assert_eq!(g.bounded_columns(), 1);
    assert_eq!(g.bounded_windows(), n);
    assert_eq!(g.path_lower_bound(), 0);
    for w in 0..n {
        assert_eq!(g.candidates(w).len(), 4);
        // Exact overlaps, and the best ones (same group of ten: overlap 2) come first.
        for (h, o) in g.candidates(w) {
            assert_eq!(o as u64, (2 + 2 - g.distance(w, h as usize)) / 2);
            assert_eq!(o, 2);
            assert_eq!(h as usize / 10, w / 10);
        }
    }
    // A hub limit of 0 skips every column.
    let skip = GraphOptions::default().with_hub_limit(0);
    let g = WindowGraph::build(&a, &Windows::single_rows(n), &skip).unwrap();
    assert_eq!(g.bounded_columns(), 11);
    assert!((0..n).all(|w| g.candidates(w).len() == 0));
}

#[test]
fn progress_counts_every_window_searched_once() {
    // A 100² grid in windows of 3 rows (3,334 windows, the last of one row): the chunks the
    // search reports add up to the windows, and the graph is the one `build` makes.
    let a = spmv_reorder_gen::poisson2d(100, 100).unwrap();
    let windows = Windows::fixed(a.nrows(), 3).unwrap();
    for par in [Parallelism::Sequential, Parallelism::Rayon] {
        let opts = GraphOptions::default().with_parallelism(par);
        let reports = std::sync::Mutex::new(Vec::new());
        let record = |k: usize| reports.lock().unwrap().push(k);
        let g = WindowGraph::build_with_progress(&a, &windows, &opts, &record).unwrap();
        assert_eq!(g, WindowGraph::build(&a, &windows, &opts).unwrap());
        let reports = reports.into_inner().unwrap();
        assert_eq!(reports.iter().sum::<usize>(), windows.len());
        assert!(
            reports.len() > 1 && reports.iter().all(|&k| k > 0),
            "{reports:?}"
        );
    }
}
