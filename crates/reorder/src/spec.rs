//! The choices a reordering is made of, each parsed from the spelling the CLI and reports use:
//! [`WindowSpec`] (`1`, `N`, `var`, `latency[:avg|CYCLES][,zeros]`, `cache[:BYTES]`), [`Method`],
//! [`StartOrder`],
//! [`PermuteMode`] and [`RunBlocks`] (`0`, `B`, `auto`).

use crate::{ReorderError, Tuning};
use spmv_reorder_peers::RcmStart;
use std::fmt;
use std::str::FromStr;

/// How rows are grouped into windows of locality (SPEC section 3). Serialised as its spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowSpec {
    /// `N` consecutive rows per window (`1` = one row per window: plain row distances).
    Fixed(usize),
    /// Rows `i` and `i+1` share a window when `d(i,i+1) < D/n` (thesis 4.2).
    Variable,
    /// Row `j` joins row `j-1`'s window when its maximum sampled latency is at most the threshold
    /// (thesis 4.5). Needs a sampler that records latencies.
    Latency {
        /// `None`: the average sampled latency; `Some(c)`: `c` cycles.
        cycles: Option<u32>,
        /// Rows without a sample join the previous window instead of starting a new one.
        zeros: bool,
    },
    /// Windows sized to a cache: parts of the row graph (METIS) whose `x` footprint, `8` bytes
    /// per distinct column, fits `bytes` (`None`: [`DEFAULT_CACHE_WINDOW_BYTES`]; the command line
    /// passes its machine's L2). The path then orders the parts; rows keep RCM's order inside.
    Cache {
        /// The footprint budget in bytes.
        bytes: Option<usize>,
    },
}

/// The footprint budget of [`WindowSpec::Cache`] when none is given: 1 MiB, an L2 cache of one
/// core (the cache model's L2).
pub const DEFAULT_CACHE_WINDOW_BYTES: usize = 1 << 20;

/// Bytes in `text`: a whole number with an optional `K`, `KiB`, `M` or `MiB` suffix (powers of
/// 1024), at least 64 (one cache line).
fn parse_bytes(text: &str) -> Option<usize> {
    let t = text.trim().to_ascii_lowercase();
    let (digits, unit) = match t.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => t.split_at(i),
        None => (t.as_str(), ""),
    };
    let unit = match unit {
        "" | "b" => 1usize,
        "k" | "kib" | "kb" => 1 << 10,
        "m" | "mib" | "mb" => 1 << 20,
        _ => return None,
    };
    digits
        .parse::<usize>()
        .ok()?
        .checked_mul(unit)
        .filter(|&b| b >= 64)
}

impl FromStr for WindowSpec {
    type Err = ReorderError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = |why: &'static str| ReorderError::InvalidSpec {
            what: "window",
            value: s.to_string(),
            expected: why,
        };
        const EXPECTED: &str =
            "1, a window size N >= 1, var, latency[:avg|CYCLES][,zeros] or cache[:BYTES]";
        let t = s.trim().to_ascii_lowercase();
        if t == "var" || t == "variable" {
            return Ok(WindowSpec::Variable);
        }
        if let Some(rest) = t.strip_prefix("cache") {
            return match rest.strip_prefix(':') {
                None if rest.is_empty() => Ok(WindowSpec::Cache { bytes: None }),
                Some(b) => parse_bytes(b)
                    .map(|bytes| WindowSpec::Cache { bytes: Some(bytes) })
                    .ok_or_else(|| bad("cache:BYTES, at least 64, with an optional K or M suffix")),
                None => Err(bad(EXPECTED)),
            };
        }
        if let Some(rest) = t.strip_prefix("latency") {
            let (threshold, flags) = match rest.split_once(',') {
                Some((a, b)) => (a, Some(b)),
                None => (rest, None),
            };
            let zeros = match flags {
                None => false,
                Some("zeros") => true,
                Some(_) => return Err(bad(EXPECTED)),
            };
            let cycles = match threshold.strip_prefix(':') {
                None if threshold.is_empty() => None,
                Some("avg") | Some("average") => None,
                Some(c) => Some(c.parse::<u32>().map_err(|_| bad(EXPECTED))?),
                None => return Err(bad(EXPECTED)),
            };
            return Ok(WindowSpec::Latency { cycles, zeros });
        }
        match t.parse::<usize>() {
            Ok(0) => Err(bad("a window size of at least 1")),
            Ok(w) => Ok(WindowSpec::Fixed(w)),
            Err(_) => Err(bad(EXPECTED)),
        }
    }
}

