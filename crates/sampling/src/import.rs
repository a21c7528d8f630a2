//! Recorded traces: the text of `perf script` and of `valgrind --tool=lackey --trace-mem=yes`,
//! mapped through the run's [`Layout`] into `TraceRecord`s; and `resample`, which passes a
//! recorded trace through the cache and PMU models.
//!
//! `O(lines)`, streaming (only records that fall in the layout's arrays are kept). Called by
//! [`crate::sample`] for `trace:` samplers.
//!
//! # Recording
//! ```text
//! # Intel PEBS (AMD: perf mem record works the same way with IBS):
//! perf record -e cpu/mem-loads,ldlat=30/P -d -W -k CLOCK_MONOTONIC -o spmv.data -- \
//!     spmv-reorder trace-kernel A.mtx --emit-layout A.layout.json --iterations 3
//! perf script -i spmv.data --ns -F tid,time,event,addr,weight > A.perf.txt
//! # valgrind (any machine; single thread, no latencies):
//! valgrind --tool=lackey --trace-mem=yes --log-file=A.lackey.txt -- \
//!     spmv-reorder trace-kernel A.mtx --emit-layout A.layout.json --iterations 2
//! ```

use crate::{Access, Array, CacheHierarchy, Layout, Pmu, SamplingError, SimOptions, TraceRecord};
use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

/// Which SpMV iteration of a recorded run to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IterationSelect {
    /// The second iteration when the run has two or more (the first pays compulsory misses),
    /// else the only one.
    #[default]
    Auto,
    /// This 0-based iteration.
    Index(u32),
    /// Every record, whatever its iteration.
    All,
}

impl IterationSelect {
    /// The chosen 0-based iteration, `None` for all.
    ///
    /// # Errors
    /// [`SamplingError::NoSuchIteration`] for an index past the run's iterations.
    pub fn resolve(self, iterations: u32) -> Result<Option<u32>, SamplingError> {
        match self {
            IterationSelect::All => Ok(None),
            IterationSelect::Auto => Ok(Some(u32::from(iterations >= 2))),
            IterationSelect::Index(i) if i < iterations => Ok(Some(i)),
            IterationSelect::Index(requested) => Err(SamplingError::NoSuchIteration {
                requested,
                available: iterations,
            }),
        }
    }
}

fn open(path: &Path) -> Result<std::io::BufReader<std::fs::File>, SamplingError> {
    let f = std::fs::File::open(path).map_err(|e| SamplingError::io(path, e))?;
    Ok(std::io::BufReader::with_capacity(1 << 20, f))
}

/// Calls `each(line_number, line)` for every line of `reader` (1-based numbers).
fn for_each_line(
    mut reader: impl BufRead,
    path: &Path,
    mut each: impl FnMut(usize, &str) -> Result<(), SamplingError>,
) -> Result<(), SamplingError> {
    let mut line = String::new();
    let mut number = 0;
    loop {
        line.clear();
        let n = reader
            .read_line(&mut line)
            .map_err(|e| SamplingError::io(path, e))?;
        if n == 0 {
            return Ok(());
        }
        number += 1;
        each(number, line.trim_end_matches(['\n', '\r']))?;
    }
}

/// Reads a lackey trace (`--trace-mem=yes`, preferably with `--log-file`) of a run described by
/// `layout`. Keeps the accesses to the layout's arrays during the selected iteration. Lackey has
/// one stream for all threads and no latencies: every record gets thread 0, `latency: None`, and
/// its sequence number as time.
///
/// The iterations are cut at the run's marker stores. A trace covers the whole process, and the
/// marker's memory may have been written by other code before the run allocated it, so the cut
/// uses the *last* complete sequence of marker stores `0, 1, ..., iterations` (consecutive among
/// the stores to the marker region): between its own markers the run touches nothing else there.
/// Without a marker region in the layout every mapped access is kept.
///
/// # Errors
/// [`SamplingError::Io`], [`SamplingError::Parse`] (file and line) for a malformed line,
/// [`SamplingError::NoSuchIteration`], [`SamplingError::MarkersNotFound`].
pub fn read_lackey(
    path: &Path,
    layout: &Layout,
    select: IterationSelect,
) -> Result<Vec<TraceRecord>, SamplingError> {
    parse_lackey(open(path)?, path, layout, select)
}

