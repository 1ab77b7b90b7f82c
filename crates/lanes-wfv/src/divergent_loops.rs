//! The divergent loop transform (PLDI'18 §5, Fig. 10–11).
//!
//! A loop is divergent when the instances that enter it together may leave it in
//! different iterations or through different exits. The transform folds the divergent
//! exits into data flow so that the loop becomes uniform, and partial linearization
//! (§3.3) can treat it like any uniform loop:
//!
//! - the header gets a **live mask** φ (which instances still iterate), one **exit mask**
//!   φ per exit block (which instances left to it), and one **tracking** φ per LCSSA φ of
//!   the exits (the value each instance carried out when it left) unless every exiting
//!   edge to that exit carries one value defined before the loop, which the exit then
//!   reads directly (no blend in every iteration);
//!   A live-out that is a *varying* header φ `p` of the loop, or the value `p` takes
//!   round the back edge, is instead **kept in place**: `p` itself stops changing in the
//!   lanes that left (its back-edge value is `select(live, v, p)`), and the exit reads
//!   it. That select is the only per-iteration cost and sits on the computation of `v`,
//!   where targets with write masks fold it into the instruction (`count += c` becomes one
//!   masked add); a tracking φ costs a blend of its own. A uniform φ keeps its tracking
//!   φ: making it per lane would cost more than the blend (a loop counter would turn
//!   into a vector and its addresses into gathers);
//! - every exiting edge `e → x` is **rebound** to a new block `c` that jumps to a new,
//!   empty **pure latch** `P`; the old back edge `l → h` goes to `P` too;
//! - `P` updates the masks with φs (an instance arriving from `c` is no longer live, has
//!   its exit mask for `x` set and its live-outs recorded; one arriving from `l` keeps
//!   them) and ends in the only exit branch of the loop: `brif any(live'), h, E`;
//! - the new exit `E` **dispatches** on the exit masks to the original exit blocks
//!   (a cascade of `brif`s, part of the parent region), whose LCSSA φs now read the
//!   tracked values.
//!
//! In `P`'s φs the incoming from the old latch comes last: when the φs become blends
//! ([`crate::blend`]) the last incoming is the value of lanes that took no incoming edge,
//! which must keep their masks. The live mask starts as `true` here; predicate
//! construction ([`crate::predicates`]) replaces it by the preheader's predicate, so that
//! lanes that never entered the loop are not live in it.
//!
//! Loops whose exits are all uniform are left alone: the caller only passes divergent
//! loops (or, for full if-conversion, every loop). A `break` that leaves where the latch
//! leaves, carrying what the latch's φs take from it, has already been sent through the
//! latch ([`crate::latch_breaks`]), so that its live-outs qualify for keeping in place.

use std::collections::{HashMap, HashSet};

use lanes_analysis::{AnalysisSet, Edits, FunctionAnalyses};
use lanes_ir::cursor::{phis, preds};
use lanes_ir::{Block, FuncBuilder, FuncCursor, Function, InstData, Intrinsic, Type, Value};

use crate::cfg_edit::{bool_const, incoming_of, phi_result, zero_value};
use crate::normalize::{lcssa, simplify_loops};
use crate::WfvError;

/// What the transform made of one loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransformedLoop {
    pub header: Block,
    /// The live mask φ in the header.
    pub live: Value,
    /// The pure latch (the only latch and the only exiting block).
    pub pure_latch: Block,
    /// The new dedicated exit, start of the exit dispatch.
    pub exit: Block,
    /// Values that only stand for "any value" (what the pure latch passes back to the
    /// header for instances that left the loop); blends ignore them.
    pub dont_care: Vec<Value>,
    /// Live-outs kept in place in a varying header φ rather than tracked.
    pub kept_in_place: usize,
}

