//! `spmv-reorder stream`: the STREAM triad with pinned threads and placed arrays.

use spmv_reorder_spmv::stream::{triad, StreamConfig};
use spmv_reorder_spmv::{Par, ThreadTeam};
use std::io::Write;

/// Arguments of `spmv-reorder stream`.
#[derive(Debug, clap::Args)]
pub struct StreamArgs {
    #[command(flatten)]
    team: super::team::TeamArgs,
    /// Megabytes per array (three arrays), 1 to 1000000.
    #[arg(long, value_name = "MB", default_value_t = 80, value_parser = super::values::count(1, 1_000_000))]
    array_mb: usize,
    /// Timed repetitions (the best is reported), 1 to 1000.
    #[arg(long, value_name = "R", default_value_t = 10, value_parser = super::values::count(1, 1000))]
    reps: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `spmv-reorder stream`.
pub fn run(args: StreamArgs) -> anyhow::Result<()> {
    let super::team::Team {
        topology,
        pinning,
        placement,
        threads,
    } = args.team.resolve()?;
    super::memory::reserve(
        "the STREAM triad's three arrays",
        3 * args.array_mb as u64 * 1_000_000,
    )?;
    let team = ThreadTeam::new(&topology, threads, &pinning)?;
    let config = StreamConfig {
        elements: args.array_mb * 1_000_000 / 8,
        reps: args.reps,
    };
    let report = triad(&config, Par::Team(&team), &placement, &topology)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        let value = serde_json::json!({ "stream": report, "bindings": team.bindings(), "pinning": pinning.to_string() });
        serde_json::to_writer_pretty(&mut out, &value)?;
        writeln!(out)?;
        return Ok(());
    }
    super::bench::write_bindings(&mut out, &pinning, team.bindings())?;
    writeln!(
        out,
        "triad a = b + s*c: {} x {:.0} MB arrays, placement {}, best of {}: {:.3} ms = {:.2} GB/s (median {:.2} GB/s)",
        3,
        report.array_bytes as f64 / 1e6,
        report.placement,
        report.reps,
        report.best_s * 1e3,
        report.triad_gbytes_per_s,
        report.median_gbytes_per_s
    )?;
    writeln!(out, "counted 24 bytes per element (read b, c; write a); the write-allocate read of a is not counted")?;
    Ok(())
}
