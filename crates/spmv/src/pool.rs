//! A broadcast pool: `threads - 1` worker threads that run `job(i)` together with the caller,
//! woken per call by an epoch counter (spin, then park), never respawned.
//!
//! One call costs one atomic increment, an `unpark` per parked worker and a spin-wait on a
//! counter: a few hundred nanoseconds while the workers are spinning, against tens of
//! microseconds for a futex wake-up of sleeping threads. Workers spin for [`SPIN`] after each job
//! before parking, so back-to-back products (a solver's iterations, a benchmark's repetitions)
//! never sleep. Called by [`crate::ThreadTeam`]; the alternative is rayon (`Dispatch::Rayon`).

use std::cell::UnsafeCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::{JoinHandle, Thread};
use std::time::{Duration, Instant};

/// How long a worker (or the waiting caller) spins before parking (or yielding).
pub const SPIN: Duration = Duration::from_micros(200);

/// A job lent to the workers for the duration of one [`WorkerPool::broadcast`].
type JobPtr = *const (dyn Fn(usize) + Sync + 'static);

struct Shared {
    /// Bumped once per broadcast (and at shutdown); workers run the job when it changes.
    epoch: AtomicU64,
    /// The current job; written only while no worker may read it (see `broadcast`).
    job: UnsafeCell<Option<JobPtr>>,
    /// Workers that have not finished the current job.
    pending: AtomicUsize,
    /// A worker's job panicked during the current broadcast.
    panicked: AtomicBool,
    shutdown: AtomicBool,
    /// Per worker: parked (or about to park), so the caller must `unpark` it.
    sleeping: Vec<AtomicBool>,
}

// SAFETY: `job` is the only non-Sync field. The caller writes it only in `broadcast` before
// bumping `epoch` (SeqCst) while `pending == 0`, so no worker is reading it; workers read it only
// after observing the new epoch (Acquire) and before decrementing `pending` (Release), and the
// caller does not return from `broadcast` (nor write `job` again) until `pending == 0`.
unsafe impl Sync for Shared {}
// SAFETY: as above; the raw job pointer is only dereferenced under that protocol.
unsafe impl Send for Shared {}

/// `threads - 1` persistent workers; worker `i` runs `job(i + 1)`, the caller runs `job(0)`.
pub struct WorkerPool {
    shared: Arc<Shared>,
    workers: Vec<(JoinHandle<()>, Thread)>,
}

impl std::fmt::Debug for WorkerPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkerPool")
            .field("workers", &self.workers.len())
            .finish()
    }
}

impl WorkerPool {
    /// Starts `workers` threads named `spmv-team-1`, `spmv-team-2`, ...
    ///
    /// # Errors
    /// The OS error when a thread cannot be spawned.
    pub fn new(workers: usize) -> std::io::Result<Self> {
        let shared = Arc::new(Shared {
            epoch: AtomicU64::new(0),
            job: UnsafeCell::new(None),
            pending: AtomicUsize::new(0),
            panicked: AtomicBool::new(false),
            shutdown: AtomicBool::new(false),
            sleeping: (0..workers).map(|_| AtomicBool::new(false)).collect(),
        });
        let mut pool = WorkerPool {
            shared: Arc::clone(&shared),
            workers: Vec::with_capacity(workers),
        };
        for i in 0..workers {
            let shared = Arc::clone(&shared);
            let handle = std::thread::Builder::new()
                .name(format!("spmv-team-{}", i + 1))
                .spawn(move || worker_loop(&shared, i))?;
            let thread = handle.thread().clone();
            pool.workers.push((handle, thread));
        }
        Ok(pool)
    }

