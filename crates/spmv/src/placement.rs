//! Memory placement of the arrays of `y = A·x`: which NUMA node each page of `values`, `col_idx`,
//! `row_ptr`, `x` and `y` lives on, and a report of where the pages really ended up.
//!
//! Linux places a page on the node of the thread that first writes it (first touch) unless a
//! memory policy says otherwise. [`Placement::FirstTouch`] therefore allocates each array
//! uninitialised and lets team thread `b % threads` write block `b`, the block it will multiply
//! (the thesis's "data allocated where the thread runs", section 2.6); [`Placement::Master`] is the
//! naive version where the caller writes everything; [`Placement::Interleave`] and
//! [`Placement::Node`] set an hwloc area policy before the caller writes. `O(len)` per array.
//! Called by [`crate::bench`](mod@crate::bench) and [`crate::stream`].

use hwlocality::memory::binding::{MemoryBindingFlags, MemoryBindingPolicy};
use hwlocality::memory::nodeset::NodeSet;
use serde::Serialize;
use spmv_reorder_sparse::CsrMatrix;
use std::collections::BTreeMap;
use std::mem::MaybeUninit;
use std::str::FromStr;

use crate::{Par, Partition, SpmvError, ThreadBinding, Topology};
use spmv_reorder_sparse::split_by_offsets;

/// Where the pages of an array go.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// Each block is first written by the thread that will use it.
    FirstTouch,
    /// The calling thread writes everything (the naive initialisation, for comparison).
    Master,
    /// Pages interleaved round-robin over every NUMA node.
    Interleave,
    /// Every page on this NUMA node (OS index).
    Node(usize),
}

impl std::fmt::Display for Placement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Placement::FirstTouch => f.write_str("first-touch"),
            Placement::Master => f.write_str("master"),
            Placement::Interleave => f.write_str("interleave"),
            Placement::Node(n) => write!(f, "node:{n}"),
        }
    }
}

impl FromStr for Placement {
    type Err = SpmvError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        let node = lower
            .strip_prefix("node:")
            .or_else(|| lower.strip_prefix("node="));
        match (lower.as_str(), node) {
            (_, Some(n)) => n.parse().map(Placement::Node).map_err(|_| parse_error(s)),
            ("first-touch" | "firsttouch" | "first" | "local", None) => Ok(Placement::FirstTouch),
            ("master" | "serial", None) => Ok(Placement::Master),
            ("interleave" | "interleaved", None) => Ok(Placement::Interleave),
            _ => Err(parse_error(s)),
        }
    }
}

fn parse_error(s: &str) -> SpmvError {
    SpmvError::Parse {
        what: "placement",
        input: s.to_owned(),
        expected: "first-touch, master, interleave or node:N",
    }
}

impl Placement {
    /// Checks the placement against a topology: the node exists, and policies that need the OS
    /// are only asked of the machine we run on.
    ///
    /// # Errors
    /// [`SpmvError::NoSuchNumaNode`], [`SpmvError::NotThisSystem`].
    pub fn check(&self, topology: &Topology) -> Result<(), SpmvError> {
        if let Placement::Node(node) = self {
            topology.check_numa_node(*node)?;
        }
        let needs_policy = matches!(self, Placement::Interleave | Placement::Node(_));
        if needs_policy && !topology.is_this_system() {
            return Err(SpmvError::NotThisSystem);
        }
        Ok(())
    }
}