/// [`read_lackey`] on any reader; `path` only names the source in errors.
///
/// # Errors
/// As [`read_lackey`].
pub fn parse_lackey(
    reader: impl BufRead,
    path: &Path,
    layout: &Layout,
    select: IterationSelect,
) -> Result<Vec<TraceRecord>, SamplingError> {
    let has_markers = layout.region(Array::Marker).is_some();
    let wanted = if has_markers {
        select.resolve(layout.iterations)?
    } else {
        None
    };
    let mut cut = MarkerCut::new(layout.iterations as u64, has_markers);
    let mut seq = 0u64;
    for_each_line(reader, path, |number, line| {
        let Some((accesses, addr)) =
            parse_lackey_line(line).map_err(|expected| SamplingError::Parse {
                path: path.to_owned(),
                line: number,
                expected,
                found: line.to_owned(),
            })?
        else {
            return Ok(());
        };
        let Some(target) = layout.resolve(addr) else {
            return Ok(());
        };
        if target.array == Array::Marker {
            if accesses.contains(&Access::Store) {
                cut.marker_store(target.index);
            }
            return Ok(());
        }
        let keep = match (cut.iteration(), wanted) {
            (Some(_), None) => true,
            (Some(it), Some(w)) => it == w as u64,
            (None, _) => false,
        };
        if keep {
            for &access in accesses {
                seq += 1;
                cut.buffer.push(TraceRecord {
                    thread: 0,
                    time: seq,
                    addr,
                    access,
                    latency: None,
                    target: Some(target),
                });
            }
        }
        Ok(())
    })?;
    cut.finish().ok_or_else(|| SamplingError::MarkersNotFound {
        path: path.to_owned(),
        iterations: layout.iterations,
    })
}

/// Finds the last complete marker sequence `0..=iterations` of a trace while streaming it.
struct MarkerCut {
    iterations: u64,
    has_markers: bool,
    /// The next marker index of the sequence being followed (`None`: not in a sequence).
    expect: Option<u64>,
    /// Records kept since the current sequence started.
    buffer: Vec<TraceRecord>,
    /// Records of the last completed sequence.
    completed: Option<Vec<TraceRecord>>,
}

impl MarkerCut {
    fn new(iterations: u64, has_markers: bool) -> Self {
        MarkerCut {
            iterations,
            has_markers,
            expect: (!has_markers).then_some(0),
            buffer: Vec::new(),
            completed: None,
        }
    }

    /// The iteration the trace is in, `None` outside a marker sequence.
    fn iteration(&self) -> Option<u64> {
        match self.expect {
            Some(e) if !self.has_markers => Some(e),
            Some(e) if e >= 1 && e <= self.iterations => Some(e - 1),
            _ => None,
        }
    }

    fn marker_store(&mut self, index: u64) {
        if index == 0 {
            self.buffer.clear();
            self.expect = Some(1);
        } else if self.expect == Some(index) {
            self.expect = Some(index + 1);
            if index == self.iterations {
                self.completed = Some(std::mem::take(&mut self.buffer));
                self.expect = None;
            }
        } else {
            self.expect = None;
            self.buffer.clear();
        }
    }

    fn finish(self) -> Option<Vec<TraceRecord>> {
        if self.has_markers {
            self.completed
        } else {
            Some(self.buffer)
        }
    }
}

