//! The `spmv-reorder` command: parses arguments, calls the library, maps errors to exit codes.
//! No algorithm lives here; see `src/cli/` for one module per subcommand.

mod cli;

use clap::error::ErrorKind;
use clap::Parser;
use std::process::ExitCode;

/// Large arrays (the matrix, `x`, `y`, the ordering's tables) on transparent huge pages where the
/// system grants them on request: the streams of SpMV in a good order cross no 4 KiB page
/// boundary, where the hardware prefetchers stop (docs/results.md, "SpMV kernels").
#[global_allocator]
static ALLOC: spmv_reorder::sparse::HugePageAlloc = spmv_reorder::sparse::HugePageAlloc;

fn main() -> ExitCode {
    remove_temporary_files_on_signals();
    if let Some(message) = cli::misplaced_subcommand(std::env::args_os()) {
        cli::messages::report("error", &message);
        return ExitCode::from(2);
    }
    let args = match cli::Cli::try_parse() {
        Ok(args) => args,
        Err(err) => return usage_error(&err),
    };
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // An option found wrong after parsing (`cli::usage_error`).
            if let Some(usage) = err.downcast_ref::<clap::Error>() {
                return usage_error(usage);
            }
            // A closed pipe (e.g. `| head`) is not a failure of ours.
            if closed_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            cli::messages::report("error", &format!("{err:#}"));
            ExitCode::from(1)
        }
    }
}

/// Whether `err` is a write to a pipe whose reader has gone: directly, or through the JSON
/// writer, which wraps the operating system's error in its own.
fn closed_pipe(err: &anyhow::Error) -> bool {
    use std::io::ErrorKind::BrokenPipe;
    err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == BrokenPipe)
            || c.downcast_ref::<serde_json::Error>()
                .is_some_and(|e| e.io_error_kind() == Some(BrokenPipe))
    })
}

/// Help and version go to stdout (exit 0); a bad command line gets clap's message, with the
/// options' values escaped, on stderr (exit 2).
fn usage_error(err: &clap::Error) -> ExitCode {
    use std::io::Write;
    let text = err.render().to_string();
    match err.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            // Nothing to do when stdout is closed (`--help | head`).
            let _ = write!(std::io::stdout().lock(), "{text}");
            ExitCode::SUCCESS
        }
        _ => {
            let _ = write!(
                std::io::stderr().lock(),
                "{}",
                cli::messages::printable(&text)
            );
            ExitCode::from(2)
        }
    }
}

/// On `SIGINT`, `SIGTERM` or `SIGHUP`: removes the temporary files of the outputs being written
/// (every output is left as it was before the run) and exits with `128 +` the signal's number, as
/// a shell reports a process the signal ended (130, 143, 129).
fn remove_temporary_files_on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = match signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
        Ok(signals) => signals,
        Err(e) => {
            cli::messages::report("warning", &format!("cannot handle signals: {e}"));
            return;
        }
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            spmv_reorder::mtx::remove_temporary_files();
            let what = match signal {
                SIGTERM => "terminated",
                SIGHUP => "hung up",
                _ => "interrupted",
            };
            cli::messages::report("error", &format!("{what}: no output was left half-written"));
            std::process::exit(128 + signal);
        }
    });
}
