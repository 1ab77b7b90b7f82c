//! From Predicated SSA back to a CFG (SuperVectorization, PLDI'22 §3.5, Fig. 12).
//!
//! Item lists are lowered level by level with a `BlockBuilder` each: an instruction
//! goes to the block the builder gives for its predicate; a loop gets a header (with its
//! μ-nodes as φs), its body lowered by a builder of its own, a block that runs after the
//! body whatever the body's guards, where the continue predicate branches to a dedicated
//! latch or to the exit, and the enclosing list continues in the exit.
//!
//! As in the paper, gated φs become assignments — one per incoming value, at the end of
//! a block built for its gate — and SSA is restored afterwards
//! ([`lanes_wfv::define_by_assignments`]). A definition that no longer dominates a use
//! (a condition read after its guard was closed, a value of a loop's last iteration) is
//! repaired the same way ([`lanes_wfv::add_definitions`]); on a path where it did not
//! run, its use is not reached, or reads a value that does not matter (zero).
//!
//! An assignment's block must end after the value assigned is defined. A block built
//! earlier for the gate is reused only if it ended after the value was placed; a gated φ
//! is defined where its own assignments are, so a gated φ reading one of the same run
//! (consecutive gated φs, say a loop's exit φs and the join's after it) is assigned in
//! the same block, under the same gate, or else in a block built after all of them.

use std::collections::{HashMap, HashSet};

use lanes_analysis::{ControlFlowGraph, DominatorTree};
use lanes_ir::{Block, Function, Inst, InstData, Value};

use crate::block_builder::{BlockBuilder, BuildCtx};
use crate::predicate::{Pred, PredPool};
use crate::pssa::{Item, LoopId, Pssa};

/// The function `pssa` stands for, as a CFG in SSA form.
pub fn lower(pssa: &Pssa) -> Function {
    let mut func = pssa.func.clone();
    let mut preds = pssa.preds.clone();
    // Conditions are tested in the order of their definitions.
    let mut position: HashMap<Value, u32> = HashMap::new();
    for (i, (_, item)) in pssa.walk().into_iter().enumerate() {
        match item {
            Item::Inst(inst) => {
                if let Some(v) = func.dfg.inst_result(inst) {
                    position.insert(v, i as u32 + 1);
                }
            }
            Item::Loop(l) => {
                for m in &pssa.loops[l].mus {
                    position.insert(m.value, i as u32 + 1);
                }
            }
        }
    }
    let rank = move |pool: &PredPool, p: Pred| {
        let mut r = 0;
        pool.for_each_cond(p, &mut |v| {
            r = r.max(position.get(&v).copied().unwrap_or(0))
        });
        r
    };
    // Loop hints go back on the new latches (the old blocks are gone).
    func.abi.loops.clear();
    let entry = func.append_new_block();
    let mut assignments: Vec<(Value, Vec<(Block, Value)>)> = Vec::new();
    {
        let mut cx = BuildCtx {
            func: &mut func,
            preds: &mut preds,
            rank: &rank,
        };
        let mut builder = BlockBuilder::new(entry);
        let mut placed_at = HashMap::new();
        lower_items(
            pssa,
            &pssa.items,
            &mut builder,
            &mut cx,
            &mut placed_at,
            &mut assignments,
        );
    }
    // A gated φ's incoming value may be an earlier gated φ: later ones first, so that
    // the φs SSA construction builds for them still name the earlier ones, which their
    // own construction then resolves.
    for (var, defs) in assignments.into_iter().rev() {
        lanes_wfv::define_by_assignments(&mut func, var, &defs);
    }
    repair_dominance(&mut func);
    func
}

