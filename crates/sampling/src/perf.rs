//! Live hardware sampling through `perf_event_open`: Intel PEBS load latency (`mem-loads` with an
//! `ldlat` threshold) or AMD IBS op, one sampler per SpMV thread, samples mapped through the live
//! kernel's layout (SPEC §5, thesis chapter 3).
//!
//! Cost: one SpMV warm-up plus the sampled iterations, and `O(samples)` decoding. The PMU event is
//! read from sysfs (`/sys/bus/event_source/devices/{cpu,cpu_core}/events/mem-loads` and `format/`,
//! or `ibs_op/type`); the sample records (`IP | TID | TIME | ADDR | CPU | WEIGHT | DATA_SRC`) are
//! decoded here from their bytes. On a machine without such a PMU (most virtual machines) the
//! sampler fails with [`SamplingError::NoSamplingPmu`], which names the other trace sources.
//! Called by [`crate::sample`] for `dast-perf`.

use crate::{Access, DastMode, Layout, SamplingError, TraceRecord, TracedKernel, TracedSpmv};
use spmv_reorder_sparse::CsrMatrix;
use std::path::{Path, PathBuf};

/// Where Linux lists its PMUs.
pub const SYSFS_PMUS: &str = "/sys/bus/event_source/devices";

/// A PMU that samples load addresses with their latencies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PmuKind {
    /// Intel PEBS load latency (`cpu/mem-loads,ldlat=N/P`).
    IntelPebs,
    /// AMD instruction-based sampling of ops (`ibs_op`).
    AmdIbs,
}

/// Options of the live sampler.
#[derive(Debug, Clone, PartialEq)]
pub struct PerfOptions {
    /// Sample period in events.
    pub period: u64,
    /// Load-latency threshold in cycles (Intel `ldlat`; AMD's when the PMU has the field).
    pub ldlat: u32,
    /// Threads (`None`: the caller's thread count).
    pub threads: Option<usize>,
    /// The kernel to run.
    pub kernel: TracedKernel,
    /// Iterations; the first one warms the caches unsampled, the others are sampled.
    pub iterations: u32,
    /// Which samples DAST uses.
    pub mode: DastMode,
    /// The PMU to use (`None`: whichever exists).
    pub pmu: Option<PmuKind>,
    /// The sysfs PMU directory (tests point it at a fake tree).
    pub sysfs: PathBuf,
}

impl Default for PerfOptions {
    /// Period 1000, `ldlat` 30 cycles (perf mem's default), kernel A, 2 iterations, any PMU.
    fn default() -> Self {
        PerfOptions {
            period: 1000,
            ldlat: 30,
            threads: None,
            kernel: TracedKernel::PerNonzero,
            iterations: 2,
            mode: DastMode::DualArray,
            pmu: None,
            sysfs: PathBuf::from(SYSFS_PMUS),
        }
    }
}

/// A PMU event ready for `perf_event_attr`: its dynamic type and config words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PmuEvent {
    /// Which PMU.
    pub kind: PmuKind,
    /// `perf_event_attr.type` (from sysfs `type`).
    pub pmu_type: u32,
    /// `config`, `config1`, `config2`.
    pub config: [u64; 3],
}

fn read_sysfs(path: &Path) -> Result<String, SamplingError> {
    std::fs::read_to_string(path)
        .map(|s| s.trim().to_owned())
        .map_err(|e| SamplingError::io(path, e))
}

fn sysfs_error(path: &Path, expected: &'static str, found: &str) -> SamplingError {
    SamplingError::Sysfs {
        path: path.to_owned(),
        expected,
        found: found.to_owned(),
    }
}

/// A sysfs format field: which config word and which bit ranges (low bits first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatField {
    /// 0 for `config`, 1 for `config1`, 2 for `config2`.
    pub word: usize,
    /// Inclusive bit ranges, the value's low bits going to the first.
    pub ranges: Vec<(u32, u32)>,
}

