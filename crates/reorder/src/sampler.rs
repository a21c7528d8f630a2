//! [`SamplerChoice`]: full information, or one of the samplers of SPEC section 5.

use crate::ReorderError;
use spmv_reorder_sampling::SamplerSpec;
use std::fmt;
use std::str::FromStr;

/// Where the nonzeros the ordering sees come from. Serialised as its spelling.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum SamplerChoice {
    /// Every nonzero (full information).
    #[default]
    All,
    /// A sample: `random:P`, `dast-sim[:...]`, `dast-perf`, `trace:...`, keeping the text given.
    Sampled {
        /// The parsed sampler (boxed: simulator options are large).
        spec: Box<SamplerSpec>,
        /// The text it was parsed from, for reports.
        text: String,
    },
}

impl FromStr for SamplerChoice {
    type Err = ReorderError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("all") || t.eq_ignore_ascii_case("full") {
            return Ok(SamplerChoice::All);
        }
        Ok(SamplerChoice::Sampled {
            spec: Box::new(t.parse()?),
            text: t.to_string(),
        })
    }
}

impl SamplerChoice {
    /// The files the sampler reads (a recorded trace and its layout); none for the others.
    pub fn input_files(&self) -> Vec<&std::path::Path> {
        match self {
            SamplerChoice::All => Vec::new(),
            SamplerChoice::Sampled { spec, .. } => spec.input_files(),
        }
    }
}

impl fmt::Display for SamplerChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SamplerChoice::All => f.write_str("all"),
            SamplerChoice::Sampled { text, .. } => f.write_str(text),
        }
    }
}

impl serde::Serialize for SamplerChoice {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_all_and_samplers() {
        assert_eq!("all".parse::<SamplerChoice>().unwrap(), SamplerChoice::All);
        let r: SamplerChoice = "random:0.02".parse().unwrap();
        assert_eq!(r.to_string(), "random:0.02");
        assert!(r.input_files().is_empty());
        assert!(
            matches!(r, SamplerChoice::Sampled { spec, .. } if matches!(*spec, SamplerSpec::Random { .. }))
        );
        assert!("random:2".parse::<SamplerChoice>().is_err());
        let t: SamplerChoice = "trace:lackey=a.txt,layout=b.json".parse().unwrap();
        let files: Vec<String> = t
            .input_files()
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        assert_eq!(files, ["a.txt", "b.json"]);
        assert!("bogus".parse::<SamplerChoice>().is_err());
    }
}
