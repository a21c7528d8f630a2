//! Parsers of the options' numbers, shared by every subcommand, so that a value out of range is
//! refused when the command line is parsed, with a message that gives the range.

use clap::builder::RangedU64ValueParser;

/// The longest time limit accepted, in seconds (a year).
pub const MAX_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// The processing units this process may run on: the most threads any option accepts (more
/// would only time-slice, and spinning workers would take the machine).
pub fn max_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A thread count: from 1 to [`max_threads`].
pub fn threads(text: &str) -> Result<usize, String> {
    // Text that is no count is refused with the same message as 0.
    let threads = text.trim().parse::<usize>().unwrap_or(0);
    check_threads(threads, max_threads(), "the CPUs this process may use")
}

/// A thread count of 1 or more, for a machine known only once the command runs (an hwloc XML
/// file), whose CPUs then bound it ([`check_threads`]).
pub fn any_threads(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(t) if t >= 1 => Ok(t),
        _ => Err("expected a thread count of 1 or more".to_string()),
    }
}

/// `threads` when from 1 to `max`, the CPUs that `cpus` names; else the message that says so.
pub fn check_threads(threads: usize, max: usize, cpus: &str) -> Result<usize, String> {
    match threads {
        t if (1..=max).contains(&t) => Ok(t),
        _ => Err(format!("expected a thread count from 1 to {max} ({cpus})")),
    }
}

/// A time budget in seconds: more than 0, at most a year.
pub fn seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s > 0.0 && s <= MAX_SECONDS => Ok(s),
        _ => Err(format!(
            "expected seconds, more than 0 and at most {MAX_SECONDS} (a year)"
        )),
    }
}

/// A duration already spent in seconds: 0 or more, at most a year.
pub fn elapsed_seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if (0.0..=MAX_SECONDS).contains(&s) => Ok(s),
        _ => Err(format!("expected seconds from 0 to {MAX_SECONDS}")),
    }
}

/// A `usize` count in `min..=max`.
pub fn count(min: u64, max: u64) -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::<usize>::new().range(min..=max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_enforced_with_their_bounds_in_the_message() {
        assert_eq!(threads("1"), Ok(1));
        assert_eq!(threads(&max_threads().to_string()), Ok(max_threads()));
        for bad in ["0", "100000", "-1", "x", "18446744073709551616"] {
            let e = threads(bad).unwrap_err();
            assert!(e.contains(&format!("1 to {}", max_threads())), "{e}");
        }
        assert_eq!(any_threads("100000"), Ok(100_000));
        assert!(any_threads("0").is_err() && any_threads("x").is_err());
        assert_eq!(check_threads(4, 4, "the PUs of t.xml"), Ok(4));
        let e = check_threads(5, 4, "the PUs of t.xml").unwrap_err();
        assert!(e.contains("from 1 to 4 (the PUs of t.xml)"), "{e}");
        assert_eq!(seconds("0.5"), Ok(0.5));
        for bad in ["0", "-1", "1e300", "inf", "NaN", "x"] {
            assert!(seconds(bad).unwrap_err().contains("31536000"), "{bad}");
        }
        assert_eq!(elapsed_seconds("0"), Ok(0.0));
        assert!(elapsed_seconds("-0.1").is_err());
    }
}