impl fmt::Display for WindowSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WindowSpec::Fixed(w) => write!(f, "{w}"),
            WindowSpec::Variable => f.write_str("var"),
            WindowSpec::Latency { cycles, zeros } => {
                f.write_str("latency")?;
                match cycles {
                    Some(c) => write!(f, ":{c}")?,
                    None => f.write_str(":avg")?,
                }
                if *zeros {
                    f.write_str(",zeros")?;
                }
                Ok(())
            }
            WindowSpec::Cache { bytes: None } => f.write_str("cache"),
            WindowSpec::Cache { bytes: Some(b) } => write!(f, "cache:{b}"),
        }
    }
}

impl serde::Serialize for WindowSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Which ordering algorithm produces the permutation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// The default: the best order for its cost. Reverse Cuthill-McKee's order or the order as
    /// read, whichever the cache model prices lower, then length runs (see the `auto` module).
    Auto,
    /// Windows of locality ordered by a Lin-Kernighan TSP path (this project's method).
    Tsp,
    /// Reverse Cuthill-McKee.
    Rcm,
    /// Gorder-style greedy (window 5).
    Gorder,
    /// Rows sorted by nonzero count.
    Degree,
    /// METIS k-way partition order: parts of [`Reorderer::part_rows`](crate::Reorderer::part_rows)
    /// rows, numbered part by part.
    Gp,
    /// METIS nested dissection.
    Nd,
    /// The original order.
    Identity,
    /// A seeded random order (destroys locality; a baseline).
    Random,
}

impl Method {
    /// Every method, in the order reports list them.
    pub const ALL: [Method; 9] = [
        Method::Auto,
        Method::Identity,
        Method::Random,
        Method::Rcm,
        Method::Gorder,
        Method::Degree,
        Method::Gp,
        Method::Nd,
        Method::Tsp,
    ];

    /// The CLI spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Auto => "auto",
            Method::Tsp => "tsp",
            Method::Rcm => "rcm",
            Method::Gorder => "gorder",
            Method::Degree => "degree",
            Method::Gp => "gp",
            Method::Nd => "nd",
            Method::Identity => "identity",
            Method::Random => "random",
        }
    }
}

impl FromStr for Method {
    type Err = ReorderError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim().to_ascii_lowercase();
        Method::ALL
            .into_iter()
            .find(|m| m.as_str() == t)
            .ok_or_else(|| ReorderError::InvalidSpec {
                what: "method",
                value: s.to_string(),
                expected: "one of auto, tsp, rcm, gorder, degree, gp, nd, identity, random",
            })
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where the TSP path starts: the order Lin-Kernighan improves, and the order windows are cut in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StartOrder {
    /// Greedy matching over the window graph's candidate edges, ignoring the order as read.
    Greedy,
    /// The order as read (what the thesis does: its matrices came in a meaningful order).
    Given,
    /// Reverse Cuthill-McKee of the full pattern: rows are first put in RCM order, windows are cut
    /// in that order, and the path starts there, so the TSP refines a bandwidth-reducing order
    /// instead of building one from pair distances alone.
    Rcm,
    /// The parts of windows sized to a cache ([`WindowSpec::Cache`]), rows in RCM order inside
    /// each: the start of every path over such windows.
    Parts,
}

impl FromStr for StartOrder {
    type Err = ReorderError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "greedy" => Ok(StartOrder::Greedy),
            "given" | "identity" => Ok(StartOrder::Given),
            "rcm" => Ok(StartOrder::Rcm),
            "parts" => Ok(StartOrder::Parts),
            _ => Err(ReorderError::InvalidSpec {
                what: "start",
                value: s.to_string(),
                expected: "one of greedy, given, rcm, parts (with cache windows)",
            }),
        }
    }
}

