//! Normalization: the CFG shape the rest of the vectorizer assumes (PLDI'18 §2.1, §3.3, §5).
//!
//! - **Reachability and entry**: unreachable blocks are removed; an entry block with
//!   predecessors (a loop header) gets a fresh entry in front of it.
//! - **Switches**: a `switch` whose block the caller marks (the divergent ones) becomes a
//!   cascade of `brif`s comparing the scrutinee with each case, so that predicates and
//!   linearization only see two-way branches there. Uniform switches are kept.
//! - **One exit block**: all `ret`s jump to one return block with a φ of the results.
//!   `unreachable` is undefined behaviour, so its blocks also jump there with a zero
//!   result: partial linearization must be able to run past them with a false predicate.
//! - **Loop simplify** (PLDI'18 §2.1 requires a *unique latch*; §3.3 re-inserts the back
//!   edge there; §5 needs a preheader and dedicated exits to place masks and dispatch):
//!   every natural loop gets a preheader that only jumps to the header, exactly one latch,
//!   and exit blocks whose predecessors are all inside the loop.
//! - **LCSSA**: every value defined in a loop and used outside reaches those uses through
//!   φs in the loop's exit blocks, so that the divergent loop transform has exactly one
//!   place per exit to substitute the tracked live-out value (§5, "tracked live-outs").
//!
//! Irreducible control flow is rejected ([`crate::WfvError::Irreducible`]).

use std::collections::HashMap;

use cranelift_entity::SecondaryMap;
use lanes_analysis::{AnalysisSet, Edits, FunctionAnalyses};
use lanes_ir::cursor::{phis, preds};
use lanes_ir::{Block, FuncBuilder, FuncCursor, Function, Inst, InstData, IntCC, Type, Value};

use crate::cfg_edit::{def_block, phi_result, zero_value};
use crate::ssa_repair::{remove_trivial_phis, SsaSearch};
use crate::WfvError;

/// The blocks of `func` that end in a `switch`, for the caller to choose which
/// [`normalize`] lowers (the divergent ones).
pub fn switch_blocks(func: &Function) -> Vec<Block> {
    func.layout
        .blocks()
        .filter(|&b| {
            func.terminator(b)
                .is_some_and(|t| matches!(func.dfg.inst(t), InstData::Switch { .. }))
        })
        .collect()
}

/// Normalizes `func` in place, lowering the `switch`es ending the blocks `lower_switches`.
/// `analyses` must describe `func` where valid; they are used where they hold and kept up
/// to date. Returns what changed (nothing, for a function already in normal form: then
/// every analysis of it, shapes included, still holds).
pub fn normalize(
    func: &mut Function,
    analyses: &mut FunctionAnalyses,
    lower_switches: &[Block],
) -> Result<Edits, WfvError> {
    let Some(entry) = func.entry_block() else {
        return Err(WfvError::NoBody(func.name.clone()));
    };
    // The entry is reachable: it stays.
    let mut cfg_changed = FuncCursor::new(func).remove_unreachable();
    cfg_changed |= fresh_entry(func, entry);
    for &b in lower_switches {
        if func.layout.is_block_inserted(b) {
            cfg_changed |= lower_switch_at(func, b);
        }
    }
    cfg_changed |= single_exit(func);
    let edits = Edits::control_flow_if(cfg_changed);
    analyses.keep_after(edits);
    let edits = edits.then(simplify_loops(func, analyses)?);
    Ok(edits.then(lcssa(func, analyses)))
}