impl FormatField {
    /// Parses a format file's content, e.g. `config:0-7`, `config1:0-15`, `config:0-7,32-35`.
    ///
    /// # Errors
    /// `Err(())` when the text is not of that form.
    #[allow(clippy::result_unit_err)]
    pub fn parse(text: &str) -> Result<Self, ()> {
        let (word, bits) = text.trim().split_once(':').ok_or(())?;
        let word = match word {
            "config" => 0,
            "config1" => 1,
            "config2" => 2,
            _ => return Err(()),
        };
        let ranges = bits
            .split(',')
            .map(|r| {
                let (lo, hi) = r.split_once('-').unwrap_or((r, r));
                let (lo, hi): (u32, u32) =
                    (lo.parse().map_err(|_| ())?, hi.parse().map_err(|_| ())?);
                if lo <= hi && hi < 64 {
                    Ok((lo, hi))
                } else {
                    Err(())
                }
            })
            .collect::<Result<_, ()>>()?;
        Ok(FormatField { word, ranges })
    }

    /// Writes `value` into `config`, spreading its bits over the ranges.
    pub fn apply(&self, config: &mut [u64; 3], mut value: u64) {
        for &(lo, hi) in &self.ranges {
            let width = hi - lo + 1;
            let mask = if width == 64 {
                u64::MAX
            } else {
                (1u64 << width) - 1
            };
            config[self.word] = (config[self.word] & !(mask << lo)) | ((value & mask) << lo);
            value = value.checked_shr(width).unwrap_or(0);
        }
    }
}

/// Parses an event file (`event=0xcd,umask=0x1,ldlat=3`; a bare term means 1) into terms.
///
/// # Errors
/// `Err(term)` naming the first term whose value is not a number.
pub fn parse_event_terms(text: &str) -> Result<Vec<(String, u64)>, String> {
    text.trim()
        .split(',')
        .filter(|t| !t.is_empty())
        .map(|term| {
            let (name, value) = term.split_once('=').unwrap_or((term, "1"));
            let value = match value.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => value.parse(),
            }
            .map_err(|_| term.to_owned())?;
            Ok((name.to_owned(), value))
        })
        .collect()
}

/// Reads the format field `name` of the PMU at `pmu`, if the PMU has it.
fn format_field(pmu: &Path, name: &str) -> Result<Option<FormatField>, SamplingError> {
    let path = pmu.join("format").join(name);
    if !path.exists() {
        return Ok(None);
    }
    let text = read_sysfs(&path)?;
    FormatField::parse(&text)
        .map(Some)
        .map_err(|()| sysfs_error(&path, "a format like config:0-7 or config1:0-15", &text))
}

fn pmu_type(pmu: &Path) -> Result<u32, SamplingError> {
    let path = pmu.join("type");
    let text = read_sysfs(&path)?;
    text.parse()
        .map_err(|_| sysfs_error(&path, "a PMU type number", &text))
}

/// Applies `terms` through the PMU's format files.
fn build_config(pmu: &Path, terms: &[(String, u64)]) -> Result<[u64; 3], SamplingError> {
    let mut config = [0u64; 3];
    for (name, value) in terms {
        let field = format_field(pmu, name)?.ok_or_else(|| {
            sysfs_error(
                &pmu.join("format"),
                "a format file for every event term",
                name,
            )
        })?;
        field.apply(&mut config, *value);
    }
    Ok(config)
}

/// The Intel PEBS load-latency event of the PMU directory `pmu` with threshold `ldlat`, if `pmu`
/// has `events/mem-loads` and `format/ldlat`.
fn intel_event(pmu: &Path, ldlat: u32) -> Result<Option<PmuEvent>, SamplingError> {
    let event_path = pmu.join("events").join("mem-loads");
    if !event_path.exists() || !pmu.join("format").join("ldlat").exists() {
        return Ok(None);
    }
    let text = read_sysfs(&event_path)?;
    let mut terms = parse_event_terms(&text).map_err(|term| {
        sysfs_error(
            &event_path,
            "terms like event=0xcd,umask=0x1,ldlat=3",
            &term,
        )
    })?;
    terms.retain(|(name, _)| name != "ldlat");
    terms.push(("ldlat".to_owned(), ldlat as u64));
    Ok(Some(PmuEvent {
        kind: PmuKind::IntelPebs,
        pmu_type: pmu_type(pmu)?,
        config: build_config(pmu, &terms)?,
    }))
}

