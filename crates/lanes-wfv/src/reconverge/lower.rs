//! Step 4 of the reconverging-CFG paper: the lowering of a reconverging CFG to
//! execution masks ("inject predication operations to lower the reconverging CFG to
//! wave-level"; Listing 1), for reducible and irreducible CFGs alike.
//!
//! The wave keeps the CFG. It carries one execution mask `exec`, and one re-join mask per
//! *primary* successor `P` (the successor of a divergent branch that post-dominates it).
//! At a divergent branch `b: brif c, T, P` the threads going to `P` leave the wave and
//! wait there — `rejoin[P] |= exec ∧ c_P`, `exec ∧= c_T` — and the wave goes on to `T`
//! with the rest, or straight to `P` when none is left (`brif any(exec), T, P`: the
//! `s_cbranch_execz` of Listing 1). Every path from `T` reaches `P`, since `P`
//! post-dominates `b`; on arrival the waiting threads come back, `exec |= rejoin[P]`.
//! A cycle through `T` that avoids `P` (a loop whose exit is divergent) is just the wave
//! going round while threads wait at the exit, so loops need no transform of their own
//! and irreducible cycles no special case. Uniform branches stay branches.
//!
//! What the hardware gives the GCN wave for free, SSA on a CPU must spell out:
//!
//! - **φs at re-join points** merge threads that arrived at different times. Each becomes
//!   an accumulator written, at the end of every predecessor, for the threads taking that
//!   edge: `acc = select(edge mask, incoming, acc)`, and read at the top of the block.
//!   (Edges from uniform multi-way branches into such a block are split first, so that a
//!   predecessor's mask is its edge's.) φs elsewhere stay φs: all active threads arrive
//!   along the one edge the wave takes.
//! - **Values clobbered while threads wait**: a vector register is written only in its
//!   active lanes, an SSA value in all. A value live into `P` whose definition sits in
//!   the *region* of `b` (the blocks the wave can run from `T` before reaching `P`) is
//!   redefined for others while `b`'s threads wait, so it is kept per lane:
//!   `keep = select(exec, v, keep)` after its definition, read by the uses a waiting
//!   thread can reach from `P` without passing the definition again. The other uses
//!   read `v` itself: every thread running them ran the latest definition, so a counter
//!   stays scalar inside its loop and only its value after the loop is per lane.
//!
//! A re-join point `B` that post-dominates a block `A` dominating it, with no cycle through
//! one of them alone, runs with the threads that ran `A`: every thread that left the wave
//! in between waits at a post-dominator of its branch no later than `B`. Its mask is taken
//! from `A` instead of being rebuilt (`exec |= rejoin`), which gives LLVM the same value:
//! code after a loop with a divergent exit runs unmasked if the code before it did.
//!
//! The execution mask is never empty where the wave runs code when every divergent branch
//! tests for it. The option of the paper's step 4, **empty-mask skips**
//! ([`SkipEmpty`]), drops that test where the region of `b` is light (it runs with an
//! empty mask instead, its side effects guarded), keeps it where it is heavy (`auto`,
//! with BOSCC's cost estimate of the code that empty wave would run — up to the next
//! test that sends it out, not round a loop it leaves) or everywhere (`all`). With a
//! branch profile on the function ([`lanes_ir::BranchProfile`]: how often the waves of a
//! SIMT run found no thread going to a side), `auto` adds a test where the work empty
//! waves save on average repays it and its mispredictions, and drops one whose saving
//! cannot repay even its own instructions (`skip_pays`); elsewhere, and at the branches
//! the profile does not know (flow blocks), the static rule stands. A test is dropped only where a wave
//! with no thread left still leaves the region: its path through it, with each divergent
//! branch going where an empty mask sends it (the primary successor if it tests, else the
//! secondary) and uniform branches anywhere (their condition is no thread's), has no
//! cycle. So a loop keeps one test per cycle — its exit's — and a `break` in its body
//! need not test again, while an empty wave could never go round forever.
//!
//! The result is a function of one instance whose branches are all uniform, plus the
//! [`Predication`] of its blocks, which widening maps to vector code like the output of
//! partial linearization; at width 1 `any(x)` is `x` and it computes what the input did.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use cranelift_entity::EntitySet;
use lanes_analysis::liveness::Liveness;
use lanes_analysis::{ControlFlowGraph, DominatorTree, PostDominatorTree};
use lanes_ir::cursor::phis;
use lanes_ir::{Block, FuncCursor, Function, Inst, InstData, Value};

