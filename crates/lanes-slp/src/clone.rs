//! Copies of Predicated SSA: instructions and whole loops cloned with their operands,
//! predicates and gates read through a value map (unrolling's copies and tails), and the
//! values a loop defines and gives to code after it.

use std::collections::{HashMap, HashSet};

use lanes_ir::{Inst, Value};

use crate::pssa::{Item, LoopData, LoopId, Mu, Pssa};
use crate::substitute::rewrite_pred;

/// Every value loop `l` defines: its μ-nodes and results, nested loops included.
pub(crate) fn values_in(pssa: &Pssa, l: LoopId) -> HashSet<Value> {
    let d = &pssa.loops[l];
    let mut out: HashSet<Value> = d.mus.iter().map(|m| m.value).collect();
    for &it in &d.items {
        match it {
            Item::Inst(i) => out.extend(pssa.func.dfg.inst_result(i)),
            Item::Loop(inner) => out.extend(values_in(pssa, inner)),
        }
    }
    out
}

/// A copy of loop `l` (and the loops in it) inside `parent`, reading `map`'s values and
/// adding its own to it.
pub(crate) fn clone_loop(
    pssa: &mut Pssa,
    l: LoopId,
    map: &mut HashMap<Value, Value>,
    parent: LoopId,
) -> LoopId {
    let d = pssa.loops[l].clone();
    let mut memo = HashMap::new();
    let pred = rewrite_pred(pssa, d.pred, map, &mut memo);
    let always = pssa.preds.always();
    let id = pssa.loops.push(LoopData {
        parent: Some(parent),
        pred,
        mus: Vec::new(),
        items: Vec::new(),
        cont: always,
        hints: d.hints.clone(),
        dead: false,
        columns: Vec::new(),
    });
    let mut mus = Vec::with_capacity(d.mus.len());
    for m in &d.mus {
        let ty = pssa.func.dfg.value_type(m.value);
        let (inst, value) = pssa.new_phi(ty);
        let init = map.get(&m.init).copied().unwrap_or(m.init);
        map.insert(m.value, value);
        mus.push(Mu {
            inst,
            value,
            init,
            rec: m.rec,
        });
    }
    let mut items = Vec::with_capacity(d.items.len());
    for &it in &d.items {
        match it {
            Item::Inst(inst) => items.push(Item::Inst(clone_inst(pssa, inst, map))),
            Item::Loop(inner) => items.push(Item::Loop(clone_loop(pssa, inner, map, id))),
        }
    }
    for m in &mut mus {
        m.rec = map.get(&m.rec).copied().unwrap_or(m.rec);
    }
    let mut memo = HashMap::new();
    let cont = rewrite_pred(pssa, d.cont, map, &mut memo);
    let data = &mut pssa.loops[id];
    data.mus = mus;
    data.items = items;
    data.cont = cont;
    id
}

/// A copy of instruction `inst` reading `map`'s values, with its predicate (and gates)
/// over them; its result is added to `map` as the copy of `inst`'s.
pub(crate) fn clone_inst(pssa: &mut Pssa, inst: Inst, map: &mut HashMap<Value, Value>) -> Inst {
    let mut data = pssa.func.dfg.inst(inst).clone();
    data.for_each_arg_mut(|v| {
        if let Some(&n) = map.get(v) {
            *v = n;
        }
    });
    let ty = pssa
        .func
        .dfg
        .inst_result(inst)
        .map(|v| pssa.func.dfg.value_type(v));
    let new = pssa.func.dfg.make_inst(data, ty);
    let fm = pssa.func.dfg.fast_math(inst);
    pssa.func.dfg.set_fast_math(new, fm);
    pssa.func.source_lines[new] = pssa.func.source_lines[inst];
    let mut memo = HashMap::new();
    let p = pssa.inst_pred[inst];
    pssa.inst_pred[new] = rewrite_pred(pssa, p, map, &mut memo);
    if let Some(g) = pssa.gates.get(&inst).cloned() {
        let g = g
            .into_iter()
            .map(|(p, v)| {
                (
                    rewrite_pred(pssa, p, map, &mut memo),
                    map.get(&v).copied().unwrap_or(v),
                )
            })
            .collect();
        pssa.gates.insert(new, g);
    }
    if let (Some(old), Some(nv)) = (
        pssa.func.dfg.inst_result(inst),
        pssa.func.dfg.inst_result(new),
    ) {
        map.insert(old, nv);
    }
    new
}

/// The values of `defined` (made by loop `l`) that anything outside `l` reads.
pub(crate) fn read_outside(pssa: &Pssa, l: LoopId, defined: &HashSet<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    let mut note = |v: Value| {
        if defined.contains(&v) && !out.contains(&v) {
            out.push(v);
        }
    };
    let inside = |mut q: Option<LoopId>| {
        while let Some(x) = q {
            if x == l {
                return true;
            }
            q = pssa.loops[x].parent;
        }
        false
    };
    for (parent, item) in pssa.walk() {
        if inside(parent) {
            continue;
        }
        match item {
            Item::Inst(i) => {
                pssa.for_each_operand(i, &mut note);
                pssa.for_each_cond(i, &mut note);
            }
            Item::Loop(x) => {
                let d = &pssa.loops[x];
                pssa.preds.for_each_cond(d.pred, &mut note);
                if x != l {
                    for m in &d.mus {
                        note(m.init);
                        note(m.rec);
                    }
                    pssa.preds.for_each_cond(d.cont, &mut note);
                }
            }
        }
    }
    out
}