/// The AMD IBS op event of the PMU directory `pmu`, if it exists: counting dispatched ops
/// (`cnt_ctl=1`) when the PMU has that field, with `ldlat` when it has that one (Zen 5 kernels).
fn amd_event(pmu: &Path, ldlat: u32) -> Result<Option<PmuEvent>, SamplingError> {
    if !pmu.join("type").exists() {
        return Ok(None);
    }
    let mut config = [0u64; 3];
    if let Some(f) = format_field(pmu, "cnt_ctl")? {
        f.apply(&mut config, 1);
    }
    if let Some(f) = format_field(pmu, "ldlat")? {
        f.apply(&mut config, ldlat as u64);
    }
    Ok(Some(PmuEvent {
        kind: PmuKind::AmdIbs,
        pmu_type: pmu_type(pmu)?,
        config,
    }))
}

/// Finds a PMU that samples load addresses and latencies under `sysfs` (normally
/// [`SYSFS_PMUS`]): Intel `cpu` or `cpu_core` with `mem-loads` and `ldlat`, or AMD `ibs_op`.
///
/// # Errors
/// [`SamplingError::NoSamplingPmu`] when there is none (or not the one `want`ed);
/// [`SamplingError::Sysfs`]/[`SamplingError::Io`] for unreadable or malformed sysfs files.
pub fn detect_pmu(
    sysfs: &Path,
    want: Option<PmuKind>,
    ldlat: u32,
) -> Result<PmuEvent, SamplingError> {
    if want != Some(PmuKind::AmdIbs) {
        for name in ["cpu", "cpu_core"] {
            if let Some(e) = intel_event(&sysfs.join(name), ldlat)? {
                return Ok(e);
            }
        }
    }
    if want != Some(PmuKind::IntelPebs) {
        if let Some(e) = amd_event(&sysfs.join("ibs_op"), ldlat)? {
            return Ok(e);
        }
    }
    Err(SamplingError::NoSamplingPmu {
        intel: sysfs.join("cpu/events/mem-loads"),
        amd: sysfs.join("ibs_op"),
    })
}

/// One decoded `PERF_RECORD_SAMPLE` with sample type
/// `IP | TID | TIME | ADDR | CPU | WEIGHT | DATA_SRC`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawSample {
    /// Instruction address.
    pub ip: u64,
    /// Process id.
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
    /// Time stamp (ns, perf clock).
    pub time: u64,
    /// Data address.
    pub addr: u64,
    /// CPU.
    pub cpu: u32,
    /// Weight: the load latency in cycles.
    pub weight: u64,
    /// `perf_mem_data_src` word (load or store in its `mem_op` bits).
    pub data_src: u64,
}

/// `PERF_RECORD_SAMPLE`.
pub const PERF_RECORD_SAMPLE: u32 = 9;
/// Bytes of a [`RawSample`] record body.
pub const SAMPLE_BYTES: usize = 56;

/// Decodes the body (after the 8-byte header) of a sample record, native endianness.
///
/// # Errors
/// [`SamplingError::TruncatedRecord`] when the body is shorter than [`SAMPLE_BYTES`].
pub fn decode_sample(body: &[u8]) -> Result<RawSample, SamplingError> {
    if body.len() < SAMPLE_BYTES {
        return Err(SamplingError::TruncatedRecord {
            expected: SAMPLE_BYTES,
            found: body.len(),
        });
    }
    let u64_at = |o: usize| u64::from_ne_bytes(body[o..o + 8].try_into().expect("8 bytes"));
    let u32_at = |o: usize| u32::from_ne_bytes(body[o..o + 4].try_into().expect("4 bytes"));
    Ok(RawSample {
        ip: u64_at(0),
        pid: u32_at(8),
        tid: u32_at(12),
        time: u64_at(16),
        addr: u64_at(24),
        cpu: u32_at(32),
        // 4 reserved bytes after cpu
        weight: u64_at(40),
        data_src: u64_at(48),
    })
}

