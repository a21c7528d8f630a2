//! `spmv-reorder apply IN --perm P -o OUT`: a matrix permuted by a permutation made elsewhere
//! (scipy's `reverse_cuthill_mckee`, METIS's `.iperm`, an earlier `--perm-out`). In library
//! calls: `mtx::read_path`, `mtx::read_permutation_as`, `AnyCsr::permute`, `mtx::write_path`.

use super::progress::{Progress, Unit};
use super::summary::thousands;
use super::values;
use anyhow::Context;
use spmv_reorder::mtx::{
    self, IndexBase, MatrixMarket, OutputPlan, ParseError, PermutationFormat, ReadOptions,
    WriteOptions,
};
use spmv_reorder::sparse::Permutation;
use std::path::{Path, PathBuf};

/// Arguments of `spmv-reorder apply`.
#[derive(Debug, clap::Args)]
pub struct ApplyArgs {
    /// Input matrix (Matrix Market `.mtx`/`.mtx.gz`, scipy `.npz`, PETSc `.petsc`; `-`: Matrix Market on stdin).
    input: PathBuf,
    /// The row permutation: one index per line; `%` lines are comments.
    ///
    /// By default line i holds the original index of the row placed at position i (new -> old),
    /// 1-based, as `--perm-out` writes it; --perm-base and --inverse read the other conventions.
    /// For a square matrix it also orders the columns (P·A·Pᵀ) unless --col-perm is given.
    #[arg(long, value_name = "FILE")]
    perm: PathBuf,
    /// The column permutation, in the same convention (default: --perm for a square matrix,
    /// the columns as they are for a rectangular one).
    #[arg(long, value_name = "FILE")]
    col_perm: Option<PathBuf>,
    /// First index of the permutation files: 1 (spmv-reorder, MATLAB) or 0 (scipy, numpy, METIS).
    #[arg(long, value_name = "0|1", default_value = "1")]
    perm_base: IndexBase,
    /// Line i holds the new position of row i (old -> new, as METIS's .iperm).
    #[arg(long)]
    inverse: bool,
    /// Where to write the permuted matrix, in the format of its extension (`.mtx`, `.mtx.gz`,
    /// `.npz`, `.petsc`; `-`: Matrix Market on stdout).
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    /// Threads, from 1 to the CPUs this process may use (default: all of them).
    #[arg(long, value_name = "T", value_parser = values::threads)]
    threads: Option<usize>,
    /// No progress bars and no summary line.
    #[arg(short, long)]
    quiet: bool,
}

/// Runs `spmv-reorder apply`.
pub fn run(args: ApplyArgs) -> anyhow::Result<()> {
    let from_stdin = [Some(&args.input), Some(&args.perm), args.col_perm.as_ref()]
        .into_iter()
        .flatten()
        .filter(|p| p.as_os_str() == "-")
        .count();
    if from_stdin > 1 {
        return Err(super::usage_error(
            "apply",
            "standard input (-) can feed only one of the matrix, --perm and --col-perm",
        ));
    }
    let mut plan = OutputPlan::new();
    plan.input("input", &args.input).input("--perm", &args.perm);
    if let Some(q) = &args.col_perm {
        plan.input("--col-perm", q);
    }
    plan.output("-o", &args.output)?;
    let progress = Progress::new(args.quiet);
    progress.stage(format!("reading {}", args.input.display()), Unit::Bytes, 0);
    let opts = ReadOptions {
        threads: args.threads,
        footprint: Some(super::memory::KERNEL),
        ..ReadOptions::default()
    };
    let file =
        mtx::read_path_with_progress(&args.input, &opts, &|done, total| progress.set(done, total))?;
    let format = PermutationFormat {
        base: args.perm_base,
        old_to_new: args.inverse,
    };
    let rows = read_perm(&args.perm, file.nrows(), format, "rows")?;
    let square = file.nrows() == file.ncols();
    let cols = match &args.col_perm {
        Some(q) => read_perm(q, file.ncols(), format, "columns")?,
        None if square => rows.clone(),
        None => Permutation::identity(file.ncols()),
    };
    let symmetric = square && args.col_perm.is_none();
    let note = format!(
        " permuted by spmv-reorder {} apply: rows by {}{}",
        env!("CARGO_PKG_VERSION"),
        args.perm.display(),
        match (&args.col_perm, symmetric) {
            (Some(q), _) => format!(", columns by {}", q.display()),
            (None, true) => " (and the columns alike)".into(),
            (None, false) => String::new(),
        }
    );
    progress.stage("permuting the matrix", Unit::Count, rows.len() as u64);
    let permuted = permuted_file(&file, (&rows, &cols), note, &progress)?;
    progress.stage(format!("writing {}", args.output.display()), Unit::Count, 0);
    let write = WriteOptions {
        threads: args.threads,
        ..WriteOptions::default()
    };
    mtx::write_path_with_progress(&args.output, &permuted, &write, &|done, total| {
        progress.set(done, total)
    })?;
    progress.finish();
    if !args.quiet && args.output != Path::new("-") {
        println!(
            "{}: {} x {} permuted ({}), wrote {}",
            args.input.display(),
            thousands(file.nrows() as u64),
            thousands(file.ncols() as u64),
            match (symmetric, args.col_perm.is_some()) {
                (true, _) => "P·A·Pᵀ",
                (false, true) => "P·A·Qᵀ",
                (false, false) => "P·A, the columns as they are",
            },
            args.output.display()
        );
    }
    Ok(())
}

/// The permutation in `path` of `len` indices, in `format`; an index outside the format's range
/// hints at the other base.
pub(super) fn read_perm(
    path: &Path,
    len: usize,
    format: PermutationFormat,
    what: &str,
) -> anyhow::Result<Permutation> {
    let read = mtx::read_permutation_as(path, Some(len), format);
    let out_of_range = read
        .as_ref()
        .err()
        .and_then(|e| e.parse_error())
        // Only an index one past the range's end (`n` read 0-based, `0` read 1-based) says that
        // the file may count from the other base; any other is wrong in both.
        .is_some_and(|e| {
            matches!(e, ParseError::PermutationIndexOutOfRange { index, first, last }
                if (*first == 1 && *index == 0) || (*first == 0 && *index == *last + 1))
        });
    let context = || format!("the permutation of the {what}");
    if !out_of_range {
        return read.with_context(context);
    }
    let (base, other) = match format.base {
        IndexBase::One => (1, 0),
        IndexBase::Zero => (0, 1),
    };
    read.with_context(|| {
        format!(
            "{}, read {base}-based ({len} {what}); a {other}-based file needs --perm-base {other}",
            context()
        )
    })
}

/// `file`'s matrix as `P·A·Qᵀ` (`P = rows`, `Q = cols`) in its field, with `note` added to its
/// comments. Symmetric storage is kept when `rows` and `cols` are one permutation (which
/// preserves symmetry), general storage otherwise.
///
/// `progress`'s running stage counts the rows written.
///
/// # Errors
/// When the permutations' lengths do not match the matrix.
pub(super) fn permuted_file(
    file: &MatrixMarket,
    (rows, cols): (&Permutation, &Permutation),
    note: String,
    progress: &Progress,
) -> anyhow::Result<MatrixMarket> {
    let mut out = file.permuted_with_progress(rows, cols, &|k| progress.add(k as u64))?;
    out.comments.push(note);
    Ok(out)
}
