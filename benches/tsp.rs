//! Benchmark and instance driver of the `spmv-reorder-tsp` solver (a plain `main`, `harness = false`).
//!
//! ```text
//! cargo bench --bench tsp                               # quick run: uniform 10k + Poisson 40³, ratios
//! cargo bench --bench tsp -- uniform 100000 [opts]      # random uniform 2D points, 10 nearest neighbours
//! cargo bench --bench tsp -- poisson 100 [opts]         # shuffled 7-point Poisson grid 100³, row distances
//! cargo bench --bench tsp -- rows FILE... [opts]        # row-distance instances (scripts/tsp_quality.py)
//! cargo bench --bench tsp -- tsplib FILE... [opts]      # TSPLIB EUC_2D instances (as paths)
//! opts: --k K  --kicks N  --time SECONDS  --seed S  --ls 2opt|lk  --no-chain  --tour array|two-level|auto
//!       --construction greedy|nn|identity  --lk DEPTH:B1,B2,..  --only-chained (poisson)  --kick-span S
//! ```
//!
//! A `rows` file holds the number of rows on its first line, then one line per row with its sorted
//! 0-based column indices. Costs are `d(i,j) = |Ci| + |Cj| − 2|Ci ∩ Cj|` (SPEC section 2) and candidates
//! are, per row, the `K` cheapest rows sharing a column (inverted column → rows index). Uniform instances
//! put `n` points in a square of side `1000·√n` with rounded Euclidean costs; their ratio is printed
//! against the asymptotic optimal tour `0.7124·√(n·A)` (Beardwood-Halton-Hammersley constant as
//! estimated by Johnson, McGeoch & Rothberg 1996).

use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use spmv_reorder_tsp::{
    lower_bound, path_cost, solve_path, CandidateLists, Construction, CostOracle, LocalSearch,
    PathSolution, SolverOptions, TourKind,
};

mod common;

/// Large arrays on transparent huge pages, as the `spmv-reorder` binary has them.
#[global_allocator]
static ALLOC: spmv_reorder_sparse::HugePageAlloc = spmv_reorder_sparse::HugePageAlloc;

/// Largest column population scanned when building row candidates (dense columns say little).
const MAX_COLUMN_SCAN: usize = 2000;

/// Rows as sorted column sets; the cost is the size of the symmetric difference.
struct RowInstance {
    offsets: Vec<usize>,
    cols: Vec<u32>,
    ncols: usize,
}

impl RowInstance {
    fn from_rows(rows: &[Vec<u32>]) -> Self {
        let mut offsets = vec![0];
        let mut cols = Vec::new();
        for r in rows {
            cols.extend_from_slice(r);
            offsets.push(cols.len());
        }
        let ncols = cols.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
        Self {
            offsets,
            cols,
            ncols,
        }
    }

    fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    fn row(&self, i: usize) -> &[u32] {
        &self.cols[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Per row, the `k` cheapest rows sharing at least one column.
    fn candidates(&self, k: usize) -> CandidateLists {
        let n = self.len();
        let mut col_ptr = vec![0usize; self.ncols + 1];
        for &c in &self.cols {
            col_ptr[c as usize + 1] += 1;
        }
        for c in 0..self.ncols {
            col_ptr[c + 1] += col_ptr[c];
        }
        let mut fill = col_ptr.clone();
        let mut col_rows = vec![0u32; self.cols.len()];
        for i in 0..n {
            for &c in self.row(i) {
                col_rows[fill[c as usize]] = i as u32;
                fill[c as usize] += 1;
            }
        }
        let mut overlap = vec![0u32; n];
        let mut touched = Vec::new();
        let mut offsets = vec![0usize];
        let (mut nbrs, mut costs) = (Vec::new(), Vec::new());
        let mut list: Vec<(i64, u32)> = Vec::new();
        for i in 0..n {
            for &c in self.row(i) {
                let rows = &col_rows[col_ptr[c as usize]..col_ptr[c as usize + 1]];
                for &j in rows.iter().take(MAX_COLUMN_SCAN) {
                    if j as usize != i {
                        if overlap[j as usize] == 0 {
                            touched.push(j);
                        }
                        overlap[j as usize] += 1;
                    }
                }
            }
            list.clear();
            let ni = self.row(i).len() as i64;
            for &j in &touched {
                let nj = self.row(j as usize).len() as i64;
                list.push((ni + nj - 2 * i64::from(overlap[j as usize]), j));
                overlap[j as usize] = 0;
            }
            touched.clear();
            if list.len() > k {
                list.select_nth_unstable(k);
                list.truncate(k);
            }
            for &(c, j) in &list {
                nbrs.push(j);
                costs.push(c);
            }
            offsets.push(nbrs.len());
        }
        CandidateLists::from_csr(offsets, nbrs, costs).expect("valid candidates")
    }
}

impl CostOracle for RowInstance {
    fn cost(&self, a: usize, b: usize) -> i64 {
        spmv_reorder_locality::set_distance(self.row(a), self.row(b)) as i64
    }
}

/// Points with rounded Euclidean costs.
struct Points(Vec<(f64, f64)>);

impl CostOracle for Points {
    fn cost(&self, a: usize, b: usize) -> i64 {
        let (p, q) = (self.0[a], self.0[b]);
        ((p.0 - q.0).powi(2) + (p.1 - q.1).powi(2)).sqrt().round() as i64
    }
}

impl Points {
    /// The `k` nearest neighbours of every point (uniform grid with about 2 points per cell).
    fn candidates(&self, k: usize) -> CandidateLists {
        let n = self.0.len();
        let (minx, maxx, miny, maxy) = self.0.iter().fold(
            (f64::MAX, f64::MIN, f64::MAX, f64::MIN),
            |(a, b, c, d), p| (a.min(p.0), b.max(p.0), c.min(p.1), d.max(p.1)),
        );
        let side = ((n as f64 / 2.0).sqrt().ceil() as usize).max(1);
        let cell_w = ((maxx - minx).max(maxy - miny) / side as f64).max(1e-9);
        let cell_of = |p: (f64, f64)| {
            let cx = (((p.0 - minx) / cell_w) as usize).min(side - 1);
            let cy = (((p.1 - miny) / cell_w) as usize).min(side - 1);
            (cx, cy)
        };
        let mut cells: Vec<Vec<u32>> = vec![Vec::new(); side * side];
        for (i, &p) in self.0.iter().enumerate() {
            let (cx, cy) = cell_of(p);
            cells[cy * side + cx].push(i as u32);
        }
        let lists = (0..n)
            .map(|i| {
                let (cx, cy) = cell_of(self.0[i]);
                let mut found: Vec<(i64, u32)> = Vec::new();
                let mut ring = 0usize;
                loop {
                    for y in cy.saturating_sub(ring)..=(cy + ring).min(side - 1) {
                        for x in cx.saturating_sub(ring)..=(cx + ring).min(side - 1) {
                            if x.abs_diff(cx) != ring && y.abs_diff(cy) != ring {
                                continue;
                            }
                            for &j in &cells[y * side + x] {
                                if j as usize != i {
                                    found.push((self.cost(i, j as usize), j));
                                }
                            }
                        }
                    }
                    found.sort_unstable();
                    found.truncate(k);
                    // Points beyond this ring are at least ring·cell_w away.
                    let covered = ring as f64 * cell_w;
                    let done = found.len() == k && found[k - 1].0 as f64 <= covered;
                    if done || ring > side {
                        break;
                    }
                    ring += 1;
                }
                found.into_iter().map(|(c, j)| (j, c)).collect()
            })
            .collect();
        CandidateLists::from_lists(lists).expect("valid candidates")
    }
}

/// Command-line options shared by every mode.
struct Opts {
    k: Option<usize>,
    /// `poisson`: skip the separate 2-opt + Or-opt run (the chained run reports its 2-opt phase too).
    only_chained: bool,
    solver: SolverOptions,
    files: Vec<String>,
}

fn parse(args: &[String]) -> Opts {
    let mut opts = Opts {
        k: None,
        only_chained: false,
        solver: SolverOptions::default(),
        files: Vec::new(),
    };
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        let mut value = |name: &str| -> String {
            words.next().cloned().unwrap_or_else(|| {
                common::fail(format!("{name} needs a value (--help lists them)"))
            })
        };
        match arg.as_str() {
            "--k" => opts.k = Some(common::number("--k", &value("--k"), 1)),
            "--kicks" => {
                opts.solver.max_kicks = Some(common::number("--kicks", &value("--kicks"), 0))
            }
            "--time" => opts.solver.time_limit = Some(common::seconds("--time", &value("--time"))),
            "--seed" => opts.solver.seed = common::number("--seed", &value("--seed"), 0),
            "--no-chain" => opts.solver.chained = false,
            "--ls" => {
                opts.solver.local_search = match value("--ls").as_str() {
                    "2opt" => LocalSearch::TwoOptOrOpt,
                    "lk" => LocalSearch::default(),
                    other => common::fail(format!("--ls {other}: 2opt or lk")),
                }
            }
            "--tour" => {
                opts.solver.tour = match value("--tour").as_str() {
                    "array" => TourKind::Array,
                    "two-level" => TourKind::TwoLevel,
                    "auto" => TourKind::Auto,
                    other => common::fail(format!("--tour {other}: array, two-level or auto")),
                }
            }
            "--construction" => {
                opts.solver.construction = match value("--construction").as_str() {
                    "greedy" => Construction::Greedy,
                    "nn" => Construction::NearestNeighbour,
                    "identity" => Construction::Identity,
                    other => {
                        common::fail(format!("--construction {other}: greedy, nn or identity"))
                    }
                }
            }
            "--lk" => opts.solver.local_search = lin_kernighan(&value("--lk")),
            "--only-chained" => opts.only_chained = true,
            "--kick-span" => {
                opts.solver.kick_span = common::number("--kick-span", &value("--kick-span"), 0)
            }
            flag if flag.starts_with("--") => common::unknown(flag),
            file => opts.files.push(file.to_string()),
        }
    }
    opts
}

/// `--lk DEPTH:B1,B2,..`: Lin-Kernighan of that depth and breadths (breadth 1 when not given).
fn lin_kernighan(spec: &str) -> LocalSearch {
    let (depth, breadth) = spec.split_once(':').unwrap_or((spec, "1"));
    LocalSearch::LinKernighan {
        depth: common::number("--lk depth", depth, 1),
        breadth: breadth
            .split(',')
            .map(|b| common::number("--lk breadth", b, 1))
            .collect(),
    }
}

/// CPU seconds of this process ([`common::process_cpu_time`]): the machine is shared, so
/// wall-clock figures alone overstate the solver's cost.
fn cpu_seconds() -> f64 {
    common::process_cpu_time().as_secs_f64()
}

/// A solution with the lower bound of its instance.
struct Solved {
    sol: PathSolution,
    bound: i64,
}

fn solve(cands: &CandidateLists, oracle: &impl CostOracle, opts: &SolverOptions) -> Solved {
    let cpu = cpu_seconds();
    let sol = common::or_fail(solve_path(cands, oracle, opts, &mut |_| {}));
    println!("solve_cpu_s={:.2}", cpu_seconds() - cpu);
    Solved {
        sol,
        bound: lower_bound(cands, oracle),
    }
}

fn print_solution(name: &str, n: usize, solved: &Solved, total_s: f64) {
    let Solved { sol, bound } = solved;
    let s = &sol.stats;
    println!(
        "{name} n={n} cost={} bound={} gap={:.4} initial={} after_2opt={} after_ls={} \
         kicks={} improving_kicks={} construction_s={:.3} two_opt_s={:.3} local_search_s={:.3} \
         kicks_s={:.3} local_optimum={} oracle_calls={} total_s={total_s:.3}",
        sol.cost,
        bound,
        sol.gap(*bound),
        s.initial_cost,
        s.after_two_opt_cost,
        s.after_local_search_cost,
        s.kicks,
        s.improving_kicks,
        s.construction_s,
        s.two_opt_s,
        s.local_search_s,
        s.kicks_s,
        s.reached_local_optimum,
        s.oracle_calls,
    );
}

/// The rows of a `rows` file: the row count on its first line, then one line a row of its
/// column indices. `FILE:LINE: what is wrong` for a token that is not an index, a count that does
/// not match, or columns whose index would need more memory than there is.
fn read_rows(path: &str) -> Result<Vec<Vec<u32>>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut lines = text.lines();
    let n: usize = lines
        .next()
        .and_then(|l| l.trim().parse().ok())
        .ok_or_else(|| format!("{path}:1: the first line must be the row count"))?;
    let mut rows = Vec::new();
    for (i, line) in lines.enumerate() {
        if rows.len() == n {
            if line.trim().is_empty() {
                continue;
            }
            return Err(format!(
                "{path}:{}: more rows than the {n} announced",
                i + 2
            ));
        }
        let row = line
            .split_whitespace()
            .map(|t| t.parse::<u32>())
            .collect::<Result<Vec<u32>, _>>()
            .map_err(|e| format!("{path}:{}: {e}", i + 2))?;
        rows.push(row);
    }
    if rows.len() != n {
        return Err(format!("{path}: {} rows, {n} announced", rows.len()));
    }
    let ncols = rows
        .iter()
        .flatten()
        .map(|&c| c as u128 + 1)
        .max()
        .unwrap_or(0);
    // The candidate search indexes rows by column: a few words a column.
    common::check_memory(ncols * 32, format_args!("{path}: columns up to {ncols}"));
    Ok(rows)
}

