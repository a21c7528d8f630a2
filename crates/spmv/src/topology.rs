//! The machine seen through hwloc: packages, NUMA nodes, cores, processing units and caches.
//!
//! [`Topology`] is a plain description (serialisable, printed by `spmv-reorder topology`) plus the
//! hwloc handle it came from, which binding threads and memory needs. It is built from the running
//! machine or loaded from an hwloc XML file (`lstopo --of xml`), so that pinning and placement can
//! be tested on layouts this machine lacks. `O(objects)` to build. Used by [`crate::Pinning`],
//! [`crate::ThreadTeam`] and [`crate::placement`].

use hwlocality::object::attributes::ObjectAttributes;
use hwlocality::object::types::{CacheType, ObjectType};
use hwlocality::object::TopologyObject;
use serde::Serialize;
use std::path::Path;
use std::sync::Arc;

use crate::SpmvError;

/// Where a [`Topology`] came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TopologySource {
    /// Discovered on the running machine.
    ThisSystem,
    /// Loaded from an hwloc XML file.
    Xml(String),
    /// Loaded from an hwloc XML string.
    XmlString,
    /// Built from an hwloc synthetic description such as `"pack:2 core:2 pu:1"`.
    Synthetic(String),
}

/// A processing unit (hardware thread), the unit threads are pinned to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pu {
    /// Operating-system index (what `taskset`, `sched_getcpu` and CPU lists use).
    pub os_index: usize,
    /// Index into [`Topology::packages`].
    pub package: usize,
    /// OS index of the NUMA node whose local memory this PU is closest to.
    pub numa_node: usize,
    /// Index into [`Topology::cores`].
    pub core: usize,
    /// Indices into [`Topology::caches`] of the data caches above this PU, outermost (L3) first.
    pub caches: Vec<usize>,
}

/// A package (socket).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Package {
    /// hwloc logical index.
    pub logical_index: usize,
    /// OS index, when the OS gives one.
    pub os_index: Option<usize>,
    /// OS indices of its PUs.
    pub cpus: Vec<usize>,
}

/// A NUMA node: a memory bank and the CPUs local to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NumaNode {
    /// OS index (what memory binding and `numactl` use).
    pub os_index: usize,
    /// Local memory in bytes (0 when unknown).
    pub memory_bytes: u64,
    /// OS indices of its local PUs.
    pub cpus: Vec<usize>,
}

/// A physical core.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Core {
    /// hwloc logical index.
    pub logical_index: usize,
    /// OS indices of its PUs (more than one with SMT).
    pub cpus: Vec<usize>,
}

/// A data or unified CPU cache.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cache {
    /// 1 for L1, 2 for L2, ...
    pub level: usize,
    /// `"data"` or `"unified"`.
    pub kind: &'static str,
    /// Size in bytes (0 when unknown).
    pub size_bytes: u64,
    /// Line size in bytes (0 when unknown).
    pub line_bytes: usize,
    /// OS indices of the PUs sharing it.
    pub cpus: Vec<usize>,
}

/// The machine's layout, as hwloc sees it.
///
/// # Invariants
/// Every PU appears once in `pus`, sorted by OS index; the indices in each [`Pu`] are valid for
/// this topology (built that way from hwloc's tree).
#[derive(Debug, Clone, Serialize)]
pub struct Topology {
    /// Where it came from.
    pub source: TopologySource,
    /// Packages, in hwloc logical order.
    pub packages: Vec<Package>,
    /// NUMA nodes, in hwloc logical order.
    pub numa_nodes: Vec<NumaNode>,
    /// Cores, in hwloc logical order.
    pub cores: Vec<Core>,
    /// Data and unified caches, by level then logical order.
    pub caches: Vec<Cache>,
    /// Processing units, by OS index.
    pub pus: Vec<Pu>,
    #[serde(skip)]
    hw: Arc<hwlocality::Topology>,
}

impl Topology {
    /// The topology of the running machine.
    ///
    /// # Errors
    /// [`SpmvError::Topology`] when hwloc cannot discover it.
    pub fn this_system() -> Result<Self, SpmvError> {
        let hw = hwlocality::Topology::new().map_err(|e| topo_err(None, e))?;
        Ok(Self::describe(hw, TopologySource::ThisSystem))
    }

