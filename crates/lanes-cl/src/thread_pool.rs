//! The executor's threads (CC'12 §2.2: work-groups run on one thread per core), and
//! whether each is bound to a CPU of its own.
//!
//! Why bind: Linux places a woken thread near its waker and moves it only when a load
//! balance finds the imbalance, a scheduler tick or more later. After a single-threaded
//! phase of the host program (filling buffers, say) the pool's threads often wake on the
//! same CPU and take turns on it for most of a launch of a few milliseconds, while the
//! other CPU idles. Measured on a 2-CPU virtual machine, with C threads and no lanes
//! code: 9 ms of dependent gathers split over two threads took 8.8 ms after 100 ms of
//! single-threaded work (4.7 ms after a sleep), and 4.4–4.8 ms with each thread bound to
//! its own CPU. `lanes bench cl`'s binary search took as long on two threads as on one for
//! this reason. A thread bound to a CPU runs there, so a launch starts on every core.
//!
//! Binding is the default only when the pool has exactly one thread per CPU the process
//! may use: then every CPU gets one thread either way. A pool smaller than that is left
//! free (binding it would put every small pool of a process on the same CPUs), as is
//! one larger. `LANES_CL_AFFINITY=0` turns binding off, `=1` forces it (threads take
//! the allowed CPUs in turn), like pocl's `POCL_AFFINITY` and OpenMP's `OMP_PROC_BIND`.

use crate::error::ClError;

/// Whether the pool's threads are bound to CPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Affinity {
    /// Bound when there is one thread per allowed CPU, unless `LANES_CL_AFFINITY` says
    /// otherwise.
    #[default]
    Auto,
    /// Thread `i` on the `i`-th allowed CPU (modulo their number).
    Bound,
    /// Wherever the scheduler puts them.
    Free,
}

impl Affinity {
    /// The policy `LANES_CL_AFFINITY` asks for, if it is set to `0` or `1`.
    fn from_env() -> Option<Affinity> {
        match std::env::var("LANES_CL_AFFINITY").ok()?.trim() {
            "0" => Some(Affinity::Free),
            "1" => Some(Affinity::Bound),
            _ => None,
        }
    }

    /// Whether a pool of `threads` threads is bound to CPUs under this policy.
    pub fn binds(self, threads: usize) -> bool {
        self.cpus(threads.max(1)).is_some()
    }

    /// The CPUs that `threads` threads are bound to, in thread order (`None`: unbound).
    fn cpus(self, threads: usize) -> Option<Vec<core_affinity::CoreId>> {
        let allowed = core_affinity::get_core_ids()?;
        let policy = match self {
            Affinity::Auto => Affinity::from_env().unwrap_or(Affinity::Auto),
            explicit => explicit,
        };
        let bind = match policy {
            Affinity::Auto => threads > 1 && threads == allowed.len(),
            Affinity::Bound => !allowed.is_empty(),
            Affinity::Free => false,
        };
        bind.then(|| (0..threads).map(|i| allowed[i % allowed.len()]).collect())
    }
}

/// A pool of `threads` threads (at least one) named `lanes-cl-<i>`, bound as `affinity`
/// says; an error if the system cannot start them. Whether the binding took is not an
/// error: a thread the system refuses to bind runs unbound.
pub fn build(threads: usize, affinity: Affinity) -> Result<rayon::ThreadPool, ClError> {
    let threads = threads.max(1);
    let cpus = affinity.cpus(threads);
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("lanes-cl-{i}"))
        .start_handler(move |i| {
            if let Some(&cpu) = cpus.as_ref().and_then(|c| c.get(i)) {
                core_affinity::set_for_current(cpu);
            }
        })
        .build()
        .map_err(|e| ClError::Threads {
            threads,
            message: e.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bound_threads_take_the_allowed_cpus_in_turn() {
        let allowed = core_affinity::get_core_ids().expect("the affinity mask is readable");
        let cpus = Affinity::Bound.cpus(allowed.len() + 1).unwrap();
        assert_eq!(cpus.len(), allowed.len() + 1);
        assert_eq!(cpus[..allowed.len()], allowed[..]);
        assert_eq!(cpus[allowed.len()], allowed[0]);
        assert_eq!(Affinity::Free.cpus(allowed.len()), None);
    }

    #[test]
    fn a_bound_pool_runs_each_thread_on_its_cpu() {
        let allowed = core_affinity::get_core_ids().expect("the affinity mask is readable");
        let pool = build(allowed.len(), Affinity::Bound).unwrap();
        let masks: Vec<Vec<core_affinity::CoreId>> =
            pool.broadcast(|_| core_affinity::get_core_ids().unwrap());
        for (i, mask) in masks.iter().enumerate() {
            assert_eq!(mask[..], [allowed[i]], "thread {i}");
        }
    }
}
