//! Fuzzing of the Matrix Market reader and of the option parsers, for a stated time, under a
//! memory cap: mutated headers and bodies (bit flips, huge and negative numbers, control bytes,
//! repeated and cut lines, gzip) through every reader, and mutated command lines through the
//! CLI's parser and the library's specification parsers. Any panic is a crash; an abort (memory)
//! or a hang ends the run with a non-zero status.
//!
//! `FUZZ_SECONDS` (default 20) sets the time; `scripts/fuzz.sh SECONDS` runs it. The run starts
//! itself again under `prlimit --as` (`FUZZ_MEMORY_MB`, default 4096), so that an allocation
//! that follows a declared size instead of the input's bytes fails as it would on a smaller
//! machine. Prints the number of inputs run and crashes; a crash's input is saved under
//! `target/fuzz-crashes/`.

mod binary;
#[allow(dead_code, unused_imports)]
#[path = "../../src/cli/mod.rs"]
mod cli;

use clap::Parser;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use spmv_reorder::mtx::{self, ReadOptions};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The message of the last panic, for the crash report.
static LAST_PANIC: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());

/// The longest one input may take before the run counts as hung.
const HANG: Duration = Duration::from_secs(60);

fn main() -> ExitCode {
    if std::env::var_os("FUZZ_CAPPED").is_none() {
        return rerun_under_memory_cap();
    }
    let seconds: u64 = env_number("FUZZ_SECONDS", 20);
    let seed: u64 = env_number("FUZZ_SEED", 1);
    // Crashes are reported by `Fuzz::guard`, with their input and this message.
    std::panic::set_hook(Box::new(|info| {
        *LAST_PANIC.lock().unwrap() = info.to_string()
    }));
    let mut fuzz = Fuzz::new(seed);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    watchdog(fuzz.current.clone());
    while Instant::now() < deadline {
        fuzz.reader_input();
        fuzz.binary_input();
        fuzz.command_line();
    }
    println!(
        "fuzz: {} inputs in {seconds} s (seed {seed}): {} Matrix Market texts, {} binary \
         matrix files, {} permutation files, {} command lines; {} crashes",
        fuzz.texts + fuzz.binaries + fuzz.perms + fuzz.lines,
        fuzz.texts,
        fuzz.binaries,
        fuzz.perms,
        fuzz.lines,
        fuzz.crashes
    );
    if fuzz.crashes == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs this program again under `prlimit --as`, and returns its status.
fn rerun_under_memory_cap() -> ExitCode {
    let mb = env_number("FUZZ_MEMORY_MB", 4096);
    let exe = std::env::current_exe().expect("the test binary's path");
    let status = std::process::Command::new("prlimit")
        .arg(format!("--as={}", mb << 20))
        .arg("--")
        .arg(exe)
        .env("FUZZ_CAPPED", "1")
        .status();
    match status {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        Ok(s) => {
            eprintln!("fuzz: the capped run failed ({s}): an abort or a hang is a crash");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("fuzz: cannot run prlimit: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Ends the process when one input runs longer than [`HANG`], naming it.
fn watchdog(current: std::sync::Arc<std::sync::Mutex<(Instant, String)>>) {
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_secs(1));
        let (started, what) = current.lock().unwrap().clone();
        if started.elapsed() > HANG {
            eprintln!("fuzz: hang: {what}");
            std::process::exit(3);
        }
    });
}

struct Fuzz {
    rng: Xoshiro256PlusPlus,
    seeds: Vec<Vec<u8>>,
    perm_seeds: Vec<Vec<u8>>,
    binary_seeds: Vec<binary::Input>,
    texts: u64,
    binaries: u64,
    perms: u64,
    lines: u64,
    crashes: u64,
    current: std::sync::Arc<std::sync::Mutex<(Instant, String)>>,
}

impl Fuzz {
    fn new(seed: u64) -> Self {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut seeds = built_in_seeds();
        seeds.extend(files(&root.join("tests/data/invalid")));
        let small = mtx::read_path(&root.join("matrices/west0381.mtx.gz"), &Default::default())
            .expect("a bundled matrix");
        let mut text = Vec::new();
        mtx::write(&mut text, &small, &Default::default()).expect("written");
        seeds.push(text);
        Fuzz {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            seeds,
            perm_seeds: files(&root.join("tests/data/invalid_perm")),
            binary_seeds: binary::seeds(&[
                &root.join("tests/data/binary"),
                &root.join("tests/data/invalid_binary"),
            ]),
            texts: 0,
            binaries: 0,
            perms: 0,
            lines: 0,
            crashes: 0,
            current: std::sync::Arc::new(std::sync::Mutex::new((Instant::now(), String::new()))),
        }
    }

    /// Runs `job` on `input`; a panic is a crash, saved with its input.
    fn guard(&mut self, what: &str, input: &[u8], job: impl FnOnce()) {
        *self.current.lock().unwrap() = (Instant::now(), what.to_string());
        if std::panic::catch_unwind(AssertUnwindSafe(job)).is_err() {
            self.crashes += 1;
            let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-crashes");
            let _ = std::fs::create_dir_all(&dir);
            let path = dir.join(format!("{what}-{}", self.crashes));
            let _ = std::fs::write(&path, input);
            let message = LAST_PANIC.lock().unwrap().clone();
            eprintln!(
                "fuzz: crash in {what}: input saved to {}: {message}",
                path.display()
            );
        }
    }

    /// A mutated Matrix Market text through every reader; what reads must be a valid matrix.
    fn reader_input(&mut self) {
        let base = self.seeds[self.rng.random_range(0..self.seeds.len())].clone();
        let text = mutate(&mut self.rng, base);
        let threads = self.rng.random_range(1..=2);
        let chunk = [None, Some(1), Some(7), Some(64)][self.rng.random_range(0..4)];
        let gzip = self.rng.random_bool(0.1);
        self.texts += 1;
        self.guard("mtx", &text.clone(), move || {
            let opts = ReadOptions {
                threads: Some(threads),
                chunk_bytes: chunk,
                ..Default::default()
            };
            let in_memory_read = mtx::read_bytes(&text, &opts).is_ok();
            let streamed = if gzip {
                mtx::read(&gzipped(&text)[..], &opts)
            } else {
                mtx::read(&text[..], &opts)
            };
            assert_eq!(in_memory_read, streamed.is_ok(), "the readers agree");
            let occupied = mtx::read_occupied(&text[..], &opts);
            // The occupied part may fit where the whole matrix does not.
            let whole_too_large = streamed.as_ref().is_err_and(|e| {
                matches!(e.parse_error(), Some(mtx::ParseError::OutOfMemory { .. }))
            });
            if !whole_too_large {
                assert_eq!(
                    occupied.is_ok(),
                    streamed.is_ok(),
                    "the occupied reader agrees"
                );
            }
            if let (Ok(m), Ok(part)) = (streamed, occupied) {
                // Small matrices only: the checks copy the matrix, which the reader did not need.
                if m.nrows() <= 1 << 16 && m.ncols() <= 1 << 16 {
                    let a = m.matrix.pattern();
                    assert_eq!(a.nnz(), m.nnz());
                    // Patterns, not values: NaN is not equal to itself.
                    let of = mtx::Occupied::of(&m).expect("small");
                    assert_eq!(of.occupancy, part.occupancy, "the same occupancy");
                    assert_eq!(of.file.matrix.pattern(), part.file.matrix.pattern());
                    check_info(&m, &part);
                    let mut out = Vec::new();
                    mtx::write(&mut out, &m, &Default::default()).expect("written back");
                    let back = mtx::read_bytes(&out, &ReadOptions::default()).expect("read back");
                    assert_eq!(back.matrix.pattern(), a, "the pattern round-trips");
                }
            }
        });
        let base = self.perm_seeds[self.rng.random_range(0..self.perm_seeds.len())].clone();
        let perm = mutate(&mut self.rng, base);
        self.perms += 1;
        self.guard("perm", &perm.clone(), move || {
            if let Ok(p) = mtx::read_permutation_from(&perm[..]) {
                let mut seen = vec![false; p.len()];
                for &old in p.new_to_old() {
                    assert!(!std::mem::replace(&mut seen[old], true), "a permutation");
                }
            }
        });
    }

    /// A mutated `.npz` or PETSc file through its reader; what reads must be a valid matrix.
    fn binary_input(&mut self) {
        let seed = self.binary_seeds[self.rng.random_range(0..self.binary_seeds.len())].clone();
        let (format, bytes) = binary::mutate(&mut self.rng, seed, mutate);
        let threads = self.rng.random_range(1..=2);
        self.binaries += 1;
        self.guard(&format.to_string(), &bytes.clone(), move || {
            let opts = ReadOptions {
                threads: Some(threads),
                chunk_bytes: None,
                ..Default::default()
            };
            let len = bytes.len() as u64;
            if let Ok(m) = mtx::read_binary(std::io::Cursor::new(bytes), len, format, &opts) {
                if m.nrows() <= 1 << 16 && m.ncols() <= 1 << 16 {
                    assert_eq!(m.matrix.pattern().nnz(), m.nnz());
                    check_info(&m, &mtx::Occupied::of(&m).expect("small"));
                }
            }
        });
    }

    /// A mutated command line through the CLI's parser, and its option values through the
    /// library's parsers the subcommands call at run time.
    fn command_line(&mut self) {
        let base = COMMAND_LINES[self.rng.random_range(0..COMMAND_LINES.len())];
        let mut args: Vec<String> = base.split(' ').map(str::to_string).collect();
        for _ in 0..self.rng.random_range(1..=3) {
            mutate_argument(&mut self.rng, &mut args);
        }
        self.lines += 1;
        let joined = args.join("\u{1f}");
        self.guard("options", joined.as_bytes(), move || {
            let _ = cli::Cli::try_parse_from(
                std::iter::once("spmv-reorder".to_string()).chain(args.iter().cloned()),
            );
            for a in &args {
                let _ = a.parse::<spmv_reorder::sampling::SamplerSpec>();
                let _ = a.parse::<spmv_reorder::reorder::WindowSpec>();
                let _ = a.parse::<spmv_reorder::reorder::RunBlocks>();
                let _ = a.parse::<spmv_reorder::spmv::Pinning>();
                let _ = a.parse::<spmv_reorder::spmv::placement::Placement>();
                let _ = a.parse::<spmv_reorder::spmv::Kernel>();
                let base = spmv_reorder::reorder::Reorderer::new();
                let _ = spmv_reorder::evaluate::evaluate::Candidate::parse(a, &base);
            }
        });
    }
}

/// `info` of `m` and of its occupied part agree, with and without windows.
fn check_info(m: &mtx::MatrixMarket, part: &mtx::Occupied) {
    use spmv_reorder::evaluate::MatrixInfo;
    use spmv_reorder::reorder::WindowSpec;
    for window in [None, Some(WindowSpec::Fixed(3))] {
        let whole = MatrixInfo::compute(m, window).expect("info");
        assert_eq!(
            MatrixInfo::compute_occupied(part, window).expect("info"),
            whole
        );
    }
}

/// Command lines of every subcommand, valid as they are.
const COMMAND_LINES: &[&str] = &[
    "in.mtx -o out.mtx --method tsp --sampler random:0.02 --window var --time-limit 3",
    "in.mtx -o out.mtx.gz --permute both --perm-out p.txt --report r.json --spy a.png,b.png",
    "in.mtx --threads 2 --kicks 10 --neighbours 8 --hub-limit 256 --length-runs auto",
    "in.mtx --sampler dast-sim:period=100,threshold=20,threads=2,l1=32K:8 --window latency:avg",
    "in.mtx --sampler trace:lackey=t.txt,layout=l.json,iteration=all --length-change-cost 2",
    "info in.mtx --window 16 --json",
    "gen banded --n 1000 --bandwidth 50 --scale 2 --mu 50 --sigma 0.8 --nnz 5000 -o x.mtx",
    "gen rmat --scale 10 --edge-factor 8 --abc 0.57,0.19,0.19 --shuffle 3",
    "gen poisson3d --nx 10 --ny 5 --nz 4 -o -",
    "sample in.mtx --sampler dast-sim:threads=2,kernel=per-row -o s.mtx --seed 3 --threads 1",
    "bench in.mtx --kernel merge-path --reps 5 --warmup 1 --stream-mb 8 --pin 0,1 --place node:0",
    "bench in.mtx --perm p.txt --reorder-seconds 1.5 --threads 2 --pin compact",
    "stream --array-mb 8 --reps 3 --threads 1 --pin none --place interleave",
    "topology --pin scatter --threads 2 --json",
    "evaluate m --ordering rcm --ordering tsp start=given runs=0 --threads 1,2 --reps 3",
    "evaluate m --shuffle 2 --only bcs --time-limit 1 --markdown r.md --chart c.svg",
    "trace-kernel in.mtx --emit-layout l.json --iterations 3 --kernel per-row --threads 1",
];

/// Values that have broken parsers elsewhere: limits, signs, floats where integers go, text.
const NASTY: &[&str] = &[
    "0",
    "-1",
    "1e300",
    "-1e300",
    "inf",
    "NaN",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "9223372036854775807",
    "100000",
    "0.0",
    "1e-320",
    "",
    " ",
    ",",
    ":",
    "=",
    "%",
    "\u{1b}]0;x\u{7}",
    "\0",
    "é",
    "random:",
    "dast-sim:threads=100000",
    "latency:0",
    "0,0",
    "1-",
    "node:99999",
];

fn mutate_argument(rng: &mut Xoshiro256PlusPlus, args: &mut Vec<String>) {
    if args.is_empty() {
        args.push(NASTY[rng.random_range(0..NASTY.len())].to_string());
        return;
    }
    let i = rng.random_range(0..args.len());
    match rng.random_range(0..6) {
        0 => args[i] = NASTY[rng.random_range(0..NASTY.len())].to_string(),
        1 => {
            args.remove(i);
        }
        2 => {
            let dup = args[i].clone();
            args.insert(i, dup);
        }
        3 => {
            // A number inside a value changed: `random:0.02` -> `random:1e300`.
            let nasty = NASTY[rng.random_range(0..NASTY.len())];
            let v = &args[i];
            if let Some(pos) = v.find(|c: char| c.is_ascii_digit()) {
                let end = v[pos..]
                    .find(|c: char| !c.is_ascii_digit() && c != '.')
                    .map_or(v.len(), |e| pos + e);
                args[i] = format!("{}{nasty}{}", &v[..pos], &v[end..]);
            }
        }
        4 => {
            let j = rng.random_range(0..args.len());
            args.swap(i, j);
        }
        _ => {
            let mut bytes = args[i].clone().into_bytes();
            if !bytes.is_empty() {
                let k = rng.random_range(0..bytes.len());
                bytes[k] = rng.random_range(0x20..0x7f);
            }
            args[i] = String::from_utf8_lossy(&bytes).into_owned();
        }
    }
}

/// Small texts of every format, field and symmetry.
fn built_in_seeds() -> Vec<Vec<u8>> {
    [
        "%%MatrixMarket matrix coordinate real general\n% c\n3 4 4\n1 1 1.5\n2 4 -2e3\n3 2 inf\n1 1 1\n",
        "%%MatrixMarket matrix coordinate integer symmetric\n3 3 3\n1 1 4\n3 1 -1\n3 3 2\n",
        "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 -9223372036854775807\n",
        "%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 1 0\n2 1 0.5 -0.5\n",
        "%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 1\n2 3\n1 3\n",
        "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
        "%%MatrixMarket matrix array complex symmetric\n2 2\n1 0\n2 1\n3 3\n",
        "%%MatrixMarket matrix coordinate real general\n67108864 67108864 2\n1 1 1\n67108864 3 1\n",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect()
}

fn files(dir: &Path) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| std::fs::read(e.ok()?.path()).ok())
                .collect()
        })
        .unwrap_or_default();
    if v.is_empty() {
        v.push(b"% p\n2\n1\n3\n".to_vec());
    }
    v
}