/// Transforms the loops with the given headers (innermost first), re-normalizing after
/// each. `func` must be normalized; `analyses` must describe it where valid, and are kept
/// up to date. `varying` holds header φs known to differ between lanes (their live-outs
/// are kept in place; see the module documentation).
pub fn transform_divergent_loops(
    func: &mut Function,
    analyses: &mut FunctionAnalyses,
    headers: &[Block],
    varying: &HashSet<Value>,
) -> Result<Vec<TransformedLoop>, WfvError> {
    let mut todo: Vec<Block> = headers.to_vec();
    let mut done = Vec::new();
    while !todo.is_empty() {
        analyses.compute(func, AnalysisSet::LOOPS);
        let a = &*analyses;
        let pick = todo
            .iter()
            .copied()
            .filter_map(|h| a.loops().loop_of_header(h).map(|l| (h, l)))
            .max_by_key(|&(_, l)| a.loops().depth(l));
        let Some((h, l)) = pick else {
            return Err(WfvError::Internal(format!("{} is no loop header", todo[0])));
        };
        todo.retain(|&x| x != h);
        let blocks = a.loops().blocks(l).to_vec();
        let latches = a.loops().latches(l);
        let [latch] = latches else {
            return Err(WfvError::Internal(format!("loop {h} has no unique latch")));
        };
        let outside: Vec<Block> = a
            .cfg()
            .preds(h)
            .iter()
            .copied()
            .filter(|p| !blocks.contains(p))
            .collect();
        let [pre] = outside[..] else {
            return Err(WfvError::Internal(format!("loop {h} has no preheader")));
        };
        let mut exiting: Vec<(Block, Block)> = Vec::new();
        for &b in &blocks {
            for &s in a.cfg().succs(b) {
                if !blocks.contains(&s) {
                    exiting.push((b, s));
                }
            }
        }
        if exiting.is_empty() {
            return Err(WfvError::InfiniteLoop(h));
        }
        let t = transform_one(func, h, pre, *latch, &exiting, &blocks, varying);
        done.push(t);
        analyses.keep_after(Edits::ControlFlow);
        simplify_loops(func, analyses)?;
        lcssa(func, analyses);
    }
    Ok(done)
}

