//! valgrind lackey traces (`--trace-mem=yes`): every load and store of the real kernel, mapped
//! through the run's [`Layout`] and cut at the run's iteration markers.
//!
//! `O(lines)`, streaming (only accesses to the layout's arrays in the kept iteration are stored).
//! Called by [`crate::sample`] for `trace:lackey=...`.

use crate::import::{for_each_line, open, IterationSelect};
use crate::{Access, Array, Layout, SamplingError, TraceRecord};
use std::io::BufRead;
use std::path::Path;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::test_support::layout;
    use crate::Target;

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
}
