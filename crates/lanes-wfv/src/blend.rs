//! φ on folded edges become blends (PLDI'18 §5: "If a predecessor edge is if-converted,
//! ϕ-nodes are replaced with blend instructions that switch on the predicates of the
//! folded edges to pick a value"; CC'12 §3.3).
//!
//! After linearization a block may be entered from other predecessors than in the
//! original CFG. Its φs then cannot select by predecessor any more; instead each becomes a
//! chain of `select`s on the predicates of its original incoming edges:
//! `select(p₁, v₁, select(p₂, v₂, … vₙ))`. Exactly one original edge was taken by an
//! instance that executes the block with a true predicate, so the chain picks the value
//! of the path actually taken; for an instance with a false predicate the last incoming
//! value is chosen, which the divergent loop transform uses to keep masks unchanged
//! (its pure latch lists the old latch last). After widening the `select`s become
//! lane-wise blends on `<W x i1>` edge masks.
//!
//! A loop header keeps its φ (its back edge is never folded, §3.3); only its entry
//! incoming is renamed to the header's new forward predecessors.
//!
//! One φ is blended by a shorter rule: the update of a divergent loop's live mask in its
//! pure latch, `φ(exits: false, …, latch: live)`. The lanes it keeps are exactly those
//! that take the old latch's edge — they are live, and lanes that take no edge are not —
//! so it is `pred(latch → pure latch) ∧ live`, one `and` of a mask the latch computes
//! anyway, instead of clearing each exit's lanes from `live` in turn (which re-derives
//! every exit mask in each iteration, on the path from one iteration's mask to the next).

use std::collections::HashMap;

use cranelift_entity::SecondaryMap;
use lanes_analysis::{ControlFlowGraph, LoopForest};
use lanes_ir::cursor::phis;
use lanes_ir::{Block, FuncCursor, Function, InstData, Value, ValueSubstitution};

use crate::cfg_edit::phi_result;
use crate::divergent_loops::TransformedLoop;
use crate::WfvError;

/// Rewrites the φs of the `changed` blocks (whose predecessors differ in the linearized
/// CFG). `old_cfg`/`loops` describe the CFG before linearization, `new_preds` the
/// predecessors after it, `edge_preds` the materialized predicates of the old in-edges,
/// `transformed` the divergent loops (their "don't care" values and live masks).
pub fn fold_phis(
    func: &mut Function,
    changed: &[Block],
    loops: &LoopForest,
    old_cfg: &ControlFlowGraph,
    new_preds: &SecondaryMap<Block, Vec<Block>>,
    edge_preds: &HashMap<(Block, Block), Value>,
    transformed: &[TransformedLoop],
) -> Result<(), WfvError> {
    let dont_care: Vec<Value> = transformed
        .iter()
        .flat_map(|t| t.dont_care.iter().copied())
        .collect();
    // Each replaced φ is recorded and the uses are rewritten once at the end (one walk
    // over the function, not one per φ); operands are read through the substitution.
    let mut subst = ValueSubstitution::new();
    for &b in changed {
        let list = phis(func, b);
        if list.is_empty() {
            continue;
        }
        let header = loops.loop_of_header(b).is_some();
        if header {
            let fwd_old: Vec<Block> = old_cfg
                .preds(b)
                .iter()
                .copied()
                .filter(|&p| !loops.is_back_edge(p, b))
                .collect();
            let [pre] = fwd_old[..] else {
                return Err(WfvError::Internal(format!("header {b} has no preheader")));
            };
            let fwd_new: Vec<Block> = new_preds[b]
                .iter()
                .copied()
                .filter(|&p| !loops.is_back_edge(p, b))
                .collect();
            for phi in list {
                let InstData::Phi { incoming } = func.dfg.inst(phi).clone() else {
                    continue;
                };
                let entry_v = incoming.iter().find(|(p, _)| *p == pre).map(|&(_, v)| v);
                let mut new: Vec<(Block, Value)> = incoming
                    .into_iter()
                    .filter(|&(p, _)| loops.is_back_edge(p, b))
                    .collect();
                if let Some(v) = entry_v {
                    for &q in &fwd_new {
                        new.insert(0, (q, v));
                    }
                }
                *func.dfg.inst_mut(phi) = InstData::Phi { incoming: new };
            }
            continue;
        }
        // The blends go after the φs, in order, where the block's other code starts.
        let mut cur = FuncCursor::new(func);
        let blends = cur.goto_first_non_phi(b).position();
        for phi in list {
            let InstData::Phi { incoming } = cur.func.dfg.inst(phi).clone() else {
                continue;
            };
            let me = phi_result(cur.func, phi);
            let ty = cur.func.dfg.value_type(me);
            // "Don't care" incomings (dead instances of a transformed loop) take no part.
            let incoming: Vec<(Block, Value)> = incoming
                .into_iter()
                .map(|(p, v)| (p, subst.resolve(v)))
                .collect();
            let meaningful: Vec<(Block, Value)> = incoming
                .iter()
                .copied()
                .filter(|(_, v)| !dont_care.contains(v))
                .collect();
            let incoming = if meaningful.is_empty() {
                incoming
            } else {
                meaningful
            };
            let Some(&(last_from, last)) = incoming.last() else {
                continue;
            };
            // Only where the old latch dominates `b` after linearization, on a chain of
            // single predecessors: its edge mask then reaches `b` as it is. Where `b`
            // follows a join (of a uniform branch's paths, say) the mask would become a φ
            // of masks, which targets without mask registers pack and unpack.
            let latch_edge = || {
                edge_preds
                    .get(&(last_from, b))
                    .map(|&c| subst.resolve(c))
                    .filter(|_| single_path_from(new_preds, last_from, b))
            };
            if let Some(c) = is_live_update(cur.func, transformed, b, &incoming)
                .then(latch_edge)
                .flatten()
            {
                cur.set_position(blends);
                let and = InstData::Binary {
                    op: lanes_ir::BinaryOp::And,
                    args: [c, last],
                    flags: lanes_ir::IntFlags::NONE,
                };
                let acc = cur.insert_value(and, ty);
                subst.insert(me, acc);
                cur.goto_inst(phi).remove_inst();
                continue;
            }
            let mut acc = last;
            // A φ of one value needs no blend (and stays as uniform as that value).
            let same = incoming.iter().all(|&(_, v)| v == last);
            let kept: Vec<Block> = incoming
                .iter()
                .map(|&(p, _)| p)
                .filter(|p| new_preds[b].contains(p))
                .collect();
            let last_kept = incoming.last().is_some_and(|(p, _)| kept.contains(p));
            let predicate = |p: Block| {
                edge_preds
                    .get(&(p, b))
                    .map(|&c| subst.resolve(c))
                    .ok_or_else(|| WfvError::Internal(format!("no predicate for {p}->{b}")))
            };
            // The incoming edges blended in `b`, on top of `acc`, last first.
            let blended: Vec<(Block, Value)> = if same {
                Vec::new()
            } else if last_kept && new_preds[b].len() > 1 && everywhere_in(cur.func, loops, last, b)
            {
                // `b` is still a join of the linearized CFG (a uniform branch kept two
                // edges to it, one of them the last incoming's, whose value lanes keep
                // that take no edge): the edges linearization kept stay φ edges, each
                // blended at its source (once per pass through it, not in every pass
                // through `b`: a divergent loop's uniform exit updates its masks and
                // live-outs only when it is taken); the folded ones are blended on top.
                let mut merged: Vec<(Block, Value)> = Vec::new();
                for &q in &new_preds[b] {
                    let v = match incoming.iter().find(|&&(p, _)| p == q) {
                        Some(&(_, v)) if v != last => {
                            let c = predicate(q)?;
                            cur.goto_before_terminator(q);
                            cur.insert_value(InstData::Select { args: [c, v, last] }, ty)
                        }
                        _ => last,
                    };
                    merged.push((q, v));
                }
                if merged.iter().any(|&(_, v)| v != last) {
                    cur.goto_top(b);
                    acc = cur.insert_phi(ty, merged);
                }
                incoming
                    .iter()
                    .rev()
                    .filter(|(p, _)| !kept.contains(p))
                    .copied()
                    .collect()
            } else {
                incoming.iter().rev().skip(1).copied().collect()
            };
            for (p, v) in blended {
                let c = predicate(p)?;
                cur.set_position(blends);
                acc = cur.insert_value(InstData::Select { args: [c, v, acc] }, ty);
            }
            subst.insert(me, acc);
            cur.goto_inst(phi).remove_inst();
        }
    }
    func.dfg.apply_substitution(&subst);
    Ok(())
}

