//! Candidate lists: for every node, a few cheap neighbours with their costs, sorted by cost (CSR layout).
//!
//! Cost: construction `O(E log K)` for `E` entries; lookups `O(1)`. Source: neighbour lists of
//! Johnson & McGeoch, "The TSP: a case study in local optimization" (1997), section 3.3; SPEC section 4
//! (only pairs with `a(g,h) > 0` are worth listing). Caller: [`crate::solve_path`], built by the pipeline.

use crate::TspError;

/// Per node, its candidate neighbours (`u32`) with costs (`i64`), sorted by ascending cost.
///
/// # Invariants (all checked by the constructors)
/// - `offsets` starts at 0, is non-decreasing and ends at the number of entries;
/// - every neighbour is `< len()` and differs from its node; no neighbour repeats within a list;
/// - costs are `>= 0`; each list is sorted by `(cost, neighbour)`.
///
/// The lists need not be symmetric (see [`CandidateLists::symmetrized`]) nor complete: pairs outside them
/// are priced by the [`crate::CostOracle`]. The lower bound ([`crate::lower_bound`]) assumes each list is a
/// prefix of its node's edges sorted by cost (the `K` cheapest).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CandidateLists {
    offsets: Vec<usize>,
    neighbours: Vec<u32>,
    costs: Vec<i64>,
}

impl CandidateLists {
    /// Builds from CSR arrays: node `i`'s entries are `offsets[i]..offsets[i + 1]`. Lists are sorted by
    /// cost and repeated neighbours dropped (the cheapest kept).
    ///
    /// # Errors
    /// [`TspError::BadOffsets`], [`TspError::LengthMismatch`], [`TspError::NeighbourOutOfRange`],
    /// [`TspError::SelfLoop`], [`TspError::NegativeCost`], [`TspError::TooManyNodes`].
    pub fn from_csr(
        offsets: Vec<usize>,
        neighbours: Vec<u32>,
        costs: Vec<i64>,
    ) -> Result<Self, TspError> {
        if neighbours.len() != costs.len() {
            return Err(TspError::LengthMismatch {
                neighbours: neighbours.len(),
                costs: costs.len(),
            });
        }
        check_offsets(&offsets, neighbours.len())?;
        let nodes = offsets.len() - 1;
        check_node_count(nodes)?;
        let mut out = Self::with_capacity(nodes, neighbours.len());
        // One list reused for every node: a `Vec` per node was a million allocations for the
        // window graph of a 1M-row matrix.
        let mut list = Vec::new();
        for node in 0..nodes {
            let range = offsets[node]..offsets[node + 1];
            list.clear();
            list.extend(
                neighbours[range.clone()]
                    .iter()
                    .copied()
                    .zip(costs[range].iter().copied()),
            );
            out.push_list(node, nodes, &mut list)?;
        }
        Ok(out)
    }

    /// Builds from one `Vec<(neighbour, cost)>` per node (any order; sorted and deduplicated here).
    ///
    /// # Errors
    /// [`TspError::NeighbourOutOfRange`], [`TspError::SelfLoop`], [`TspError::NegativeCost`],
    /// [`TspError::TooManyNodes`].
    pub fn from_lists(lists: Vec<Vec<(u32, i64)>>) -> Result<Self, TspError> {
        let nodes = lists.len();
        check_node_count(nodes)?;
        let mut out = Self::with_capacity(nodes, 0);
        for (node, mut list) in lists.into_iter().enumerate() {
            out.push_list(node, nodes, &mut list)?;
        }
        Ok(out)
    }

    /// No node yet, with room for `nodes` nodes and `entries` entries.
    fn with_capacity(nodes: usize, entries: usize) -> Self {
        let mut offsets = Vec::with_capacity(nodes + 1);
        offsets.push(0);
        Self {
            offsets,
            neighbours: Vec::with_capacity(entries),
            costs: Vec::with_capacity(entries),
        }
    }

    /// Appends the list of node `node` (the next one of `nodes`) out of `list`, whose entries are
    /// checked, sorted cheapest first (ties by neighbour) and deduplicated (the cheapest of a
    /// neighbour's entries is kept); `list` is left sorted.
    fn push_list(
        &mut self,
        node: usize,
        nodes: usize,
        list: &mut [(u32, i64)],
    ) -> Result<(), TspError> {
        for &(nb, cost) in list.iter() {
            check_entry(node, nb, cost, nodes)?;
        }
        list.sort_unstable_by_key(|&(nb, cost)| (cost, nb));
        let start = self.neighbours.len();
        for &(nb, cost) in list.iter() {
            if !self.neighbours[start..].contains(&nb) {
                self.neighbours.push(nb);
                self.costs.push(cost);
            }
        }
        self.offsets.push(self.neighbours.len());
        Ok(())
    }

