//! Resampling a recorded trace through the cache model and the PMU model: gives a lackey trace
//! latencies, and turns a full trace into a sampled one (period, threshold, event filter).
//!
//! `O(records · ways)`. Called by [`crate::sample`] for `trace:...,cache=on` or `period=P`.

use crate::{
    Access, Array, CacheHierarchy, EventFilter, Pmu, SamplingError, SimOptions, TraceRecord,
};
use std::collections::HashMap;

/// Passes a recorded trace through the cache model (when `cache`) and the PMU model of `opts`
/// (period, threshold, randomisation, event filter, stores), in time order per thread; threads
/// get private L1/L2 in order of first appearance. Sampled records get the model's latency when
/// `cache` (else keep theirs). With `cache == false` and period 1 this keeps every event.
///
/// # Errors
/// [`SamplingError::InvalidOption`] for an invalid cache geometry;
/// [`SamplingError::CacheStateTooLarge`] when the trace has more threads than simulated caches fit
/// in memory.
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
    // Without `cache` the records keep their own latencies: no simulated cache is needed, and a
    // trace of many thread ids must not pay for one per id.
    let mut caches = if cache {
        Some(CacheHierarchy::new(
            threads.len().max(1),
            opts.caches,
            opts.latencies,
        )?)
    } else {
        None
    };
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
        let latency = match caches.as_mut() {
            Some(c) => Some(c.access(t, r.addr)),
            None => r.latency,
        };
        let array = r.target.map(|t| t.array);
        let is_event = (opts.stores || r.access == Access::Load)
            && (opts.events == EventFilter::All || matches!(array, Some(Array::X | Array::Y)));
        if is_event && pmus[t].observe(latency.unwrap_or(u32::MAX)) {
            out.push(TraceRecord { latency, ..*r });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Target;

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
