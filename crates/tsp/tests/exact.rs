//! Exactness and contract tests of `solve_path` against a Held-Karp dynamic program for paths.

use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use spmv_reorder_tsp::{
    lower_bound, path_cost, solve_path, solve_path_with_checkpoint, CandidateLists, Checkpoint,
    Construction, LocalSearch, Phase, SolverOptions, TourKind, TspError,
};

/// A dense symmetric cost table (test instances only).
struct Table {
    n: usize,
    c: Vec<i64>,
}

impl Table {
    fn random(n: usize, rng: &mut impl Rng, euclidean: bool) -> Self {
        let mut c = vec![0; n * n];
        let pts: Vec<(f64, f64)> = (0..n)
            .map(|_| (rng.random_range(0.0..100.0), rng.random_range(0.0..100.0)))
            .collect();
        for a in 0..n {
            for b in a + 1..n {
                let v = if euclidean {
                    let (dx, dy) = (pts[a].0 - pts[b].0, pts[a].1 - pts[b].1);
                    (dx * dx + dy * dy).sqrt().round() as i64
                } else {
                    rng.random_range(0..100)
                };
                c[a * n + b] = v;
                c[b * n + a] = v;
            }
        }
        Self { n, c }
    }

    fn cost(&self, a: usize, b: usize) -> i64 {
        self.c[a * self.n + b]
    }

    /// Each node's `k` cheapest neighbours.
    fn candidates(&self, k: usize) -> CandidateLists {
        let lists = (0..self.n)
            .map(|a| {
                let mut l: Vec<(u32, i64)> = (0..self.n)
                    .filter(|&b| b != a)
                    .map(|b| (b as u32, self.cost(a, b)))
                    .collect();
                l.sort_by_key(|&(b, c)| (c, b));
                l.truncate(k);
                l
            })
            .collect();
        CandidateLists::from_lists(lists).unwrap()
    }
}

/// Held-Karp for a Hamiltonian path with free ends: `best[S][v]` = cheapest path over `S` ending at `v`.
fn held_karp_path(t: &Table) -> i64 {
    let n = t.n;
    if n <= 1 {
        return 0;
    }
    let full = 1usize << n;
    let mut best = vec![i64::MAX; full * n];
    for v in 0..n {
        best[(1 << v) * n + v] = 0;
    }
    for set in 1..full {
        for v in 0..n {
            let cur = best[set * n + v];
            if cur == i64::MAX {
                continue;
            }
            for u in (0..n).filter(|&u| set & (1 << u) == 0) {
                let next = (set | (1 << u)) * n + u;
                best[next] = best[next].min(cur + t.cost(v, u));
            }
        }
    }
    (0..n).map(|v| best[(full - 1) * n + v]).min().unwrap()
}

fn assert_permutation(order: &[usize], n: usize) {
    let mut seen = order.to_vec();
    seen.sort_unstable();
    assert_eq!(seen, (0..n).collect::<Vec<_>>());
}

fn exact_opts(seed: u64) -> SolverOptions {
    SolverOptions {
        seed,
        max_kicks: Some(300),
        tour: if seed.is_multiple_of(2) {
            TourKind::Array
        } else {
            TourKind::TwoLevel
        },
        ..SolverOptions::default()
    }
}

#[test]
fn chained_lk_matches_held_karp() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    for trial in 0..300 {
        let n = rng.random_range(0..=10);
        let euclidean = trial % 3 == 0;
        let t = Table::random(n, &mut rng, euclidean);
        let k = [n.saturating_sub(1), 3, 2, 0][trial % 4];
        let cands = t.candidates(k);
        let oracle = |a: usize, b: usize| t.cost(a, b);
        let sol = solve_path(&cands, &oracle, &exact_opts(trial as u64), &mut |_| {}).unwrap();
        assert_permutation(&sol.order, n);
        assert_eq!(sol.cost, path_cost(&sol.order, &oracle));
        let opt = held_karp_path(&t);
        assert_eq!(
            sol.cost, opt,
            "trial {trial}: n={n} k={k} euclidean={euclidean}"
        );
        if k == n.saturating_sub(1) || k >= 2 {
            let bound = lower_bound(&cands, &oracle);
            assert!(bound <= opt, "bound {bound} > optimum {opt}");
        }
    }
}

