//! Benchmark `overlap_kernel`: the AVX-512 kernel that ranks a window's candidates in the window
//! graph's search (`spmv_reorder_sparse::overlap_kernel::rank`), alone, in nanoseconds a window.
//!
//! Input: the first `--windows` windows of `--rows` consecutive rows (1, the default, 2 or 3) of a
//! 3D 7-point Poisson grid of side `--n`, symmetrically shuffled (seed 1, so they are random grid
//! points), each with the lists of its columns (a column's list is the windows of its row's
//! entries: 7 inside the grid) padded to 8 as in a strided index, laid out one after the other so
//! that they stay in L2: the kernel's own cost, without the search's cache misses. One-row
//! windows (7 lists, 56 entries) take the kernel's four-register form, two-row windows (about 13
//! lists, 104 entries) its eight-register form, and three-row windows (about 20 lists, 160
//! entries) the same once their padding and own entries are left out. Prints the best of
//! `--rounds` rounds of `--reps` passes over the windows, and a checksum of the results (equal
//! checksums, equal rankings). On machines without AVX-512F the kernel declines and the bench
//! says so.
//!
//! ```text
//! cargo bench --bench overlap_kernel -- [--n 100] [--windows 2048] [--rows 1] [--reps 300]
//!     [--rounds 7]
//! ```

use spmv_reorder_gen::{poisson3d, shuffle_symmetric};
use spmv_reorder_sparse::overlap_kernel::{available, rank, OverlapLists, PADDING};
use std::ops::Range;
use std::time::Instant;

/// Large arrays on transparent huge pages, as the `spmv-reorder` binary has them.
#[global_allocator]
static ALLOC: spmv_reorder_sparse::HugePageAlloc = spmv_reorder_sparse::HugePageAlloc;

mod common;

/// Command-line settings.
struct Args {
    n: usize,
    windows: usize,
    rows: usize,
    reps: usize,
    rounds: usize,
}

fn parse_args() -> Args {
    let mut args = Args {
        n: 100,
        windows: 2048,
        rows: 1,
        reps: 300,
        rounds: 7,
    };
    let mut line = common::CommandLine::new(include_str!("overlap_kernel.rs"));
    while let Some(flag) = line.next() {
        match flag.as_str() {
            "--n" => args.n = line.number("--n", 1),
            "--windows" => args.windows = line.number("--windows", 1),
            "--rows" => args.rows = line.number("--rows", 1),
            "--reps" => args.reps = line.number("--reps", 1),
            "--rounds" => args.rounds = line.number("--rounds", 1),
            other => common::unknown(other),
        }
    }
    if !(1..=3).contains(&args.rows) {
        common::fail(format!("--rows {}: 1, 2 or 3", args.rows));
    }
    let rows = (args.n as u128).pow(3);
    if args.windows as u128 * args.rows as u128 > rows {
        common::fail(format!(
            "--windows {} of {} rows: more than the {rows} rows of the {}³ grid",
            args.windows, args.rows, args.n
        ));
    }
    // The grid and its shuffle: 7 nonzeros a row of 12 bytes, offsets, and a copy.
    common::check_memory(rows * 7 * 12 * 3, format_args!("--n {}", args.n));
    args
}

/// One window's inputs: its lists in the shared entries, its own entry and `n(g)`.
struct Window {
    spans: Vec<Range<usize>>,
    own: u32,
    n_g: u64,
}

fn main() {
    let args = parse_args();
    if !available() {
        println!("no AVX-512F on this machine: the kernel declines every window");
        return;
    }
    let (n, len_bits) = (args.n, 4);
    let grid = poisson3d(n, n, n).expect("grid dimensions");
    let (a, _) = shuffle_symmetric(&grid, 1).expect("square");
    let rows = args.rows;
    // Window `h`'s footprint: the sorted distinct columns of rows `rows·h ..`.
    let footprint = |h: usize| {
        let mut columns: Vec<u32> = (rows * h..(rows * h + rows).min(a.nrows()))
            .flat_map(|r| a.row(r).0.iter().copied())
            .collect();
        columns.sort_unstable();
        columns.dedup();
        columns
    };
    // Window `h`'s entry, `h << len_bits | n(h)`.
    let entry = |h: usize| (h as u32) << len_bits | footprint(h).len() as u32;
    let mut entries = Vec::new();
    let windows: Vec<Window> = (0..args.windows)
        .map(|g| {
            let columns = footprint(g);
            let spans = columns
                .iter()
                .map(|&c| {
                    // The pattern is symmetric: the windows holding column `c` are those of row
                    // `c`'s entries.
                    let mut list: Vec<u32> = a
                        .row(c as usize)
                        .0
                        .iter()
                        .map(|&r| entry(r as usize / rows))
                        .collect();
                    list.dedup();
                    list.resize(8, PADDING);
                    entries.extend(list);
                    entries.len() - 8..entries.len()
                })
                .collect();
            Window {
                spans,
                own: entry(g),
                n_g: columns.len() as u64,
            }
        })
        .collect();
    let ranked = |w: &Window| {
        let lists = OverlapLists {
            entries: &entries,
            spans: &w.spans,
            own: w.own,
            n_g: w.n_g,
            len_bits,
            // No window outside the lists is cheaper than these.
            bounds: [u64::MAX, u64::MAX],
            keep: 8,
        };
        rank(&lists).expect("the kernel takes windows of up to 3 rows of the grid")
    };
    // FNV-1a over every window's keys, cheapest costs and own overlap, once.
    let checksum = windows.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, w| {
        let r = ranked(w);
        r.keys
            .iter()
            .chain(&r.cheapest)
            .chain(&[u64::from(r.own_overlap)])
            .fold(h, |h, &v| (h ^ v).wrapping_mul(0x100_0000_01b3))
    });
    let mut best = f64::MAX;
    for _ in 0..args.rounds {
        let mut sink = 0u64;
        let start = Instant::now();
        for _ in 0..args.reps {
            for w in &windows {
                sink ^= ranked(w).keys[0];
            }
        }
        let per_window = start.elapsed().as_secs_f64() * 1e9 / (args.reps * windows.len()) as f64;
        std::hint::black_box(sink);
        best = best.min(per_window);
    }
    println!(
        "overlap kernel: {best:.1} ns a window (best of {} rounds of {} x {} windows of {rows} \
         row(s) of a shuffled {n}³ grid); checksum {checksum:016x}",
        args.rounds,
        args.reps,
        windows.len()
    );
}