fn transform_one(
    func: &mut Function,
    h: Block,
    pre: Block,
    latch: Block,
    exiting: &[(Block, Block)],
    blocks: &[Block],
    varying: &HashSet<Value>,
) -> TransformedLoop {
    let mut exits: Vec<Block> = Vec::new();
    for &(_, x) in exiting {
        if !exits.contains(&x) {
            exits.push(x);
        }
    }
    // LCSSA φs of the exits (with the exit's number) and their incoming value per exiting
    // block.
    let exit_phis: Vec<(usize, lanes_ir::Inst)> = exits
        .iter()
        .enumerate()
        .flat_map(|(k, &x)| phis(func, x).into_iter().map(move |p| (k, p)))
        .collect();
    // Rebind the exiting edges through fresh blocks `c`.
    let pure = FuncCursor::new(func).create_block_after(latch);
    let mut rebound: Vec<(Block, Block, Block)> = Vec::new(); // (c, exiting block, exit)
    for &(e, x) in exiting {
        let mut cur = FuncCursor::new(func);
        let c = cur.create_block_after(e);
        cur.retarget(e, x, c);
        cur.goto_bottom(c)
            .insert_inst(InstData::Jump { dest: pure }, None);
        rebound.push((c, e, x));
    }
    // The back edge now goes through the pure latch.
    FuncCursor::new(func).retarget(latch, h, pure);
    let t = bool_const(func, true);
    let f = bool_const(func, false);
    let mut zeros = HashMap::new();
    // Header φs: live mask, exit masks, tracked live-outs (their P-incoming set below).
    let phi_in = |func: &mut Function, b: Block, ty: Type, inc: Vec<(Block, Value)>| {
        FuncCursor::new(func)
            .goto_first_non_phi(b)
            .insert_phi(ty, inc)
    };
    let live = phi_in(func, h, Type::I1, vec![(pre, t)]);
    let exit_masks: Vec<Value> = exits
        .iter()
        .map(|_| phi_in(func, h, Type::I1, vec![(pre, f)]))
        .collect();
    // A live-out that every exiting edge to its exit carries as one value defined outside
    // the loop needs no tracking: every lane that left there has that value, which the
    // exit's φ reads once, after the loop (a `return 1` from inside a search loop).
    let mut live_outs: Vec<LiveOut> = Vec::with_capacity(exit_phis.len());
    for &(k, phi) in &exit_phis {
        let in_place = kept_in_place(func, phi, exiting, exits[k], h, latch, varying);
        // One way of keeping per header φ: a second live-out of the same φ that needs the
        // other is tracked.
        let clash = in_place.is_some_and(|(p, at_latch)| {
            live_outs
                .iter()
                .any(|o| matches!(*o, LiveOut::InPlace { phi, at_latch: a } if phi == p && a != at_latch))
        });
        live_outs.push(
            match invariant_live_out(func, phi, exiting, exits[k], blocks) {
                Some(v) => LiveOut::Invariant(v),
                None => match in_place.filter(|_| !clash) {
                    Some((p, at_latch)) => LiveOut::InPlace { phi: p, at_latch },
                    None => {
                        let ty = func.dfg.value_type(phi_result(func, phi));
                        let z = zero_value(func, ty, &mut zeros);
                        LiveOut::Tracked(phi_in(func, h, ty, vec![(pre, z)]))
                    }
                },
            },
        );
    }
    // Pure latch φs: incoming from each `c`, then from the old latch last.
    let live_upd = {
        let mut inc: Vec<(Block, Value)> = rebound.iter().map(|&(c, _, _)| (c, f)).collect();
        inc.push((latch, live));
        phi_in(func, pure, Type::I1, inc)
    };
    let mut mask_upd = Vec::new();
    for (k, &x) in exits.iter().enumerate() {
        let mut inc: Vec<(Block, Value)> = rebound
            .iter()
            .map(|&(c, _, to)| (c, if to == x { t } else { exit_masks[k] }))
            .collect();
        inc.push((latch, exit_masks[k]));
        mask_upd.push(phi_in(func, pure, Type::I1, inc));
    }
    let mut track_upd: Vec<Value> = Vec::new();
    for (j, &(k, phi)) in exit_phis.iter().enumerate() {
        let track = match live_outs[j] {
            LiveOut::Invariant(v) => {
                track_upd.push(v);
                continue;
            }
            // Set below, once the header φ's back edge goes through P.
            LiveOut::InPlace { phi: p, .. } => {
                track_upd.push(p);
                continue;
            }
            LiveOut::Tracked(track) => track,
        };
        let ty = func.dfg.value_type(track);
        let mut inc: Vec<(Block, Value)> = Vec::new();
        for &(c, e, to) in &rebound {
            let v = if to == exits[k] {
                incoming_of(func, phi, e).unwrap_or(track)
            } else {
                track
            };
            inc.push((c, v));
        }
        inc.push((latch, track));
        track_upd.push(phi_in(func, pure, ty, inc));
    }
    // Header φs: the old back-edge incoming now comes from P; values of instances that
    // arrive at P from an exit are dead, so P merges the latch value with a "don't care"
    // constant of its own, which blending drops: a uniform counter stays uniform.
    let mut dont_care: Vec<Value> = Vec::new();
    for phi in phis(func, h) {
        let InstData::Phi { incoming } = func.dfg.inst(phi).clone() else {
            continue;
        };
        let ty = func.dfg.value_type(phi_result(func, phi));
        let mut new_inc: Vec<(Block, Value)> = Vec::new();
        for (p, v) in incoming {
            if p == latch {
                let dc = fresh_zero(func, ty);
                dont_care.push(dc);
                let mut inc: Vec<(Block, Value)> =
                    rebound.iter().map(|&(c, _, _)| (c, dc)).collect();
                inc.push((latch, v));
                new_inc.push((pure, phi_in(func, pure, ty, inc)));
            } else {
                new_inc.push((p, v));
            }
        }
        *func.dfg.inst_mut(phi) = InstData::Phi { incoming: new_inc };
    }
    // Live-outs kept in place: the header φ's back-edge value is `select(·, v, p)`, which
    // leaves `p` alone in lanes that are no longer live; the exit reads that select.
    let mut kept: HashMap<Value, Value> = HashMap::new();
    for j in 0..exit_phis.len() {
        let LiveOut::InPlace { phi: p, at_latch } = live_outs[j] else {
            continue;
        };
        if let Some(&nv) = kept.get(&p) {
            track_upd[j] = nv;
            continue;
        }
        let Some(p_inst) = func.dfg.def_inst(p) else {
            continue;
        };
        let Some(back) = incoming_of(func, p_inst, pure) else {
            continue;
        };
        let ty = func.dfg.value_type(p);
        let (cond, value) = if at_latch {
            // Lanes leaving to this exit carry the back-edge value too; other exits'
            // lanes carry nothing they read.
            let InstData::Phi { incoming } =
                func.dfg.inst(func.dfg.def_inst(back).expect("φ")).clone()
            else {
                continue;
            };
            let dc = fresh_zero(func, ty);
            dont_care.push(dc);
            let v_latch = incoming.last().expect("latch incoming").1;
            // The exits whose live-out this φ keeps (all read `v_latch`).
            let readers: Vec<Block> = exit_phis
                .iter()
                .zip(&live_outs)
                .filter(|(_, o)| matches!(**o, LiveOut::InPlace { phi, .. } if phi == p))
                .map(|(&(x, _), _)| exits[x])
                .collect();
            let mut inc: Vec<(Block, Value)> = rebound
                .iter()
                .map(|&(c, _, to)| (c, if readers.contains(&to) { v_latch } else { dc }))
                .collect();
            inc.push((latch, v_latch));
            (live, phi_in(func, pure, ty, inc))
        } else {
            (live_upd, back)
        };
        let mut b = FuncBuilder::new(func);
        b.switch_to_block(pure);
        let nv = b.value(
            InstData::Select {
                args: [cond, value, p],
            },
            ty,
        );
        if let InstData::Phi { incoming } = func.dfg.inst_mut(p_inst) {
            for (from, v) in incoming.iter_mut() {
                if *from == pure {
                    *v = nv;
                }
            }
        }
        kept.insert(p, nv);
        track_upd[j] = nv;
    }
    set_back_incoming(func, live, pure, live_upd);
    for (k, &m) in exit_masks.iter().enumerate() {
        set_back_incoming(func, m, pure, mask_upd[k]);
    }
    for (j, out) in live_outs.iter().enumerate() {
        if let LiveOut::Tracked(tr) = *out {
            set_back_incoming(func, tr, pure, track_upd[j]);
        }
    }
    // P: continue while any instance is live.
    let exit = FuncCursor::new(func).create_block_after(pure);
    let mut b = FuncBuilder::new(func);
    b.switch_to_block(pure);
    let any = b.value(
        InstData::Intrinsic {
            id: Intrinsic::Any,
            args: vec![live_upd],
        },
        Type::I1,
    );
    b.brif(any, h, exit);
    // Dispatch: E tests the exit masks in turn; the last exit takes the rest.
    let mut cur = exit;
    // The dispatch block branching to each exit, by the exit's number.
    let mut dispatch_pred: Vec<Block> = Vec::with_capacity(exits.len());
    for (k, &x) in exits.iter().enumerate() {
        let mut b = FuncBuilder::new(func);
        b.switch_to_block(cur);
        dispatch_pred.push(cur);
        if k + 1 == exits.len() {
            b.jump(x);
        } else {
            let next = FuncCursor::new(func).create_block_after(cur);
            let mut b = FuncBuilder::new(func);
            b.switch_to_block(cur);
            b.brif(mask_upd[k], x, next);
            cur = next;
        }
    }
    // Exit φs read the tracked values, from their dispatch block.
    for (j, &(k, phi)) in exit_phis.iter().enumerate() {
        *func.dfg.inst_mut(phi) = InstData::Phi {
            incoming: vec![(dispatch_pred[k], track_upd[j])],
        };
    }
    debug_assert!(preds(func, pure).len() == rebound.len() + 1);
    TransformedLoop {
        header: h,
        live,
        pure_latch: pure,
        exit,
        dont_care,
        kept_in_place: live_outs
            .iter()
            .filter(|o| matches!(o, LiveOut::InPlace { .. }))
            .count(),
    }
}

