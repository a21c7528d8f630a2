//! `SamplerSpec`: the text form of a sampler (`--sampler SPEC`), parsed here so every front end
//! shares it. `O(len)`. Called by the CLI and by the pipeline's configuration.
//!
//! ```text
//! random:P                          P a probability (0.02) or a percentage (2%)
//! dast-sim[:key=value,...]          keys: period, threshold, threads, kernel, iterations,
//!                                   randomize, events (xy|all), stores, mode (dual|direct|both),
//!                                   l1, l2, l3 (SIZE[:WAYS], e.g. 32K:8), latency (4/14/50/200)
//! dast-perf[:key=value,...]         keys: period, threshold (ldlat), threads, kernel, mode,
//!                                   pmu (auto|intel|amd), iterations
//! trace:perf-script=FILE,layout=FILE[,key=value,...]
//! trace:lackey=FILE,layout=FILE[,key=value,...]
//!                                   keys: iteration (N|all), mode, cache (on|off), and the
//!                                   dast-sim keys period, threshold, randomize, events, stores,
//!                                   l1, l2, l3, latency (applied when resampling)
//! ```

use crate::error::SpecError;
use crate::{
    CacheConfig, DastMode, EventFilter, IterationSelect, Latencies, PerfOptions, PmuKind,
    SamplingError, SimOptions,
};
use std::path::PathBuf;
use std::str::FromStr;

/// A sampler and its options.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SamplerSpec {
    /// Each nonzero kept with probability `probability` (thesis 4.3).
    Random {
        /// In `[0, 1]`.
        probability: f64,
    },
    /// DAST on a simulated trace.
    DastSim {
        /// Simulator options.
        sim: SimOptions,
        /// Which samples DAST uses.
        mode: DastMode,
    },
    /// DAST on live hardware samples (PEBS load latency or IBS op).
    DastPerf(PerfOptions),
    /// DAST on a recorded trace.
    Trace(TraceSpec),
}

/// A recorded trace and how to read it.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceSpec {
    /// The trace file and its format.
    pub source: TraceSource,
    /// The layout the traced run wrote (`trace-kernel --emit-layout`).
    pub layout: PathBuf,
    /// Which iteration to keep.
    pub iteration: IterationSelect,
    /// Which samples DAST uses.
    pub mode: DastMode,
    /// Pass the trace through the cache model (gives lackey traces latencies).
    pub cache: bool,
    /// Resampling options (period, threshold, events, caches); the default keeps every record.
    pub resample: SimOptions,
}

/// The format of a recorded trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TraceSource {
    /// Text of `perf script` (see [`crate::parse_perf_script_line`]).
    PerfScript(PathBuf),
    /// Output of `valgrind --tool=lackey --trace-mem=yes`.
    Lackey(PathBuf),
}

impl SamplerSpec {
    /// The files the sampler reads: a recorded trace and its layout; none for the others.
    pub fn input_files(&self) -> Vec<&std::path::Path> {
        match self {
            SamplerSpec::Trace(t) => {
                let trace = match &t.source {
                    TraceSource::PerfScript(p) | TraceSource::Lackey(p) => p,
                };
                vec![trace.as_path(), t.layout.as_path()]
            }
            _ => Vec::new(),
        }
    }
}

impl FromStr for SamplerSpec {
    type Err = SamplingError;

    fn from_str(spec: &str) -> Result<Self, SamplingError> {
        let err = |kind| SamplingError::Spec {
            spec: spec.to_owned(),
            kind,
        };
        let (name, rest) = spec.split_once(':').unwrap_or((spec, ""));
        match name {
            "random" => {
                parse_probability(rest).map(|probability| SamplerSpec::Random { probability })
            }
            "dast-sim" => parse_options(rest)
                .and_then(|o| parse_sim(&o))
                .map(|(sim, mode)| SamplerSpec::DastSim { sim, mode }),
            "dast-perf" => parse_options(rest)
                .and_then(|o| parse_perf(&o))
                .map(SamplerSpec::DastPerf),
            "trace" => parse_options(rest)
                .and_then(|o| parse_trace(&o))
                .map(SamplerSpec::Trace),
            other => Err(SpecError::UnknownSampler(other.to_owned())),
        }
        .map_err(err)
    }
}

/// `key=value` pairs separated by commas (none for an empty string), each key at most once.
fn parse_options(rest: &str) -> Result<Vec<(&str, &str)>, SpecError> {
    if rest.is_empty() {
        return Ok(Vec::new());
    }
    let options: Vec<(&str, &str)> = rest
        .split(',')
        .map(|kv| {
            kv.split_once('=')
                .ok_or_else(|| SpecError::MissingValue(kv.to_owned()))
        })
        .collect::<Result<_, _>>()?;
    for (i, (key, _)) in options.iter().enumerate() {
        if options[..i].iter().any(|(k, _)| k == key) {
            return Err(SpecError::RepeatedOption((*key).to_owned()));
        }
    }
    Ok(options)
}