/// One lackey line: the data accesses and their address, `None` for instruction fetches and
/// valgrind's own `==pid==` messages; `Err(expected)` for anything else.
pub fn parse_lackey_line(line: &str) -> Result<Option<(&'static [Access], u64)>, &'static str> {
    const LOAD: &[Access] = &[Access::Load];
    const STORE: &[Access] = &[Access::Store];
    const MODIFY: &[Access] = &[Access::Load, Access::Store];
    if line.is_empty() || line.starts_with("==") || line.starts_with("--") {
        return Ok(None);
    }
    const EXPECTED: &str = "a lackey line (' L addr,size', ' S ...', ' M ...' or 'I  ...')";
    let (kind, rest) = if let Some(rest) = line.strip_prefix("I ") {
        ("I", rest)
    } else if let Some(rest) = line.strip_prefix(' ') {
        rest.split_at_checked(1).ok_or(EXPECTED)?
    } else {
        return Err(EXPECTED);
    };
    let (addr, size) = rest.trim().split_once(',').ok_or(EXPECTED)?;
    let addr = u64::from_str_radix(addr, 16).map_err(|_| "a hexadecimal address")?;
    size.parse::<u32>().map_err(|_| "an access size")?;
    match kind {
        "I" => Ok(None),
        "L" => Ok(Some((LOAD, addr))),
        "S" => Ok(Some((STORE, addr))),
        "M" => Ok(Some((MODIFY, addr))),
        _ => Err(EXPECTED),
    }
}

/// The fields DAST needs from one `perf script` sample line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PerfScriptLine {
    /// Thread id.
    pub tid: u32,
    /// Time stamp in nanoseconds.
    pub time_ns: u64,
    /// Event name, when printed.
    pub event: Option<String>,
    /// Data address.
    pub addr: u64,
    /// Weight (the load latency in cycles for PEBS load latency and IBS), when printed.
    pub weight: Option<u64>,
}

/// Parses one sample line of `perf script` with at least `tid,time,addr` among its fields (`comm`,
/// `pid`, `cpu`, `event`, `weight`, `data_src`, `ip`, `sym` may be present too). `Ok(None)` for
/// blank and `#` comment lines; `Err(expected)` otherwise.
///
/// perf prints the fields in a fixed order whatever the `-F` order: `comm pid/tid [cpu]
/// time: event: addr [data_src |OP ...|...] weight ip sym`.
pub fn parse_perf_script_line(line: &str) -> Result<Option<PerfScriptLine>, &'static str> {
    let trimmed = line.trim();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return Ok(None);
    }
    let tokens: Vec<&str> = trimmed.split_whitespace().collect();
    let ti = tokens
        .iter()
        .position(|t| t.strip_suffix(':').and_then(parse_seconds).is_some())
        .ok_or("a time stamp 'SECONDS.FRACTION:'")?;
    let time_ns = parse_seconds(tokens[ti].trim_end_matches(':')).expect("checked above");
    let tid_token = tokens[..ti]
        .iter()
        .rev()
        .find(|t| !(t.starts_with('[') && t.ends_with(']')))
        .ok_or("a thread id before the time (perf script -F tid,...)")?;
    let tid_text = tid_token.rsplit('/').next().unwrap_or(tid_token);
    let tid = tid_text
        .parse::<u32>()
        .map_err(|_| "a thread id before the time (perf script -F tid,...)")?;
    let mut j = ti + 1;
    let mut event = None;
    // An optional period (a number) then the event name ending with ':'.
    for skip in 0..2 {
        if let Some(name) = tokens.get(j + skip).and_then(|t| t.strip_suffix(':')) {
            event = Some(name.to_owned());
            j += skip + 1;
            break;
        }
    }
    let addr_text = tokens
        .get(j)
        .ok_or("a data address after the time and event")?;
    let addr = u64::from_str_radix(addr_text.trim_start_matches("0x"), 16)
        .map_err(|_| "a hexadecimal data address after the time and event")?;
    let rest = &tokens[j + 1..];
    // A data_src block ("1e05080021 |OP LOAD|LVL L1 hit|...|BLK  N/A") comes before the weight.
    let weight = match rest.iter().rposition(|t| t.contains('|')) {
        Some(last_bar) => rest[last_bar + 1..]
            .iter()
            .find_map(|t| t.parse::<u64>().ok()),
        None => rest.first().and_then(|t| t.parse::<u64>().ok()),
    };
    Ok(Some(PerfScriptLine {
        tid,
        time_ns,
        event,
        addr,
        weight,
    }))
}