    /// Runs `job(0)` on the caller and `job(i + 1)` on worker `i`, returning when all are done.
    ///
    /// # Panics
    /// If `job` panicked on any thread (after every thread has finished).
    pub fn broadcast(&self, job: &(dyn Fn(usize) + Sync)) {
        let shared = &*self.shared;
        debug_assert_eq!(shared.pending.load(Ordering::Acquire), 0);
        // SAFETY: only the lifetime is erased. The pointer is dereferenced by workers only until
        // they decrement `pending`, and `Wait` below blocks (even while unwinding) until
        // `pending == 0`, so `job` outlives every use.
        let ptr: JobPtr =
            unsafe { std::mem::transmute::<*const (dyn Fn(usize) + Sync + '_), JobPtr>(job) };
        // SAFETY: `pending == 0`: no worker is between reading `job` and finishing (protocol on
        // `Shared`), so this write does not race.
        unsafe { *shared.job.get() = Some(ptr) };
        shared.pending.store(self.workers.len(), Ordering::Relaxed);
        shared.epoch.fetch_add(1, Ordering::SeqCst);
        for (i, (_, thread)) in self.workers.iter().enumerate() {
            if shared.sleeping[i].load(Ordering::SeqCst) {
                thread.unpark();
            }
        }
        let wait = Wait(shared);
        job(0);
        drop(wait);
        if shared.panicked.swap(false, Ordering::AcqRel) {
            panic!("a team thread panicked while running a parallel block");
        }
    }
}

/// Waits for every worker to finish the current job, also when the caller's own part unwinds.
struct Wait<'a>(&'a Shared);

impl Drop for Wait<'_> {
    fn drop(&mut self) {
        let start = Instant::now();
        let mut spins = 0u32;
        while self.0.pending.load(Ordering::Acquire) != 0 {
            spins = spins.wrapping_add(1);
            if spins.is_multiple_of(64) && start.elapsed() > SPIN {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
    }
}

fn worker_loop(shared: &Shared, index: usize) {
    let mut seen = 0u64;
    loop {
        seen = wait_for_epoch(shared, index, seen);
        if shared.shutdown.load(Ordering::Acquire) {
            return;
        }
        // SAFETY: the new epoch was observed with Acquire after the caller wrote `job`, and the
        // caller keeps the job alive until this worker decrements `pending` (protocol on `Shared`).
        let job = unsafe { (*shared.job.get()).expect("a job is set before the epoch moves") };
        // SAFETY: as above, the pointee is alive until `pending` is decremented below.
        let result = catch_unwind(AssertUnwindSafe(|| unsafe { (*job)(index + 1) }));
        if result.is_err() {
            shared.panicked.store(true, Ordering::Release);
        }
        shared.pending.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Spins, then parks, until the epoch differs from `seen`; returns the new epoch.
fn wait_for_epoch(shared: &Shared, index: usize, seen: u64) -> u64 {
    let start = Instant::now();
    let mut spins = 0u32;
    loop {
        let epoch = shared.epoch.load(Ordering::Acquire);
        if epoch != seen {
            return epoch;
        }
        spins = spins.wrapping_add(1);
        if !spins.is_multiple_of(64) || start.elapsed() < SPIN {
            std::hint::spin_loop();
            continue;
        }
        shared.sleeping[index].store(true, Ordering::SeqCst);
        // Re-check after announcing sleep: either the caller sees `sleeping` and unparks us, or
        // we see its new epoch here (both sides use SeqCst). A stale unpark only wakes us early.
        if shared.epoch.load(Ordering::SeqCst) == seen {
            std::thread::park();
        }
        shared.sleeping[index].store(false, Ordering::SeqCst);
    }
}

impl Drop for WorkerPool {
    fn drop(&mut self) {
        self.shared.shutdown.store(true, Ordering::SeqCst);
        self.shared.epoch.fetch_add(1, Ordering::SeqCst);
        for (handle, thread) in self.workers.drain(..) {
            thread.unpark();
            let _ = handle.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_thread_runs_its_index_once_per_broadcast() {
        let pool = WorkerPool::new(3).unwrap();
        let counts: Vec<AtomicUsize> = (0..4).map(|_| AtomicUsize::new(0)).collect();
        for round in 0..1000 {
            pool.broadcast(&|i| {
                counts[i].fetch_add(1, Ordering::Relaxed);
            });
            if round == 500 {
                // Let the workers park, then wake them again.
                std::thread::sleep(SPIN * 3);
            }
        }
        assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 1000));
    }

    #[test]
    fn a_worker_panic_reaches_the_caller_and_the_pool_survives() {
        let pool = WorkerPool::new(1).unwrap();
        let r = catch_unwind(AssertUnwindSafe(|| {
            pool.broadcast(&|i| assert!(i != 1, "boom"))
        }));
        assert!(r.is_err());
        let hits = AtomicUsize::new(0);
        pool.broadcast(&|_| {
            hits.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(hits.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn borrowed_data_is_safe_to_use() {
        let pool = WorkerPool::new(2).unwrap();
        for n in 0..200 {
            let data: Vec<usize> = (0..n).collect();
            let sum = AtomicUsize::new(0);
            pool.broadcast(&|i| {
                let part: usize = data.iter().skip(i).step_by(3).sum();
                sum.fetch_add(part, Ordering::Relaxed);
            });
            assert_eq!(sum.into_inner(), data.iter().sum::<usize>());
        }
    }
}