/// Gives the function, whose entry block is `entry`, an entry block without predecessors;
/// whether it made one.
fn fresh_entry(func: &mut Function, entry: Block) -> bool {
    if preds(func, entry).is_empty() {
        return false;
    }
    let new = FuncCursor::new(func).create_entry_block();
    let mut zeros = HashMap::new();
    for phi in phis(func, entry) {
        let ty = func.dfg.value_type(phi_result(func, phi));
        let z = zero_value(func, ty, &mut zeros);
        if let InstData::Phi { incoming } = func.dfg.inst_mut(phi) {
            incoming.push((new, z));
        }
    }
    // The zeros were placed in the old entry (after its φs, in order); move them to the
    // new one, keeping that order.
    let placed: Vec<Inst> = func
        .layout
        .block_insts(entry)
        .iter()
        .copied()
        .filter(|&i| {
            func.dfg
                .inst_result(i)
                .is_some_and(|r| zeros.values().any(|&z| z == r))
        })
        .collect();
    let mut cur = FuncCursor::new(func);
    cur.goto_bottom(new);
    for i in placed {
        cur.move_inst(i);
    }
    let mut b = FuncBuilder::new(func);
    b.switch_to_block(new);
    b.jump(entry);
    true
}

/// Replaces the `switch` ending `block` by a cascade of `brif`s; false if it ends in none.
pub(crate) fn lower_switch_at(func: &mut Function, block: Block) -> bool {
    let Some(term) = func.terminator(block) else {
        return false;
    };
    let InstData::Switch {
        arg,
        cases,
        default,
    } = func.dfg.inst(term).clone()
    else {
        return false;
    };
    let ty = func.dfg.value_type(arg);
    FuncCursor::new(func).goto_inst(term).remove_inst();
    // New predecessor blocks of each target (few), to fix φs afterwards.
    let mut new_preds: Vec<(Block, Vec<Block>)> = Vec::new();
    fn preds_of(new_preds: &mut Vec<(Block, Vec<Block>)>, t: Block) -> &mut Vec<Block> {
        let at = match new_preds.iter().position(|(x, _)| *x == t) {
            Some(at) => at,
            None => {
                new_preds.push((t, Vec::new()));
                new_preds.len() - 1
            }
        };
        &mut new_preds[at].1
    }
    let mut cur = block;
    for (i, &(k, target)) in cases.iter().enumerate() {
        let last = i + 1 == cases.len();
        let mut b = FuncBuilder::new(func);
        b.switch_to_block(cur);
        let kv = b.iconst(ty, k);
        let c = b.icmp(IntCC::Eq, arg, kv);
        let next = if last {
            default
        } else {
            FuncCursor::new(func).create_block_after(cur)
        };
        let mut b = FuncBuilder::new(func);
        b.switch_to_block(cur);
        b.brif(c, target, next);
        let mut add = |t: Block| {
            let e = preds_of(&mut new_preds, t);
            if !e.contains(&cur) {
                e.push(cur);
            }
        };
        add(target);
        if last {
            add(default);
        }
        cur = next;
    }
    if cases.is_empty() {
        let mut b = FuncBuilder::new(func);
        b.switch_to_block(block);
        b.jump(default);
        preds_of(&mut new_preds, default).push(block);
    }
    for (t, ps) in new_preds {
        for phi in phis(func, t) {
            if let InstData::Phi { incoming } = func.dfg.inst_mut(phi) {
                let Some(pos) = incoming.iter().position(|&(p, _)| p == block) else {
                    continue;
                };
                let (_, v) = incoming.remove(pos);
                for &p in &ps {
                    incoming.push((p, v));
                }
            }
        }
    }
    true
}

