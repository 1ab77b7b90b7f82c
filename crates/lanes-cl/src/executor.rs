//! The executor: an NDRange as work-groups on a thread pool (CC'12 §2.2: the outer loops
//! over groups are the driver's, parallelized across threads; the loops over a group's
//! work-items are compiled code, [`crate::work_item_loops`]).
//!
//! A group runs continuation 0 over all its work-items, then the continuation they
//! returned, until they return 0 (CC'12 Fig. 4). Every thread owns one group's worth of
//! state at a time — its context, its `__local` memory and its two live-value buffers —
//! allocated when the thread takes its first group of the launch and reused for every
//! group it runs, so a launch allocates per thread, not per group. Threads take runs of
//! consecutive groups from a shared counter ([`RunQueue`]); the calling thread takes
//! runs too until a pool thread wakes.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};

use crate::aligned::AlignedBytes;
use crate::error::ClError;
use crate::group_context::GroupContext;
use crate::local_memory::LOCAL_ALIGN;
use crate::work_item_loops::DISAGREE;

/// `phase(ctx, args, live_in, live_out) -> next` as compiled: one continuation over a
/// whole group ([`crate::work_item_loops`]).
pub type PhaseFn = unsafe extern "C" fn(*mut GroupContext, *const u64, *mut u8, *mut u8) -> i32;

/// One launch, resolved: what every group needs.
pub struct Launch<'a> {
    pub kernel: &'a str,
    /// The group function of each continuation.
    pub phases: &'a [PhaseFn],
    /// Argument slots; `__local` arguments' slots are filled per group.
    pub args: Vec<u64>,
    /// `(slot, bytes)` of each `__local` argument.
    pub local_args: Vec<(usize, u64)>,
    /// Bytes of the kernel's `__local` variables (the arguments' memory follows).
    pub local_vars: u64,
    /// Live-value bytes per work-item.
    pub bytes_per_item: u64,
    pub barrier_lines: &'a [u32],
    /// The first group's context (group id 0).
    pub context: GroupContext,
    pub pool: &'a rayon::ThreadPool,
}

/// One thread's group state.
struct GroupState {
    ctx: GroupContext,
    args: Vec<u64>,
    local: AlignedBytes,
    live: [AlignedBytes; 2],
}

/// Runs `launch` (its functions must be compiled code that stays alive throughout).
pub fn run(launch: &Launch<'_>) -> Result<(), ClError> {
    let c = &launch.context;
    let groups: u64 = c.num_groups.iter().product();
    let local_bytes = launch.local_vars
        + launch
            .local_args
            .iter()
            .map(|&(_, b)| b.next_multiple_of(LOCAL_ALIGN))
            .sum::<u64>();
    let live_bytes = launch.bytes_per_item * c.items;
    let init = || {
        let mut st = GroupState {
            ctx: launch.context,
            args: launch.args.clone(),
            local: AlignedBytes::new(local_bytes as usize, LOCAL_ALIGN as usize),
            live: [live_bytes, live_bytes]
                .map(|n| AlignedBytes::new(n as usize, LOCAL_ALIGN as usize)),
        };
        let base = st.local.as_mut_ptr();
        st.ctx.local_memory = base;
        let mut at = launch.local_vars;
        for &(slot, bytes) in &launch.local_args {
            st.args[slot] = base as u64 + at;
            at += bytes.next_multiple_of(LOCAL_ALIGN);
        }
        st
    };
    // Runs of consecutive groups are the unit of work: a group's id follows from the
    // previous one's without the three 64-bit divisions of `group_id` (tens of cycles
    // each, against a few hundred for a small kernel's group). Sixteen runs per thread
    // keep uneven groups balanced.
    let threads = launch.pool.current_num_threads().max(1) as u64;
    let run_len = (groups / (threads * 16)).clamp(1, 64);
    let runs = groups.div_ceil(run_len);
    let body = |st: &mut GroupState, run: u64| {
        let first = run * run_len;
        let mut id = group_id(&st.ctx, first);
        for _ in first..(first + run_len).min(groups) {
            run_group(launch, st, id)?;
            id = next_group(id, st.ctx.num_groups);
        }
        Ok(())
    };
    let queue = std::sync::Arc::new(RunQueue::new(runs));
    let job = |st: &mut Option<GroupState>, run: u64| {
        let st = st.get_or_insert_with(init);
        if let Err(e) = body(st, run) {
            queue.fail(e);
        }
    };
    let job: &(dyn Fn(&mut Option<GroupState>, u64) + Sync) = &job;
    // SAFETY: a pool thread calls `job` only for a run it took from the queue, and this
    // function returns only after every run has finished (`wait_all_done`), so `job`
    // and what it borrows (`launch`, `queue`'s borrow-free contents aside) outlive every
    // call. A pool thread that starts after that finds no run left and never calls it.
    let job: &'static (dyn Fn(&mut Option<GroupState>, u64) + Sync) =
        unsafe { std::mem::transmute(job) };
    // Each pool thread takes runs until none is left. The calling thread, which would
    // otherwise only wait, takes runs until the first pool thread starts: a pool thread
    // that slept through the host's work between launches takes tens of microseconds to
    // wake (a one-group launch took 70 µs after the host filled a buffer, 9 µs back to
    // back, on a 2-CPU virtual machine), which a launch of half a millisecond (a pass of
    // Floyd-Warshall) feels. Once a pool thread runs, the caller only waits, so no more
    // threads run than the pool has; nor does it wait for pool threads that found no
    // work, only for the runs.
    for _ in 0..threads {
        let queue = std::sync::Arc::clone(&queue);
        launch.pool.spawn(move || {
            queue.pool_thread_started();
            queue.drain(false, job);
        });
    }
    queue.drain(true, job);
    queue.wait_all_done();
    queue.result()
}