/// One to four random changes to `bytes`.
fn mutate(rng: &mut Xoshiro256PlusPlus, mut bytes: Vec<u8>) -> Vec<u8> {
    for _ in 0..rng.random_range(1..=4) {
        let len = bytes.len();
        let at = rng.random_range(0..=len);
        match rng.random_range(0..9) {
            0 if len > 0 => bytes[at.min(len - 1)] ^= 1 << rng.random_range(0..8),
            1 => {
                let token = NASTY[rng.random_range(0..NASTY.len())].as_bytes();
                bytes.splice(at..at, token.iter().copied());
            }
            2 if len > 0 => {
                let end = rng.random_range(at..=len.min(at + 64));
                bytes.drain(at..end);
            }
            3 => bytes.truncate(at),
            4 => {
                // A line repeated: duplicates, or more entries than announced.
                let line = line_at(&bytes, at);
                for _ in 0..rng.random_range(1..50) {
                    bytes.extend_from_slice(&line);
                }
            }
            5 => {
                // A number replaced by a huge or negative one.
                if let Some(p) = bytes[at.min(len)..].iter().position(u8::is_ascii_digit) {
                    let p = at + p;
                    let end = bytes[p..]
                        .iter()
                        .position(|b| !b.is_ascii_digit())
                        .map_or(len, |e| p + e);
                    let nasty = NASTY[rng.random_range(0..11)].as_bytes();
                    bytes.splice(p..end, nasty.iter().copied());
                }
            }
            6 => bytes.insert(
                at,
                [b'\n', b'\r', b'\t', b' ', b'%', 0, 0xff][rng.random_range(0..7)],
            ),
            7 => {
                let run =
                    vec![[b'%', b'\n', b'9'][rng.random_range(0..3)]; rng.random_range(1..5000)];
                bytes.splice(at..at, run);
            }
            _ => {
                let junk: Vec<u8> = (0..rng.random_range(1..16)).map(|_| rng.random()).collect();
                bytes.splice(at..at, junk);
            }
        }
    }
    bytes
}

/// The line holding byte `at`, with its line break.
fn line_at(bytes: &[u8], at: usize) -> Vec<u8> {
    let at = at.min(bytes.len());
    let start = bytes[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let end = bytes[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| at + i + 1);
    bytes[start..end].to_vec()
}

fn gzipped(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).expect("in memory");
    e.finish().expect("in memory")
}
