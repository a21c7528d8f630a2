//! Which CPU each team thread is pinned to: a pure function of a [`Topology`].
//!
//! `compact` fills the machine in hwloc's depth-first order (neighbouring threads share caches);
//! `scatter` spreads consecutive threads across packages first, then NUMA nodes, then shared
//! caches, then cores, then SMT siblings (the thesis's recommendation for memory-bound codes,
//! section 2.6: "keep threads as far as possible from each other"); an explicit list names one
//! CPU (OS index) per thread, as the thesis's `8-12-10-14` (dashes or commas). `O(PUs · depth)`.
//! Called by [`crate::ThreadTeam::new`].

use serde::Serialize;
use std::collections::BTreeMap;
use std::str::FromStr;

use crate::{SpmvError, Topology};

/// A thread-pinning policy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pinning {
    /// Threads are not pinned; the OS scheduler places them.
    None,
    /// Consecutive threads on neighbouring PUs (depth-first order of the topology).
    Compact,
    /// Consecutive threads as far apart as possible: packages, NUMA nodes, caches, cores, PUs.
    Scatter,
    /// Thread `t` on CPU `list[t]` (OS indices).
    List(Vec<usize>),
}

impl std::fmt::Display for Pinning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Pinning::None => f.write_str("none"),
            Pinning::Compact => f.write_str("compact"),
            Pinning::Scatter => f.write_str("scatter"),
            Pinning::List(cpus) => {
                let names: Vec<String> = cpus.iter().map(usize::to_string).collect();
                f.write_str(&names.join("-"))
            }
        }
    }
}

impl FromStr for Pinning {
    type Err = SpmvError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" => Ok(Pinning::None),
            "compact" => Ok(Pinning::Compact),
            "scatter" | "spread" => Ok(Pinning::Scatter),
            list => list
                .split(['-', ','])
                .map(|c| c.trim().parse::<usize>())
                .collect::<Result<Vec<_>, _>>()
                .map(Pinning::List)
                .map_err(|_| SpmvError::Parse {
                    what: "pinning",
                    input: s.to_owned(),
                    expected: "none, compact, scatter or a CPU list such as 0-2-1-3 or 0,2,1,3",
                }),
        }
    }
}

impl Pinning {
    /// The CPU (OS index) for each of `threads` threads, `None` when unpinned.
    ///
    /// # Errors
    /// [`SpmvError::ZeroThreads`], [`SpmvError::TooManyThreads`] (more threads than PUs, in every
    /// mode), [`SpmvError::CpuListLength`] and [`SpmvError::NoSuchCpu`] for a CPU list.
    pub fn cpus_for(
        &self,
        topology: &Topology,
        threads: usize,
    ) -> Result<Vec<Option<usize>>, SpmvError> {
        check_thread_count(topology, threads)?;
        let order = match self {
            Pinning::None => return Ok(vec![None; threads]),
            Pinning::Compact => compact_order(topology),
            Pinning::Scatter => scatter_order(topology),
            Pinning::List(cpus) => {
                if cpus.len() != threads {
                    return Err(SpmvError::CpuListLength {
                        listed: cpus.len(),
                        threads,
                    });
                }
                if let Some(&cpu) = cpus.iter().find(|&&c| topology.pu(c).is_none()) {
                    return Err(SpmvError::NoSuchCpu {
                        cpu,
                        available: topology.cpu_os_indices(),
                    });
                }
                cpus.clone()
            }
        };
        Ok(order.into_iter().take(threads).map(Some).collect())
    }
}

/// Rejects 0 threads and more threads than PUs.
///
/// # Errors
/// [`SpmvError::ZeroThreads`], [`SpmvError::TooManyThreads`].
pub fn check_thread_count(topology: &Topology, threads: usize) -> Result<(), SpmvError> {
    if threads == 0 {
        return Err(SpmvError::ZeroThreads);
    }
    if threads > topology.pus.len() {
        return Err(SpmvError::TooManyThreads {
            requested: threads,
            available: topology.pus.len(),
        });
    }
    Ok(())
}

/// The hierarchy key of a PU, outermost level first: package, NUMA node, shared caches (L3, L2,
/// L1), core, PU.
fn hierarchy_key(topology: &Topology, cpu_pos: usize) -> Vec<usize> {
    let pu = &topology.pus[cpu_pos];
    let mut key = vec![pu.package, pu.numa_node];
    key.extend(&pu.caches);
    key.push(pu.core);
    key.push(pu.os_index);
    key
}