fn invalid(key: &str, value: &str, expected: &'static str) -> SpecError {
    SpecError::InvalidValue {
        key: key.to_owned(),
        value: value.to_owned(),
        expected,
    }
}

fn parse_probability(text: &str) -> Result<f64, SpecError> {
    const EXPECTED: &str = "a probability in [0, 1] or a percentage (2%)";
    let p = match text.strip_suffix('%') {
        Some(pct) => pct.parse::<f64>().map(|v| v / 100.0),
        None => text.parse::<f64>(),
    }
    .map_err(|_| invalid("P", text, EXPECTED))?;
    if (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err(invalid("P", text, EXPECTED))
    }
}

fn num<T: FromStr>(key: &str, value: &str) -> Result<T, SpecError> {
    value
        .parse()
        .map_err(|_| invalid(key, value, "a non-negative integer"))
}

fn positive(key: &str, value: &str) -> Result<u64, SpecError> {
    match num::<u64>(key, value)? {
        0 => Err(invalid(key, value, "a positive integer")),
        v => Ok(v),
    }
}

/// A count of threads: from 1 to the CPUs this process may use (simulated caches and live
/// samplers cost memory per thread, so no more than the machine runs).
fn threads(key: &str, value: &str) -> Result<usize, SpecError> {
    let max = std::thread::available_parallelism().map_or(1, |n| n.get());
    match positive(key, value)? {
        t if t as usize <= max => Ok(t as usize),
        _ => Err(invalid(
            key,
            value,
            "a thread count no larger than the CPUs this process may use",
        )),
    }
}

/// Simulated threads: 1 to [`MAX_SIMULATED_THREADS`] (each one's caches are modelled in memory).
fn simulated_threads(key: &str, value: &str) -> Result<usize, SpecError> {
    match positive(key, value)? {
        t if t <= MAX_SIMULATED_THREADS as u64 => Ok(t as usize),
        _ => Err(invalid(key, value, "from 1 to 1024 simulated threads")),
    }
}

/// The most threads the simulator models.
pub const MAX_SIMULATED_THREADS: usize = 1024;

/// SpMV iterations of a simulated or live run: 1 to [`MAX_ITERATIONS`].
fn iterations(key: &str, value: &str) -> Result<u32, SpecError> {
    match positive(key, value)? {
        i if i <= u64::from(MAX_ITERATIONS) => Ok(i as u32),
        _ => Err(invalid(key, value, "from 1 to 1000 iterations")),
    }
}

/// The most SpMV iterations a sampler runs (each one's records are kept).
pub const MAX_ITERATIONS: u32 = 1000;

/// The largest simulated cache level (no cache of a real CPU is larger).
const MAX_CACHE_BYTES: u64 = 1 << 30;

fn flag(key: &str, value: &str) -> Result<bool, SpecError> {
    match value {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(invalid(key, value, "on or off")),
    }
}

/// `SIZE[:WAYS]`, SIZE with an optional K, M or G suffix (binary).
fn cache_level(key: &str, value: &str, default: CacheConfig) -> Result<CacheConfig, SpecError> {
    const EXPECTED: &str = "SIZE[:WAYS] with SIZE like 32K, 1M or 32768";
    let (size, ways) = value.split_once(':').unwrap_or((value, ""));
    let (digits, shift) = match size.as_bytes().last() {
        Some(b'K' | b'k') => (&size[..size.len() - 1], 10),
        Some(b'M' | b'm') => (&size[..size.len() - 1], 20),
        Some(b'G' | b'g') => (&size[..size.len() - 1], 30),
        _ => (size, 0),
    };
    let size = digits
        .parse::<u64>()
        .ok()
        .and_then(|s| s.checked_mul(1 << shift))
        .filter(|&s| s <= MAX_CACHE_BYTES)
        .ok_or_else(|| invalid(key, value, "SIZE[:WAYS], SIZE at most 1G, like 32K or 1M"))?;
    let ways = if ways.is_empty() {
        default.ways
    } else {
        ways.parse().map_err(|_| invalid(key, value, EXPECTED))?
    };
    let c = CacheConfig {
        size,
        ways,
        ..default
    };
    c.validate("cache")
        .map_err(|_| invalid(key, value, "a size that is a multiple of ways * 64"))?;
    Ok(c)
}