#[test]
fn every_mode_returns_a_valid_path_no_better_than_optimal() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let modes = [
        (Construction::Greedy, LocalSearch::TwoOptOrOpt, false),
        (
            Construction::NearestNeighbour,
            LocalSearch::TwoOptOrOpt,
            true,
        ),
        (Construction::Identity, LocalSearch::default(), false),
        (
            Construction::NearestNeighbour,
            LocalSearch::LinKernighan {
                depth: 3,
                breadth: vec![1],
            },
            true,
        ),
    ];
    for trial in 0..100 {
        let n = rng.random_range(0..=9);
        let t = Table::random(n, &mut rng, trial % 3 == 0);
        let cands = t.candidates(3);
        let oracle = |a: usize, b: usize| t.cost(a, b);
        let opt = held_karp_path(&t);
        for (construction, local_search, chained) in modes.iter().cloned() {
            let opts = SolverOptions {
                construction,
                local_search,
                chained,
                max_kicks: Some(50),
                ..SolverOptions::default()
            };
            let sol = solve_path(&cands, &oracle, &opts, &mut |_| {}).unwrap();
            assert_permutation(&sol.order, n);
            assert!(sol.cost >= opt);
            assert!(sol.stats.after_local_search_cost <= sol.stats.initial_cost);
            assert!(sol.cost <= sol.stats.after_local_search_cost);
        }
    }
}

/// A larger random Euclidean instance for determinism and budgets.
fn euclidean(n: usize, seed: u64) -> (Vec<(i64, i64)>, CandidateLists) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let pts: Vec<(i64, i64)> = (0..n)
        .map(|_| (rng.random_range(0..10_000), rng.random_range(0..10_000)))
        .collect();
    let cost = |a: usize, b: usize| dist(pts[a], pts[b]);
    let lists = (0..n)
        .map(|a| {
            let mut l: Vec<(u32, i64)> = (0..n)
                .filter(|&b| b != a)
                .map(|b| (b as u32, cost(a, b)))
                .collect();
            l.sort_by_key(|&(b, c)| (c, b));
            l.truncate(8);
            l
        })
        .collect();
    (pts, CandidateLists::from_lists(lists).unwrap())
}

fn dist(p: (i64, i64), q: (i64, i64)) -> i64 {
    (((p.0 - q.0).pow(2) + (p.1 - q.1).pow(2)) as f64)
        .sqrt()
        .round() as i64
}

#[test]
fn deterministic_for_a_seed_and_kick_budget() {
    let (pts, cands) = euclidean(400, 3);
    let oracle = |a: usize, b: usize| dist(pts[a], pts[b]);
    let opts = SolverOptions {
        seed: 5,
        max_kicks: Some(500),
        ..SolverOptions::default()
    };
    let a = solve_path(&cands, &oracle, &opts, &mut |_| {}).unwrap();
    let b = solve_path(&cands, &oracle, &opts, &mut |_| {}).unwrap();
    assert_eq!(a.order, b.order);
    // The two tour representations make the same moves, so they end with the same path cost.
    let two_level = SolverOptions {
        tour: TourKind::TwoLevel,
        ..opts.clone()
    };
    let c = solve_path(&cands, &oracle, &two_level, &mut |_| {}).unwrap();
    assert_eq!(c.cost, a.cost);
    assert_eq!(a.stats.kicks, 500);
    assert!(a.cost < a.stats.after_local_search_cost);
    let bound = lower_bound(&cands, &oracle);
    assert!(bound <= a.cost && a.gap(bound) < 0.5);
}