/// Solves every file of `opts` with `solve_file`; a file that does not read is reported, the
/// others solved, and the exit status is then 1 ([`common::finish`]).
fn each_file(opts: &Opts, mut solve_file: impl FnMut(&str) -> Result<(), String>) {
    if opts.files.is_empty() {
        common::fail("no file given (--help shows the modes)");
    }
    for path in &opts.files {
        if let Err(e) = solve_file(path) {
            common::report(e);
        }
    }
    common::finish();
}

fn run_rows(opts: &Opts) {
    each_file(opts, |path| {
        let rows = read_rows(path)?;
        let t = Instant::now();
        let inst = RowInstance::from_rows(&rows);
        let cands = inst.candidates(opts.k.unwrap_or(10));
        let name = std::path::Path::new(path)
            .file_stem()
            .map_or(path.to_string(), |s| s.to_string_lossy().into_owned());
        let sol = solve(&cands, &inst, &opts.solver);
        print_solution(&name, inst.len(), &sol, t.elapsed().as_secs_f64());
        Ok(())
    });
}

fn uniform_points(n: usize, seed: u64) -> Points {
    let side = 1000.0 * (n as f64).sqrt();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    Points(
        (0..n)
            .map(|_| (rng.random_range(0.0..side), rng.random_range(0.0..side)))
            .collect(),
    )
}