fn lower_items(
    pssa: &Pssa,
    items: &[Item],
    builder: &mut BlockBuilder,
    cx: &mut BuildCtx<'_>,
    placed_at: &mut HashMap<Value, u64>,
    assignments: &mut Vec<(Value, Vec<(Block, Value)>)>,
) {
    let mut i = 0;
    while i < items.len() {
        match items[i] {
            Item::Inst(inst) if pssa.gates.contains_key(&inst) => {
                // A run of gated φs: assignments in blocks built for their gates.
                let mut j = i;
                while j < items.len()
                    && matches!(items[j], Item::Inst(x) if pssa.gates.contains_key(&x))
                {
                    j += 1;
                }
                lower_gated_phis(pssa, &items[i..j], builder, cx, placed_at, assignments);
                // To later gated φs, these are defined once their assignments are made.
                let t = builder.tick();
                for item in &items[i..j] {
                    if let Item::Inst(x) = *item {
                        placed_at.extend(cx.func.dfg.inst_result(x).map(|v| (v, t)));
                    }
                }
                i = j;
                continue;
            }
            Item::Inst(inst) => {
                if matches!(cx.func.dfg.inst(inst), InstData::Return { .. }) {
                    builder.place_last(cx, inst);
                } else {
                    let t = builder.place(cx, inst, pssa.inst_pred[inst]);
                    if let Some(v) = cx.func.dfg.inst_result(inst) {
                        placed_at.insert(v, t);
                    }
                }
            }
            Item::Loop(l) => {
                lower_loop(pssa, l, builder, cx, assignments);
                // To this list, the loop is one item and its values are defined by it.
                let t = builder.tick();
                for v in values_of_loop(pssa, l) {
                    placed_at.insert(v, t);
                }
            }
        }
        i += 1;
    }
}

/// Lowers a run of gated φs to assignments at the ends of blocks built for their gates.
///
/// An assignment's block must end after the value assigned is defined. Values placed
/// before the run share one block per gate (the then and else blocks of a diamond): the
/// one the predicate table last built for the gate if it ended after they were all
/// placed, else a new one. A φ of the run is defined only by its own assignments: a φ
/// reading it under the same gate can be assigned in the same block; under another gate
/// it needs a block built after all of that φ's blocks. So the run is lowered φ by φ, in
/// order, and a gate gets a further block where a φ reads one assigned after the gate's
/// block was built (φs may read each other under alternating gates: no order of one
/// block per gate would do).
fn lower_gated_phis(
    pssa: &Pssa,
    phis: &[Item],
    builder: &mut BlockBuilder,
    cx: &mut BuildCtx<'_>,
    placed_at: &HashMap<Value, u64>,
    assignments: &mut Vec<(Value, Vec<(Block, Value)>)>,
) {
    let phis: Vec<Inst> = phis
        .iter()
        .filter_map(|&it| match it {
            Item::Inst(x) => Some(x),
            Item::Loop(_) => None,
        })
        .collect();
    // The φs of the run by result.
    let in_run: HashMap<Value, usize> = phis
        .iter()
        .enumerate()
        .filter_map(|(k, &i)| cx.func.dfg.inst_result(i).map(|v| (v, k)))
        .collect();
    // Per gate, when the latest value placed before the run and read under it was placed.
    let mut placed: HashMap<Pred, u64> = HashMap::new();
    for inst in &phis {
        for &(g, v) in &pssa.gates[inst] {
            if !in_run.contains_key(&v) {
                let t = placed.entry(g).or_insert(0);
                *t = (*t).max(placed_at.get(&v).copied().unwrap_or(0));
            }
        }
    }
    // Per gate, the block its assignments go to now, and that block's number among those
    // built for this run, in the order built (0: one that ended before the run).
    let mut current: HashMap<Pred, (Block, usize)> = HashMap::new();
    let mut built = 0;
    // Per φ of the run, its block for each gate and the highest number among them.
    let mut blocks_of: Vec<HashMap<Pred, Block>> = vec![HashMap::new(); phis.len()];
    let mut last_built: Vec<usize> = vec![0; phis.len()];
    for (k, &inst) in phis.iter().enumerate() {
        let mut defs: Vec<(Block, Value)> = Vec::new();
        for &(g, v) in &pssa.gates[&inst] {
            let reads = in_run.get(&v).copied();
            let fits = |(b, n): (Block, usize)| match reads {
                None => true,
                Some(p) => blocks_of[p].get(&g) == Some(&b) || (n > 0 && n >= last_built[p]),
            };
            let (block, n) = match current.get(&g).copied() {
                Some(c) if fits(c) => c,
                c => {
                    let finished = match (c, reads) {
                        (None, None) => builder.finished_block_for(g, placed[&g]),
                        _ => None,
                    };
                    let chosen = match finished {
                        Some(b) => (b, 0),
                        None => {
                            builder.block_for(cx, g);
                            built += 1;
                            (builder.seal(cx), built)
                        }
                    };
                    current.insert(g, chosen);
                    chosen
                }
            };
            blocks_of[k].insert(g, block);
            last_built[k] = last_built[k].max(n);
            defs.push((block, v));
        }
        let var = cx.func.dfg.inst_result(inst).expect("a φ has a result");
        assignments.push((var, defs));
    }
}