#[test]
fn zero_budgets_make_no_kick() {
    let (pts, cands) = euclidean(200, 6);
    let oracle = |a: usize, b: usize| dist(pts[a], pts[b]);
    for (max_kicks, max_stall_kicks) in [(Some(0), None), (None, Some(0)), (Some(3), Some(0))] {
        let opts = SolverOptions {
            max_kicks,
            max_stall_kicks,
            ..SolverOptions::default()
        };
        let sol = solve_path(&cands, &oracle, &opts, &mut |_| {}).unwrap();
        assert_eq!(sol.stats.kicks, 0, "{max_kicks:?} {max_stall_kicks:?}");
        assert_eq!(sol.cost, sol.stats.after_local_search_cost);
    }
}

#[test]
fn time_limit_and_progress() {
    let (pts, cands) = euclidean(1000, 4);
    let oracle = |a: usize, b: usize| dist(pts[a], pts[b]);
    let opts = SolverOptions {
        time_limit: Some(Duration::from_millis(500)),
        ..SolverOptions::default()
    };
    let mut phases = Vec::new();
    let start = std::time::Instant::now();
    let sol = solve_path(&cands, &oracle, &opts, &mut |p| phases.push(p.phase)).unwrap();
    assert!(start.elapsed() < Duration::from_secs(3));
    assert_permutation(&sol.order, 1000);
    assert_eq!(phases.first(), Some(&Phase::Construction));
    assert_eq!(phases.last(), Some(&Phase::Done));
    assert_eq!(
        phases.contains(&Phase::Kicks),
        sol.stats.reached_local_optimum
    );
}

#[test]
fn a_checkpoint_sees_the_path_partway_and_stops_or_changes_nothing() {
    let (pts, cands) = euclidean(1000, 4);
    let oracle = |a: usize, b: usize| dist(pts[a], pts[b]);
    let descent = SolverOptions {
        local_search: LocalSearch::TwoOptOrOpt,
        chained: false,
        ..SolverOptions::default()
    };
    let full = solve_path(&cands, &oracle, &descent, &mut |_| {}).unwrap();
    assert!(full.stats.reached_local_optimum);
    let with = |go_on: bool| {
        let mut seen = Vec::new();
        let mut look = |order: &[usize]| {
            seen.push(order.to_vec());
            go_on
        };
        let checkpoint = Checkpoint {
            pops: 200,
            go_on: &mut look,
        };
        let sol =
            solve_path_with_checkpoint(&cands, &oracle, &descent, checkpoint, &mut |_| {}).unwrap();
        (sol, seen)
    };
    // Going on, the descent is the one without a checkpoint.
    let (same, seen) = with(true);
    assert_eq!((&same.order, same.cost), (&full.order, full.cost));
    assert_eq!(seen.len(), 1);
    // Stopping, the path is the one the checkpoint saw, partway down: the same every time.
    let (cut, seen) = with(false);
    assert_eq!(seen, vec![cut.order.clone()]);
    assert_permutation(&cut.order, 1000);
    assert!(!cut.stats.reached_local_optimum);
    assert!(full.cost < cut.cost && cut.cost < cut.stats.initial_cost);
    assert_eq!(with(false).0.order, cut.order);
    // Chained LK stops there too: no kicks after a stop.
    let chained = SolverOptions {
        max_kicks: Some(50),
        ..SolverOptions::default()
    };
    let mut stop = |_: &[usize]| false;
    let checkpoint = Checkpoint {
        pops: 200,
        go_on: &mut stop,
    };
    let sol = solve_path_with_checkpoint(&cands, &oracle, &chained, checkpoint, &mut |_| {});
    assert_eq!(sol.unwrap().stats.kicks, 0);
}

#[test]
fn tiny_instances() {
    let oracle = |a: usize, b: usize| (a + b) as i64;
    for n in 0..4 {
        let cands = CandidateLists::from_lists(vec![vec![]; n]).unwrap();
        let sol = solve_path(&cands, &oracle, &SolverOptions::default(), &mut |_| {}).unwrap();
        assert_permutation(&sol.order, n);
        assert_eq!(sol.cost, path_cost(&sol.order, &oracle));
        assert!(lower_bound(&cands, &oracle) <= sol.cost);
    }
    assert_eq!(lower_bound(&CandidateLists::default(), &oracle), 0);
}