use super::masks::{Divergent, Masks};
use super::open_tree::succs_of;
use crate::boscc::{is_memory_access, work, AUTO_MIN_COST};
use crate::cfg_edit::{brif_targets, def_block, reachable_avoiding};
use crate::guards::Predication;
use crate::WfvError;

/// Which divergent branches keep the test that skips their region when no thread goes
/// there (the paper's step-4 option). Regions with a cycle always keep it.
///
/// What `Auto` cannot know without a profile is how often a wave finds no thread there,
/// nor what the branch does to the code generator's schedule of the code around it. On
/// the benchmark kernels (`lanes bench reconverge --run-time`, whose `reconverge+skip-off`
/// build drops every test it can) the tests `Auto` keeps make the code 1.12–1.15× faster
/// in geometric mean: 3–6× on a nab-like if-cascade, 1.5× on ray casting, 1.1–1.4× on
/// tree searches and BVH traversal. Without a profile they cost 2–6% on a 3-d stencil
/// whose boundary tests no wave ever skips, and 1% on the kd-tree counts at 8 lanes
/// (where a test whose branch is never taken measures the same as the real one: the
/// schedule LLVM gives the split loop body, not skipped work). The profile (the
/// `reconverge+profile` build) removes the kd-tree test and matches full if-conversion
/// there; the stencil's remaining tests end flow blocks, which no profile counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SkipEmpty {
    /// Where the region holds at least [`AUTO_MIN_COST`] of work (BOSCC's measure and
    /// threshold). Where the function carries a branch profile (a SIMT run at the vector
    /// width, [`lanes_ir::BranchProfile`]), the profile decides where the saving is
    /// clear either way (`skip_pays`): on the kd-tree counts at 8 lanes some thread
    /// pushes the second child in 95% of the waves, and that test cannot repay itself.
    #[default]
    Auto,
    /// At every divergent branch.
    All,
    /// Nowhere it can be dropped.
    Off,
}

impl SkipEmpty {
    pub const ALL: [SkipEmpty; 3] = [SkipEmpty::Auto, SkipEmpty::All, SkipEmpty::Off];

    pub fn name(self) -> &'static str {
        match self {
            SkipEmpty::Auto => "auto",
            SkipEmpty::All => "all",
            SkipEmpty::Off => "off",
        }
    }
}

/// What [`lower_to_masks`] made.
#[derive(Clone, Debug, Default)]
pub struct Lowered {
    pub predication: Predication,
    /// Divergent branches that test for an empty mask.
    pub skips: usize,
}

/// Lowers `func`, reconverging for the divergent branches ending the blocks `divergent`,
/// to execution masks; see the module documentation.
pub fn lower_to_masks(
    func: &mut Function,
    divergent: &[Block],
    skip: SkipEmpty,
) -> Result<Lowered, WfvError> {
    let mut lowered = Lowered::default();
    let branches = classify(func, divergent)?;
    let rejoins: BTreeSet<Block> = branches.iter().map(|d| d.primary).collect();
    split_uniform_edges_into(func, &rejoins, divergent);
    let cfg = ControlFlowGraph::with_function(func);
    let liveness = Liveness::with_function(func, &cfg);
    // Kept value → the re-join points where threads waiting may still read it, and the
    // branches that make them wait.
    let mut kept: BTreeMap<Value, Vec<Block>> = BTreeMap::new();
    let mut kept_by: BTreeMap<Value, Vec<usize>> = BTreeMap::new();
    let mut skips: Vec<bool> = Vec::new();
    let mut regions: Vec<EntitySet<Block>> = Vec::new();
    for (i, d) in branches.iter().enumerate() {
        let region = region(&cfg, d.secondary, d.primary);
        for v in live_on_edge(func, &liveness, d.block, d.primary) {
            if def_block(func, v).is_some_and(|db| region.contains(db)) {
                kept.entry(v).or_default().push(d.primary);
                kept_by.entry(v).or_default().push(i);
            }
        }
        skips.push(skip == SkipEmpty::All);
        regions.push(region);
    }
    if skip == SkipEmpty::Auto {
        // Latest first, so that a branch's weight sees the tests after it.
        for i in (0..branches.len()).rev() {
            let region = empty_wave_work(func, &cfg, &branches, &skips, i, &regions[i]);
            let heavy = region.work >= AUTO_MIN_COST;
            skips[i] = match profiled_rates(func, &branches[i]) {
                Some(rates) => skip_pays(heavy, rates, region.work, region.at_most(rates.width)),
                None => heavy,
            };
        }
    }
    keep_skips_empty_waves_need(&cfg, &branches, &regions, &mut skips);
    lowered.skips = skips.iter().filter(|&&s| s).count();
    // Values kept for one branch only, which ends a single-exit loop: in the loop's φ.
    let single_exit: Vec<bool> = branches
        .iter()
        .map(|d| ends_single_exit_loop(&cfg, d))
        .collect();
    let in_place: BTreeMap<Value, (Block, Inst)> = kept_by
        .iter()
        .filter_map(|(&v, by)| {
            let [i] = by[..] else { return None };
            single_exit[i]
                .then(|| loop_phi_taking(func, &branches[i], v))
                .flatten()
                .map(|at| (v, at))
        })
        .collect();
    let stale: BTreeMap<Value, EntitySet<Block>> = kept
        .into_iter()
        .map(|(v, primaries)| {
            let def = def_block(func, v);
            (v, reachable_avoiding(&cfg, &primaries, def))
        })
        .collect();

    let equivalent = equivalent_dominators(func, &cfg, &rejoins);
    let mut masks = Masks::new(func);
    let mut phi_accs = masks.replace_rejoin_phis(&rejoins);
    masks.mask_blocks();
    masks.rejoin_all_from(&equivalent);
    masks.keep(&stale, &in_place, &mut phi_accs);
    masks.write_accumulators(&phi_accs, &branches);
    for (d, &skip) in branches.iter().zip(&skips) {
        masks.branch(d, skip);
    }
    lowered.predication = masks.finish();
    Ok(lowered)
}