impl RawSample {
    /// The sample as a trace record of `layout`: a store when `data_src`'s `mem_op` field (bits
    /// 0-4) has `PERF_MEM_OP_STORE` (0x04), a load otherwise; weight 0 means an unknown latency.
    pub fn to_record(&self, layout: &Layout) -> TraceRecord {
        const PERF_MEM_OP_STORE: u64 = 0x04;
        let is_store = self.data_src & PERF_MEM_OP_STORE != 0;
        TraceRecord {
            thread: self.tid,
            time: self.time,
            addr: self.addr,
            access: if is_store {
                Access::Store
            } else {
                Access::Load
            },
            latency: (self.weight > 0).then(|| self.weight.min(u32::MAX as u64) as u32),
            target: layout.resolve(self.addr),
        }
    }
}

/// Runs the traced kernel on `matrix` with one hardware sampler per thread and returns the layout
/// and the samples of the sampled iterations (all but the first). Each record's `thread` is its
/// stream, `(iteration - 1) * threads + thread index`, so every stream holds one thread's block
/// for one iteration from its start.
///
/// # Errors
/// [`SamplingError::NoSamplingPmu`] without a suitable PMU; [`SamplingError::Perf`] when the
/// kernel refuses the event (e.g. `perf_event_paranoid`); [`SamplingError::LiveSamplingNotBuilt`]
/// when a PMU exists but the crate was built without its `live` feature.
pub fn sample_live(
    matrix: &CsrMatrix<f64>,
    opts: &PerfOptions,
    threads: usize,
) -> Result<(Layout, Vec<TraceRecord>), SamplingError> {
    let event = detect_pmu(&opts.sysfs, opts.pmu, opts.ldlat)?;
    let iterations = opts.iterations.max(2);
    let threads = opts.threads.unwrap_or(threads);
    let mut run = TracedSpmv::new(matrix, opts.kernel, threads, iterations);
    let layout = run.layout();
    run.run_iteration(0);
    let mut records = Vec::new();
    for it in 1..iterations {
        let per_thread = run.run_iteration_with(it, |_, block| sample_block(&event, opts, block));
        for (t, samples) in per_thread.into_iter().enumerate() {
            // One stream per (iteration, thread): DAST never pairs samples of two iterations.
            let stream = ((it - 1) as usize * threads + t) as u32;
            records.extend(samples?.iter().map(|s| TraceRecord {
                thread: stream,
                ..s.to_record(&layout)
            }));
        }
    }
    Ok((layout, records))
}

/// Without the `live` feature: the error that says how to get live sampling.
#[cfg(not(feature = "live"))]
fn sample_block(
    _event: &PmuEvent,
    _opts: &PerfOptions,
    _block: &mut dyn FnMut(),
) -> Result<Vec<RawSample>, SamplingError> {
    Err(SamplingError::LiveSamplingNotBuilt)
}

/// Opens a sampler on the calling thread, runs `block` under it and drains the samples.
#[cfg(feature = "live")]
fn sample_block(
    event: &PmuEvent,
    opts: &PerfOptions,
    block: &mut dyn FnMut(),
) -> Result<Vec<RawSample>, SamplingError> {
    use perf_event::events::Raw;
    use perf_event::{Builder, SampleFlag, SampleSkid};
    let perf = |what| move |source| SamplingError::Perf { what, source };
    let raw = Raw::new(event.config[0])
        .config1(event.config[1])
        .config2(event.config[2]);
    let mut builder = Builder::new(raw);
    builder
        .observe_self()
        .any_cpu()
        .enabled(false)
        .sample_period(opts.period)
        .sample(
            SampleFlag::IP
                | SampleFlag::TID
                | SampleFlag::TIME
                | SampleFlag::ADDR
                | SampleFlag::CPU
                | SampleFlag::WEIGHT
                | SampleFlag::DATA_SRC,
        );
    match event.kind {
        // PEBS: precise samples of user-space loads (perf_event_paranoid 2 allows only those).
        PmuKind::IntelPebs => {
            builder
                .precise_ip(SampleSkid::RequestZero)
                .exclude_kernel(true)
                .exclude_hv(true);
        }
        // IBS refuses the exclude_* flags on many kernels; kernel addresses simply map to no
        // array of the layout. It rounds the period down to a multiple of 16 ops.
        PmuKind::AmdIbs => {}
    }
    builder.attrs_mut().type_ = event.pmu_type;
    let counter = builder.build().map_err(perf("open the sampling event"))?;
    let mut sampler = counter
        .sampled(1 << 22)
        .map_err(perf("map the ring buffer"))?;
    sampler.enable().map_err(perf("enable"))?;
    block();
    sampler.disable().map_err(perf("disable"))?;
    let mut out = Vec::new();
    while let Some(record) = sampler.next_record() {
        if record.ty() == PERF_RECORD_SAMPLE {
            out.push(decode_sample(&record.to_contiguous())?);
        }
    }
    Ok(out)
}