/// Makes all `ret` and `unreachable` blocks jump to one return block; whether it had to.
pub(crate) fn single_exit(func: &mut Function) -> bool {
    // (block, its terminator, the value returned)
    let mut rets: Vec<(Block, Inst, Option<Value>)> = Vec::new();
    let mut traps: Vec<(Block, Inst)> = Vec::new();
    for b in func.layout.blocks() {
        let Some(t) = func.terminator(b) else {
            continue;
        };
        match func.dfg.inst(t) {
            InstData::Return { value } => rets.push((b, t, *value)),
            InstData::Unreachable => traps.push((b, t)),
            _ => {}
        }
    }
    if rets.len() + traps.len() <= 1 && traps.is_empty() {
        return false;
    }
    let ret_ty: Option<Type> = func.ret;
    let exit = func.append_new_block();
    let mut zeros = HashMap::new();
    let mut incoming = Vec::new();
    for &(b, _) in &traps {
        if let Some(ty) = ret_ty {
            incoming.push((b, zero_value(func, ty, &mut zeros)));
        }
    }
    for &(b, _, v) in &rets {
        if let Some(v) = v {
            incoming.push((b, v));
        }
    }
    let ends = traps
        .iter()
        .copied()
        .chain(rets.iter().map(|&(b, t, _)| (b, t)));
    for (b, t) in ends {
        let mut cur = FuncCursor::new(func);
        cur.goto_inst(t).remove_inst();
        cur.goto_bottom(b)
            .insert_inst(InstData::Jump { dest: exit }, None);
    }
    let value = ret_ty.map(|ty| {
        FuncCursor::new(func)
            .goto_bottom(exit)
            .insert_phi(ty, incoming)
    });
    let mut bld = FuncBuilder::new(func);
    bld.switch_to_block(exit);
    bld.ret(value);
    true
}

/// A value defined in a loop (in block `def`) and used outside it: the using instructions,
/// their blocks, and for φ uses the incoming block.
#[derive(Clone)]
struct LiveOut {
    def: Block,
    uses: Vec<(Inst, Block, Option<Block>)>,
}

/// Preheaders, unique latches and dedicated exits for every loop, innermost first, on the
/// loop forest of `analyses` (kept up to date); what changed.
pub(crate) fn simplify_loops(
    func: &mut Function,
    analyses: &mut FunctionAnalyses,
) -> Result<Edits, WfvError> {
    let mut edits = Edits::Nothing;
    // Every edit adds one block and fixes one defect; bound the rounds defensively.
    for _ in 0..10_000 {
        analyses.compute(func, AnalysisSet::LOOPS);
        let a = &*analyses;
        if !a.loops().is_reducible() {
            return Err(WfvError::irreducible(func, a.loops()));
        }
        let mut order: Vec<_> = a.loops().loops().collect();
        order.sort_by_key(|&l| std::cmp::Reverse(a.loops().depth(l)));
        let mut changed = false;
        for l in order {
            let h = a.loops().header(l);
            let outside: Vec<Block> = a
                .cfg()
                .preds(h)
                .iter()
                .copied()
                .filter(|&p| !a.loops().contains(l, p))
                .collect();
            let ok_pre = outside.len() == 1
                && func
                    .terminator(outside[0])
                    .is_some_and(|t| matches!(func.dfg.inst(t), InstData::Jump { .. }));
            if !ok_pre {
                FuncCursor::new(func).split_preds(h, &outside);
                changed = true;
                break;
            }
            let latches = a.loops().latches(l).to_vec();
            if latches.len() > 1 {
                FuncCursor::new(func).split_preds(h, &latches);
                changed = true;
                break;
            }
            for &x in a.loops().exit_blocks(l) {
                let (inside, out): (Vec<Block>, Vec<Block>) = a
                    .cfg()
                    .preds(x)
                    .iter()
                    .partition(|&&p| a.loops().contains(l, p));
                if !out.is_empty() {
                    FuncCursor::new(func).split_preds(x, &inside);
                    changed = true;
                    break;
                }
            }
            if changed {
                break;
            }
        }
        if !changed {
            return Ok(edits);
        }
        edits = Edits::ControlFlow;
        analyses.keep_after(edits);
    }
    Err(WfvError::Internal(
        "loop simplification did not converge".into(),
    ))
}