fn run_uniform(n: usize, opts: &Opts) {
    let pts = uniform_points(n, 42);
    let t = Instant::now();
    let cands = pts.candidates(opts.k.unwrap_or(10));
    let knn_s = t.elapsed().as_secs_f64();
    let sol = solve(&cands, &pts, &opts.solver);
    print_solution(&format!("uniform{n}"), n, &sol, t.elapsed().as_secs_f64());
    let area = (1000.0 * (n as f64).sqrt()).powi(2);
    let bhh = 0.7124 * (n as f64 * area).sqrt();
    println!(
        "uniform{n} knn_s={knn_s:.3} cost/(0.7124*sqrt(nA))={:.4} 2opt/(0.7124*sqrt(nA))={:.4} \
         cost/bound={:.4}",
        sol.sol.cost as f64 / bhh,
        sol.sol.stats.after_two_opt_cost as f64 / bhh,
        sol.sol.cost as f64 / sol.bound.max(1) as f64
    );
}

/// Rows of `P A Pᵀ` for the 7-point Poisson stencil on an `m × m × m` grid and a random permutation.
fn shuffled_poisson_rows(m: usize, seed: u64) -> (Vec<Vec<u32>>, Vec<usize>) {
    let n = m * m * m;
    let mut perm: Vec<usize> = (0..n).collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for i in (1..n).rev() {
        perm.swap(i, rng.random_range(0..=i));
    }
    let mut rows = vec![Vec::new(); n];
    for z in 0..m {
        for y in 0..m {
            for x in 0..m {
                let i = x + m * (y + m * z);
                let mut cols = vec![perm[i] as u32];
                for (d, coord) in [(1, x), (m, y), (m * m, z)] {
                    if coord > 0 {
                        cols.push(perm[i - d] as u32);
                    }
                    if coord + 1 < m {
                        cols.push(perm[i + d] as u32);
                    }
                }
                cols.sort_unstable();
                rows[perm[i]] = cols;
            }
        }
    }
    (rows, perm)
}

fn run_poisson(m: usize, opts: &Opts) {
    let t = Instant::now();
    let (rows, perm) = shuffled_poisson_rows(m, 7);
    let inst = RowInstance::from_rows(&rows);
    let gen_s = t.elapsed().as_secs_f64();
    let (t, cpu) = (Instant::now(), cpu_seconds());
    let cands = inst.candidates(opts.k.unwrap_or(8));
    let cands_s = t.elapsed().as_secs_f64();
    println!("candidates_cpu_s={:.2}", cpu_seconds() - cpu);
    let n = inst.len();
    // Grid order: the rows `perm[0], perm[1], …`.
    let natural_cost = path_cost(&perm, &inst);
    let shuffled_cost = path_cost(&(0..n).collect::<Vec<_>>(), &inst);
    println!(
        "poisson{m} n={n} generate_s={gen_s:.3} candidates_s={cands_s:.3} natural_order_cost={natural_cost} \
         shuffled_cost={shuffled_cost}"
    );
    // The 2-opt + Or-opt descent runs to its local optimum (no time limit).
    let two_opt = SolverOptions {
        local_search: LocalSearch::TwoOptOrOpt,
        chained: false,
        time_limit: None,
        ..opts.solver.clone()
    };
    if !opts.only_chained {
        let t = Instant::now();
        let sol = solve(&cands, &inst, &two_opt);
        print_solution(
            &format!("poisson{m}/2opt+oropt"),
            n,
            &sol,
            t.elapsed().as_secs_f64(),
        );
    }
    if opts.solver.local_search == LocalSearch::TwoOptOrOpt && !opts.solver.chained {
        return; // `--ls 2opt --no-chain`: the descent alone
    }
    let t = Instant::now();
    let sol = solve(&cands, &inst, &opts.solver);
    print_solution(
        &format!("poisson{m}/chained-lk"),
        n,
        &sol,
        t.elapsed().as_secs_f64(),
    );
    println!(
        "poisson{m} cost/natural={:.4} cost/bound={:.4}",
        sol.sol.cost as f64 / natural_cost as f64,
        sol.sol.cost as f64 / sol.bound.max(1) as f64
    );
}

