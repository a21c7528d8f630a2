//! A team of pinned threads created once and reused by every product, and [`Par`], the
//! parallelism argument every kernel takes.
//!
//! The team is the caller (thread 0) plus `threads - 1` workers (threads 1..). A parallel call runs
//! block `b` on thread `b % threads`: the caller runs its share inline while the workers run
//! theirs, woken through [`Dispatch::Spin`] (our own spin-then-park pool, the default) or
//! [`Dispatch::Rayon`] (a rayon pool's `spawn_broadcast`). No thread is spawned per product and each
//! block always runs on the same pinned thread (which is what makes first-touch placement work).
//! Pinning is applied by each thread to itself and read back (the binding and the CPU the thread
//! last ran on); a mask that does not read back is an error, never silently ignored. The caller's
//! original binding is restored when the team is dropped. `O(threads)` per call.

use hwlocality::cpu::binding::CpuBindingFlags;
use hwlocality::cpu::cpuset::CpuSet;
use serde::Serialize;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::ThreadId;

use crate::pool::WorkerPool;
use crate::{Pinning, SpmvError, Topology};

/// Where one team thread was asked to run and where it really runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ThreadBinding {
    /// Team thread index (0 is the caller).
    pub thread: usize,
    /// The CPU (OS index) requested, `None` when unpinned.
    pub requested_cpu: Option<usize>,
    /// The thread's CPU binding read back from the OS (OS indices).
    pub bound_cpus: Vec<usize>,
    /// The CPU the thread last ran on, as the OS reports it.
    pub observed_cpu: Option<usize>,
    /// The NUMA node (OS index) local to the observed CPU.
    pub numa_node: Option<usize>,
}

/// How blocks are assigned to team threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Schedule {
    /// Block `b` on thread `b % threads`, always the same thread (first touch relies on it).
    Static,
    /// Each thread claims the next unclaimed block (an atomic counter) until none is left.
    Dynamic,
}

/// The parallelism of a call: on the caller alone, or on a [`ThreadTeam`].
#[derive(Debug, Clone, Copy)]
pub enum Par<'a> {
    /// Every block in order on the calling thread.
    Sequential,
    /// Block `b` on team thread `b % threads`.
    Team(&'a ThreadTeam),
}

impl Par<'_> {
    /// Number of threads (1 for [`Par::Sequential`]).
    pub fn threads(self) -> usize {
        match self {
            Par::Sequential => 1,
            Par::Team(team) => team.threads(),
        }
    }

    /// Runs `job(b, chunks[b])` for every block `b`, block `b` on thread `b % threads`, and returns
    /// the results in block order. The one entry point of every parallel loop in this crate.
    pub fn for_each_block<E: Send, R: Send>(
        self,
        chunks: Vec<&mut [E]>,
        job: impl Fn(usize, &mut [E]) -> R + Sync,
    ) -> Vec<R> {
        self.for_each_block_scheduled(chunks, Schedule::Static, job)
    }

    /// [`Par::for_each_block`] with a chosen [`Schedule`]; results are in block order either way.
    pub fn for_each_block_scheduled<E: Send, R: Send>(
        self,
        chunks: Vec<&mut [E]>,
        schedule: Schedule,
        job: impl Fn(usize, &mut [E]) -> R + Sync,
    ) -> Vec<R> {
        match self {
            Par::Team(team) if team.threads() > 1 => team.run(chunks, schedule, job),
            _ => chunks
                .into_iter()
                .enumerate()
                .map(|(b, c)| job(b, c))
                .collect(),
        }
    }
}

/// How a team wakes its workers for each parallel call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dispatch {
    /// Our own pool: workers spin for a while after each job, then park (sub-microsecond wake-up
    /// for back-to-back products).
    #[default]
    Spin,
    /// A rayon thread pool and `spawn_broadcast` (kept for comparison).
    Rayon,
}

#[derive(Debug)]
enum Workers {
    None,
    Spin(WorkerPool),
    Rayon(rayon::ThreadPool),
}

/// Threads created once, each pinned (or not) as asked; see the module documentation.
#[derive(Debug)]
pub struct ThreadTeam {
    workers: Workers,
    threads: usize,
    bindings: Vec<ThreadBinding>,
    topology: Arc<hwlocality::Topology>,
    caller: ThreadId,
    caller_binding: Option<CpuSet>,
}

impl ThreadTeam {
    /// Starts `threads` threads (the caller and `threads - 1` workers) and pins them as `pinning`
    /// says for `topology`. Create the team on the thread that will call the products.
    ///
    /// # Errors
    /// The errors of [`Pinning::cpus_for`]; [`SpmvError::NotThisSystem`] when pinning with a topology
    /// of another machine; [`SpmvError::BindFailed`] or [`SpmvError::PinningIgnored`] when the OS
    /// refuses or ignores a binding; [`SpmvError::ThreadPool`] when threads cannot be started.
    pub fn new(topology: &Topology, threads: usize, pinning: &Pinning) -> Result<Self, SpmvError> {
        Self::with_dispatch(topology, threads, pinning, Dispatch::default())
    }