/// The runs of a launch, taken in order by the pool's threads and, until one of them
/// starts, by the calling thread. Every run is done even after an error (the first one
/// is kept): the caller waits for the count of finished runs, never for threads.
struct RunQueue {
    next: AtomicU64,
    finished: AtomicU64,
    runs: u64,
    pool_started: AtomicBool,
    error: Mutex<Option<ClError>>,
    all_done: (Mutex<bool>, Condvar),
}

impl RunQueue {
    fn new(runs: u64) -> RunQueue {
        RunQueue {
            next: AtomicU64::new(0),
            finished: AtomicU64::new(0),
            runs,
            pool_started: AtomicBool::new(false),
            error: Mutex::new(None),
            all_done: (Mutex::new(runs == 0), Condvar::new()),
        }
    }

    /// The next run to do, if any is left (for the calling thread, `helper`: and no pool
    /// thread has started).
    fn take(&self, helper: bool) -> Option<u64> {
        if helper && self.pool_started.load(Ordering::Relaxed) {
            return None;
        }
        let run = self.next.fetch_add(1, Ordering::Relaxed);
        (run < self.runs).then_some(run)
    }

    /// Does runs with `job` while [`Self::take`] gives them, counting each done; the
    /// group state lives for the calling thread's share of the launch.
    fn drain(&self, helper: bool, job: &(dyn Fn(&mut Option<GroupState>, u64) + Sync)) {
        let mut st = None;
        while let Some(run) = self.take(helper) {
            job(&mut st, run);
            self.finish_one();
        }
    }

    fn pool_thread_started(&self) {
        self.pool_started.store(true, Ordering::Relaxed);
    }

    /// Counts a run done; the last one wakes the caller.
    fn finish_one(&self) {
        if self.finished.fetch_add(1, Ordering::AcqRel) + 1 == self.runs {
            let (done, wake) = &self.all_done;
            *done.lock().unwrap_or_else(|p| p.into_inner()) = true;
            wake.notify_all();
        }
    }

