//! Benchmark `mtx_io`: Matrix Market read and write throughput (bytes of text per second).
//!
//! Without arguments it runs Criterion cases `read/<matrix>/<threads>` and
//! `write/<matrix>/<threads>` on a random matrix held in memory, for 1 thread and all threads.
//! With arguments it is the timing driver of `scripts/compare_fmm.py`:
//!
//! ```text
//! cargo bench --bench mtx_io -- gen OUT NROWS NNZ [SEED [FIELD]]   random general coordinate file
//!                                                              (FIELD: real (default), integer, pattern)
//! cargo bench --bench mtx_io -- read FILE THREADS REPS        time read_path (after an untimed one)
//! cargo bench --bench mtx_io -- write FILE OUT THREADS REPS   read FILE once, time write_path to OUT
//! ```
//! The timing modes print one line `mtx_io <op> threads=T best_s=... median_s=... bytes=...`.

use criterion::{BenchmarkId, Criterion, Throughput};
use spmv_reorder_mtx::{
    read_bytes, read_path, write, write_path, MatrixMarket, OutputPlan, ReadOptions, WriteOptions,
};
use spmv_reorder_sparse::{AnyCsr, CsrMatrix, Value};
use std::path::Path;
use std::time::Instant;

/// Large arrays on transparent huge pages, as the `spmv-reorder` binary has them.
#[global_allocator]
static ALLOC: spmv_reorder_sparse::HugePageAlloc = spmv_reorder_sparse::HugePageAlloc;

mod common;

fn main() {
    let all: Vec<String> = std::env::args().skip(1).collect();
    if all.iter().any(|a| a == "--help" || a == "-h") {
        println!("{}", common::usage(include_str!("mtx_io.rs")));
        return;
    }
    // Flags are cargo's (`--bench`) or Criterion's; the modes are plain words.
    let words: Vec<&str> = all
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with("--"))
        .collect();
    match words.as_slice() {
        ["gen", out, nrows, nnz, rest @ ..] => gen(out, nrows, nnz, rest),
        ["read", file, threads, reps] => {
            let opts = ReadOptions {
                threads: Some(common::number("threads", threads, 1)),
                ..Default::default()
            };
            let reps = common::number("reps", reps, 1);
            let read = || std::hint::black_box(common::or_fail(read_path(Path::new(file), &opts)));
            // Untimed, as the write mode reads before it times: the reads timed find the
            // process as a library user's finds it after a first read (its allocator holding
            // freed memory), the state fast_matrix_market is timed in by `compare_fmm.py`.
            drop(read());
            let times = repeat(reps, read);
            report("read", &opts.threads, &times, file_len(file));
        }
        ["write", file, out, threads, reps] => {
            let mut plan = OutputPlan::new();
            plan.input("FILE", Path::new(file));
            common::or_fail(plan.output("OUT", Path::new(out)));
            let opts = WriteOptions {
                threads: Some(common::number("threads", threads, 1)),
                ..Default::default()
            };
            let reps = common::number("reps", reps, 1);
            let m = common::or_fail(read_path(Path::new(file), &ReadOptions::default()));
            let times = repeat(reps, || {
                common::or_fail(write_path(Path::new(out), &m, &opts));
            });
            report("write", &opts.threads, &times, file_len(out));
        }
        [mode @ ("gen" | "read" | "write"), ..] => common::fail(format!(
            "{mode}: wrong number of arguments (--help shows each mode's)"
        )),
        _ => criterion_cases(),
    }
}