/// What a wave's test of an empty mask and its branch cost, in [`work`]'s units: the
/// vector test and the branch (two instructions, as BOSCC counts them).
const SKIP_TEST_WORK: f64 = 2.0;

/// What a mispredicted branch costs in [`work`]'s units: 15–20 cycles on current x86
/// cores. In the regions where skips matter the work is mostly gathers and scatters,
/// which [`work`] weighs 4 and which take 7 cycles at 8 lanes and 16 at 16 on a Xeon
/// (Cascade Lake): a unit there is 2–4 cycles, and a misprediction about 8 units. The
/// profile counts mispredictions with a predictor that learns each branch's pattern
/// (lanes-simt).
const MISPREDICTION_WORK: f64 = 8.0;

/// What the function's profile ([`lanes_ir::BranchProfile`]) says of a divergent branch's
/// secondary side.
#[derive(Clone, Copy, Debug)]
struct Rates {
    /// The share of the waves reaching the branch that send no thread there.
    empty: f64,
    /// The share in which a branch predictor guessed that wrong.
    mispredicted: f64,
    /// Threads per wave in the profiled run.
    width: u32,
}

/// The profile's [`Rates`] for `d`; `None` without one (a flow block, a branch that never
/// ran, a function not profiled).
fn profiled_rates(func: &Function, d: &Divergent) -> Option<Rates> {
    let profile = func.branch_profile.as_ref()?;
    let counts = profile.at(func.layout.last_inst(d.block)?)?;
    let side = d.secondary_on_true;
    Some(Rates {
        empty: counts.empty_rate(side)?,
        mispredicted: counts.mispredict_rate(side)?,
        width: profile.width,
    })
}

/// Whether to test for an empty mask before a region of `weight` (`heavy` if the static
/// rule would test; `at_most`: the most the region can cost, [`RegionWork::at_most`])
/// whose branch the profile gives `rates`.
///
/// A profile decides where the answer is clear. A region that empty waves skip often
/// enough to repay the test and its mispredictions on average gets one even if it is
/// light. A test goes, even before a heavy region, if what it saves at most cannot repay
/// its own two instructions: the boundary tests of a stencil, which no wave skips; a
/// kd-tree push that some thread of a wave of 8 makes 95% of the time. In between the
/// static rule stands, for [`work`] can be far below what a skip saves: skipping a
/// kd-tree search's far-child push (three scatters to private stacks, which the next
/// iteration's gathers must wait for) in 14% of the waves saves 11% of the search, 3–4×
/// what the scatters' weight predicts.
fn skip_pays(heavy: bool, rates: Rates, weight: usize, at_most: usize) -> bool {
    let Rates {
        empty,
        mispredicted,
        ..
    } = rates;
    if empty * weight as f64 >= SKIP_TEST_WORK + MISPREDICTION_WORK * mispredicted {
        return true;
    }
    heavy && empty * at_most as f64 >= SKIP_TEST_WORK
}

