//! `perf script` traces (from `perf record -d -W` on PEBS load-latency or IBS events): one sample
//! per line with its thread, time, data address and weight, mapped through the run's [`Layout`]
//! and cut at the run's iteration time windows.
//!
//! `O(lines)`, streaming. Called by [`crate::sample`] for `trace:perf-script=...`.

use crate::import::{for_each_line, open, IterationSelect};
use crate::{Access, Layout, SamplingError, TraceRecord};
use std::io::BufRead;
use std::path::Path;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::test_support::layout;

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
}