/// Puts loop live-outs through φs in the exit blocks (loop-closed SSA), innermost first,
/// on the loops of `analyses`. It adds φs and no block: the CFG analyses stay valid.
pub(crate) fn lcssa(func: &mut Function, analyses: &mut FunctionAnalyses) -> Edits {
    analyses.compute(func, AnalysisSet::LOOPS);
    let a = &*analyses;
    let mut changed = false;
    let mut order: Vec<_> = a.loops().loops().collect();
    order.sort_by_key(|&l| std::cmp::Reverse(a.loops().depth(l)));
    for l in order {
        // Recompute the CFG facts that the previous loop's φs do not change.
        let blocks = a.loops().blocks(l).to_vec();
        let exits = a.loops().exit_blocks(l).to_vec();
        let inside = |b: Block| blocks.contains(&b);
        // Values defined in the loop with a use outside it.
        let mut live_outs: SecondaryMap<Value, Option<LiveOut>> = SecondaryMap::new();
        for b in func.layout.blocks() {
            if inside(b) {
                continue;
            }
            for &inst in func.layout.block_insts(b) {
                let mut add = |v: Value, pred: Option<Block>| {
                    if let Some(def) = def_block(func, v).filter(|&d| inside(d)) {
                        live_outs[v]
                            .get_or_insert_with(|| LiveOut {
                                def,
                                uses: Vec::new(),
                            })
                            .uses
                            .push((inst, b, pred));
                    }
                };
                match func.dfg.inst(inst) {
                    InstData::Phi { incoming } => {
                        for &(p, v) in incoming {
                            if !inside(p) {
                                add(v, Some(p));
                            }
                        }
                    }
                    data => data.for_each_arg(|v| add(v, None)),
                }
            }
        }
        // In the order of the values.
        let live_outs: Vec<(Value, LiveOut)> = live_outs
            .iter_mut()
            .filter_map(|(v, out)| Some((v, out.take()?)))
            .collect();
        let preds: SecondaryMap<Block, Vec<Block>> = func
            .layout
            .blocks()
            .map(|b| (b, a.cfg().preds(b).to_vec()))
            .collect();
        for (v, LiveOut { def: d, uses }) in live_outs {
            changed = true;
            let ty = func.dfg.value_type(v);
            // The exit φs, by exit block.
            let mut defs: Vec<(Block, Value)> = Vec::new();
            for &x in &exits {
                if a.domtree().dominates(d, x) {
                    let incoming = a.cfg().preds(x).iter().map(|&p| (p, v)).collect();
                    let phi = FuncCursor::new(func)
                        .goto_first_non_phi(x)
                        .insert_phi(ty, incoming);
                    defs.push((x, phi));
                }
            }
            let never = |_: Block| false;
            let mut zeros = HashMap::new();
            let default = zero_value(func, ty, &mut zeros);
            // Exit φs are available at the *top* of the exit block: seed them as entry
            // values by treating the exit as defining block of its own φ.
            let mut search = SsaSearch::new(&preds, defs.clone(), &never, default, ty);
            // LCSSA inserts φs and moves nothing: each use is still where it was found.
            for (inst, at, pred) in uses {
                let exit_phi = defs.iter().find(|&&(x, _)| x == at).map(|&(_, phi)| phi);
                let new = match (pred, exit_phi) {
                    (Some(p), _) => search.at_end(func, p),
                    (None, Some(phi)) => phi,
                    (None, None) => search.at_entry(func, at),
                };
                let data = func.dfg.inst_mut(inst);
                match (data, pred) {
                    (InstData::Phi { incoming }, Some(p)) => {
                        for e in incoming.iter_mut() {
                            if e.0 == p && e.1 == v {
                                e.1 = new;
                            }
                        }
                    }
                    (data, _) => data.for_each_arg_mut(|x| {
                        if *x == v {
                            *x = new
                        }
                    }),
                }
            }
            let created = search.created.clone();
            remove_trivial_phis(func, &created);
        }
    }
    let edits = Edits::values_if(changed);
    analyses.keep_after(edits);
    edits
}