    /// Blocks until every run has finished.
    fn wait_all_done(&self) {
        let (done, wake) = &self.all_done;
        let mut done = done.lock().unwrap_or_else(|p| p.into_inner());
        while !*done {
            done = wake.wait(done).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Records `e` unless an earlier error was.
    fn fail(&self, e: ClError) {
        let mut first = self.error.lock().unwrap_or_else(|p| p.into_inner());
        first.get_or_insert(e);
    }

    fn result(&self) -> Result<(), ClError> {
        match self.error.lock().unwrap_or_else(|p| p.into_inner()).take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// The group after `id` in linear order (dimension 0 fastest) among `n` groups.
fn next_group(id: [u64; 3], n: [u64; 3]) -> [u64; 3] {
    if id[0] + 1 < n[0] {
        [id[0] + 1, id[1], id[2]]
    } else if id[1] + 1 < n[1] {
        [0, id[1] + 1, id[2]]
    } else {
        [0, 0, id[2] + 1]
    }
}

fn run_group(launch: &Launch<'_>, st: &mut GroupState, id: [u64; 3]) -> Result<(), ClError> {
    st.ctx.group_id = id;
    let meta = GroupMeta {
        kernel: launch.kernel,
        barrier_lines: launch.barrier_lines,
        group: st.ctx.group_id,
        continuations: launch.phases.len(),
    };
    let GroupState {
        ctx, args, live, ..
    } = st;
    drive_group(&meta, |state, reads| {
        let [a, b] = live;
        let (live_in, live_out) = if reads == 0 {
            (a.as_mut_ptr(), b.as_mut_ptr())
        } else {
            (b.as_mut_ptr(), a.as_mut_ptr())
        };
        // SAFETY: the group function is compiled code of this launch's program; its
        // arguments point to live buffers sized for the group.
        Ok(unsafe { (launch.phases[state])(ctx, args.as_ptr(), live_in, live_out) })
    })
}

/// The id of group `g` (linear, dimension 0 fastest) in `ctx`'s launch.
pub(crate) fn group_id(ctx: &GroupContext, g: u64) -> [u64; 3] {
    let n = ctx.num_groups;
    [g % n[0], (g / n[0]) % n[1], g / (n[0] * n[1])]
}

/// What messages about a group need.
pub(crate) struct GroupMeta<'a> {
    pub kernel: &'a str,
    pub barrier_lines: &'a [u32],
    pub group: [u64; 3],
    pub continuations: usize,
}

/// Runs one group: continuation 0 over all its work-items, then the continuation they
/// returned, until they return 0 (CC'12 Fig. 4). `phase(state, reads)` runs continuation
/// `state` over the group, reading live values from buffer `reads` and writing the other;
/// the buffers alternate between continuations.
pub(crate) fn drive_group(
    meta: &GroupMeta<'_>,
    mut phase: impl FnMut(usize, usize) -> Result<i32, ClError>,
) -> Result<(), ClError> {
    let mut state = 0usize;
    let mut reads = 0;
    loop {
        match phase(state, reads)? {
            DISAGREE => return Err(divergence(meta, state)),
            0 => return Ok(()),
            k => {
                state = usize::try_from(k)
                    .ok()
                    .filter(|&k| k < meta.continuations)
                    .ok_or_else(|| ClError::Internal(format!("continuation {k} returned")))?;
                reads = 1 - reads;
            }
        }
    }
}

fn divergence(meta: &GroupMeta<'_>, state: usize) -> ClError {
    let after = match state {
        0 => "after the kernel's start".to_string(),
        k => format!(
            "after the barrier at line {}",
            meta.barrier_lines.get(k - 1).copied().unwrap_or(0)
        ),
    };
    ClError::BarrierDivergence {
        kernel: meta.kernel.to_string(),
        group: meta.group,
        after,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_run_queue_hands_out_each_run_once_and_keeps_the_first_error() {
        let q = RunQueue::new(3);
        assert_eq!(q.take(true), Some(0));
        q.pool_thread_started();
        assert_eq!(
            q.take(true),
            None,
            "the caller stops once a pool thread runs"
        );
        assert_eq!(q.take(false), Some(1));
        assert_eq!(q.take(false), Some(2));
        assert_eq!(q.take(false), None);
        q.fail(ClError::Internal("first".into()));
        q.fail(ClError::Internal("second".into()));
        for _ in 0..3 {
            q.finish_one();
        }
        q.wait_all_done();
        assert!(matches!(q.result(), Err(ClError::Internal(m)) if m == "first"));
        RunQueue::new(0).wait_all_done();
    }

    #[test]
    fn next_group_follows_the_linear_order() {
        for n in [
            [1, 1, 1],
            [5, 1, 1],
            [3, 4, 1],
            [2, 3, 4],
            [1, 7, 2],
            [16, 256, 1],
        ] {
            let ctx = GroupContext::new(3, [n[0], n[1], n[2]], [1, 1, 1], [0, 0, 0]);
            assert_eq!(ctx.num_groups, n);
            let total: u64 = n.iter().product();
            let mut id = group_id(&ctx, 0);
            for g in 0..total {
                assert_eq!(id, group_id(&ctx, g), "group {g} of {n:?}");
                id = next_group(id, n);
            }
        }
    }
}
