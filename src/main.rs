//! The `spmv-reorder` command: parses arguments, calls the library, maps errors to exit codes.
//! No algorithm lives here; see `src/cli/` for one module per subcommand.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // A closed pipe (e.g. `| head`) is not a failure of ours.
            if err.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            eprintln!("spmv-reorder: error: {err:#}");
            ExitCode::from(1)
        }
    }
}