/// How the value an exit's LCSSA φ reads is carried out of the loop.
#[derive(Clone, Copy)]
enum LiveOut {
    /// One value defined before the loop, on every exiting edge to the exit.
    Invariant(Value),
    /// The varying header φ `phi` (or, `at_latch`, its back-edge value) on every exiting
    /// edge to the exit: `phi` stops changing in lanes that left.
    InPlace { phi: Value, at_latch: bool },
    /// The header's tracking φ, updated as instances leave.
    Tracked(Value),
}

/// The one value defined outside the loop (`blocks`) that `phi` of `exit` reads from every
/// exiting edge to it, if there is one.
fn invariant_live_out(
    func: &Function,
    phi: lanes_ir::Inst,
    exiting: &[(Block, Block)],
    exit: Block,
    blocks: &[Block],
) -> Option<Value> {
    let mut vals = exiting
        .iter()
        .filter(|&&(_, x)| x == exit)
        .map(|&(e, _)| incoming_of(func, phi, e));
    let first = vals.next()??;
    let outside = match func.dfg.value_def(first) {
        lanes_ir::ValueDef::Param(_) => true,
        lanes_ir::ValueDef::Result(i) => func
            .layout
            .inst_block(i)
            .is_some_and(|b| !blocks.contains(&b)),
    };
    (outside && vals.all(|v| v == Some(first))).then_some(first)
}

