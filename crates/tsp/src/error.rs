//! The error type of the crate: one `#[non_exhaustive]` enum whose variants carry data.

/// Everything that can go wrong when building candidate lists or solving.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TspError {
    /// A candidate list names a node outside `0..nodes`.
    #[error("candidate {neighbour} of node {node} is out of range (nodes: {nodes})")]
    NeighbourOutOfRange {
        /// The node whose list holds the bad entry.
        node: usize,
        /// The offending neighbour.
        neighbour: u64,
        /// Number of nodes.
        nodes: usize,
    },
    /// A node lists itself as a candidate.
    #[error("node {node} lists itself as a candidate")]
    SelfLoop {
        /// The node.
        node: usize,
    },
    /// The CSR offsets are not a non-decreasing sequence from 0 to the number of entries.
    #[error("candidate offsets are malformed at index {index}")]
    BadOffsets {
        /// First offending index into the offsets.
        index: usize,
    },
    /// `neighbours` and `costs` differ in length.
    #[error("{neighbours} neighbours but {costs} costs")]
    LengthMismatch {
        /// Number of neighbours.
        neighbours: usize,
        /// Number of costs.
        costs: usize,
    },
    /// A candidate cost is negative (the solver and the lower bound assume costs >= 0).
    #[error("negative cost {cost} on candidate edge ({a}, {b})")]
    NegativeCost {
        /// One end.
        a: usize,
        /// Other end.
        b: usize,
        /// The cost.
        cost: i64,
    },
    /// A candidate edge's listed cost differs from the oracle's cost (the oracle is authoritative).
    #[error("candidate edge ({a}, {b}) lists cost {listed} but the oracle gives {oracle}")]
    CostMismatch {
        /// One end.
        a: usize,
        /// Other end.
        b: usize,
        /// Cost in the candidate list.
        listed: i64,
        /// Cost from the oracle.
        oracle: i64,
    },
    /// The number of nodes does not fit the solver's `u32` node ids.
    #[error("{nodes} nodes are too many (at most {max})")]
    TooManyNodes {
        /// Requested number of nodes.
        nodes: usize,
        /// The maximum.
        max: usize,
    },
    /// An option is out of its domain.
    #[error("invalid option {name}: {reason}")]
    InvalidOption {
        /// Option name.
        name: &'static str,
        /// Why it is invalid.
        reason: &'static str,
    },
}