/// Is the φ of `b` with `incoming` the live-mask update of a transformed loop whose pure
/// latch is `b`: `false` from every exit, the loop's live mask from the old latch, last?
fn is_live_update(
    func: &Function,
    transformed: &[TransformedLoop],
    b: Block,
    incoming: &[(Block, Value)],
) -> bool {
    let Some((&(_, last), exits)) = incoming.split_last() else {
        return false;
    };
    let is_false = |v: Value| {
        func.dfg.value_type(v) == lanes_ir::Type::I1
            && func
                .dfg
                .def_inst(v)
                .is_some_and(|i| matches!(func.dfg.inst(i), InstData::Iconst { imm: 0 }))
    };
    !exits.is_empty()
        && transformed
            .iter()
            .any(|t| t.pure_latch == b && t.live == last)
        && exits.iter().all(|&(_, v)| is_false(v))
}

/// Is `from` reached from `to` going back through blocks with one predecessor each (so
/// that `from` dominates `to`)?
fn single_path_from(new_preds: &SecondaryMap<Block, Vec<Block>>, from: Block, to: Block) -> bool {
    let mut at = to;
    let mut seen = cranelift_entity::EntitySet::new();
    // A block seen twice closes a cycle of single predecessors.
    while seen.insert(at) {
        let [p] = new_preds[at][..] else {
            return false;
        };
        if p == from {
            return true;
        }
        at = p;
    }
    false
}

/// Is `v` defined on every path to `b`, in the linearized CFG as in the original: a
/// parameter, a value of the entry block, or a φ of the header of a loop holding `b`
/// (linearization keeps loop headers dominating their loops)?
fn everywhere_in(func: &Function, loops: &LoopForest, v: Value, b: Block) -> bool {
    let inst = match func.dfg.value_def(v) {
        lanes_ir::ValueDef::Param(_) => return true,
        lanes_ir::ValueDef::Result(inst) => inst,
    };
    let Some(def) = func.layout.inst_block(inst) else {
        return false;
    };
    func.layout.entry_block() == Some(def)
        || (func.dfg.inst(inst).is_phi()
            && loops
                .loop_of_header(def)
                .is_some_and(|l| loops.contains(l, b)))
}