/// Whether the divergent branch `d` ends the only latch `u` of a single-entry cycle headed
/// by its secondary successor `h`, and is that cycle's only way out. A value the branch
/// parks threads on can then be kept in `h`'s φ that takes it from `u` instead of a copy
/// of its own: `select(mask(u), v, p)` as `p`'s back-edge value leaves `p` alone in the
/// lanes that have left (they are in no later mask) and is what the threads waiting at the
/// exit read — one select, which targets with write masks fold into `v`'s instruction,
/// instead of a select and a copy carried round the loop.
fn ends_single_exit_loop(cfg: &ControlFlowGraph, d: &Divergent) -> bool {
    let (u, h) = (d.block, d.secondary);
    let preds = cfg.preds(h);
    if preds.len() != 2 || preds.iter().filter(|&&p| p == u).count() != 1 {
        return false;
    }
    // `u → h` closes the cycle (the back edge), the other edge enters it from outside.
    let from_h = reachable_avoiding(cfg, &[h], None);
    let Some(entry) = preds.iter().copied().find(|&p| p != u) else {
        return false;
    };
    if !from_h.contains(u) || from_h.contains(entry) {
        return false;
    }
    // The cycle's blocks: those that reach `u` backwards without passing `h`. `u` must be
    // its only way out (a thread that left by a uniform `break` would not have passed `u`
    // in its last iteration), and `h` its only way in (an irreducible cycle's other entry
    // would bypass `h`'s φ).
    let mut body = EntitySet::new();
    let mut work_list = vec![u];
    while let Some(b) = work_list.pop() {
        if !body.insert(b) || b == h {
            continue;
        }
        work_list.extend(cfg.preds(b).iter().copied());
    }
    let leaves = |b: Block| cfg.succs(b).iter().any(|&s| !body.contains(s));
    let entered =
        |b: Block| cfg.preds(b).is_empty() || cfg.preds(b).iter().any(|&p| !body.contains(p));
    !body
        .keys()
        .any(|b| body.contains(b) && ((b != u && leaves(b)) || (b != h && entered(b))))
}

/// The φ of `d`'s secondary successor that takes `v` from `d`'s block, for a branch that
/// [`ends_single_exit_loop`].
fn loop_phi_taking(func: &Function, d: &Divergent, v: Value) -> Option<(Block, Inst)> {
    phis(func, d.secondary)
        .into_iter()
        .find(|&phi| match func.dfg.inst(phi) {
            InstData::Phi { incoming } => {
                incoming.len() == 2 && incoming.iter().any(|&(p, x)| p == d.block && x == v)
            }
            _ => false,
        })
        .map(|phi| (d.block, phi))
}

/// The primary and secondary successor of every divergent branch.
fn classify(func: &Function, divergent: &[Block]) -> Result<Vec<Divergent>, WfvError> {
    let cfg = ControlFlowGraph::with_function(func);
    let pdt = PostDominatorTree::with_function(func, &cfg);
    let mut out = Vec::new();
    for &b in divergent {
        let Some((then_dest, else_dest)) = brif_targets(func, b) else {
            continue;
        };
        if then_dest == else_dest {
            continue;
        }
        // A successor that is `b` itself (a one-block loop) post-dominates it trivially,
        // but threads waiting there would be the ones going round: the primary is the
        // other.
        let pdom =
            |s: Block| s != b && pdt.contains(b) && pdt.contains(s) && pdt.post_dominates(s, b);
        let (secondary, primary, secondary_on_true) = if pdom(else_dest) {
            (then_dest, else_dest, true)
        } else if pdom(then_dest) {
            (else_dest, then_dest, false)
        } else {
            return Err(WfvError::NotReconverging(
                func.name.clone(),
                format!("the divergent branch of {b} has no post-dominating successor to lower"),
            ));
        };
        out.push(Divergent {
            block: b,
            secondary,
            primary,
            secondary_on_true,
        });
    }
    Ok(out)
}

/// Splits the edges from uniform multi-way branches into re-join points with φs, so that
/// the mask of every edge into such a block is its source's mask (divergent sources mask
/// by their condition instead).
fn split_uniform_edges_into(func: &mut Function, rejoins: &BTreeSet<Block>, divergent: &[Block]) {
    for &x in rejoins {
        if phis(func, x).is_empty() {
            continue;
        }
        let cfg = ControlFlowGraph::with_function(func);
        let preds: Vec<Block> = cfg.preds(x).to_vec();
        let mut done: Vec<Block> = Vec::new();
        for u in preds {
            if done.contains(&u) || divergent.contains(&u) || succs_of(func, u).len() < 2 {
                continue;
            }
            done.push(u);
            FuncCursor::new(func).split_preds(x, &[u]);
        }
    }
}