/// `SECONDS.FRACTION` (up to 9 fraction digits) in nanoseconds.
fn parse_seconds(text: &str) -> Option<u64> {
    let (secs, frac) = text.split_once('.')?;
    if secs.is_empty()
        || frac.is_empty()
        || frac.len() > 9
        || !secs.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let secs: u64 = secs.parse().ok()?;
    let frac: u64 = frac.parse().ok()?;
    let scale = 10u64.pow(9 - (text.len() - text.find('.')? - 1) as u32);
    secs.checked_mul(1_000_000_000)?.checked_add(frac * scale)
}

/// Reads a `perf script` trace of a run described by `layout`, keeping the samples in the layout's
/// arrays. When the layout holds the iterations' time windows, keeps the selected iteration's
/// samples (the trace must use `CLOCK_MONOTONIC`: `perf record -k CLOCK_MONOTONIC`).
///
/// # Errors
/// [`SamplingError::Io`], [`SamplingError::Parse`] (file and line), [`SamplingError::NoSuchIteration`],
/// [`SamplingError::ClockMismatch`] when no sample falls in any iteration window.
pub fn read_perf_script(
    path: &Path,
    layout: &Layout,
    select: IterationSelect,
) -> Result<Vec<TraceRecord>, SamplingError> {
    parse_perf_script(open(path)?, path, layout, select)
}

/// [`read_perf_script`] on any reader; `path` only names the source in errors.
///
/// # Errors
/// As [`read_perf_script`].
pub fn parse_perf_script(
    reader: impl BufRead,
    path: &Path,
    layout: &Layout,
    select: IterationSelect,
) -> Result<Vec<TraceRecord>, SamplingError> {
    let windows = &layout.iteration_times_ns;
    let wanted = if windows.is_empty() {
        None
    } else {
        select.resolve(windows.len() as u32)?
    };
    let mut in_any_window = 0usize;
    let mut records = Vec::new();
    for_each_line(reader, path, |number, line| {
        let parsed = parse_perf_script_line(line).map_err(|expected| SamplingError::Parse {
            path: path.to_owned(),
            line: number,
            expected,
            found: line.to_owned(),
        })?;
        let Some(s) = parsed else { return Ok(()) };
        let Some(target) = layout.resolve(s.addr) else {
            return Ok(());
        };
        let inside = |&(start, end): &(u64, u64)| (start..end).contains(&s.time_ns);
        if !windows.is_empty() && windows.iter().any(inside) {
            in_any_window += 1;
        }
        if let Some(w) = wanted {
            if !inside(&windows[w as usize]) {
                return Ok(());
            }
        }
        let is_store = s.event.as_deref().is_some_and(|e| e.contains("store"));
        records.push(TraceRecord {
            thread: s.tid,
            time: s.time_ns,
            addr: s.addr,
            access: if is_store {
                Access::Store
            } else {
                Access::Load
            },
            latency: s
                .weight
                .filter(|&w| w > 0)
                .map(|w| w.min(u32::MAX as u64) as u32),
            target: Some(target),
        });
        Ok(())
    })?;
    if wanted.is_some() && records.is_empty() && in_any_window == 0 {
        return Err(SamplingError::ClockMismatch);
    }
    Ok(records)
}