    /// [`ThreadTeam::new`] with a chosen way of waking the workers.
    ///
    /// # Errors
    /// As [`ThreadTeam::new`].
    pub fn with_dispatch(
        topology: &Topology,
        threads: usize,
        pinning: &Pinning,
        dispatch: Dispatch,
    ) -> Result<Self, SpmvError> {
        let cpus = pinning.cpus_for(topology, threads)?;
        let pinned = cpus.iter().any(Option::is_some);
        if pinned && !topology.is_this_system() {
            return Err(SpmvError::NotThisSystem);
        }
        let hw = Arc::clone(topology.hw());
        let pool_error = |e: &dyn std::fmt::Display| SpmvError::ThreadPool(e.to_string());
        let workers = match dispatch {
            _ if threads == 1 => Workers::None,
            Dispatch::Spin => {
                Workers::Spin(WorkerPool::new(threads - 1).map_err(|e| pool_error(&e))?)
            }
            Dispatch::Rayon => Workers::Rayon(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads - 1)
                    .thread_name(|i| format!("spmv-team-{}", i + 1))
                    .build()
                    .map_err(|e| pool_error(&e))?,
            ),
        };
        let caller_binding = if pinned {
            hw.cpu_binding(CpuBindingFlags::THREAD).ok()
        } else {
            None
        };
        let mut team = ThreadTeam {
            workers,
            threads,
            bindings: Vec::new(),
            topology: hw,
            caller: std::thread::current().id(),
            caller_binding,
        };
        let mut slots = vec![(); threads];
        let chunks: Vec<&mut [()]> = slots.chunks_mut(1).collect();
        let results = Par::Team(&team).for_each_block(chunks, |t, _| team.bind_self(t, cpus[t]));
        team.bindings = results.into_iter().collect::<Result<_, _>>()?;
        for binding in &mut team.bindings {
            binding.numa_node = binding
                .observed_cpu
                .and_then(|c| topology.numa_node_of_cpu(c));
        }
        Ok(team)
    }

    /// Number of threads, the caller included.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The binding of each thread as read back when the team started.
    pub fn bindings(&self) -> &[ThreadBinding] {
        &self.bindings
    }

    /// Reads every thread's binding and last CPU again (threads that are not pinned may move).
    pub fn observe(&self) -> Vec<ThreadBinding> {
        let mut slots = vec![(); self.threads];
        let chunks: Vec<&mut [()]> = slots.chunks_mut(1).collect();
        Par::Team(self).for_each_block(chunks, |t, _| {
            let mut b = self.read_back(t, self.bindings[t].requested_cpu);
            b.numa_node = self.bindings[t].numa_node;
            b
        })
    }

    fn run<E: Send, R: Send>(
        &self,
        chunks: Vec<&mut [E]>,
        schedule: Schedule,
        job: impl Fn(usize, &mut [E]) -> R + Sync,
    ) -> Vec<R> {
        debug_assert_eq!(
            std::thread::current().id(),
            self.caller,
            "a team's products must be called from the thread that created it"
        );
        let threads = self.threads;
        let blocks = chunks.len();
        // Each chunk is handed over once, through an uncontended slot; no lock is held while a
        // block computes.
        let inputs: Vec<Mutex<Option<&mut [E]>>> =
            chunks.into_iter().map(|c| Mutex::new(Some(c))).collect();
        let outputs: Vec<Mutex<Option<R>>> = (0..blocks).map(|_| Mutex::new(None)).collect();
        let next = AtomicUsize::new(0);
        let run_block = |b: usize| {
            let chunk = take(&inputs[b]).expect("each block is taken once");
            let r = job(b, chunk);
            *outputs[b].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
        };
        let run_thread = |t: usize| match schedule {
            Schedule::Static => (t..blocks).step_by(threads).for_each(run_block),
            Schedule::Dynamic => loop {
                let b = next.fetch_add(1, Ordering::Relaxed);
                if b >= blocks {
                    break;
                }
                run_block(b);
            },
        };
        match &self.workers {
            Workers::Spin(pool) => pool.broadcast(&run_thread),
            Workers::Rayon(pool) => pool.in_place_scope(|scope| {
                scope.spawn_broadcast(|_, ctx| run_thread(ctx.index() + 1));
                run_thread(0);
            }),
            Workers::None => run_thread(0),
        }
        outputs
            .into_iter()
            .map(|o| take_owned(o).expect("every block ran"))
            .collect()
    }

    /// Pins the calling thread (team thread `thread`) to `cpu` and reads the binding back.
    fn bind_self(&self, thread: usize, cpu: Option<usize>) -> Result<ThreadBinding, SpmvError> {
        if let Some(cpu) = cpu {
            let mut set = CpuSet::new();
            set.set(cpu);
            self.topology
                .bind_cpu(&set, CpuBindingFlags::THREAD | CpuBindingFlags::STRICT)
                .map_err(|e| SpmvError::BindFailed {
                    thread,
                    cpu,
                    message: e.to_string(),
                })?;
            std::thread::yield_now();
        }
        let binding = self.read_back(thread, cpu);
        match cpu {
            Some(cpu) if binding.bound_cpus != [cpu] || binding.observed_cpu != Some(cpu) => {
                Err(SpmvError::PinningIgnored {
                    thread,
                    requested: cpu,
                    found: binding.bound_cpus,
                })
            }
            _ => Ok(binding),
        }
    }

    fn read_back(&self, thread: usize, requested_cpu: Option<usize>) -> ThreadBinding {
        let set_to_vec = |s: CpuSet| s.iter_set().map(usize::from).collect::<Vec<_>>();
        let bound_cpus = self
            .topology
            .cpu_binding(CpuBindingFlags::THREAD)
            .map(set_to_vec)
            .unwrap_or_default();
        let observed_cpu = self
            .topology
            .last_cpu_location(CpuBindingFlags::THREAD)
            .ok()
            .and_then(|s| s.first_set().map(usize::from));
        ThreadBinding {
            thread,
            requested_cpu,
            bound_cpus,
            observed_cpu,
            numa_node: None,
        }
    }
}