/// The blocks the wave can run from `secondary` before it reaches `primary`.
fn region(cfg: &ControlFlowGraph, secondary: Block, primary: Block) -> EntitySet<Block> {
    let mut seen = EntitySet::new();
    let mut work = vec![secondary];
    while let Some(x) = work.pop() {
        if x == primary || !seen.insert(x) {
            continue;
        }
        work.extend(cfg.succs(x).iter().copied());
    }
    seen
}

/// For each re-join point `B` that has one, the highest block `A` on its dominator chain
/// that `B` post-dominates with no cycle through one of the two alone: all threads that
/// ran `A` are back together at `B` (see the module documentation). The walk up the
/// chain stops at the first block `B` does not post-dominate, and after a bounded number
/// of steps.
fn equivalent_dominators(
    func: &Function,
    cfg: &ControlFlowGraph,
    rejoins: &BTreeSet<Block>,
) -> Vec<(Block, Block)> {
    const MAX_STEPS: usize = 16;
    let dom = DominatorTree::with_function(func, cfg);
    let pdt = PostDominatorTree::with_function(func, cfg);
    let mut out = Vec::new();
    for &b in rejoins {
        if !pdt.contains(b) {
            continue;
        }
        let mut best = None;
        let mut a = b;
        for _ in 0..MAX_STEPS {
            let Some(up) = dom.idom(a) else {
                break;
            };
            a = up;
            let cycle_alone =
                |x: Block, y: Block| reachable_avoiding(cfg, cfg.succs(x), Some(y)).contains(x);
            if !pdt.contains(a) || !pdt.post_dominates(b, a) {
                break;
            }
            if !cycle_alone(a, b) && !cycle_alone(b, a) {
                best = Some(a);
            }
        }
        if let Some(a) = best {
            out.push((b, a));
        }
    }
    out
}

/// What a region weighs: [`work`], and the memory accesses among it.
#[derive(Clone, Copy, Debug, Default)]
struct RegionWork {
    work: usize,
    memory: usize,
}

impl RegionWork {
    /// At most what the region costs at `width` lanes: [`work`] with every memory access
    /// a gather or a scatter, one element per lane at a time (about a cycle per lane on
    /// x86 cores: 7 cycles at 8 lanes, 16 at 16 on a Cascade Lake Xeon), where [`work`]
    /// counts 4 for any access.
    fn at_most(self, width: u32) -> usize {
        self.work + self.memory * (width as usize).saturating_sub(4)
    }
}

/// The work a wave with no thread left would do in the region of `branches[i]` if that
/// branch did not test: the blocks it runs from the secondary successor, each divergent
/// branch on the way going where an empty mask sends it (`skips` says which test) and
/// uniform branches anywhere, up to the primary successor. A loop whose exit tests is not
/// gone round: a `break` in a loop body weighs the code up to the loop's exit test, not
/// the whole loop.
fn empty_wave_work(
    func: &Function,
    cfg: &ControlFlowGraph,
    branches: &[Divergent],
    skips: &[bool],
    i: usize,
    region: &EntitySet<Block>,
) -> RegionWork {
    let mut seen = EntitySet::new();
    let mut work_list = vec![branches[i].secondary];
    let mut total = RegionWork::default();
    while let Some(x) = work_list.pop() {
        if !region.contains(x) || !seen.insert(x) {
            continue;
        }
        for &inst in func.layout.block_insts(x) {
            let data = func.dfg.inst(inst);
            total.work += work(data);
            total.memory += usize::from(is_memory_access(data));
        }
        match branches.iter().position(|d| d.block == x) {
            Some(j) if j == i || !skips[j] => work_list.push(branches[j].secondary),
            Some(j) => work_list.push(branches[j].primary),
            None => work_list.extend(cfg.succs(x).iter().copied()),
        }
    }
    total
}