    /// The union of every list with its reverse edges (`j` gains `i` whenever `i` lists `j`), so that the
    /// candidate graph is undirected. Lists may grow beyond their original length.
    pub fn symmetrized(&self) -> Self {
        let mut lists: Vec<Vec<(u32, i64)>> =
            (0..self.len()).map(|i| self.entries(i).collect()).collect();
        for i in 0..self.len() {
            for (j, cost) in self.entries(i) {
                lists[j as usize].push((i as u32, cost));
            }
        }
        Self::from_lists(lists).expect("entries of valid lists stay valid")
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// True when there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Total number of (directed) entries.
    pub fn num_entries(&self) -> usize {
        self.neighbours.len()
    }

    /// Node `i`'s neighbours, cheapest first.
    ///
    /// # Panics
    /// If `i >= len()`.
    pub fn neighbours(&self, i: usize) -> &[u32] {
        &self.neighbours[self.offsets[i]..self.offsets[i + 1]]
    }

    /// The costs matching [`CandidateLists::neighbours`].
    ///
    /// # Panics
    /// If `i >= len()`.
    pub fn costs(&self, i: usize) -> &[i64] {
        &self.costs[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Node `i`'s `(neighbour, cost)` pairs, cheapest first.
    ///
    /// # Panics
    /// If `i >= len()`.
    pub fn entries(&self, i: usize) -> impl Iterator<Item = (u32, i64)> + '_ {
        self.neighbours(i)
            .iter()
            .copied()
            .zip(self.costs(i).iter().copied())
    }
}

/// The largest node count: ids are `u32` and the solver adds one dummy node.
pub(crate) const MAX_NODES: usize = u32::MAX as usize - 1;

fn check_node_count(nodes: usize) -> Result<(), TspError> {
    if nodes > MAX_NODES {
        return Err(TspError::TooManyNodes {
            nodes,
            max: MAX_NODES,
        });
    }
    Ok(())
}

fn check_offsets(offsets: &[usize], entries: usize) -> Result<(), TspError> {
    if offsets.first() != Some(&0) {
        return Err(TspError::BadOffsets { index: 0 });
    }
    if let Some(index) = offsets.windows(2).position(|w| w[0] > w[1]) {
        return Err(TspError::BadOffsets { index: index + 1 });
    }
    if offsets[offsets.len() - 1] != entries {
        return Err(TspError::BadOffsets {
            index: offsets.len() - 1,
        });
    }
    Ok(())
}

fn check_entry(node: usize, nb: u32, cost: i64, nodes: usize) -> Result<(), TspError> {
    if nb as usize >= nodes {
        return Err(TspError::NeighbourOutOfRange {
            node,
            neighbour: u64::from(nb),
            nodes,
        });
    }
    if nb as usize == node {
        return Err(TspError::SelfLoop { node });
    }
    if cost < 0 {
        return Err(TspError::NegativeCost {
            a: node,
            b: nb as usize,
            cost,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_sorted_and_deduplicated() {
        let c =
            CandidateLists::from_lists(vec![vec![(2, 5), (1, 3), (2, 4)], vec![], vec![(0, 4)]])
                .unwrap();
        assert_eq!(c.neighbours(0), &[1, 2]);
        assert_eq!(c.costs(0), &[3, 4]);
        assert!(c.neighbours(1).is_empty());
        assert_eq!(c.len(), 3);
        // The same lists laid out flat give the same result.
        let flat =
            CandidateLists::from_csr(vec![0, 3, 3, 4], vec![2, 1, 2, 0], vec![5, 3, 4, 4]).unwrap();
        assert_eq!(flat, c);
        assert!(matches!(
            CandidateLists::from_csr(vec![0, 1, 2], vec![1, 1], vec![1, 2]),
            Err(TspError::SelfLoop { node: 1 })
        ));
    }

    #[test]
    fn invalid_input_is_an_error() {
        assert_eq!(
            CandidateLists::from_lists(vec![vec![(0, 1)]]),
            Err(TspError::SelfLoop { node: 0 })
        );
        assert!(matches!(
            CandidateLists::from_lists(vec![vec![(7, 1)], vec![]]),
            Err(TspError::NeighbourOutOfRange { .. })
        ));
        assert!(matches!(
            CandidateLists::from_lists(vec![vec![(1, -1)], vec![]]),
            Err(TspError::NegativeCost { .. })
        ));
        assert!(matches!(
            CandidateLists::from_csr(vec![0, 2, 1], vec![1, 0], vec![1, 1]),
            Err(TspError::BadOffsets { index: 2 })
        ));
        assert!(matches!(
            CandidateLists::from_csr(vec![1, 2], vec![1], vec![1]),
            Err(TspError::BadOffsets { index: 0 })
        ));
        assert!(matches!(
            CandidateLists::from_csr(vec![0, 1], vec![1], vec![]),
            Err(TspError::LengthMismatch { .. })
        ));
        assert!(CandidateLists::from_csr(vec![], vec![], vec![]).is_err());
    }

    #[test]
    fn symmetrized_adds_reverse_edges() {
        let c = CandidateLists::from_csr(vec![0, 1, 1, 2], vec![1, 0], vec![3, 2])
            .unwrap()
            .symmetrized();
        assert_eq!(c.neighbours(0), &[2, 1]);
        assert_eq!(c.neighbours(1), &[0]);
        assert_eq!(c.neighbours(2), &[0]);
    }
}
