//! What the bench targets share: a strict reading of their command line, as the `spmv-reorder`
//! binary has it (`--help` prints the target's own documentation; an unknown word, a missing or
//! malformed value, an unreadable file or a size beyond memory is one line on stderr and exit
//! status 2, never a panic), and the folders of matrices they read.
//!
//! Each target includes this file (`mod common;`) and uses the part it needs.
#![allow(dead_code)]

use spmv_reorder_sparse::CsrMatrix;
use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The target's name for messages: its executable's, without the hash cargo appends.
fn target_name() -> String {
    let exe = std::env::args().next().unwrap_or_default();
    let file = Path::new(&exe)
        .file_name()
        .map_or(exe.clone(), |s| s.to_string_lossy().into_owned());
    match file.rsplit_once('-') {
        Some((name, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            name.to_string()
        }
        _ => file,
    }
}

/// Whether [`report`] printed an error: [`finish`] then exits with status 1.
static REPORTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Prints `message` as the target's error, on stderr, and goes on (a matrix or file left out of
/// the run); [`finish`] exits with status 1 after the rest is done.
pub fn report(message: impl Display) {
    REPORTED.store(true, std::sync::atomic::Ordering::Relaxed);
    eprintln!("{}: error: {message}", target_name());
}

/// Exits with status 1 when an error was [`report`]ed: the run finished without it.
pub fn finish() {
    if REPORTED.load(std::sync::atomic::Ordering::Relaxed) {
        std::process::exit(1);
    }
}

/// Prints `message` as the target's error and exits with status 2.
pub fn fail(message: impl Display) -> ! {
    report(message);
    std::process::exit(2)
}

/// The value of `result`, or [`fail`] with its error and the errors that caused it.
pub fn or_fail<T, E: std::error::Error>(result: Result<T, E>) -> T {
    result.unwrap_or_else(|e| {
        let mut message = e.to_string();
        let mut cause = e.source();
        while let Some(c) = cause {
            message += &format!(": {c}");
            cause = c.source();
        }
        fail(message)
    })
}

/// The target's documentation: the `//!` lines that open its `source` (`include_str!` of it).
pub fn usage(source: &str) -> String {
    source
        .lines()
        .map_while(|l| l.strip_prefix("//!"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The words after `cargo bench --bench NAME --`, taken one at a time.
pub struct CommandLine {
    words: std::vec::IntoIter<String>,
}

impl CommandLine {
    /// The arguments without `--bench`, which cargo passes to every target; `--help` or `-h`
    /// anywhere prints the documentation in `source` and exits.
    pub fn new(source: &str) -> Self {
        let words: Vec<String> = std::env::args()
            .skip(1)
            .filter(|w| w != "--bench")
            .collect();
        if words.iter().any(|w| w == "--help" || w == "-h") {
            println!("{}", usage(source));
            std::process::exit(0);
        }
        CommandLine {
            words: words.into_iter(),
        }
    }

    /// The words left, in order.
    pub fn rest(self) -> Vec<String> {
        self.words.collect()
    }

    /// The value after `flag`.
    pub fn value(&mut self, flag: &str) -> String {
        self.words
            .next()
            .unwrap_or_else(|| fail(format!("{flag} needs a value (--help lists the options)")))
    }

    /// The value after `flag`, a number of at least `min`.
    pub fn number<T>(&mut self, flag: &str, min: T) -> T
    where
        T: FromStr + PartialOrd + Display,
        T::Err: Display,
    {
        let text = self.value(flag);
        number(flag, &text, min)
    }
}

impl Iterator for CommandLine {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        self.words.next()
    }
}

/// `text`, the value of `what`, as a number of at least `min` (a NaN is not).
pub fn number<T>(what: &str, text: &str, min: T) -> T
where
    T: FromStr + PartialOrd + Display,
    T::Err: Display,
{
    match text.parse::<T>() {
        Ok(v) if v >= min => v,
        Ok(_) => fail(format!("{what} {text}: must be at least {min}")),
        Err(e) => fail(format!("{what} {text}: {e}")),
    }
}

/// `text`, the value of `what`, as a time above zero in seconds.
pub fn seconds(what: &str, text: &str) -> std::time::Duration {
    let s: f64 = number(what, text, 0.0);
    match std::time::Duration::try_from_secs_f64(s) {
        Ok(d) if !d.is_zero() => d,
        Ok(_) => fail(format!("{what} {text}: must be above zero")),
        Err(e) => fail(format!("{what} {text}: {e}")),
    }
}

/// An argument the target does not take.
pub fn unknown(word: &str) -> ! {
    fail(format!(
        "unexpected argument `{word}` (--help lists the options)"
    ))
}

/// Fails unless `bytes`, what `what` asks for, can be allocated now: checked before anything is
/// built, so that a size too large is refused rather than aborting in the allocator.
pub fn check_memory(bytes: u128, what: impl Display) {
    let fits = u64::try_from(bytes).is_ok_and(spmv_reorder_sparse::can_allocate);
    if !fits {
        fail(format!(
            "{what} needs about {:.1} GiB, more than this process can allocate",
            bytes as f64 / f64::from(1u32 << 30)
        ));
    }
}

/// The `.mtx` and `.mtx.gz` files of `dir`, sorted, those whose name holds `only` when given
/// (`chosen_matrix_files`, as `spmv-reorder evaluate --only` chooses them);
/// an unreadable folder, or one where none is selected, is an error.
pub fn matrix_files(dir: &Path, only: Option<&str>) -> Vec<PathBuf> {
    or_fail(spmv_reorder_evaluate::evaluate::chosen_matrix_files(
        dir, only,
    ))
}

/// The file name of `path`, for tables.
pub fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The matrix of `path` with real values, and whether the file stores it symmetric (so that its
/// pattern is known symmetric).
fn try_read_matrix(path: &Path) -> Result<(CsrMatrix<f64>, bool), spmv_reorder_mtx::MtxError> {
    let m = spmv_reorder_mtx::read_path(path, &spmv_reorder_mtx::ReadOptions::default())?;
    let symmetric = m.header.symmetry.is_triangular();
    Ok((m.matrix.to_real(), symmetric))
}

/// [`try_read_matrix`]; a file that does not read is an error naming it.
pub fn read_matrix(path: &Path) -> (CsrMatrix<f64>, bool) {
    or_fail(try_read_matrix(path))
}

/// [`try_read_matrix`]; a file that does not read is [`report`]ed and left out (`None`), as
/// `spmv-reorder evaluate` leaves out a matrix of its folder.
pub fn read_matrix_or_skip(path: &Path) -> Option<(CsrMatrix<f64>, bool)> {
    try_read_matrix(path)
        .map_err(|e| report(format!("skipping {e}")))
        .ok()
}

/// CPU time of the whole process so far, all threads (`CLOCK_PROCESS_CPUTIME_ID`): exact, where
/// `/proc/self/stat` counts clock ticks of 10 ms and a thread's `schedstat` is brought up to date
/// only when the scheduler next looks at it, both coarser than a small case's whole run.
pub fn process_cpu_time() -> std::time::Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    std::time::Duration::new(
        t.tv_sec.max(0) as u64,
        t.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}