/// Turns on the empty-mask test of every divergent branch whose region a wave with no
/// thread could go round in (see the module documentation), until none is left: `skips[i]`
/// says whether `branches[i]` tests, `regions[i]` is its region.
fn keep_skips_empty_waves_need(
    cfg: &ControlFlowGraph,
    branches: &[Divergent],
    regions: &[EntitySet<Block>],
    skips: &mut [bool],
) {
    let index: HashMap<Block, usize> = branches
        .iter()
        .enumerate()
        .map(|(i, d)| (d.block, i))
        .collect();
    loop {
        let mut changed = false;
        // Latest first: of a loop's tests, the one kept is then the one nearest its latch,
        // which leaves a loop whose body is one block.
        for i in (0..branches.len()).rev() {
            if skips[i] {
                continue;
            }
            let empty_wave_succs = |x: Block| -> Vec<Block> {
                match index.get(&x) {
                    Some(&j) if skips[j] => vec![branches[j].primary],
                    Some(&j) => vec![branches[j].secondary],
                    None => cfg.succs(x).to_vec(),
                }
            };
            if has_cycle(cfg.blocks(), &empty_wave_succs, &regions[i]) {
                skips[i] = true;
                changed = true;
            }
        }
        if !changed {
            return;
        }
    }
}

/// Does the graph with successors `succs` on `blocks` (of `all`) hold a cycle?
fn has_cycle(
    all: &[Block],
    succs: &dyn Fn(Block) -> Vec<Block>,
    blocks: &EntitySet<Block>,
) -> bool {
    // Iterative three-colour depth-first search: an edge to a block on the stack closes a
    // cycle.
    #[derive(Clone, Copy, PartialEq)]
    enum Colour {
        White,
        Grey,
        Black,
    }
    let mut colour: HashMap<Block, Colour> = HashMap::new();
    for &start in all {
        if !blocks.contains(start) || colour.contains_key(&start) {
            continue;
        }
        let mut stack: Vec<(Block, usize)> = vec![(start, 0)];
        colour.insert(start, Colour::Grey);
        while let Some(&mut (x, ref mut next)) = stack.last_mut() {
            let succs = succs(x);
            if *next == succs.len() {
                colour.insert(x, Colour::Black);
                stack.pop();
                continue;
            }
            let s = succs[*next];
            *next += 1;
            if !blocks.contains(s) {
                continue;
            }
            match colour.get(&s).copied().unwrap_or(Colour::White) {
                Colour::Grey => return true,
                Colour::Black => {}
                Colour::White => {
                    colour.insert(s, Colour::Grey);
                    stack.push((s, 0));
                }
            }
        }
    }
    false
}

/// The values the threads waiting at `primary` may still read: live into it, or flowing
/// into its φs from `b`.
fn live_on_edge(func: &Function, liveness: &Liveness, b: Block, primary: Block) -> Vec<Value> {
    let mut out: Vec<Value> = liveness.live_in(primary).to_vec();
    for phi in phis(func, primary) {
        if let InstData::Phi { incoming } = func.dfg.inst(phi) {
            out.extend(incoming.iter().filter(|(p, _)| *p == b).map(|&(_, v)| v));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{skip_pays, Rates};

    /// A branch whose side is empty in a share `empty` of the waves of 8, mispredicted in
    /// a share `mispredicted`.
    fn rates(empty: f64, mispredicted: f64) -> Rates {
        Rates {
            empty,
            mispredicted,
            width: 8,
        }
    }

    #[test]
    fn a_profile_decides_where_the_expected_saving_is_clear() {
        // Never empty: no test, however heavy the region.
        assert!(!skip_pays(true, rates(0.0, 0.0), 1000, 1000));
        // Always empty: a test wherever it saves more than its own instructions.
        assert!(skip_pays(false, rates(1.0, 0.0), 3, 3));
        assert!(!skip_pays(false, rates(1.0, 0.0), 1, 1));
        // The kd-tree push of `bench/wfv/multi_radius.c` (weight 21, two stores: at most
        // 29 at 8 lanes), empty in 5.4% of the waves of 8: the static rule's test goes.
        assert!(!skip_pays(true, rates(0.054, 0.054), 21, 29));
        // The far-child push of `bench/wfv/nearest_neighbor.c` (15, three stores: at
        // most 27), empty in 14% of them: the static rule's test stays, though the
        // weights alone would not pay for it.
        assert!(skip_pays(true, rates(0.14, 0.15), 15, 27));
        assert!(!skip_pays(false, rates(0.14, 0.15), 15, 27));
        // Half the waves, unpredictably: a light region gets a test from 12 up.
        assert!(!skip_pays(false, rates(0.5, 0.5), 11, 11));
        assert!(skip_pays(false, rates(0.5, 0.5), 12, 12));
    }
}