impl Drop for ThreadTeam {
    fn drop(&mut self) {
        if let Some(original) = self.caller_binding.take() {
            if std::thread::current().id() == self.caller {
                // Best effort: the caller gets its original mask back.
                let _ = self.topology.bind_cpu(&original, CpuBindingFlags::THREAD);
            }
        }
    }
}

fn take<T>(slot: &Mutex<Option<T>>) -> Option<T> {
    slot.lock().unwrap_or_else(|e| e.into_inner()).take()
}

fn take_owned<T>(slot: Mutex<Option<T>>) -> Option<T> {
    slot.into_inner().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_run_on_their_owner_thread_in_order() {
        let topo = Topology::this_system().unwrap();
        let team = ThreadTeam::new(&topo, 2, &Pinning::None).unwrap();
        let mut data = vec![0usize; 10];
        let chunks: Vec<&mut [usize]> = data.chunks_mut(1).collect();
        let names = Par::Team(&team).for_each_block(chunks, |b, c| {
            c[0] = b * 10;
            std::thread::current().name().map(str::to_owned)
        });
        assert_eq!(data, (0..10).map(|b| b * 10).collect::<Vec<_>>());
        for (b, name) in names.iter().enumerate() {
            let worker = name.as_deref().is_some_and(|n| n.starts_with("spmv-team"));
            assert_eq!(worker, b % 2 == 1, "block {b} ran on {name:?}");
        }
    }

    #[test]
    fn both_dispatches_give_the_same_blocks() {
        let topo = Topology::this_system().unwrap();
        for dispatch in [Dispatch::Spin, Dispatch::Rayon] {
            let team = ThreadTeam::with_dispatch(&topo, 2, &Pinning::None, dispatch).unwrap();
            let mut data = vec![0usize; 7];
            let chunks: Vec<&mut [usize]> = data.chunks_mut(1).collect();
            let r = Par::Team(&team).for_each_block(chunks, |b, c| {
                c[0] = b + 1;
                b * 2
            });
            assert_eq!(data, vec![1, 2, 3, 4, 5, 6, 7]);
            assert_eq!(r, vec![0, 2, 4, 6, 8, 10, 12]);
            let chunks: Vec<&mut [usize]> = data.chunks_mut(2).collect();
            let r = Par::Team(&team).for_each_block_scheduled(chunks, Schedule::Dynamic, |b, c| {
                c.iter_mut().for_each(|v| *v += 10 * b);
                b
            });
            assert_eq!(data, vec![1, 2, 13, 14, 25, 26, 37]);
            assert_eq!(r, vec![0, 1, 2, 3]);
        }
    }

    #[test]
    fn pinning_reads_back_and_is_restored() {
        let topo = Topology::this_system().unwrap();
        let cpus = topo.cpu_os_indices();
        let last = *cpus.last().unwrap();
        let before = topo.hw().cpu_binding(CpuBindingFlags::THREAD).unwrap();
        {
            let team = ThreadTeam::new(&topo, 1, &Pinning::List(vec![last])).unwrap();
            assert_eq!(team.bindings()[0].bound_cpus, vec![last]);
            assert_eq!(team.bindings()[0].observed_cpu, Some(last));
            let n = cpus.len().min(2);
            let team = ThreadTeam::new(&topo, n, &Pinning::Scatter).unwrap();
            let observed: Vec<_> = team.observe().iter().map(|b| b.observed_cpu).collect();
            let requested: Vec<_> = team.bindings().iter().map(|b| b.requested_cpu).collect();
            assert_eq!(observed, requested);
        }
        assert_eq!(
            topo.hw().cpu_binding(CpuBindingFlags::THREAD).unwrap(),
            before
        );
    }

    #[test]
    fn pinning_with_a_foreign_topology_is_refused() {
        let xml = Topology::from_synthetic("pack:2 core:2 pu:1")
            .unwrap()
            .to_xml()
            .unwrap();
        let foreign = Topology::from_xml_str(&xml).unwrap();
        let e = ThreadTeam::new(&foreign, 2, &Pinning::Scatter).unwrap_err();
        assert_eq!(e, SpmvError::NotThisSystem);
        assert!(ThreadTeam::new(&foreign, 2, &Pinning::None).is_ok());
    }
}
