//! Partial linearization (PLDI'18 §3, Fig. 5) and full if-conversion.
//!
//! The figure is present in our text of the paper as a listing; the algorithm is:
//!
//! ```text
//! D ← ∅                                   // deferral relation
//! foreach b in Index do
//!     T ← {s | (b, s) ∈ D}                // blocks deferred to b
//!     if b ends in a uniform branch then
//!         foreach (b, i, s) ∈ E do
//!             next ← min(T ∪ {s})
//!             E_ℓ ← E_ℓ ∪ {(b, i, next)}
//!             D ← D ∪ {(next, t) | t ∈ (T ∪ {s}) \ {next}}
//!     else
//!         S ← {s | ∃i. (b, i, s) ∈ E}
//!         next ← min(T ∪ S)
//!         E_ℓ ← E_ℓ ∪ {(b, 0, next)}
//!         D ← D ∪ {(next, t) | t ∈ (T ∪ S) \ {next}}
//!     D ← D \ {(b, s) | (b, s) ∈ D}
//! ```
//!
//! It runs on the CFG without back edges, over the block index of §3.1; back edges are
//! kept at the unique latches (§3.3; all loops are uniform after the divergent loop
//! transform, so the deferral set of a latch only holds blocks outside the loop, which
//! its exit edge carries on). A latch whose only successor is its header drops its
//! deferral set: every path of the iteration also leaves through an exit edge that carries
//! the same blocks.
//!
//! **Full mode** treats every branch as divergent except the `any` branches of the pure
//! latches (the caller also transforms every loop), which is classic full if-conversion
//! of the acyclic regions; it exists to compare against and to check the statistics.
//!
//! After the new branches are in place, φs whose block got new predecessors become blends
//! ([`crate::blend`]), side effects in blocks with varying predicates are guarded
//! ([`crate::guards`]), and SSA is repaired.

use std::collections::{BTreeSet, HashMap};

use cranelift_entity::SecondaryMap;
use lanes_analysis::{AnalysisSet, Edits, FunctionAnalyses};
use lanes_ir::{Block, FuncBuilder, FuncCursor, Function};

use crate::blend::fold_phis;
use crate::block_index::BlockIndex;
use crate::divergent_loops::TransformedLoop;
use crate::guards::{guard_block, Predication};
use crate::loop_guard::insert_loop_guards;
use crate::predicates::Predicates;
use crate::redundant_blends::remove_redundant_blends;
use crate::ssa_repair::{remove_dead_code, repair_ssa};
use crate::stats::Stats;
use crate::{Mode, WfvError};

/// The result of linearizing one function.
#[derive(Clone, Debug, Default)]
pub struct Linearized {
    pub predication: Predication,
    pub stats: Stats,
}

/// The new branch targets chosen by Fig. 5.
#[derive(Clone, Debug, Default)]
struct Plan {
    /// Per block: the targets in branch order for kept branches, or the single target of
    /// a folded branch.
    targets: SecondaryMap<Block, Vec<Block>>,
    folded: SecondaryMap<Block, bool>,
}

fn distinct(v: &[Block]) -> usize {
    let mut s: Vec<Block> = v.to_vec();
    s.sort();
    s.dedup();
    s.len()
}

/// Splits the critical edges leaving uniform branches (except back edges), so that every
/// uniform branch dominates its successors: Theorem 4.5 with `d = b` then keeps all its
/// edges, and no uniform branch is lost (Table 1). Without the split, an edge into a join
/// that other folded paths also reach may be redirected, as in Fig. 8.
/// Works on the CFG of `analyses`, and keeps them up to date.
fn split_uniform_critical_edges(
    func: &mut Function,
    analyses: &mut FunctionAnalyses,
    divergent: &dyn Fn(Block) -> bool,
) {
    analyses.compute(func, AnalysisSet::LOOPS);
    let a = &*analyses;
    let mut split = false;
    for &b in a.cfg().rpo() {
        let succs = a.cfg().succs(b);
        if succs.len() < 2 || divergent(b) {
            continue;
        }
        for &s in succs {
            if a.cfg().preds(s).len() > 1 && !a.loops().is_back_edge(b, s) {
                FuncCursor::new(func).split_preds(s, &[b]);
                split = true;
            }
        }
    }
    analyses.keep_after(Edits::control_flow_if(split));
}

