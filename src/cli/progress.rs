//! Progress on stderr for long commands: one bar per stage, with a percentage and the bytes or
//! the count done, drawn only when stderr is a terminal and not `--quiet`. Each stage is also
//! timed, with the peak resident memory it reached, for `--report`.

use indicatif::{ProgressBar, ProgressStyle};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One stage of a command: how long it took and the most memory the process held during it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StageRecord {
    /// The stage, as its bar names it.
    pub stage: String,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Peak resident memory during the stage, in bytes (Linux: `VmHWM`, reset at the stage's
    /// start through `/proc/self/clear_refs`; `None` where that cannot be read).
    pub peak_rss_bytes: Option<u64>,
}

/// The stages so far and the one running.
#[derive(Default)]
struct StageLog {
    done: Vec<StageRecord>,
    current: Option<(String, Instant)>,
}

impl StageLog {
    fn close(&mut self) {
        if let Some((stage, start)) = self.current.take() {
            self.done.push(StageRecord {
                stage,
                seconds: start.elapsed().as_secs_f64(),
                peak_rss_bytes: peak_rss_bytes(),
            });
        }
    }

    fn open(&mut self, stage: String) {
        self.close();
        // Resets the peak to the current resident memory (Linux 4.0 and later); where it is
        // refused, the peak reported is the process's so far.
        let _ = std::fs::write("/proc/self/clear_refs", "5");
        self.current = Some((stage, Instant::now()));
    }
}

/// The process's peak resident memory since the last reset, from `/proc/self/status`.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// What a stage counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Bytes (reading, binary writing): shown as `12.5 MiB/1.2 GiB`.
    Bytes,
    /// Anything counted (rows, steps, products): shown as `3/8`.
    Count,
    /// A share of the work: shown as a percentage alone.
    Share,
}

/// The bar of the current stage, and the log of the stages' times and memory.
#[derive(Clone)]
pub struct Progress {
    bar: ProgressBar,
    log: Arc<Mutex<StageLog>>,
}

/// Positions of a [`Unit::Share`] bar.
pub const SHARE_STEPS: u64 = 1000;

impl Progress {
    /// A bar on stderr (hidden when `quiet`; indicatif also hides it when stderr is no
    /// terminal).
    pub fn new(quiet: bool) -> Self {
        let bar = if quiet {
            ProgressBar::hidden()
        } else {
            ProgressBar::new(0)
        };
        bar.enable_steady_tick(Duration::from_millis(200));
        Progress {
            bar,
            log: Arc::default(),
        }
    }

    /// The stages timed so far (the running one closed first).
    pub fn stages(&self) -> Vec<StageRecord> {
        let mut log = self.log.lock().expect("no panic while logging");
        log.close();
        log.done.clone()
    }

    /// The running stage's message, if any.
    pub fn current(&self) -> Option<String> {
        let log = self.log.lock().expect("no panic while logging");
        log.current.as_ref().map(|(s, _)| s.clone())
    }

    /// Starts a stage: `message`, then a bar of `total` in `unit`.
    pub fn stage(&self, message: impl Into<String>, unit: Unit, total: u64) {
        let message = message.into();
        self.log
            .lock()
            .expect("no panic while logging")
            .open(message.clone());
        let counts = match unit {
            Unit::Bytes => " {binary_bytes}/{binary_total_bytes}",
            Unit::Count => " {pos}/{len}",
            Unit::Share => "",
        };
        let template =
            format!("[{{elapsed_precise}}] {{msg}} {{wide_bar}} {{percent:>3}}%{counts}");
        // The bar is drawn from another thread: the message and position change first, so that a
        // drawing in between never shows the last stage's count against this one's total.
        self.bar.set_message(message);
        self.bar.set_position(0);
        self.bar.set_length(if unit == Unit::Share {
            SHARE_STEPS
        } else {
            total
        });
        self.bar.set_style(
            ProgressStyle::with_template(&template)
                .expect("a valid template")
                .progress_chars("=> "),
        );
    }

    /// Sets how far the stage has come, and its total when it is known only now (0: keep).
    pub fn set(&self, done: u64, total: u64) {
        if total > 0 && self.bar.length() != Some(total) {
            self.bar.set_length(total);
        }
        self.bar.set_position(done);
    }

    /// Shows what the running stage is doing beside its name (`None`: its name alone). The stage
    /// and its timing stay as they are.
    pub fn set_detail(&self, detail: Option<&str>) {
        let Some(stage) = self.current() else {
            return;
        };
        self.bar.set_message(match detail {
            Some(detail) => format!("{stage} ({detail})"),
            None => stage,
        });
    }

    /// Counts `done` more of the stage: safe from several threads at once, and never back.
    pub fn add(&self, done: u64) {
        self.bar.inc(done);
    }

    /// Sets a [`Unit::Share`] stage's share done, in `[0, 1]`.
    pub fn set_share(&self, share: f64) {
        self.bar
            .set_position((share.clamp(0.0, 1.0) * SHARE_STEPS as f64) as u64);
    }

    /// Removes the bar and ends the running stage.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
        self.log.lock().expect("no panic while logging").close();
    }
}
