//! A cache hierarchy model (private L1 and L2 per thread, one shared L3; set-associative, LRU,
//! write-allocate) and a PMU model (events above a latency threshold, one sample per randomised
//! period of events).
//!
//! `O(ways)` per access and level. Used by the simulator ([`crate::simulate`]) and, optionally, to
//! give latencies to a valgrind trace.

use crate::SamplingError;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

/// Geometry of one cache level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheConfig {
    /// Capacity in bytes.
    pub size: u64,
    /// Associativity.
    pub ways: u32,
    /// Line size in bytes (a power of two).
    pub line: u32,
}

impl CacheConfig {
    /// `size` bytes, `ways`-way, 64-byte lines.
    pub const fn new(size: u64, ways: u32) -> Self {
        CacheConfig {
            size,
            ways,
            line: 64,
        }
    }

    /// Checks that the geometry makes whole sets.
    ///
    /// # Errors
    /// [`SamplingError::InvalidOption`] for a zero size or ways, a line size that is not a power of
    /// two, or a size that is not a multiple of `ways * line`.
    pub fn validate(&self, name: &'static str) -> Result<(), SamplingError> {
        let set_bytes = self.ways as u64 * self.line as u64;
        if self.ways == 0
            || !self.line.is_power_of_two()
            || self.size == 0
            || !self.size.is_multiple_of(set_bytes)
        {
            return Err(SamplingError::InvalidOption {
                name,
                value: format!("{}B:{}-way:{}B lines", self.size, self.ways, self.line),
                expected: "a size that is a non-zero multiple of ways * line (line a power of two)",
            });
        }
        Ok(())
    }
}

/// Load-to-use latency in cycles of a hit in each level, and of memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Latencies {
    /// L1 hit.
    pub l1: u32,
    /// L2 hit.
    pub l2: u32,
    /// L3 hit.
    pub l3: u32,
    /// Memory.
    pub memory: u32,
}

impl Default for Latencies {
    fn default() -> Self {
        Latencies {
            l1: 4,
            l2: 14,
            l3: 50,
            memory: 200,
        }
    }
}

/// One set-associative LRU cache of line addresses.
#[derive(Debug, Clone)]
struct Cache {
    ways: usize,
    sets: u64,
    /// `sets * ways` line tags, most recently used first within a set; `u64::MAX` is empty.
    tags: Vec<u64>,
}

impl Cache {
    fn new(c: &CacheConfig) -> Self {
        let sets = c.size / (c.ways as u64 * c.line as u64);
        Cache {
            ways: c.ways as usize,
            sets,
            tags: vec![u64::MAX; (sets * c.ways as u64) as usize],
        }
    }

    /// Looks `line` up; fills it on a miss. Returns whether it hit.
    fn access(&mut self, line: u64) -> bool {
        let set = (line % self.sets) as usize;
        let ways = &mut self.tags[set * self.ways..(set + 1) * self.ways];
        match ways.iter().position(|&t| t == line) {
            Some(p) => {
                ways[..=p].rotate_right(1);
                true
            }
            None => {
                ways.rotate_right(1);
                ways[0] = line;
                false
            }
        }
    }
}

/// Private L1/L2 per thread and a shared L3, inclusive fills, no coherence traffic (the traced
/// threads write disjoint parts of `y`).
#[derive(Debug, Clone)]
pub struct CacheHierarchy {
    line_shift: u32,
    l1: Vec<Cache>,
    l2: Vec<Cache>,
    l3: Cache,
    latencies: Latencies,
}

impl CacheHierarchy {
    /// A hierarchy for `threads` threads.
    ///
    /// # Errors
    /// [`SamplingError::InvalidOption`] for an invalid level, or levels with different line sizes;
    /// [`SamplingError::CacheStateTooLarge`] when the tags of every level (8 bytes a line) cannot
    /// be allocated, checked before any is.
    pub fn new(
        threads: usize,
        levels: [CacheConfig; 3],
        latencies: Latencies,
    ) -> Result<Self, SamplingError> {
        for (c, name) in levels.iter().zip(["l1", "l2", "l3"]) {
            c.validate(name)?;
        }
        if levels.iter().any(|c| c.line != levels[0].line) {
            return Err(SamplingError::InvalidOption {
                name: "line",
                value: format!("{}/{}/{}", levels[0].line, levels[1].line, levels[2].line),
                expected: "the same line size in every level",
            });
        }
        reserve_tags(threads, &levels)?;
        Ok(CacheHierarchy {
            line_shift: levels[0].line.trailing_zeros(),
            l1: vec![Cache::new(&levels[0]); threads],
            l2: vec![Cache::new(&levels[1]); threads],
            l3: Cache::new(&levels[2]),
            latencies,
        })
    }

    /// An access of `thread` to `addr` (load or store alike: write-allocate); returns its latency.
    ///
    /// # Panics
    /// If `thread` is not below the thread count given to [`CacheHierarchy::new`].
    pub fn access(&mut self, thread: usize, addr: u64) -> u32 {
        let line = addr >> self.line_shift;
        if self.l1[thread].access(line) {
            self.latencies.l1
        } else if self.l2[thread].access(line) {
            self.latencies.l2
        } else if self.l3.access(line) {
            self.latencies.l3
        } else {
            self.latencies.memory
        }
    }
}