fn latencies(key: &str, value: &str) -> Result<Latencies, SpecError> {
    const EXPECTED: &str = "four cycle counts L1/L2/L3/memory, e.g. 4/14/50/200";
    let v: Vec<u32> = value
        .split('/')
        .map(|x| x.parse().map_err(|_| invalid(key, value, EXPECTED)))
        .collect::<Result<_, _>>()?;
    match v[..] {
        [l1, l2, l3, memory] => Ok(Latencies { l1, l2, l3, memory }),
        _ => Err(invalid(key, value, EXPECTED)),
    }
}

fn parsed<T: FromStr>(key: &str, value: &str, expected: &'static str) -> Result<T, SpecError> {
    value.parse().map_err(|_| invalid(key, value, expected))
}

/// Applies one simulator/PMU-model key to `sim`; false when the key is not one of them.
fn sim_key(sim: &mut SimOptions, key: &str, value: &str) -> Result<bool, SpecError> {
    match key {
        "period" => sim.period = positive(key, value)?,
        "threshold" => sim.threshold = num(key, value)?,
        "randomize" => sim.randomize = flag(key, value)?,
        "stores" => sim.stores = flag(key, value)?,
        "events" => {
            sim.events = match value {
                "xy" => EventFilter::XY,
                "all" => EventFilter::All,
                _ => return Err(invalid(key, value, "xy or all")),
            }
        }
        "l1" => sim.caches[0] = cache_level(key, value, sim.caches[0])?,
        "l2" => sim.caches[1] = cache_level(key, value, sim.caches[1])?,
        "l3" => sim.caches[2] = cache_level(key, value, sim.caches[2])?,
        "latency" => sim.latencies = latencies(key, value)?,
        _ => return Ok(false),
    }
    Ok(true)
}

fn mode(key: &str, value: &str) -> Result<DastMode, SpecError> {
    parsed(key, value, "dual, direct or both")
}

fn parse_sim(options: &[(&str, &str)]) -> Result<(SimOptions, DastMode), SpecError> {
    let mut sim = SimOptions::default();
    let mut dast_mode = DastMode::DualArray;
    for &(key, value) in options {
        if sim_key(&mut sim, key, value)? {
            continue;
        }
        match key {
            "threads" => sim.threads = Some(simulated_threads(key, value)?),
            "kernel" => sim.kernel = parsed(key, value, "per-nonzero or per-row")?,
            "iterations" => sim.iterations = iterations(key, value)?,
            "mode" => dast_mode = mode(key, value)?,
            _ => return Err(SpecError::UnknownOption(key.to_owned())),
        }
    }
    Ok((sim, dast_mode))
}

fn parse_perf(options: &[(&str, &str)]) -> Result<PerfOptions, SpecError> {
    let mut p = PerfOptions::default();
    for &(key, value) in options {
        match key {
            "period" => p.period = positive(key, value)?,
            "threshold" | "ldlat" => p.ldlat = num(key, value)?,
            "threads" => p.threads = Some(threads(key, value)?),
            "kernel" => p.kernel = parsed(key, value, "per-nonzero or per-row")?,
            "iterations" => p.iterations = iterations(key, value)?,
            "mode" => p.mode = mode(key, value)?,
            "pmu" => {
                p.pmu = match value {
                    "auto" => None,
                    "intel" => Some(PmuKind::IntelPebs),
                    "amd" => Some(PmuKind::AmdIbs),
                    _ => return Err(invalid(key, value, "auto, intel or amd")),
                }
            }
            _ => return Err(SpecError::UnknownOption(key.to_owned())),
        }
    }
    Ok(p)
}