/// Builds a `len`-element array whose element `i` is `value(i)`, placed as `placement` says;
/// `offsets` (`blocks + 1` of them, from 0 to `len`) are the blocks, block `b` owned by thread
/// `b % par.threads()`.
///
/// # Errors
/// Those of [`Placement::check`]; [`SpmvError::MemoryBindFailed`] when the OS refuses the policy.
///
/// # Panics
/// If `offsets` does not run from 0 to `len` (a caller bug).
pub fn fill_placed<T: Copy + Send>(
    what: &'static str,
    len: usize,
    offsets: &[usize],
    value: impl Fn(usize) -> T + Sync,
    par: Par<'_>,
    placement: &Placement,
    topology: &Topology,
) -> Result<Vec<T>, SpmvError> {
    assert_eq!(offsets.first(), Some(&0), "offsets start at 0");
    assert_eq!(offsets.last(), Some(&len), "offsets end at len");
    placement.check(topology)?;
    let mut out: Vec<T> = Vec::with_capacity(len);
    let spare = &mut out.spare_capacity_mut()[..len];
    bind_area(what, spare, placement, topology)?;
    let toucher = match placement {
        Placement::FirstTouch => par,
        _ => Par::Sequential,
    };
    let chunks = split_by_offsets(spare, offsets);
    let written: usize = toucher
        .for_each_block(chunks, |b, chunk: &mut [MaybeUninit<T>]| {
            let start = offsets[b];
            for (i, slot) in chunk.iter_mut().enumerate() {
                slot.write(value(start + i));
            }
            chunk.len()
        })
        .into_iter()
        .sum();
    assert_eq!(written, len, "every element is written once");
    // SAFETY: the chunks tile `spare[..len]` (split at `offsets`, which run from 0 to `len`), and
    // each was fully written above (`written == len`), so the first `len` elements are initialised.
    unsafe { out.set_len(len) };
    Ok(out)
}

/// Copies `a` into arrays placed for `partition`: block `b`'s rows of `row_ptr` and its nonzeros
/// of `values` and `col_idx` are first written by thread `b % par.threads()` (for first touch).
///
/// # Errors
/// As [`fill_placed`].
pub fn place_matrix(
    a: &CsrMatrix<f64>,
    partition: &Partition,
    par: Par<'_>,
    placement: &Placement,
    topology: &Topology,
) -> Result<CsrMatrix<f64>, SpmvError> {
    let mut row_offsets = partition.row_offsets();
    *row_offsets.last_mut().expect("blocks + 1 offsets") += 1;
    let nnz_offsets = partition.nnz_offsets();
    let row_ptr = fill_placed(
        "row_ptr",
        a.nrows() + 1,
        &row_offsets,
        |i| a.row_ptr()[i],
        par,
        placement,
        topology,
    )?;
    let col_idx = fill_placed(
        "col_idx",
        a.nnz(),
        &nnz_offsets,
        |k| a.col_idx()[k],
        par,
        placement,
        topology,
    )?;
    let values = fill_placed(
        "values",
        a.nnz(),
        &nnz_offsets,
        |k| a.values()[k],
        par,
        placement,
        topology,
    )?;
    Ok(CsrMatrix::new_unchecked(
        a.nrows(),
        a.ncols(),
        row_ptr,
        col_idx,
        values,
    ))
}

/// Block offsets for a vector of `len` elements split like the rows of `partition`
/// (proportionally, so exactly the row blocks for `x` of a square matrix and for `y`).
pub fn vector_offsets(partition: &Partition, len: usize) -> Vec<usize> {
    let rows = partition.row_offsets();
    let nrows = *rows.last().expect("blocks + 1 offsets");
    rows.iter()
        .map(|&r| {
            if nrows == 0 {
                len
            } else {
                (r as u128 * len as u128 / nrows as u128) as usize
            }
        })
        .enumerate()
        .map(|(b, o)| if b == 0 { 0 } else { o })
        .collect()
}

fn bind_area<T>(
    what: &'static str,
    area: &[MaybeUninit<T>],
    placement: &Placement,
    topology: &Topology,
) -> Result<(), SpmvError> {
    let nodes: Vec<usize> = match placement {
        Placement::Interleave => topology.numa_os_indices(),
        Placement::Node(n) => vec![*n],
        Placement::FirstTouch | Placement::Master => return Ok(()),
    };
    let policy = match placement {
        Placement::Interleave => MemoryBindingPolicy::Interleave,
        _ => MemoryBindingPolicy::Bind,
    };
    let mut set = NodeSet::new();
    for &n in &nodes {
        set.set(n);
    }
    topology
        .hw()
        .bind_memory_area(area, &set, policy, MemoryBindingFlags::empty())
        .map_err(|e| SpmvError::MemoryBindFailed {
            what,
            nodes,
            message: e.to_string(),
        })
}