    /// Loads an hwloc XML topology file (as written by `lstopo --of xml`).
    ///
    /// # Errors
    /// [`SpmvError::Topology`] naming the file when it cannot be read or parsed.
    pub fn from_xml_file(path: &Path) -> Result<Self, SpmvError> {
        // Read the file ourselves: hwlocality panics on a missing file instead of returning an error.
        let xml = std::fs::read_to_string(path).map_err(|e| topo_err(Some(path), e))?;
        let mut topology = Self::from_xml_str(&xml).map_err(|e| match e {
            SpmvError::Topology { message, .. } => topo_err(Some(path), message),
            other => other,
        })?;
        topology.source = TopologySource::Xml(path.display().to_string());
        Ok(topology)
    }

    /// Loads an hwloc XML topology from a string.
    ///
    /// # Errors
    /// [`SpmvError::Topology`] when it cannot be parsed.
    pub fn from_xml_str(xml: &str) -> Result<Self, SpmvError> {
        let hw = hwlocality::Topology::builder()
            .from_xml(xml)
            .map_err(|e| topo_err(None, e))?
            .build()
            .map_err(|e| topo_err(None, e))?;
        Ok(Self::describe(hw, TopologySource::XmlString))
    }

    /// Builds a topology from an hwloc synthetic description, e.g.
    /// `"pack:2 numa:1 l3:1 core:4 pu:2"`.
    ///
    /// # Errors
    /// [`SpmvError::Topology`] when hwloc rejects the description.
    pub fn from_synthetic(description: &str) -> Result<Self, SpmvError> {
        let hw = hwlocality::Topology::builder()
            .from_synthetic(description)
            .map_err(|e| topo_err(None, e))?
            .build()
            .map_err(|e| topo_err(None, e))?;
        Ok(Self::describe(
            hw,
            TopologySource::Synthetic(description.to_owned()),
        ))
    }

    /// The topology as hwloc XML (the format [`Topology::from_xml_file`] reads).
    ///
    /// # Errors
    /// [`SpmvError::Topology`] when hwloc cannot export it.
    pub fn to_xml(&self) -> Result<String, SpmvError> {
        let xml = self
            .hw
            .export_xml(hwlocality::topology::export::xml::XMLExportFlags::empty())
            .map_err(|e| topo_err(None, e))?;
        Ok(xml.as_str().to_owned())
    }

    /// True when this describes the running machine (so threads and memory can be bound with it).
    pub fn is_this_system(&self) -> bool {
        self.hw.is_this_system()
    }

    /// OS indices of the PUs.
    pub fn cpu_os_indices(&self) -> Vec<usize> {
        self.pus.iter().map(|p| p.os_index).collect()
    }

    /// OS indices of the NUMA nodes.
    pub fn numa_os_indices(&self) -> Vec<usize> {
        self.numa_nodes.iter().map(|n| n.os_index).collect()
    }

    /// The PU with this OS index.
    pub fn pu(&self, cpu: usize) -> Option<&Pu> {
        self.pus
            .binary_search_by_key(&cpu, |p| p.os_index)
            .ok()
            .map(|i| &self.pus[i])
    }

    /// The NUMA node (OS index) local to CPU `cpu`.
    pub fn numa_node_of_cpu(&self, cpu: usize) -> Option<usize> {
        self.pu(cpu).map(|p| p.numa_node)
    }

    /// Checks that NUMA node `node` (OS index) exists.
    ///
    /// # Errors
    /// [`SpmvError::NoSuchNumaNode`].
    pub fn check_numa_node(&self, node: usize) -> Result<(), SpmvError> {
        if self.numa_nodes.iter().any(|n| n.os_index == node) {
            Ok(())
        } else {
            Err(SpmvError::NoSuchNumaNode {
                node,
                available: self.numa_os_indices(),
            })
        }
    }

    /// The largest cache of the given level (bytes), e.g. the L3 size for sizing STREAM arrays.
    pub fn cache_size(&self, level: usize) -> Option<u64> {
        self.caches
            .iter()
            .filter(|c| c.level == level)
            .map(|c| c.size_bytes)
            .max()
    }

    /// The hwloc handle (for binding).
    pub(crate) fn hw(&self) -> &Arc<hwlocality::Topology> {
        &self.hw
    }

