//! The thread-team options `bench` and `stream` share: threads, pinning and memory placement.

use spmv_reorder_spmv::placement::Placement;
use spmv_reorder_spmv::{Pinning, Topology};

/// `--threads`, `--pin` and `--place`.
#[derive(Debug, clap::Args)]
pub struct TeamArgs {
    /// Threads, from 1 to the CPUs this process may use (default: every PU, or the length of a
    /// CPU list).
    #[arg(long, value_name = "T", value_parser = super::values::threads)]
    pub threads: Option<usize>,
    /// Pinning: none, compact, scatter, or a CPU list (`0-2-1-3` or `0,2,1,3`).
    #[arg(long, value_name = "POLICY", default_value = "scatter")]
    pub pin: Pinning,
    /// Memory placement: first-touch, master, interleave or node:N.
    #[arg(long, value_name = "MODE", default_value = "first-touch")]
    pub place: Placement,
}

/// The validated team options on this machine's topology.
pub struct Team {
    /// This machine.
    pub topology: Topology,
    /// Where threads go.
    pub pinning: Pinning,
    /// Where memory goes.
    pub placement: Placement,
    /// Threads, defaulted from the pinning and topology.
    pub threads: usize,
}

impl TeamArgs {
    /// The options on this machine's topology.
    pub fn resolve(&self) -> anyhow::Result<Team> {
        let topology = Topology::this_system()?;
        let (pinning, placement) = (self.pin.clone(), self.place.clone());
        let threads = default_threads(self.threads, &pinning, &topology);
        Ok(Team {
            topology,
            pinning,
            placement,
            threads,
        })
    }
}

/// Threads when not given: the length of a CPU list, else every PU.
pub fn default_threads(threads: Option<usize>, pinning: &Pinning, topology: &Topology) -> usize {
    threads.unwrap_or(match pinning {
        Pinning::List(cpus) => cpus.len(),
        _ => topology.pus.len(),
    })
}