/// Where the sampled pages of one block of an array are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockPages {
    /// Block index.
    pub block: usize,
    /// Team thread owning the block.
    pub thread: usize,
    /// NUMA node (OS index) the owner thread runs on, when known.
    pub thread_node: Option<usize>,
    /// Pages sampled.
    pub pages_sampled: usize,
    /// Sampled pages per NUMA node (OS index).
    pub pages_by_node: BTreeMap<usize, usize>,
    /// Sampled pages whose node the OS did not report (not yet touched, or query unsupported).
    pub unknown: usize,
}

/// Where the pages of one array are, block by block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PageReport {
    /// Array name (`values`, `col_idx`, `row_ptr`, `x`, `y`).
    pub array: String,
    /// Size in bytes.
    pub bytes: usize,
    /// Per-block page locations.
    pub blocks: Vec<BlockPages>,
    /// Share of sampled, located pages that sit on their owner thread's node (1 = all local).
    pub local_share: f64,
}

/// Pages sampled per block by [`page_report`].
pub const PAGES_PER_BLOCK: usize = 8;

/// Samples up to [`PAGES_PER_BLOCK`] pages of each block of `array` (blocks at `offsets`, owner
/// of block `b` is `bindings[b % bindings.len()]`) and asks the OS which NUMA node holds each
/// (hwloc's area memory location, `move_pages` on Linux).
///
/// # Panics
/// If `offsets` do not run from 0 to `array.len()` or `bindings` is empty (caller bugs).
pub fn page_report<T>(
    name: &str,
    array: &[T],
    offsets: &[usize],
    bindings: &[ThreadBinding],
    topology: &Topology,
) -> PageReport {
    assert_eq!(offsets.last(), Some(&array.len()));
    assert!(!bindings.is_empty());
    let elem = std::mem::size_of::<T>().max(1);
    let per_page = (4096 / elem).max(1);
    let blocks: Vec<BlockPages> = offsets
        .windows(2)
        .enumerate()
        .map(|(b, w)| {
            let owner = &bindings[b % bindings.len()];
            let block = &array[w[0]..w[1]];
            let pages = block.len().div_ceil(per_page);
            let samples = pages.min(PAGES_PER_BLOCK);
            let mut by_node = BTreeMap::new();
            let mut unknown = 0;
            for s in 0..samples {
                let at = (s * pages / samples.max(1)) * per_page;
                match node_of(&block[at..=at], topology) {
                    Some(n) => *by_node.entry(n).or_insert(0) += 1,
                    None => unknown += 1,
                }
            }
            BlockPages {
                block: b,
                thread: owner.thread,
                thread_node: owner.numa_node,
                pages_sampled: samples,
                pages_by_node: by_node,
                unknown,
            }
        })
        .collect();
    PageReport {
        array: name.to_owned(),
        bytes: std::mem::size_of_val(array),
        local_share: local_share(&blocks),
        blocks,
    }
}

/// Share of the located pages that sit on the NUMA node of their block's owner thread.
fn local_share(blocks: &[BlockPages]) -> f64 {
    let (local, located) = blocks.iter().fold((0, 0), |(l, t), b| {
        let here = b
            .thread_node
            .and_then(|n| b.pages_by_node.get(&n))
            .copied()
            .unwrap_or(0);
        (l + here, t + b.pages_by_node.values().sum::<usize>())
    });
    if located == 0 {
        0.0
    } else {
        local as f64 / located as f64
    }
}

