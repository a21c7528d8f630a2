//! Command-line definitions: one module per subcommand, each with a clap `Args` struct and `run`.

use clap::{Parser, Subcommand};

pub mod apply;
pub mod bench;
pub mod evaluate;
pub mod gen;
pub mod info;
pub mod memory;
pub mod messages;
pub mod progress;
pub mod reorder;
pub mod sample;
pub mod stream;
pub mod summary;
pub mod team;
pub mod topology;
pub mod trace_kernel;
pub mod values;

/// Reorder a sparse matrix so that y = A·x runs faster (cache locality of x).
///
/// The plain form `spmv-reorder IN.mtx -o OUT.mtx` reorders a matrix; the subcommands apply a
/// permutation from elsewhere, describe, generate, sample and benchmark matrices. `-h` lists the
/// common options, `--help` all of them; docs/cli.md is the reference.
#[derive(Debug, Parser)]
#[command(name = "spmv-reorder", version, about, long_about = None)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
#[command(arg_required_else_help = true, after_help = EXAMPLES)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    reorder: reorder::ReorderArgs,
}

/// The examples closing `-h` and `--help`.
const EXAMPLES: &str = "\
Examples:
  spmv-reorder A.mtx -o B.mtx                  reorder A into B (the default method)
  spmv-reorder A.mtx -o B.mtx --bench          ... and time SpMV before and after
  spmv-reorder A.mtx --method rcm --perm-out p.txt --perm-base 0
                                               RCM's permutation, 0-based, no matrix written
  spmv-reorder apply A.mtx --perm p.txt --perm-base 0 -o B.mtx
                                               permute A by a permutation from elsewhere
  spmv-reorder info A.mtx                      size, bandwidth, symmetry and D of A";

#[derive(Debug, Subcommand)]
enum Command {
    /// Permute a matrix by a permutation made elsewhere (scipy, METIS, --perm-out).
    Apply(apply::ApplyArgs),
    /// Describe a Matrix Market file: size, nonzeros, bandwidth, symmetry, locality D.
    Info(info::InfoArgs),
    /// Generate a test matrix (Poisson grids, banded Gaussian, geometric, R-MAT).
    Gen(gen::GenArgs),
    /// Sample nonzeros (random or DAST from memory traces) and write the sampled pattern.
    Sample(sample::SampleArgs),
    /// Benchmark parallel CSR SpMV (optionally before/after a reordering).
    Bench(bench::BenchArgs),
    /// Print the machine topology seen through hwloc.
    Topology(topology::TopologyArgs),
    /// Measure STREAM triad bandwidth with the given threads and pinning.
    Stream(stream::StreamArgs),
    /// Compare every ordering method on a folder of matrices.
    Evaluate(evaluate::EvaluateArgs),
    /// Run the traced SpMV kernel (for recording memory traces with perf or valgrind).
    TraceKernel(trace_kernel::TraceKernelArgs),
}

/// Runs `job` on a pool of `threads` threads, or on the global pool (all cores) for `None`. The
/// libraries run on the pool they are called from: the binary is the one place that starts one.
pub(crate) fn on_threads<R: Send>(
    threads: Option<usize>,
    job: impl FnOnce() -> R + Send,
) -> anyhow::Result<R> {
    let Some(n) = threads else {
        return Ok(job());
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|e| anyhow::anyhow!("cannot start {n} threads: {e}"))?;
    Ok(pool.install(job))
}

/// A bad command line found after parsing (an option's value that clashes with another, or that
/// needs what the run loads): clap's error for `subcommand` (`""`: the reordering, which has
/// none), which `main` prints and ends with exit status 2, as for the errors clap finds itself.
pub(crate) fn usage_error(subcommand: &str, message: impl std::fmt::Display) -> anyhow::Error {
    use clap::CommandFactory;
    let mut cli = Cli::command();
    cli.build();
    let command = match subcommand {
        "" => &mut cli,
        name => cli
            .find_subcommand_mut(name)
            .expect("the name of a subcommand"),
    };
    anyhow::Error::new(command.error(clap::error::ErrorKind::ValueValidation, message))
}

/// The message for `spmv-reorder reorder FILE ...`, which reads as a subcommand that does not
/// exist (reordering is the plain form), when no file named `reorder` is there to be read.
pub fn misplaced_subcommand(args: impl Iterator<Item = std::ffi::OsString>) -> Option<String> {
    let args: Vec<std::ffi::OsString> = args.skip(1).collect();
    if args.first()? != "reorder" || std::path::Path::new("reorder").exists() {
        return None;
    }
    let rest: Vec<String> = args[1..]
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    Some(format!(
        "there is no `reorder` subcommand: reordering is what spmv-reorder does without one, so \
         type `spmv-reorder {}` (see `spmv-reorder -h`)",
        match rest.is_empty() {
            true => "IN.mtx -o OUT.mtx".to_string(),
            false => rest.join(" "),
        }
    ))
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Some(Command::Apply(a)) => apply::run(a),
        Some(Command::Info(a)) => info::run(a),
        Some(Command::Gen(a)) => gen::run(a),
        Some(Command::Sample(a)) => sample::run(a),
        Some(Command::Bench(a)) => bench::run(a),
        Some(Command::Topology(a)) => topology::run(a),
        Some(Command::Stream(a)) => stream::run(a),
        Some(Command::Evaluate(a)) => evaluate::run(a),
        Some(Command::TraceKernel(a)) => trace_kernel::run(a),
        None => reorder::run(cli.reorder),
    }
}