    fn describe(hw: hwlocality::Topology, source: TopologySource) -> Self {
        let objects = |ty| hw.objects_with_type(ty).collect::<Vec<_>>();
        let packages: Vec<Package> = objects(ObjectType::Package)
            .into_iter()
            .map(|o| Package {
                logical_index: o.logical_index(),
                os_index: o.os_index(),
                cpus: cpus_of(o),
            })
            .collect();
        let numa_nodes: Vec<NumaNode> = objects(ObjectType::NUMANode)
            .into_iter()
            .map(|o| NumaNode {
                os_index: o.os_index().unwrap_or(o.logical_index()),
                memory_bytes: o.total_memory(),
                cpus: cpus_of(o),
            })
            .collect();
        let cores: Vec<Core> = objects(ObjectType::Core)
            .into_iter()
            .map(|o| Core {
                logical_index: o.logical_index(),
                cpus: cpus_of(o),
            })
            .collect();
        let cache_types = [
            ObjectType::L5Cache,
            ObjectType::L4Cache,
            ObjectType::L3Cache,
            ObjectType::L2Cache,
            ObjectType::L1Cache,
        ];
        let caches: Vec<Cache> = cache_types
            .iter()
            .flat_map(|&ty| objects(ty))
            .filter_map(describe_cache)
            .collect();
        let mut pus: Vec<Pu> = objects(ObjectType::PU)
            .into_iter()
            .map(|o| {
                let cpu = o.os_index().unwrap_or(o.logical_index());
                let owner = |cpus: &[usize]| cpus.binary_search(&cpu).is_ok();
                Pu {
                    os_index: cpu,
                    package: packages.iter().position(|p| owner(&p.cpus)).unwrap_or(0),
                    numa_node: numa_nodes
                        .iter()
                        .find(|n| owner(&n.cpus))
                        .or(numa_nodes.first())
                        .map_or(0, |n| n.os_index),
                    core: cores.iter().position(|c| owner(&c.cpus)).unwrap_or(0),
                    caches: (0..caches.len())
                        .filter(|&i| owner(&caches[i].cpus))
                        .collect(),
                }
            })
            .collect();
        pus.sort_by_key(|p| p.os_index);
        Topology {
            source,
            packages,
            numa_nodes,
            cores,
            caches,
            pus,
            hw: Arc::new(hw),
        }
    }
}

fn describe_cache(o: &TopologyObject) -> Option<Cache> {
    let Some(ObjectAttributes::Cache(attr)) = o.attributes() else {
        return None;
    };
    let kind = match attr.cache_type() {
        CacheType::Data => "data",
        CacheType::Unified => "unified",
        _ => return None,
    };
    Some(Cache {
        level: attr.depth(),
        kind,
        size_bytes: attr.size().map_or(0, |s| s.get()),
        line_bytes: attr.line_size().map_or(0, |s| s.get()),
        cpus: cpus_of(o),
    })
}

fn cpus_of(o: &TopologyObject) -> Vec<usize> {
    o.cpuset()
        .map(|s| s.iter_set().map(usize::from).collect())
        .unwrap_or_default()
}

fn topo_err(path: Option<&Path>, e: impl std::fmt::Display) -> SpmvError {
    SpmvError::Topology {
        path: path.map(Path::to_path_buf),
        message: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_system_has_pus_cores_and_a_numa_node() {
        let t = Topology::this_system().unwrap();
        assert!(t.is_this_system());
        assert!(!t.pus.is_empty());
        assert!(!t.numa_nodes.is_empty());
        let cpu = t.pus[0].os_index;
        assert!(t.numa_node_of_cpu(cpu).is_some());
        assert!(t.cores.iter().map(|c| c.cpus.len()).sum::<usize>() >= t.cores.len());
    }

    #[test]
    fn synthetic_two_package_layout_round_trips_through_xml() {
        let t = Topology::from_synthetic("pack:2 numa:1 l3:1 l2:2 core:1 pu:2").unwrap();
        assert_eq!(t.packages.len(), 2);
        assert_eq!(t.numa_nodes.len(), 2);
        assert_eq!(t.pus.len(), 8);
        assert_eq!(t.numa_node_of_cpu(7), Some(1));
        let back = Topology::from_xml_str(&t.to_xml().unwrap()).unwrap();
        assert_eq!(back.pus, t.pus);
        assert!(!back.is_this_system());
    }

    #[test]
    fn missing_xml_file_is_an_error_naming_it() {
        let e = Topology::from_xml_file(Path::new("/nonexistent/topo.xml")).unwrap_err();
        assert!(
            matches!(e, SpmvError::Topology { path: Some(_), .. }),
            "{e}"
        );
        assert!(e.to_string().contains("/nonexistent/topo.xml"));
    }

    #[test]
    fn malformed_xml_is_an_error() {
        for bad in ["", "not xml", "<topology><object type=\"Machine\">"] {
            assert!(
                matches!(Topology::from_xml_str(bad), Err(SpmvError::Topology { .. })),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn unknown_numa_node_is_rejected() {
        let t = Topology::from_synthetic("pack:2 numa:1 core:1 pu:1").unwrap();
        assert!(t.check_numa_node(1).is_ok());
        assert!(matches!(
            t.check_numa_node(5),
            Err(SpmvError::NoSuchNumaNode { node: 5, .. })
        ));
    }
}