/// The `gen` mode: a random file of `nrows` rows and about `nnz` entries, `[SEED [FIELD]]`.
fn gen(out: &str, nrows: &str, nnz: &str, rest: &[&str]) {
    if rest.len() > 2 {
        common::fail("gen: OUT NROWS NNZ [SEED [FIELD]] (--help shows each mode's)");
    }
    let nrows: usize = common::number("nrows", nrows, 1);
    let nnz: usize = common::number("nnz", nnz, 0);
    if nrows > spmv_reorder_sparse::MAX_DIM {
        common::fail(format!(
            "nrows {nrows}: at most {}",
            spmv_reorder_sparse::MAX_DIM
        ));
    }
    let seed = rest.first().map_or(1, |s| common::number("seed", s, 0));
    let field = rest.get(1).copied().unwrap_or("real");
    if !["real", "integer", "pattern"].contains(&field) {
        common::fail(format!("field {field}: expected real, integer or pattern"));
    }
    // The triplets, the assembled matrix and its copy in another field: about 64 bytes an entry.
    common::check_memory(nnz as u128 * 64, format_args!("nnz {nnz}"));
    let real = random_matrix(nrows, nnz, seed);
    let m = match field {
        "integer" => with_matrix(real, |a| {
            AnyCsr::Integer(a.map_values(|v| (v.to_f64() * 2e6) as i64 - 1_000_000))
        }),
        "pattern" => with_matrix(real, |a| AnyCsr::Pattern(a.pattern())),
        _ => real,
    };
    common::or_fail(write_path(Path::new(out), &m, &WriteOptions::default()));
}

/// A random `n x n` real general matrix with about `nnz` entries (duplicates merged), values
/// uniform in `[0, 1)` (17-digit shortest forms, like real data).
fn random_matrix(n: usize, nnz: usize, seed: u64) -> MatrixMarket {
    let mut state = seed;
    let mut next = move || {
        // splitmix64
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let triplets: Vec<(usize, usize, f64)> = (0..nnz)
        .map(|_| {
            let (r, c) = (next() as usize % n, next() as usize % n);
            (r, c, (next() >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect();
    MatrixMarket::general(AnyCsr::Real(
        CsrMatrix::from_triplets(n, n, triplets).expect("triplets"),
    ))
}

/// `m` with its real matrix replaced by `f` of it (another field, same structure).
fn with_matrix(m: MatrixMarket, f: impl Fn(&CsrMatrix<f64>) -> AnyCsr) -> MatrixMarket {
    let AnyCsr::Real(a) = &m.matrix else {
        unreachable!("random_matrix is real")
    };
    MatrixMarket::general(f(a))
}

/// Times `f` `reps` times; what it returns is dropped after the clock stops (freeing a
/// matrix is not part of reading it, and `compare_fmm.py` times fast_matrix_market so).
fn repeat<R>(reps: usize, mut f: impl FnMut() -> R) -> Vec<f64> {
    let mut times: Vec<f64> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            let result = f();
            let elapsed = t.elapsed().as_secs_f64();
            drop(result);
            elapsed
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times
}

fn file_len(path: &str) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

fn report(op: &str, threads: &Option<usize>, sorted: &[f64], bytes: u64) {
    println!(
        "mtx_io {op} threads={} best_s={:.4} median_s={:.4} bytes={bytes} best_MBps={:.1}",
        threads.unwrap_or(0),
        sorted[0],
        sorted[sorted.len() / 2],
        bytes as f64 / sorted[0] / 1e6
    );
}

fn criterion_cases() {
    let mut c = Criterion::default().configure_from_args().sample_size(10);
    let m = random_matrix(100_000, 500_000, 7);
    let mut text = Vec::new();
    write(&mut text, &m, &WriteOptions::default()).expect("write");
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut group = c.benchmark_group("mtx_io");
    group.throughput(Throughput::Bytes(text.len() as u64));
    for threads in [1, all] {
        let ropts = ReadOptions {
            threads: Some(threads),
            ..Default::default()
        };
        group.bench_with_input(
            BenchmarkId::new("read/random_500k", threads),
            &ropts,
            |b, o| b.iter(|| read_bytes(&text, o).expect("read")),
        );
        let wopts = WriteOptions {
            threads: Some(threads),
            ..Default::default()
        };
        group.bench_with_input(
            BenchmarkId::new("write/random_500k", threads),
            &wopts,
            |b, o| {
                b.iter(|| {
                    let mut out = Vec::with_capacity(text.len());
                    write(&mut out, &m, o).expect("write");
                    out
                })
            },
        );
    }
    group.finish();
    c.final_summary();
}
