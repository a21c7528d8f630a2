//! `spmv-reorder topology`: the machine (or an hwloc XML file) as hwloc sees it, and optionally
//! the CPUs a pinning policy would give each thread.

use super::{usage_error, values};
use anyhow::Context;
use spmv_reorder_spmv::{Pinning, Topology};
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `spmv-reorder topology`.
#[derive(Debug, clap::Args)]
pub struct TopologyArgs {
    /// Read the topology from an hwloc XML file (`lstopo --of xml`) instead of this machine.
    #[arg(long, value_name = "FILE")]
    xml: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Also show where a pinning policy puts each thread: none, compact, scatter or a CPU list
    /// (`0-2-1-3` or `0,2,1,3`).
    #[arg(long, value_name = "POLICY")]
    pin: Option<Pinning>,
    /// Threads for `--pin`, at most the PUs of the topology shown (default: every PU, or the
    /// length of a CPU list).
    #[arg(long, value_name = "T", requires = "pin", value_parser = values::any_threads)]
    threads: Option<usize>,
}

/// Runs `spmv-reorder topology`.
pub fn run(args: TopologyArgs) -> anyhow::Result<()> {
    let topology = match &args.xml {
        Some(path) => Topology::from_xml_file(path)?,
        None => Topology::this_system()?,
    };
    if let Some(threads) = args.threads {
        // The CPUs of the topology shown: those of the file, or those this process may use.
        let (max, cpus) = match &args.xml {
            Some(path) => (topology.pus.len(), format!("the PUs of {}", path.display())),
            None => (
                values::max_threads(),
                "the CPUs this process may use".into(),
            ),
        };
        values::check_threads(threads, max, &cpus)
            .map_err(|e| usage_error("topology", format!("--threads {threads}: {e}")))?;
    }
    let assignment = match &args.pin {
        Some(pinning) => {
            let pinning = pinning.clone();
            let threads = super::team::default_threads(args.threads, &pinning, &topology);
            let cpus = pinning
                .cpus_for(&topology, threads)
                .with_context(|| format!("pinning {threads} threads with {pinning}"))?;
            Some((pinning, cpus))
        }
        None => None,
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        let mut value = serde_json::to_value(&topology)?;
        if let Some((pinning, cpus)) = &assignment {
            value["pinning"] = serde_json::json!({ "policy": pinning.to_string(), "cpus": cpus });
        }
        serde_json::to_writer_pretty(&mut out, &value)?;
        writeln!(out)?;
        return Ok(());
    }
    write_text(&mut out, &topology)?;
    if let Some((pinning, cpus)) = assignment {
        writeln!(out, "pinning {pinning}:")?;
        for (t, cpu) in cpus.iter().enumerate() {
            match cpu {
                Some(c) => {
                    let node = topology
                        .numa_node_of_cpu(*c)
                        .map_or("?".into(), |n| n.to_string());
                    writeln!(out, "  thread {t} -> CPU {c} (NUMA node {node})")?;
                }
                None => writeln!(out, "  thread {t} -> not pinned")?,
            }
        }
    }
    Ok(())
}

fn write_text(out: &mut impl Write, t: &Topology) -> std::io::Result<()> {
    writeln!(out, "source: {}", t.source)?;
    writeln!(
        out,
        "{} package(s), {} NUMA node(s), {} core(s), {} PU(s)",
        t.packages.len(),
        t.numa_nodes.len(),
        t.cores.len(),
        t.pus.len()
    )?;
    for (i, p) in t.packages.iter().enumerate() {
        writeln!(out, "package {i}: CPUs {}", cpu_list(&p.cpus))?;
    }
    for n in &t.numa_nodes {
        let gib = n.memory_bytes as f64 / (1u64 << 30) as f64;
        writeln!(
            out,
            "NUMA node {}: {gib:.1} GiB, CPUs {}",
            n.os_index,
            cpu_list(&n.cpus)
        )?;
    }
    for c in &t.caches {
        writeln!(
            out,
            "L{} {:<7} {:>10}, line {} B, CPUs {}",
            c.level,
            c.kind,
            human_bytes(c.size_bytes),
            c.line_bytes,
            cpu_list(&c.cpus)
        )?;
    }
    writeln!(
        out,
        "{:>4} {:>5} {:>8} {:>5}",
        "CPU", "core", "package", "node"
    )?;
    for p in &t.pus {
        writeln!(
            out,
            "{:>4} {:>5} {:>8} {:>5}",
            p.os_index, p.core, p.package, p.numa_node
        )?;
    }
    Ok(())
}

fn cpu_list(cpus: &[usize]) -> String {
    cpus.iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

fn human_bytes(b: u64) -> String {
    match b {
        b if b >= 1 << 30 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 => format!("{} KiB", b >> 10),
        b => format!("{b} B"),
    }
}