/// PUs in depth-first order of the hierarchy.
fn compact_order(topology: &Topology) -> Vec<usize> {
    let mut keyed: Vec<(Vec<usize>, usize)> = (0..topology.pus.len())
        .map(|i| (hierarchy_key(topology, i), topology.pus[i].os_index))
        .collect();
    keyed.sort();
    keyed.into_iter().map(|(_, cpu)| cpu).collect()
}

/// PUs ordered so that consecutive ones differ at the outermost level possible: group by the
/// first key component, order each group recursively, then deal the groups round-robin.
fn scatter_order(topology: &Topology) -> Vec<usize> {
    let keyed: Vec<(Vec<usize>, usize)> = (0..topology.pus.len())
        .map(|i| (hierarchy_key(topology, i), topology.pus[i].os_index))
        .collect();
    deal(keyed, 0)
}

fn deal(items: Vec<(Vec<usize>, usize)>, level: usize) -> Vec<usize> {
    if items.len() <= 1 || items.iter().all(|(k, _)| k.len() <= level) {
        return items.into_iter().map(|(_, cpu)| cpu).collect();
    }
    let mut groups: BTreeMap<usize, Vec<(Vec<usize>, usize)>> = BTreeMap::new();
    for item in items {
        groups
            .entry(item.0.get(level).copied().unwrap_or(0))
            .or_default()
            .push(item);
    }
    let mut orders: Vec<std::vec::IntoIter<usize>> = groups
        .into_values()
        .map(|g| deal(g, level + 1).into_iter())
        .collect();
    let mut out = Vec::new();
    loop {
        let before = out.len();
        out.extend(orders.iter_mut().filter_map(Iterator::next));
        if out.len() == before {
            return out;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_packages() -> Topology {
        // 2 packages x 1 NUMA node x 1 L3 x 2 L2 x 1 core x 2 PUs = 8 PUs, OS indices 0..8.
        Topology::from_synthetic("pack:2 numa:1 l3:1 l2:2 core:1 pu:2").unwrap()
    }

    #[test]
    fn parses_names_and_lists_with_dashes_or_commas() {
        assert_eq!("scatter".parse::<Pinning>().unwrap(), Pinning::Scatter);
        assert_eq!(
            "8-12-10-14".parse::<Pinning>().unwrap(),
            Pinning::List(vec![8, 12, 10, 14])
        );
        assert_eq!("0,1".parse::<Pinning>().unwrap(), Pinning::List(vec![0, 1]));
        assert!(matches!(
            "0-x".parse::<Pinning>(),
            Err(SpmvError::Parse { .. })
        ));
        assert_eq!(Pinning::List(vec![3, 1]).to_string(), "3-1");
    }

    #[test]
    fn compact_fills_a_core_then_a_cache_then_a_package() {
        let t = two_packages();
        let cpus = Pinning::Compact.cpus_for(&t, 8).unwrap();
        assert_eq!(cpus, (0..8).map(Some).collect::<Vec<_>>());
    }

    #[test]
    fn scatter_alternates_packages_then_caches_then_smt() {
        let t = two_packages();
        let cpus: Vec<usize> = Pinning::Scatter
            .cpus_for(&t, 8)
            .unwrap()
            .into_iter()
            .flatten()
            .collect();
        // Package 0 holds CPUs 0-3, package 1 holds 4-7; each L2/core holds a pair.
        assert_eq!(cpus, vec![0, 4, 2, 6, 1, 5, 3, 7]);
        let two: Vec<usize> = Pinning::Scatter
            .cpus_for(&t, 2)
            .unwrap()
            .into_iter()
            .flatten()
            .collect();
        let nodes: Vec<usize> = two
            .iter()
            .map(|&c| t.numa_node_of_cpu(c).unwrap())
            .collect();
        assert_eq!(nodes, vec![0, 1], "two threads go to two NUMA nodes");
    }

    #[test]
    fn bad_requests_are_errors() {
        let t = two_packages();
        assert_eq!(Pinning::None.cpus_for(&t, 0), Err(SpmvError::ZeroThreads));
        assert!(matches!(
            Pinning::Scatter.cpus_for(&t, 9),
            Err(SpmvError::TooManyThreads {
                requested: 9,
                available: 8
            })
        ));
        assert!(matches!(
            Pinning::List(vec![0, 99]).cpus_for(&t, 2),
            Err(SpmvError::NoSuchCpu { cpu: 99, .. })
        ));
        assert!(matches!(
            Pinning::List(vec![0, 1, 2]).cpus_for(&t, 2),
            Err(SpmvError::CpuListLength {
                listed: 3,
                threads: 2
            })
        ));
        assert_eq!(Pinning::None.cpus_for(&t, 3).unwrap(), vec![None; 3]);
    }
}