impl fmt::Display for StartOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StartOrder::Greedy => "greedy",
            StartOrder::Given => "given",
            StartOrder::Rcm => "rcm",
            StartOrder::Parts => "parts",
        })
    }
}

/// RCM's start in each component ([`crate::Reorderer::rcm_start`]), spelled `peripheral`
/// ([`RcmStart::PseudoPeripheral`]) or `min-degree` ([`RcmStart::MinimumDegree`], scipy's).
///
/// # Errors
/// [`ReorderError::InvalidSpec`] for any other spelling.
pub fn parse_rcm_start(s: &str) -> Result<RcmStart, ReorderError> {
    match s.trim().to_ascii_lowercase().as_str() {
        "peripheral" => Ok(RcmStart::PseudoPeripheral),
        "min-degree" => Ok(RcmStart::MinimumDegree),
        _ => Err(ReorderError::InvalidSpec {
            what: "RCM start",
            value: s.to_string(),
            expected: "peripheral or min-degree",
        }),
    }
}

/// The spelling [`parse_rcm_start`] reads back.
pub fn rcm_start_name(start: RcmStart) -> &'static str {
    match start {
        RcmStart::MinimumDegree => "min-degree",
        RcmStart::PseudoPeripheral => "peripheral",
        // `RcmStart` may grow: a start this crate has no spelling for.
        _ => "unnamed",
    }
}

/// Which consecutive rows the length runs sort by their number of nonzeros after ordering
/// ([`crate::Reorderer::length_runs`], [`crate::length_runs`]). Spelled `0` (off), `B` (blocks of
/// `B` rows) or `auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunBlocks {
    /// No runs: the rows stay where the ordering put them.
    Off,
    /// Blocks of this many consecutive rows (0 and 1 mean off).
    Fixed(usize),
    /// All rows when the matrix has at most [`Tuning::sort_all_max_columns`] columns, so that
    /// `x` (in `f64`) stays in any current core's L2 whatever the order; else blocks of
    /// [`Tuning::run_block`], which keep the `x` locality the ordering made.
    Auto,
}

impl RunBlocks {
    /// The rows per block for a matrix of `nrows` x `ncols`, `None` when off.
    pub fn block(self, nrows: usize, ncols: usize, tuning: &Tuning) -> Option<usize> {
        match self {
            RunBlocks::Off => None,
            RunBlocks::Fixed(block) => (block > 1).then_some(block),
            RunBlocks::Auto if ncols <= tuning.sort_all_max_columns => Some(nrows.max(2)),
            RunBlocks::Auto => Some(tuning.run_block),
        }
    }
}

impl FromStr for RunBlocks {
    type Err = ReorderError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("auto") {
            return Ok(RunBlocks::Auto);
        }
        match s.parse::<usize>() {
            Ok(0 | 1) => Ok(RunBlocks::Off),
            Ok(block) => Ok(RunBlocks::Fixed(block)),
            Err(_) => Err(ReorderError::InvalidSpec {
                what: "length runs",
                value: s.to_string(),
                expected: "auto, or rows per block (0: off)",
            }),
        }
    }
}

impl fmt::Display for RunBlocks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunBlocks::Off => f.write_str("0"),
            RunBlocks::Fixed(block) => write!(f, "{block}"),
            RunBlocks::Auto => f.write_str("auto"),
        }
    }
}

/// Which sides of the matrix are permuted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PermuteMode {
    /// `P·A·Pᵀ` (square matrices; keeps symmetry, what solvers need).
    Symmetric,
    /// `P·A`: rows only.
    Rows,
    /// `A·Qᵀ`: columns only (ordered from `Aᵀ`).
    Cols,
    /// `P·A·Qᵀ` with independent orders (rows from `A`, columns from `Aᵀ`).
    Both,
}

impl FromStr for PermuteMode {
    type Err = ReorderError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "symmetric" | "sym" => Ok(PermuteMode::Symmetric),
            "rows" => Ok(PermuteMode::Rows),
            "cols" | "columns" => Ok(PermuteMode::Cols),
            "both" => Ok(PermuteMode::Both),
            _ => Err(ReorderError::InvalidSpec {
                what: "permute",
                value: s.to_string(),
                expected: "one of symmetric, rows, cols, both",
            }),
        }
    }
}