/// Reads the `NODE_COORD_SECTION` of a TSPLIB `EUC_2D` file: its `DIMENSION` coordinates, each
/// line `INDEX X Y`; another edge weight type, a malformed line or a count other than the
/// dimension is an error naming the line.
fn read_tsplib(path: &str) -> Result<Points, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut in_coords = false;
    let mut dimension = None;
    let mut pts = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        let at = |what: String| format!("{path}:{}: {what}", i + 1);
        let header = |key: &str| {
            line.strip_prefix(key)
                .map(|v| v.trim_start().trim_start_matches(':').trim())
        };
        if line == "EOF" {
            break;
        } else if line.starts_with("NODE_COORD_SECTION") {
            in_coords = true;
        } else if line.is_empty() {
            continue;
        } else if in_coords {
            match line.split_whitespace().collect::<Vec<_>>()[..] {
                [_, x, y] => match (x.parse::<f64>(), y.parse::<f64>()) {
                    (Ok(x), Ok(y)) if x.is_finite() && y.is_finite() => pts.push((x, y)),
                    _ => return Err(at(format!("coordinates `{x} {y}` are not numbers"))),
                },
                _ => return Err(at("expected `INDEX X Y`".into())),
            }
        } else if let Some(kind) = header("EDGE_WEIGHT_TYPE") {
            if kind != "EUC_2D" {
                return Err(at(format!("EDGE_WEIGHT_TYPE {kind}: only EUC_2D is read")));
            }
        } else if let Some(d) = header("DIMENSION") {
            dimension = Some(
                d.parse::<usize>()
                    .map_err(|e| at(format!("DIMENSION {d}: {e}")))?,
            );
        }
    }
    match dimension {
        Some(d) if d != pts.len() => Err(format!(
            "{path}: DIMENSION {d}, {} coordinates in NODE_COORD_SECTION",
            pts.len()
        )),
        _ if pts.is_empty() => Err(format!("{path}: no NODE_COORD_SECTION coordinates")),
        _ => Ok(Points(pts)),
    }
}

fn run_tsplib(opts: &Opts) {
    each_file(opts, |path| {
        let pts = read_tsplib(path)?;
        let t = Instant::now();
        let cands = pts.candidates(opts.k.unwrap_or(10));
        let sol = solve(&cands, &pts, &opts.solver);
        print_solution(path, pts.0.len(), &sol, t.elapsed().as_secs_f64());
        Ok(())
    });
}

fn main() {
    let words = common::CommandLine::new(include_str!("tsp.rs")).rest();
    let (mode, rest) = match words.split_first() {
        Some((mode, rest)) => (mode.as_str(), rest),
        None => ("quick", &words[..]),
    };
    let opts = parse(rest);
    // The size after `uniform` or `poisson`: the first word, else the default.
    let size = |default: usize, min: usize| match &opts.files[..] {
        [] => default,
        [n] => common::number(mode, n, min),
        [_, extra, ..] => common::unknown(extra),
    };
    match mode {
        "uniform" => {
            let n = size(10_000, 2);
            // Points, candidates and tours: about 200 bytes a point.
            common::check_memory(n as u128 * 200, format_args!("uniform {n}"));
            run_uniform(n, &opts)
        }
        "poisson" => {
            let m = size(100, 1);
            // Rows of 7 columns, their candidates and tours: about 400 bytes a row.
            common::check_memory((m as u128).pow(3) * 400, format_args!("poisson {m}"));
            run_poisson(m, &opts)
        }
        "rows" => run_rows(&opts),
        "tsplib" => run_tsplib(&opts),
        "quick" if opts.files.is_empty() => {
            run_uniform(10_000, &opts);
            run_poisson(40, &opts);
        }
        other => common::fail(format!(
            "unknown mode `{other}` (uniform, poisson, rows, tsplib; --help shows them)"
        )),
    }
}