/// Passes a recorded trace through the cache model (when `cache`) and the PMU model of `opts`
/// (period, threshold, randomisation, event filter, stores), in time order per thread; threads
/// get private L1/L2 in order of first appearance. Sampled records get the model's latency when
/// `cache` (else keep theirs). With `cache == false` and period 1 this keeps every event.
///
/// # Errors
/// [`SamplingError::InvalidOption`] for an invalid cache geometry.
pub fn resample(
    records: &[TraceRecord],
    opts: &SimOptions,
    cache: bool,
) -> Result<Vec<TraceRecord>, SamplingError> {
    let mut threads: HashMap<u32, usize> = HashMap::new();
    for r in records {
        let n = threads.len();
        threads.entry(r.thread).or_insert(n);
    }
    let mut caches = CacheHierarchy::new(threads.len().max(1), opts.caches, opts.latencies)?;
    let mut pmus: Vec<Pmu> = (0..threads.len())
        .map(|t| {
            Pmu::new(
                opts.period,
                opts.threshold,
                opts.randomize,
                opts.seed ^ ((t as u64) << 32),
            )
        })
        .collect();
    let mut out = Vec::new();
    for r in records {
        let t = threads[&r.thread];
        let latency = if cache {
            Some(caches.access(t, r.addr))
        } else {
            r.latency
        };
        let array = r.target.map(|t| t.array);
        let is_event = (opts.stores || r.access == Access::Load)
            && (opts.events == crate::EventFilter::All
                || matches!(array, Some(Array::X | Array::Y)));
        if is_event && pmus[t].observe(latency.unwrap_or(u32::MAX)) {
            out.push(TraceRecord { latency, ..*r });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Kernel, Region, Target};

    fn layout(with_marker: bool) -> Layout {
        let mut regions = vec![
            Region {
                array: Array::RowPtr,
                base: 0x1000,
                elem_size: 8,
                len: 3,
            },
            Region {
                array: Array::X,
                base: 0x4000,
                elem_size: 8,
                len: 4,
            },
            Region {
                array: Array::Y,
                base: 0x5000,
                elem_size: 8,
                len: 2,
            },
        ];
        if with_marker {
            regions.push(Region {
                array: Array::Marker,
                base: 0x6000,
                elem_size: 8,
                len: 3,
            });
        }
        Layout {
            kernel: Kernel::PerNonzero,
            nrows: 2,
            ncols: 4,
            nnz: 3,
            regions,
            partition: vec![0, 2],
            iterations: 2,
            iteration_times_ns: vec![],
        }
    }

    #[test]
    fn lackey_lines() {
        assert_eq!(parse_lackey_line("I  04016d0,3"), Ok(None));
        assert_eq!(
            parse_lackey_line(" L 1ffefffd58,8"),
            Ok(Some((&[Access::Load][..], 0x1ffefffd58)))
        );
        assert_eq!(
            parse_lackey_line(" M 04227e08,4").unwrap().unwrap().0.len(),
            2
        );
        assert_eq!(parse_lackey_line("==123== Lackey, an example"), Ok(None));
        assert!(parse_lackey_line(" L zz,8").is_err());
        assert!(parse_lackey_line(" Q 10,8").is_err());
        assert!(parse_lackey_line("hello").is_err());
        assert!(parse_lackey_line(" L 10").is_err());
    }

    #[test]
    fn lackey_trace_is_cut_at_the_last_marker_sequence() {
        // Before the run, other code writes the marker's memory (a full 0, 1, 2 sequence and a
        // broken one); after it, the allocator writes marker[0] again.
        let text = "==1== Lackey\n\
                    I  0400000,3\n \
                    S 6000,8\n \
                    L 4000,8\n \
                    S 6008,8\n \
                    S 6010,8\n \
                    S 6000,32\n \
                    S 6010,8\n \
                    L 4010,8\n \
                    S 6000,8\n \
                    L 4008,8\n \
                    S 6008,8\n \
                    M 5000,8\n \
                    L 4018,8\n \
                    L 9999,8\n \
                    S 6010,8\n \
                    L 4010,8\n \
                    S 6000,8\n";
        let p = Path::new("t.txt");
        let l = layout(true);
        let r = parse_lackey(text.as_bytes(), p, &l, IterationSelect::Auto).unwrap();
        let targets: Vec<_> = r.iter().map(|r| (r.target.unwrap(), r.access)).collect();
        let t = |array, index| Target { array, index };
        assert_eq!(
            targets,
            vec![
                (t(Array::Y, 0), Access::Load),
                (t(Array::Y, 0), Access::Store),
                (t(Array::X, 3), Access::Load)
            ]
        );
        let first = parse_lackey(text.as_bytes(), p, &l, IterationSelect::Index(0)).unwrap();
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].target, Some(t(Array::X, 1)));
        let all = parse_lackey(text.as_bytes(), p, &l, IterationSelect::All).unwrap();
        assert_eq!(all.len(), 4); // only between the last marker 0 and marker 2
        assert!(matches!(
            parse_lackey(text.as_bytes(), p, &l, IterationSelect::Index(2)),
            Err(SamplingError::NoSuchIteration { .. })
        ));
        let no_markers = parse_lackey(text.as_bytes(), p, &layout(false), IterationSelect::Auto);
        assert_eq!(no_markers.unwrap().len(), 7);
        let cut_short = " S 6000,8\n L 4000,8\n S 6008,8\n";
        assert!(matches!(
            parse_lackey(cut_short.as_bytes(), p, &l, IterationSelect::Auto),
            Err(SamplingError::MarkersNotFound { iterations: 2, .. })
        ));
        let bad = parse_lackey(" L 4000,8\nxyz\n".as_bytes(), p, &l, IterationSelect::All);
        assert!(matches!(bad, Err(SamplingError::Parse { line: 2, .. })));
    }

    #[test]
    fn perf_script_lines_in_several_field_sets() {
        let l = parse_perf_script_line(
            "13096   563.884869: page-faults:     55bb50cbe5c0               0",
        )
        .unwrap()
        .unwrap();
        assert_eq!(l.tid, 13096);
        assert_eq!(l.time_ns, 563_884_869_000);
        assert_eq!(l.event.as_deref(), Some("page-faults"));
        assert_eq!((l.addr, l.weight), (0x55bb50cbe5c0, Some(0)));
        let l = parse_perf_script_line(
            " spmv-reorder  4242/4243  [001] 1020.123456789: cpu/mem-loads,ldlat=30/P:      7f00aa001008 \
             1e05080021 |OP LOAD|LVL L3 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A        87 \
             55d0c0 spmv_per_nonzero+0x40 (/usr/bin/spmv-reorder)",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (l.tid, l.time_ns, l.addr, l.weight),
            (4243, 1_020_123_456_789, 0x7f00aa001008, Some(87))
        );
        assert_eq!(parse_perf_script_line("# ========"), Ok(None));
        assert!(parse_perf_script_line("13096 563.884869: ev: zzz 0").is_err());
        assert!(parse_perf_script_line("no time here").is_err());
        assert!(parse_perf_script_line("563.884869: ev: 10 0").is_err());
    }

    #[test]
    fn perf_script_iteration_windows() {
        let mut l = layout(false);
        l.iteration_times_ns = vec![
            (1_000_000_000, 2_000_000_000),
            (2_000_000_000, 3_000_000_000),
        ];
        let text = "10 1.500000000: cpu/mem-loads/P: 4000 30\n\
                    10 2.500000000: cpu/mem-loads/P: 4008 40\n\
                    11 2.600000000: cpu/mem-stores/P: 5000 0\n\
                    11 2.700000000: cpu/mem-loads/P: 8000 0\n";
        let p = Path::new("t.txt");
        let r = parse_perf_script(text.as_bytes(), p, &l, IterationSelect::Auto).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].thread, r[0].latency), (10, Some(40)));
        assert_eq!((r[1].access, r[1].latency), (Access::Store, None));
        let all = parse_perf_script(text.as_bytes(), p, &l, IterationSelect::All).unwrap();
        assert_eq!(all.len(), 3);
        l.iteration_times_ns = vec![(5, 6), (7, 8)];
        assert!(matches!(
            parse_perf_script(text.as_bytes(), p, &l, IterationSelect::Auto),
            Err(SamplingError::ClockMismatch)
        ));
    }

    #[test]
    fn resample_keeps_every_pth_event() {
        let rec = |i: u64| TraceRecord {
            thread: 7,
            time: i,
            addr: 0x4000 + 8 * (i % 4),
            access: Access::Load,
            latency: None,
            target: Some(Target {
                array: Array::X,
                index: i % 4,
            }),
        };
        let records: Vec<_> = (0..100).map(rec).collect();
        let opts = SimOptions {
            period: 10,
            randomize: false,
            ..SimOptions::default()
        };
        let out = resample(&records, &opts, false).unwrap();
        assert_eq!(out.len(), 10);
        let out = resample(&records, &opts, true).unwrap();
        assert_eq!(out.len(), 10);
        assert!(out.iter().all(|r| r.latency == Some(4))); // all hits after the first miss
    }
}