/// Reserves (and gives back) the tags of a hierarchy of private L1 and L2 for `threads` threads
/// and one L3, so that too many threads or too large levels end in an error, not an abort
/// partway through filling them.
fn reserve_tags(threads: usize, levels: &[CacheConfig; 3]) -> Result<(), SamplingError> {
    let lines = |c: &CacheConfig| c.size / c.line as u64;
    let bytes = (threads as u64)
        .saturating_mul(lines(&levels[0]).saturating_add(lines(&levels[1])))
        .saturating_add(lines(&levels[2]))
        .saturating_mul(std::mem::size_of::<u64>() as u64);
    if spmv_reorder_sparse::can_allocate(bytes) {
        Ok(())
    } else {
        Err(SamplingError::CacheStateTooLarge { threads, bytes })
    }
}

/// A sampling PMU of one thread: every event (an access with latency `>= threshold`) decrements a
/// counter; when it reaches zero the event is sampled and the counter restarts from a new period,
/// drawn uniformly from `[P - P/2, P + P/2]` when randomised (mean `P`), as the thesis does to
/// avoid sampling in lock-step with the loop.
#[derive(Debug, Clone)]
pub struct Pmu {
    period: u64,
    threshold: u32,
    randomize: bool,
    countdown: u64,
    rng: Xoshiro256PlusPlus,
}

impl Pmu {
    /// A PMU with period `period` (at least 1) and latency threshold `threshold`.
    pub fn new(period: u64, threshold: u32, randomize: bool, seed: u64) -> Self {
        let mut pmu = Pmu {
            period: period.max(1),
            threshold,
            randomize,
            countdown: 0,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
        };
        pmu.countdown = pmu.next_period();
        pmu
    }

    fn next_period(&mut self) -> u64 {
        if self.randomize && self.period > 1 {
            let half = self.period / 2;
            self.rng
                // Saturating: a period near `u64::MAX` must not wrap into an empty range.
                .random_range(self.period - half..=self.period.saturating_add(half))
                .max(1)
        } else {
            self.period
        }
    }

    /// Counts an access of latency `latency`; true when it is sampled.
    pub fn observe(&mut self, latency: u32) -> bool {
        if latency < self.threshold {
            return false;
        }
        self.countdown -= 1;
        if self.countdown == 0 {
            self.countdown = self.next_period();
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_evicts_the_least_recently_used_way() {
        // 2 sets x 2 ways x 64 B: lines 0, 2, 4 share set 0.
        let mut c = Cache::new(&CacheConfig::new(256, 2));
        assert!(!c.access(0));
        assert!(!c.access(2));
        assert!(c.access(0)); // 0 is now the most recent
        assert!(!c.access(4)); // evicts 2
        assert!(c.access(0));
        assert!(!c.access(2));
        assert!(!c.access(1)); // set 1 is independent
        assert!(!c.access(4)); // 4 was evicted by 2
    }

    #[test]
    fn hierarchy_latencies_follow_the_levels() {
        let levels = [
            CacheConfig::new(128, 2),
            CacheConfig::new(256, 2),
            CacheConfig::new(512, 2),
        ];
        let mut h = CacheHierarchy::new(2, levels, Latencies::default()).unwrap();
        assert_eq!(h.access(0, 0x1000), 200);
        assert_eq!(h.access(0, 0x1008), 4); // same line
        assert_eq!(h.access(1, 0x1000), 50); // other core: shared L3 only
                                             // Two other lines evict it from thread 0's L1 (one set of 2 ways), not from its L2 (they
                                             // go to L2 set 1, it stays in set 0).
        h.access(0, 0x1040);
        h.access(0, 0x10c0);
        assert_eq!(h.access(0, 0x1000), 14);
        assert!(
            CacheHierarchy::new(1, [CacheConfig::new(100, 3); 3], Latencies::default()).is_err()
        );
    }

    #[test]
    fn cache_state_beyond_memory_is_an_error_not_an_abort() {
        let terabyte = CacheConfig::new(1 << 40, 16);
        // 2^20 threads of 2 TiB private caches: more than any address space holds.
        let err = CacheHierarchy::new(1 << 20, [terabyte; 3], Latencies::default()).unwrap_err();
        assert!(
            matches!(err, SamplingError::CacheStateTooLarge { threads, bytes }
                if threads == 1 << 20 && bytes > 1 << 50),
            "{err}"
        );
    }

    #[test]
    fn randomized_periods_near_the_largest_do_not_wrap() {
        let mut p = Pmu::new(u64::MAX, 0, true, 3);
        assert!(p.countdown >= u64::MAX - u64::MAX / 2);
        assert!(!p.observe(1));
    }

    #[test]
    fn pmu_samples_one_event_per_period() {
        let mut p = Pmu::new(10, 5, false, 0);
        let sampled = (0..1000).filter(|_| p.observe(50)).count();
        assert_eq!(sampled, 100);
        assert!((0..1000).all(|_| !p.observe(4))); // below threshold: no events
        let mut r = Pmu::new(10, 0, true, 1);
        let sampled = (0..100_000).filter(|_| r.observe(1)).count();
        assert!((9_000..11_000).contains(&sampled), "{sampled}");
    }
}