/// Partially (or fully) linearizes `func`, which must be normalized and have only uniform
/// loops. `divergent(b)`: the branch ending `b` is divergent. `analyses` must describe
/// `func` where valid; they are used where they hold, and on return describe the
/// linearized function (its CFG and dominator tree are valid).
pub fn linearize(
    func: &mut Function,
    analyses: &mut FunctionAnalyses,
    divergent: &dyn Fn(Block) -> bool,
    transformed: &[TransformedLoop],
    mode: Mode,
) -> Result<Linearized, WfvError> {
    analyses.compute(func, AnalysisSet::LOOPS);
    if !analyses.loops().is_reducible() {
        return Err(WfvError::irreducible(func, analyses.loops()));
    }
    // Guards in front of uniform loops under varying predicates (full mode transforms
    // every loop instead).
    let guards = if !mode.is_full() {
        let g = insert_loop_guards(func, analyses, divergent, transformed);
        split_uniform_critical_edges(func, analyses, &|b| divergent(b) && !g.contains(&b));
        g
    } else {
        Vec::new()
    };
    let is_guard = |b: Block| guards.contains(&b);
    analyses.compute(func, AnalysisSet::LOOPS);
    // The analyses of the CFG before linearization: predicates and blends are computed
    // on the original branches, after the new ones are in place.
    let a = &*analyses;
    let index = BlockIndex::compute(a.cfg(), a.loops());
    let is_latch = |b: Block| transformed.iter().any(|t| t.pure_latch == b);
    let div = |b: Block| -> bool {
        if distinct(&func.successors(b)) < 2 {
            return false;
        }
        // The `any` branch of a pure latch is uniform by construction (the shape analysis
        // may not know that mask queries are uniform).
        !is_latch(b) && !is_guard(b) && (mode.is_full() || divergent(b))
    };
    let div_map: SecondaryMap<Block, bool> = index.order().iter().map(|&b| (b, div(b))).collect();
    let div = |b: Block| div_map[b];
    for l in a.loops().loops() {
        for &latch in a.loops().latches(l) {
            if div(latch) {
                return Err(WfvError::DivergentLatch(latch));
            }
        }
    }
    // Fig. 5.
    let mut plan = Plan::default();
    // Deferral sets by block, as positions in the index.
    let mut deferred: SecondaryMap<Block, BTreeSet<usize>> = SecondaryMap::new();
    let order = index.order().to_vec();
    let pos = |b: Block| index.pos(b).unwrap_or(usize::MAX);
    for &b in &order {
        let t_set = std::mem::take(&mut deferred[b]);
        let targets = func.successors(b);
        let is_back = |s: Block| a.loops().is_back_edge(b, s);
        let mut defer = |next: usize, set: &BTreeSet<usize>| {
            for &t in set {
                if t != next {
                    deferred[order[next]].insert(t);
                }
            }
        };
        if !div(b) {
            let mut new = Vec::with_capacity(targets.len());
            for &s in &targets {
                if is_back(s) {
                    new.push(s);
                    continue;
                }
                let mut set = t_set.clone();
                set.insert(pos(s));
                // The least of the deferred blocks and `s`.
                let next = t_set.first().map_or(pos(s), |&t| t.min(pos(s)));
                defer(next, &set);
                new.push(order[next]);
            }
            let dag_edges = targets.iter().filter(|&&s| !is_back(s)).count();
            if dag_edges == 0
                && !t_set.is_empty()
                && !a.loops().loops().any(|l| a.loops().latches(l).contains(&b))
            {
                return Err(WfvError::Internal(format!(
                    "{b}: deferred blocks reach a block without successors"
                )));
            }
            plan.targets[b] = new;
            plan.folded[b] = false;
        } else {
            let mut set = t_set.clone();
            for &s in &targets {
                set.insert(pos(s));
            }
            let Some(&next) = set.first() else {
                return Err(WfvError::Internal(format!(
                    "{b} ends in a divergent branch without targets"
                )));
            };
            defer(next, &set);
            plan.targets[b] = vec![order[next]];
            plan.folded[b] = true;
        }
    }
    // Statistics (PLDI'18 Table 1).
    let mut stats = Stats::default();
    for &b in &order {
        // Guards are ours, not the program's.
        if distinct(&func.successors(b)) < 2 || is_guard(b) {
            continue;
        }
        stats.branches += 1;
        // Uniform as the shape analysis says (pure latches are uniform by construction),
        // whatever the mode folded.
        if divergent(b) && !is_latch(b) {
            stats.divergent += 1;
        } else {
            stats.uniform += 1;
            if distinct(&plan.targets[b]) < 2 {
                stats.lost += 1;
                stats.lost_blocks.push(b);
            }
        }
    }
    // Predecessors before and after.
    let mut new_preds: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
    for &b in &order {
        for &s in &plan.targets[b] {
            let e = &mut new_preds[s];
            if !e.contains(&b) {
                e.push(b);
            }
        }
    }
    let changed: Vec<Block> = order
        .iter()
        .copied()
        .filter(|&b| {
            let mut old: Vec<Block> = a.cfg().preds(b).to_vec();
            let mut new = new_preds[b].clone();
            old.sort();
            new.sort();
            old != new
        })
        .collect();
    // Predicates and guards, computed on the original branches.
    let mut preds = Predicates::compute(a.cfg(), a.loops(), &index, &div, transformed);
    // Kept uniform branches into blocks they alone enter: those edges' predicates are
    // their source's, placed in the target.
    let mut sole_entries: Vec<(Block, Block)> = Vec::new();
    for &b in order.iter().filter(|&&b| !plan.folded[b] && !div(b)) {
        let succs = func.successors(b);
        if distinct(&succs) < 2 {
            continue;
        }
        for s in succs {
            if plan.targets[b].contains(&s) && a.cfg().preds(s) == [b] {
                sole_entries.push((b, s));
            }
        }
    }
    preds.place_at_target(sole_entries);
    let mut predication = Predication::default();
    for &b in &order {
        if let Some(p) = preds.block_pred(func, b) {
            predication.block_mask[b] = p.into();
        }
    }
    let mut edge_preds: HashMap<(Block, Block), lanes_ir::Value> = HashMap::new();
    for &b in &changed {
        for &p in a.cfg().preds(b) {
            if !a.loops().is_back_edge(p, b) {
                edge_preds.insert((p, b), preds.edge_pred(func, p, b));
            }
        }
    }
    for &b in &order {
        if let Some(p) = predication.mask(b) {
            guard_block(func, b, p, &mut predication);
        }
    }
    // New branches.
    for &b in &order {
        let Some(t) = func.terminator(b) else {
            continue;
        };
        let new = &plan.targets[b];
        if plan.folded[b] {
            FuncCursor::new(func).goto_inst(t).remove_inst();
            let mut bld = FuncBuilder::new(func);
            bld.switch_to_block(b);
            bld.jump(new[0]);
        } else {
            let mut i = 0;
            func.dfg.inst_mut(t).for_each_target_mut(|d| {
                *d = new[i];
                i += 1;
            });
        }
    }
    fold_phis(
        func,
        &changed,
        a.loops(),
        a.cfg(),
        &new_preds,
        &edge_preds,
        transformed,
    )?;
    // The branches changed: the analyses of the new CFG are computed by SSA repair.
    analyses.keep_after(Edits::ControlFlow);
    repair_ssa(func, analyses, Some(&index));
    analyses.compute(func, AnalysisSet::LOOPS);
    remove_redundant_blends(func, analyses.loops());
    let roots: Vec<lanes_ir::Value> = predication
        .masks()
        .chain(predication.guarded.iter().map(|&(_, m)| m))
        .collect();
    remove_dead_code(func, &roots);
    analyses.keep_after(Edits::Values);
    Ok(Linearized { predication, stats })
}
