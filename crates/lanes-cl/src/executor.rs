//! The executor: an NDRange as work-groups on a thread pool (CC'12 §2.2: the outer loops
//! over groups are the driver's, parallelized across threads; the loops over a group's
//! work-items are compiled code, [`crate::work_item_loops`]).
//!
//! A group runs continuation 0 over all its work-items, then the continuation they
//! returned, until they return 0 (CC'12 Fig. 4). Every thread owns one group's worth of
//! state at a time — its context, its `__local` memory and its two live-value buffers —
//! allocated once per thread and reused for every group it runs (rayon's
//! `for_each_init`), so a launch allocates per thread, not per group.

use rayon::prelude::*;

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
    // Runs of consecutive groups are the pool's tasks: a group's id follows from the
    // previous one's without the three 64-bit divisions of `group_id` (tens of cycles
    // each, against a few hundred for a small kernel's group), and rayon splits and
    // steals runs, not single groups. Sixteen runs per thread keep uneven groups
    // balanced.
    let threads = launch.pool.current_num_threads().max(1) as u64;
    let run_len = (groups / (threads * 16)).clamp(1, 64);
    let body = |st: &mut GroupState, run: u64| {
        let first = run * run_len;
        let mut id = group_id(&st.ctx, first);
        for _ in first..(first + run_len).min(groups) {
            run_group(launch, st, id)?;
            id = next_group(id, st.ctx.num_groups);
        }
        Ok(())
    };
    launch.pool.install(|| {
        (0..groups.div_ceil(run_len))
            .into_par_iter()
            .try_for_each_init(init, body)
    })
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
