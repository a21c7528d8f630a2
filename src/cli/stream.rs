//! `spmv-reorder stream`: the STREAM triad with pinned threads and placed arrays.

use spmv_reorder_spmv::placement::Placement;
use spmv_reorder_spmv::stream::{triad, StreamConfig};
use spmv_reorder_spmv::{Par, Pinning, ThreadTeam, Topology};
use std::io::Write;

/// Arguments of `spmv-reorder stream`.
#[derive(Debug, clap::Args)]
pub struct StreamArgs {
    /// Threads (default: every PU, or the length of a CPU list).
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// Pinning: none, compact, scatter, or a CPU list (`0-2-1-3` or `0,2,1,3`).
    #[arg(long, value_name = "POLICY", default_value = "scatter")]
    pin: String,
    /// Placement of the arrays: first-touch, master, interleave or node:N.
    #[arg(long, value_name = "MODE", default_value = "first-touch")]
    place: String,
    /// Megabytes per array (three arrays).
    #[arg(long, value_name = "MB", default_value_t = 80)]
    array_mb: usize,
    /// Timed repetitions (the best is reported).
    #[arg(long, value_name = "R", default_value_t = 10)]
    reps: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `spmv-reorder stream`.
pub fn run(args: StreamArgs) -> anyhow::Result<()> {
    let topology = Topology::this_system()?;
    let pinning: Pinning = args.pin.parse()?;
    let placement: Placement = args.place.parse()?;
    let threads = super::bench::default_threads(args.threads, &pinning, &topology);
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