/// The varying header φ whose live-out `phi` (of `exit`) can be kept in place, and whether
/// the exit reads its back-edge value (from `latch`) rather than the φ itself: every
/// exiting edge to `exit` must carry the same one of the two.
fn kept_in_place(
    func: &Function,
    phi: lanes_ir::Inst,
    exiting: &[(Block, Block)],
    exit: Block,
    header: Block,
    latch: Block,
    varying: &HashSet<Value>,
) -> Option<(Value, bool)> {
    let mut vals = exiting
        .iter()
        .filter(|&&(_, x)| x == exit)
        .map(|&(e, _)| incoming_of(func, phi, e));
    let first = vals.next()??;
    if !vals.all(|v| v == Some(first)) {
        return None;
    }
    phis(func, header).into_iter().find_map(|h| {
        let p = phi_result(func, h);
        if !varying.contains(&p) {
            return None;
        }
        if p == first {
            Some((p, false))
        } else if incoming_of(func, h, latch) == Some(first) {
            Some((p, true))
        } else {
            None
        }
    })
}

/// A zero of type `ty` used only as a "don't care" φ operand.
fn fresh_zero(func: &mut Function, ty: Type) -> Value {
    let mut cache = HashMap::new();
    zero_value(func, ty, &mut cache)
}

/// Adds the incoming `(from, v)` to the φ whose result is `phi`.
fn set_back_incoming(func: &mut Function, phi: Value, from: Block, v: Value) {
    if let lanes_ir::ValueDef::Result(i) = func.dfg.value_def(phi) {
        if let InstData::Phi { incoming } = func.dfg.inst_mut(i) {
            incoming.push((from, v));
        }
    }
}