impl fmt::Display for PermuteMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PermuteMode::Symmetric => "symmetric",
            PermuteMode::Rows => "rows",
            PermuteMode::Cols => "cols",
            PermuteMode::Both => "both",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_specs_round_trip() {
        for s in [
            "1",
            "8",
            "var",
            "latency:avg",
            "latency:7",
            "latency:avg,zeros",
            "latency:300,zeros",
        ] {
            let w: WindowSpec = s.parse().unwrap();
            assert_eq!(w.to_string(), s);
        }
        assert_eq!(
            "latency".parse::<WindowSpec>().unwrap(),
            WindowSpec::Latency {
                cycles: None,
                zeros: false
            }
        );
        assert_eq!(
            "latency,zeros".parse::<WindowSpec>().unwrap(),
            WindowSpec::Latency {
                cycles: None,
                zeros: true
            }
        );
    }

    #[test]
    fn bad_window_specs() {
        for s in [
            "0",
            "",
            "-3",
            "latency:x",
            "latency:7,ones",
            "latencyx",
            "variable2",
        ] {
            let e = s.parse::<WindowSpec>().unwrap_err();
            assert!(
                matches!(e, ReorderError::InvalidSpec { what: "window", .. }),
                "{s}: {e}"
            );
        }
    }

    #[test]
    fn methods_and_modes() {
        for m in Method::ALL {
            assert_eq!(m.as_str().parse::<Method>().unwrap(), m);
        }
        assert!("metis".parse::<Method>().is_err());
        assert_eq!("BOTH".parse::<PermuteMode>().unwrap(), PermuteMode::Both);
        assert!("diag".parse::<PermuteMode>().is_err());
        for s in [StartOrder::Greedy, StartOrder::Given, StartOrder::Rcm] {
            assert_eq!(s.to_string().parse::<StartOrder>().unwrap(), s);
        }
        assert!("metis".parse::<StartOrder>().is_err());
    }

    #[test]
    fn rcm_starts_read_back_and_others_are_refused() {
        for start in [RcmStart::PseudoPeripheral, RcmStart::MinimumDegree] {
            assert_eq!(parse_rcm_start(rcm_start_name(start)).unwrap(), start);
        }
        assert_eq!(
            parse_rcm_start(" Min-Degree ").unwrap(),
            RcmStart::MinimumDegree
        );
        for bad in ["", "scipy", "peripheral2"] {
            let e = parse_rcm_start(bad).unwrap_err();
            assert!(
                matches!(
                    e,
                    ReorderError::InvalidSpec {
                        what: "RCM start",
                        ..
                    }
                ),
                "{e}"
            );
        }
    }

    #[test]
    fn run_blocks() {
        for (text, runs) in [
            ("auto", RunBlocks::Auto),
            ("0", RunBlocks::Off),
            ("32", RunBlocks::Fixed(32)),
        ] {
            assert_eq!(text.parse::<RunBlocks>().unwrap(), runs);
            assert_eq!(runs.to_string(), text);
        }
        assert_eq!("1".parse::<RunBlocks>().unwrap(), RunBlocks::Off);
        for bad in ["", "-3", "all", "1e3"] {
            let e = bad.parse::<RunBlocks>().unwrap_err();
            assert!(matches!(e, ReorderError::InvalidSpec { .. }), "{bad}: {e}");
        }
        // `auto` sorts all rows up to the column limit, blocks beyond it.
        let tuning = Tuning::default();
        let limit = tuning.sort_all_max_columns;
        assert_eq!(RunBlocks::Auto.block(500, limit, &tuning), Some(500));
        assert_eq!(RunBlocks::Auto.block(1, 1, &tuning), Some(2));
        assert_eq!(
            RunBlocks::Auto.block(limit + 1, limit + 1, &tuning),
            Some(tuning.run_block)
        );
        assert_eq!(RunBlocks::Fixed(8).block(500, limit + 1, &tuning), Some(8));
        assert_eq!(RunBlocks::Off.block(500, 500, &tuning), None);
        assert_eq!(RunBlocks::Fixed(1).block(500, 500, &tuning), None);
    }
}
