//! Writes the `perf script` fixture of the integration tests (tests/data/traces/): a trace in the
//! exact text format of `perf script --ns -F tid,time,event,addr,weight`, for a run described by a
//! real `trace-kernel` layout, with samples produced by the simulator (this machine has no PEBS).
//!
//! ```text
//! spmv-reorder trace-kernel matrices/west0381.mtx.gz --threads 2 --emit-layout L.json
//! cargo run --release -p spmv-reorder-sampling --example perf_fixture -- \
//!     matrices/west0381.mtx.gz L.json tests/data/traces/west0381.perf.txt \
//!     tests/data/traces/west0381.layout.json
//! ```
//! Iteration 0 gets the cold samples of a one-iteration simulation, iteration 1 the warm ones;
//! the layout's iteration windows are set around them, as `trace-kernel` records them.

use spmv_reorder_sampling::{simulate, Access, Layout, SimOptions, TraceRecord};
use std::fmt::Write;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [matrix, layout_in, trace_out, layout_out] = &args[..] else {
        return Err("usage: perf_fixture MATRIX LAYOUT_IN TRACE_OUT LAYOUT_OUT".into());
    };
    let a = spmv_reorder_mtx::read_path(matrix, &Default::default())?
        .matrix
        .to_real();
    let mut layout = Layout::read(layout_in)?;
    layout.check_matrix(&a)?;
    let threads = layout.partition.len() - 1;
    let opts = |iterations| SimOptions {
        threads: Some(threads),
        kernel: layout.kernel,
        period: 3,
        iterations,
        seed: 11,
        ..SimOptions::default()
    };
    let (_, cold) = simulate(&a, &opts(1))?;
    let (_, warm) = simulate(&a, &opts(2))?;
    let start = 81_234_000_000_000u64; // CLOCK_MONOTONIC ns of the first iteration
    let span = 10_000_000u64;
    layout.iteration_times_ns = vec![(start, start + span), (start + span, start + 2 * span)];
    let mut text = String::new();
    let mut lines: Vec<(u64, String)> = Vec::new();
    for (it, records) in [&cold, &warm].into_iter().enumerate() {
        for r in records {
            lines.push(perf_line(&layout, r, start + it as u64 * span + r.time));
        }
    }
    lines.sort_by_key(|l| l.0); // perf script prints in time order
    for (_, l) in lines {
        writeln!(text, "{l}")?;
    }
    std::fs::write(trace_out, text)?;
    std::fs::write(layout_out, layout.to_json())?;
    Ok(())
}

/// One line as `perf script --ns -F tid,time,event,addr,weight` prints it.
fn perf_line(layout: &Layout, r: &TraceRecord, time_ns: u64) -> (u64, String) {
    let target = r.target.expect("simulated records are mapped");
    let region = layout.region(target.array).expect("same arrays");
    let addr = region.base + target.index * region.elem_size;
    let event = match r.access {
        Access::Load => "cpu/mem-loads,ldlat=30/P",
        Access::Store => "cpu/mem-stores/P",
    };
    let tid = 41_230 + r.thread;
    let (s, ns) = (time_ns / 1_000_000_000, time_ns % 1_000_000_000);
    let weight = if r.access == Access::Store {
        0
    } else {
        r.latency.unwrap_or(0)
    };
    let line = format!("{tid:>7} {s:>5}.{ns:09}: {event}: {addr:>16x} {weight:>15}");
    (time_ns, line)
}