#[test]
fn the_first_wrong_candidate_cost_is_reported_on_large_lists_too() {
    // 20,000 nodes of 4 candidates: 80,000 entries, enough for the check to run in parallel.
    // Nodes 15,000 and 17,000 each list one wrong cost: the first in node order is reported.
    let n = 20_000usize;
    let oracle = |a: usize, b: usize| a.abs_diff(b) as i64;
    let lists = (0..n)
        .map(|a| {
            [1, 2, n - 1, n - 2]
                .iter()
                .map(|&d| {
                    let b = (a + d) % n;
                    let wrong = (a == 15_000 || a == 17_000) && d == 2;
                    (b as u32, oracle(a, b) + i64::from(wrong))
                })
                .collect()
        })
        .collect();
    let cands = CandidateLists::from_lists(lists).unwrap();
    let err = solve_path(&cands, &oracle, &SolverOptions::default(), &mut |_| {});
    assert!(
        matches!(
            err,
            Err(TspError::CostMismatch {
                a: 15_000,
                b: 15_002,
                listed: 3,
                oracle: 2
            })
        ),
        "{err:?}"
    );
}

#[test]
fn errors_are_reported() {
    let cands = CandidateLists::from_lists(vec![vec![(1, 5)], vec![]]).unwrap();
    let err = solve_path(
        &cands,
        &|_: usize, _: usize| 4,
        &SolverOptions::default(),
        &mut |_| {},
    );
    assert!(matches!(
        err,
        Err(TspError::CostMismatch {
            a: 0,
            b: 1,
            listed: 5,
            oracle: 4
        })
    ));
    let bad = SolverOptions {
        local_search: LocalSearch::LinKernighan {
            depth: 0,
            breadth: vec![],
        },
        ..SolverOptions::default()
    };
    let err = solve_path(&cands, &|_: usize, _: usize| 5, &bad, &mut |_| {});
    assert!(matches!(
        err,
        Err(TspError::InvalidOption { name: "depth", .. })
    ));
    for order in [vec![0, 0], vec![1], vec![0, 2], vec![1, 0, 2]] {
        let given = SolverOptions {
            initial_order: Some(order),
            ..SolverOptions::default()
        };
        let err = solve_path(&cands, &|_: usize, _: usize| 5, &given, &mut |_| {});
        assert!(matches!(
            err,
            Err(TspError::InvalidOption {
                name: "initial_order",
                ..
            })
        ));
    }
}

#[test]
fn a_solve_continues_from_a_given_path() {
    let (pts, cands) = euclidean(3000, 9);
    let oracle = |a: usize, b: usize| dist(pts[a], pts[b]);
    let two_opt = SolverOptions {
        local_search: LocalSearch::TwoOptOrOpt,
        chained: false,
        ..SolverOptions::default()
    };
    let draft = solve_path(&cands, &oracle, &two_opt, &mut |_| {}).unwrap();
    let refine = SolverOptions {
        initial_order: Some(draft.order.clone()),
        chained: false,
        ..SolverOptions::default()
    };
    let refined = solve_path(&cands, &oracle, &refine, &mut |_| {}).unwrap();
    assert_permutation(&refined.order, pts.len());
    assert_eq!(
        refined.stats.initial_cost, draft.cost,
        "starts from the draft"
    );
    assert!(
        refined.cost < draft.cost,
        "Lin-Kernighan improves a 2-opt path of 3000 random points: {} vs {}",
        refined.cost,
        draft.cost
    );
    let both = draft.stats.then(&refined.stats);
    assert_eq!(both.initial_cost, draft.stats.initial_cost);
    assert_eq!(both.after_two_opt_cost, draft.cost);
    assert_eq!(both.after_local_search_cost, refined.cost);
    assert_eq!(
        both.oracle_calls,
        draft.stats.oracle_calls + refined.stats.oracle_calls
    );
    assert_eq!(
        both.local_search_s,
        draft.stats.local_search_s + refined.stats.local_search_s
    );
}