/// `CLOCK_MONOTONIC` in nanoseconds: the clock of `perf record -k CLOCK_MONOTONIC`, so a traced
/// run can record its iterations' time windows in the layout.
#[allow(unsafe_code)]
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec and CLOCK_MONOTONIC is always supported on Linux;
    // clock_gettime writes only into `ts`.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_MONOTONIC) cannot fail on Linux");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Array;

    /// A fake sysfs tree: `files` are (relative path, content).
    fn fake_sysfs(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, content) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, format!("{content}\n")).unwrap();
        }
        dir
    }

    const INTEL: &[(&str, &str)] = &[
        ("cpu/type", "4"),
        ("cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3"),
        ("cpu/format/event", "config:0-7"),
        ("cpu/format/umask", "config:8-15"),
        ("cpu/format/ldlat", "config1:0-15"),
        ("cpu/format/inv", "config:23"),
    ];

    #[test]
    fn intel_pebs_event_from_sysfs() {
        let dir = fake_sysfs(INTEL);
        let e = detect_pmu(dir.path(), None, 30).unwrap();
        assert_eq!(e.kind, PmuKind::IntelPebs);
        assert_eq!(e.pmu_type, 4);
        assert_eq!(e.config, [0x01cd, 30, 0]);
        // Hybrid parts name the big-core PMU cpu_core.
        let hybrid: Vec<_> = INTEL
            .iter()
            .map(|(p, c)| (p.replacen("cpu/", "cpu_core/", 1), *c))
            .collect();
        let hybrid: Vec<(&str, &str)> = hybrid.iter().map(|(p, c)| (p.as_str(), *c)).collect();
        let dir = fake_sysfs(&hybrid);
        assert_eq!(detect_pmu(dir.path(), None, 50).unwrap().config[1], 50);
    }

    #[test]
    fn amd_ibs_event_from_sysfs() {
        let dir = fake_sysfs(&[
            ("ibs_op/type", "11"),
            ("ibs_op/format/cnt_ctl", "config:19"),
            ("ibs_op/format/l3missonly", "config:16"),
        ]);
        let e = detect_pmu(dir.path(), None, 30).unwrap();
        assert_eq!(
            (e.kind, e.pmu_type, e.config),
            (PmuKind::AmdIbs, 11, [1 << 19, 0, 0])
        );
        assert!(matches!(
            detect_pmu(dir.path(), Some(PmuKind::IntelPebs), 30),
            Err(SamplingError::NoSamplingPmu { .. })
        ));
    }

    #[test]
    fn no_pmu_and_broken_sysfs() {
        // This machine's situation: software PMUs only.
        let dir = fake_sysfs(&[("software/type", "1"), ("tracepoint/type", "2")]);
        let e = detect_pmu(dir.path(), None, 30).unwrap_err();
        assert!(matches!(e, SamplingError::NoSamplingPmu { .. }));
        let msg = e.to_string();
        assert!(msg.contains("dast-sim") && msg.contains("lackey"), "{msg}");
        let mut broken = INTEL.to_vec();
        broken[4] = ("cpu/format/ldlat", "config7:0-15");
        let dir = fake_sysfs(&broken);
        assert!(matches!(
            detect_pmu(dir.path(), None, 30),
            Err(SamplingError::Sysfs { .. })
        ));
        let mut broken = INTEL.to_vec();
        broken[1] = ("cpu/events/mem-loads", "event=zz");
        let dir = fake_sysfs(&broken);
        assert!(matches!(
            detect_pmu(dir.path(), None, 30),
            Err(SamplingError::Sysfs { .. })
        ));
    }

    #[test]
    fn format_fields_split_values_over_ranges() {
        let f = FormatField::parse("config:0-7,32-35").unwrap();
        let mut c = [0; 3];
        f.apply(&mut c, 0xabc);
        assert_eq!(c[0], 0xbc | (0xa << 32));
        assert_eq!(
            FormatField::parse("config2:5").unwrap().ranges,
            vec![(5, 5)]
        );
        for bad in ["config:7-3", "config:0-64", "conf:1", "config1", "config:x"] {
            assert!(FormatField::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_event_terms("event=0xcd,umask=0x1,any").unwrap(),
            vec![
                ("event".into(), 0xcd),
                ("umask".into(), 1),
                ("any".into(), 1)
            ]
        );
    }

    fn synthetic_record(s: &RawSample) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend(s.ip.to_ne_bytes());
        b.extend(s.pid.to_ne_bytes());
        b.extend(s.tid.to_ne_bytes());
        b.extend(s.time.to_ne_bytes());
        b.extend(s.addr.to_ne_bytes());
        b.extend(s.cpu.to_ne_bytes());
        b.extend(0u32.to_ne_bytes());
        b.extend(s.weight.to_ne_bytes());
        b.extend(s.data_src.to_ne_bytes());
        b
    }

    #[test]
    fn decodes_synthetic_sample_records() {
        let a = CsrMatrix::from_triplets(3, 3, vec![(0, 0, 1.0), (1, 2, 1.0)]).unwrap();
        let layout = TracedSpmv::new(&a, TracedKernel::PerNonzero, 1, 2).layout();
        let x = layout.region(Array::X).unwrap().base;
        let s = RawSample {
            ip: 0x55d0c0,
            pid: 10,
            tid: 11,
            time: 123_456,
            addr: x + 16,
            cpu: 1,
            weight: 87,
            data_src: 0x1_4202_4142, // a load hitting L3 (mem_op = LOAD = 0x2)
        };
        let bytes = synthetic_record(&s);
        let d = decode_sample(&bytes).unwrap();
        assert_eq!(d, s);
        let r = d.to_record(&layout);
        assert_eq!((r.thread, r.time, r.latency), (11, 123_456, Some(87)));
        assert_eq!(r.access, Access::Load);
        assert_eq!(r.target.unwrap().index, 2);
        let store = RawSample {
            data_src: 0x4,
            weight: 0,
            ..s
        };
        let r = decode_sample(&synthetic_record(&store))
            .unwrap()
            .to_record(&layout);
        assert_eq!((r.access, r.latency), (Access::Store, None));
        assert!(matches!(
            decode_sample(&bytes[..40]),
            Err(SamplingError::TruncatedRecord { found: 40, .. })
        ));
    }

    #[test]
    fn live_sampling_fails_clearly_without_a_pmu() {
        let dir = fake_sysfs(&[("software/type", "1")]);
        let a = CsrMatrix::from_triplets(2, 2, vec![(0, 0, 1.0)]).unwrap();
        let opts = PerfOptions {
            sysfs: dir.path().to_owned(),
            ..PerfOptions::default()
        };
        assert!(matches!(
            sample_live(&a, &opts, 1),
            Err(SamplingError::NoSamplingPmu { .. })
        ));
    }

    #[cfg(not(feature = "live"))]
    #[test]
    fn live_sampling_needs_the_live_feature() {
        let dir = fake_sysfs(INTEL);
        let a = CsrMatrix::from_triplets(2, 2, vec![(0, 0, 1.0)]).unwrap();
        let opts = PerfOptions {
            sysfs: dir.path().to_owned(),
            ..PerfOptions::default()
        };
        let e = sample_live(&a, &opts, 1).unwrap_err();
        assert!(matches!(e, SamplingError::LiveSamplingNotBuilt), "{e}");
        assert!(e.to_string().contains("`live` feature"), "{e}");
    }

    #[test]
    fn monotonic_clock_advances() {
        let a = monotonic_ns();
        let b = monotonic_ns();
        assert!(b >= a && a > 0);
    }
}