fn lower_loop(
    pssa: &Pssa,
    l: LoopId,
    builder: &mut BlockBuilder,
    cx: &mut BuildCtx<'_>,
    assignments: &mut Vec<(Value, Vec<(Block, Value)>)>,
) {
    let data = &pssa.loops[l];
    let preheader = builder.block_for(cx, data.pred);
    let header = cx.func.append_new_block();
    let latch = cx.func.append_new_block();
    let exit = cx.func.append_new_block();
    cx.jump(preheader, header);
    for mu in &data.mus {
        *cx.func.dfg.inst_mut(mu.inst) = InstData::Phi {
            incoming: vec![(preheader, mu.init), (latch, mu.rec)],
        };
        cx.func.layout.append_inst(mu.inst, header);
    }
    let mut body = BlockBuilder::new(header);
    // Values from outside the loop are there before its first item.
    let mut placed_in_body = HashMap::new();
    lower_items(
        pssa,
        &data.items,
        &mut body,
        cx,
        &mut placed_in_body,
        assignments,
    );
    let end = body.close_all(cx);
    cx.branch_on(end, data.cont, latch, exit);
    cx.jump(latch, header);
    if !data.hints.is_empty() {
        cx.func.abi.loops.push(lanes_ir::LoopMd {
            latch,
            hints: data.hints.clone(),
        });
    }
    builder.set_current(exit);
}

/// The values loop `l` defines: its μ-nodes and the results of its items, nested loops
/// included.
fn values_of_loop(pssa: &Pssa, l: LoopId) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    let mut stack = vec![l];
    while let Some(l) = stack.pop() {
        let data = &pssa.loops[l];
        out.extend(data.mus.iter().map(|m| m.value));
        for &item in &data.items {
            match item {
                Item::Inst(i) => out.extend(pssa.func.dfg.inst_result(i)),
                Item::Loop(inner) => stack.push(inner),
            }
        }
    }
    out
}

/// Gives every value whose definition no longer dominates all its uses the definitions
/// that reach them (zero where none does).
fn repair_dominance(func: &mut Function) {
    let cfg = ControlFlowGraph::with_function(func);
    let domtree = DominatorTree::with_function(func, &cfg);
    let mut broken: Vec<Value> = Vec::new();
    let mut seen: HashSet<Value> = HashSet::new();
    let def_pos = |func: &Function, v: Value| -> Option<(Block, usize)> {
        let inst = func.dfg.def_inst(v)?;
        let b = func.layout.inst_block(inst)?;
        Some((b, func.layout.inst_index(inst)))
    };
    for b in func.layout.blocks() {
        if !domtree.is_reachable(b) {
            continue;
        }
        for (idx, &inst) in func.layout.block_insts(b).iter().enumerate() {
            let mut check = |v: Value, at: Block, index: usize| {
                let Some((db, di)) = def_pos(func, v) else {
                    return;
                };
                let ok = if db == at {
                    di < index
                } else {
                    domtree.dominates(db, at)
                };
                if !ok && seen.insert(v) {
                    broken.push(v);
                }
            };
            match func.dfg.inst(inst) {
                InstData::Phi { incoming } => {
                    for &(p, v) in incoming {
                        check(v, p, usize::MAX);
                    }
                }
                d => d.for_each_arg(|v| check(v, b, idx)),
            }
        }
    }
    for v in broken {
        lanes_wfv::add_definitions(func, v, &[]);
    }
}