fn node_of<T>(element: &[T], topology: &Topology) -> Option<usize> {
    if !topology.is_this_system() {
        return None;
    }
    let set: NodeSet = topology
        .hw()
        .area_memory_location(element, MemoryBindingFlags::empty())
        .ok()?;
    set.first_set().map(usize::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Kernel, Pinning, SpmvPlan, ThreadTeam};

    fn banded(n: usize) -> CsrMatrix<f64> {
        let t = (0..n).flat_map(|i| {
            [
                (i, i, 4.0),
                (i, (i + 1) % n, -1.0),
                (i, (i + n - 1) % n, -1.0),
            ]
        });
        CsrMatrix::from_triplets(n, n, t).unwrap()
    }

    #[test]
    fn placed_copies_equal_the_original_for_every_placement() {
        let topo = Topology::this_system().unwrap();
        let team = ThreadTeam::new(&topo, topo.pus.len().min(2), &Pinning::Compact).unwrap();
        let a = banded(20_000);
        let node = topo.numa_nodes[0].os_index;
        for placement in [
            Placement::FirstTouch,
            Placement::Master,
            Placement::Interleave,
            Placement::Node(node),
        ] {
            let plan = SpmvPlan::new(&a, Kernel::NnzBalanced, team.threads());
            let placed =
                place_matrix(&a, plan.partition(), Par::Team(&team), &placement, &topo).unwrap();
            assert_eq!(placed, a, "{placement}");
            let offsets = vector_offsets(plan.partition(), a.ncols());
            let x = fill_placed(
                "x",
                a.ncols(),
                &offsets,
                |i| i as f64,
                Par::Team(&team),
                &placement,
                &topo,
            )
            .unwrap();
            assert_eq!(x, (0..a.ncols()).map(|i| i as f64).collect::<Vec<_>>());
            let report = page_report(
                "values",
                placed.values(),
                &plan.partition().nnz_offsets(),
                team.bindings(),
                &topo,
            );
            let located: usize = report
                .blocks
                .iter()
                .flat_map(|b| b.pages_by_node.values())
                .sum();
            assert!(located > 0, "the OS reports page locations: {report:?}");
            assert!(report
                .blocks
                .iter()
                .all(|b| b.pages_by_node.keys().all(|&n| n == node)));
            // One NUMA node here: every located page is local to its owner.
            if topo.numa_nodes.len() == 1 {
                assert_eq!(report.local_share, 1.0);
            }
        }
    }

    #[test]
    fn bad_placements_are_errors() {
        let topo = Topology::this_system().unwrap();
        let e = fill_placed(
            "x",
            4,
            &[0, 4],
            |_| 0.0,
            Par::Sequential,
            &Placement::Node(77),
            &topo,
        )
        .unwrap_err();
        assert!(matches!(e, SpmvError::NoSuchNumaNode { node: 77, .. }));
        assert!(matches!(
            "node:x".parse::<Placement>(),
            Err(SpmvError::Parse {
                what: "placement",
                ..
            })
        ));
        assert_eq!("node:1".parse::<Placement>().unwrap(), Placement::Node(1));
        assert_eq!(
            "first-touch".parse::<Placement>().unwrap().to_string(),
            "first-touch"
        );
        // On a described two-node machine: node 1 exists, node 2 does not; policies need the OS.
        let two = Topology::from_synthetic("pack:2 numa:1 core:2 pu:1").unwrap();
        assert!(matches!(
            Placement::Node(2).check(&two),
            Err(SpmvError::NoSuchNumaNode { node: 2, .. })
        ));
        assert_eq!(
            Placement::Node(1).check(&two),
            Err(SpmvError::NotThisSystem)
        );
        assert_eq!(Placement::FirstTouch.check(&two), Ok(()));
    }

    #[test]
    fn local_share_counts_pages_on_the_owner_node() {
        // Two threads on nodes 0 and 1 (a described two-node machine): block 0 has 3 of 4 pages
        // local, block 1 has 2 of 2 local, plus one page whose node is unknown.
        let block = |b: usize, node: usize, pages: &[(usize, usize)], unknown| BlockPages {
            block: b,
            thread: b,
            thread_node: Some(node),
            pages_sampled: pages.iter().map(|p| p.1).sum::<usize>() + unknown,
            pages_by_node: pages.iter().copied().collect(),
            unknown,
        };
        let blocks = [block(0, 0, &[(0, 3), (1, 1)], 0), block(1, 1, &[(1, 2)], 1)];
        assert_eq!(local_share(&blocks), 5.0 / 6.0);
        assert_eq!(local_share(&[block(0, 0, &[], 2)]), 0.0);
    }

    #[test]
    fn vector_offsets_follow_row_blocks() {
        let a = banded(10);
        let p = Partition::new(a.row_ptr(), Kernel::StaticRows, 3);
        assert_eq!(vector_offsets(&p, 10), p.row_offsets());
        assert_eq!(vector_offsets(&p, 20), vec![0, 6, 12, 20]);
    }
}
