//! A team of pinned threads created once and reused by every product, and [`Par`], the
//! parallelism argument every kernel takes.
//!
//! The team is the caller (thread 0) plus `threads - 1` rayon workers (threads 1..). A parallel
//! call runs block `b` on thread `b % threads`: the caller runs its share inline while the workers
//! run theirs through one `spawn_broadcast`, so no thread is spawned per product and each block
//! always runs on the same pinned thread (which is what makes first-touch placement work).
//! Pinning is applied by each thread to itself and read back (the binding and the CPU the thread
//! last ran on); a mask that does not read back is an error, never silently ignored. The caller's
//! original binding is restored when the team is dropped. `O(threads)` per call.

use hwlocality::cpu::binding::CpuBindingFlags;
use hwlocality::cpu::cpuset::CpuSet;
use serde::Serialize;
use std::sync::{Arc, Mutex};
use std::thread::ThreadId;

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
        match self {
            Par::Team(team) if team.threads() > 1 => team.run(chunks, job),
            _ => chunks
                .into_iter()
                .enumerate()
                .map(|(b, c)| job(b, c))
                .collect(),
        }
    }
}

/// Threads created once, each pinned (or not) as asked; see the module documentation.
#[derive(Debug)]
pub struct ThreadTeam {
    workers: Option<rayon::ThreadPool>,
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
        let cpus = pinning.cpus_for(topology, threads)?;
        let pinned = cpus.iter().any(Option::is_some);
        if pinned && !topology.is_this_system() {
            return Err(SpmvError::NotThisSystem);
        }
        let hw = Arc::clone(topology.hw());
        let workers = if threads > 1 {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads - 1)
                .thread_name(|i| format!("spmv-team-{}", i + 1))
                .build()
                .map_err(|e| SpmvError::ThreadPool(e.to_string()))?;
            Some(pool)
        } else {
            None
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
        let run_thread = |t: usize| {
            for b in (t..blocks).step_by(threads) {
                let chunk = take(&inputs[b]).expect("each block is taken once");
                let r = job(b, chunk);
                *outputs[b].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            }
        };
        let pool = self
            .workers
            .as_ref()
            .expect("a team of more than one thread has workers");
        pool.in_place_scope(|scope| {
            scope.spawn_broadcast(|_, ctx| run_thread(ctx.index() + 1));
            run_thread(0);
        });
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