fn parse_trace(options: &[(&str, &str)]) -> Result<TraceSpec, SpecError> {
    let mut source = None;
    let mut layout = None;
    let mut spec = TraceSpec {
        source: TraceSource::Lackey(PathBuf::new()),
        layout: PathBuf::new(),
        iteration: IterationSelect::Auto,
        mode: DastMode::DualArray,
        cache: false,
        resample: SimOptions {
            period: 1,
            randomize: false,
            ..SimOptions::default()
        },
    };
    for &(key, value) in options {
        if sim_key(&mut spec.resample, key, value)? {
            continue;
        }
        match key {
            "perf-script" | "lackey" if source.is_some() => {
                return Err(SpecError::ExclusiveOptions("perf-script", "lackey"))
            }
            "perf-script" => source = Some(TraceSource::PerfScript(value.into())),
            "lackey" => source = Some(TraceSource::Lackey(value.into())),
            "layout" => layout = Some(PathBuf::from(value)),
            "iteration" => {
                spec.iteration = match value {
                    "all" => IterationSelect::All,
                    "auto" => IterationSelect::Auto,
                    n => {
                        IterationSelect::Index(parsed(key, n, "an iteration number, auto or all")?)
                    }
                }
            }
            "mode" => spec.mode = mode(key, value)?,
            "cache" => spec.cache = flag(key, value)?,
            _ => return Err(SpecError::UnknownOption(key.to_owned())),
        }
    }
    spec.source = source.ok_or(SpecError::MissingOption("perf-script=FILE or lackey=FILE"))?;
    spec.layout = layout.ok_or(SpecError::MissingOption("layout=FILE"))?;
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TracedKernel;

    fn kind(spec: &str) -> SpecError {
        match spec.parse::<SamplerSpec>() {
            Err(SamplingError::Spec { kind, .. }) => kind,
            other => panic!("{spec}: {other:?}"),
        }
    }

    #[test]
    fn parses_every_sampler() {
        assert_eq!(
            "random:0.02".parse::<SamplerSpec>().unwrap(),
            SamplerSpec::Random { probability: 0.02 }
        );
        assert_eq!(
            "random:5%".parse::<SamplerSpec>().unwrap(),
            SamplerSpec::Random { probability: 0.05 }
        );
        let SamplerSpec::DastSim { sim, mode } =
            "dast-sim:period=100,threshold=5,threads=8,kernel=per-row,l1=48K:12,latency=5/15/40/300,mode=both,events=all,randomize=off"
                .parse()
                .unwrap()
        else {
            panic!()
        };
        assert_eq!((sim.period, sim.threshold, sim.threads), (100, 5, Some(8)));
        assert_eq!(sim.kernel, TracedKernel::PerRow);
        assert_eq!(sim.caches[0], CacheConfig::new(48 << 10, 12));
        assert_eq!(sim.latencies.memory, 300);
        assert_eq!(
            (mode, sim.events, sim.randomize),
            (DastMode::Both, EventFilter::All, false)
        );
        assert_eq!(
            "dast-sim".parse::<SamplerSpec>().unwrap(),
            SamplerSpec::DastSim {
                sim: SimOptions::default(),
                mode: DastMode::DualArray
            }
        );
        let SamplerSpec::DastPerf(p) = "dast-perf:ldlat=50,pmu=amd".parse().unwrap() else {
            panic!()
        };
        assert_eq!((p.ldlat, p.pmu), (50, Some(PmuKind::AmdIbs)));
        let SamplerSpec::Trace(t) =
            "trace:lackey=t.txt,layout=l.json,cache=on,period=3,iteration=all"
                .parse()
                .unwrap()
        else {
            panic!()
        };
        assert_eq!(t.source, TraceSource::Lackey("t.txt".into()));
        assert_eq!(
            (t.cache, t.resample.period, t.iteration),
            (true, 3, IterationSelect::All)
        );
        let SamplerSpec::Trace(t) = "trace:perf-script=p.txt,layout=l.json,iteration=2"
            .parse()
            .unwrap()
        else {
            panic!()
        };
        assert_eq!(t.source, TraceSource::PerfScript("p.txt".into()));
        assert_eq!(t.iteration, IterationSelect::Index(2));
    }

    #[test]
    fn reports_what_is_wrong() {
        assert_eq!(kind("sorted:1"), SpecError::UnknownSampler("sorted".into()));
        assert!(matches!(kind("random:2"), SpecError::InvalidValue { .. }));
        assert!(matches!(kind("random:abc"), SpecError::InvalidValue { .. }));
        assert!(matches!(kind("random"), SpecError::InvalidValue { .. }));
        assert_eq!(
            kind("dast-sim:colour=red"),
            SpecError::UnknownOption("colour".into())
        );
        assert_eq!(
            kind("dast-sim:period"),
            SpecError::MissingValue("period".into())
        );
        assert_eq!(
            kind("dast-sim:period=1,threads=2,period=2"),
            SpecError::RepeatedOption("period".into())
        );
        assert_eq!(
            kind("trace:lackey=a,layout=l,perf-script=b"),
            SpecError::ExclusiveOptions("perf-script", "lackey")
        );
        assert!(matches!(
            kind("dast-sim:period=0"),
            SpecError::InvalidValue { .. }
        ));
        assert!(matches!(
            kind("dast-sim:l1=33K:7"),
            SpecError::InvalidValue { .. }
        ));
        assert!(matches!(
            kind("dast-sim:kernel=csr5"),
            SpecError::InvalidValue { .. }
        ));
        assert!(matches!(
            kind("dast-sim:latency=1/2"),
            SpecError::InvalidValue { .. }
        ));
        assert_eq!(
            kind("trace:layout=l.json"),
            SpecError::MissingOption("perf-script=FILE or lackey=FILE")
        );
        assert_eq!(
            kind("trace:lackey=t"),
            SpecError::MissingOption("layout=FILE")
        );
        assert!(matches!(
            kind("dast-perf:pmu=arm"),
            SpecError::InvalidValue { .. }
        ));
    }
}
