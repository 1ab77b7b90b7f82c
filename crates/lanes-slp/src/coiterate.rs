//! Loop fusion and co-iteration (SuperVectorization, PLDI'22 §3.3, Fig. 9–10): sibling
//! loops of one item list merged into one loop, so that instructions of different loops
//! can be packed together.
//!
//! Loops that run the same iterations under the same predicate — counted loops with the
//! same start, bound, step and test — are *fused*: one loop with their μ-nodes and items
//! concatenated. Other loops are *co-iterated*: each keeps an `active` flag (a μ-node
//! starting as the loop's own predicate and ending when its continue predicate fails),
//! its items run under `active ∧` their predicate, its μ-nodes hold their values once it
//! stopped, every value it gives to code after it is kept in a μ-node of its own (the
//! value of the loop's last iteration), and the merged loop continues while any is
//! active.
//!
//! Both need the loops independent (§4.2): neither reads a value the other defines, and
//! no two of their memory accesses, one a write, can overlap in any pair of iterations —
//! objects known apart (`restrict` parameters, stack allocations, globals), or one object
//! accessed with one stride at offsets that never meet (the odd and the even elements;
//! [`crate::dependence::LoopAccess`]); and the list must stay schedulable with the loops
//! as one item (what lies between them moves before or after).

use std::collections::{HashMap, HashSet};

use lanes_ir::{InstData, Type, Value};

use crate::clone::read_outside;
use crate::dependence::{conflict, ListDeps};
use crate::items::Emit;
use crate::packing::{schedule_groups, Grouped};
use crate::predicate::Pred;
use crate::pssa::{Item, LoopData, LoopId, Mu, Pssa};
use crate::substitute::substitute_outside;
use crate::unroll::counted;

/// How loops were merged.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Merge {
    Fused,
    CoIterated,
}

/// Merges the sibling loops `loops` (in list order) into one; the new loop and how,
/// or `None` where they are not independent, not siblings, or the list cannot be
/// reordered for them.
pub fn merge_loops(pssa: &mut Pssa, loops: &[LoopId]) -> Option<(LoopId, Merge)> {
    if loops.len() < 2 || loops.iter().any(|&l| pssa.loops[l].dead) {
        return None;
    }
    let parent = pssa.loops[loops[0]].parent;
    if loops.iter().any(|&l| pssa.loops[l].parent != parent) {
        return None;
    }
    let mut seen = HashSet::new();
    if !loops.iter().all(|l| seen.insert(*l)) {
        return None;
    }
    let deps = ListDeps::of(pssa, parent);
    let positions: Vec<usize> = loops
        .iter()
        .map(|&l| deps.items.iter().position(|&i| i == Item::Loop(l)))
        .collect::<Option<_>>()?;
    for (i, &a) in loops.iter().enumerate() {
        for (j, &b) in loops.iter().enumerate().skip(i + 1) {
            let (ea, eb) = (&deps.effects[positions[i]], &deps.effects[positions[j]]);
            if !independent(pssa, a, b) || conflict(&pssa.func, ea, eb) {
                return None;
            }
        }
    }
    let order = schedule_groups(&deps, &[positions])?;
    // Co-iterated loops give code after them only values of their own list (or μs).
    let mut live_outs: Vec<Vec<Value>> = Vec::new();
    for &l in loops {
        let direct: HashSet<Value> = direct_values(pssa, l);
        let all = values_of(pssa, l);
        let outside = read_outside(pssa, l, &all);
        if outside.iter().any(|v| !direct.contains(v)) {
            return None;
        }
        live_outs.push(outside);
    }
    let (merged, how, pre, last_values) = if fusable(pssa, loops) {
        (fuse(pssa, loops), Merge::Fused, Vec::new(), HashMap::new())
    } else {
        let (n, pre, last) = coiterate(pssa, loops, &live_outs);
        (n, Merge::CoIterated, pre, last)
    };
    // The list: what the schedule says, the merged loop where the group runs.
    let mut list = Vec::with_capacity(deps.items.len());
    for e in order {
        match e {
            Grouped::Item(p) => list.push(deps.items[p]),
            Grouped::Group(_) => {
                list.extend(pre.iter().copied());
                list.push(Item::Loop(merged));
            }
        }
    }
    match parent {
        Some(q) => pssa.loops[q].items = list,
        None => pssa.items = list,
    }
    // Code after the merged loop reads each live-out's last value.
    let excluded: HashSet<LoopId> = [merged].into_iter().collect();
    substitute_outside(pssa, &last_values, &excluded);
    Some((merged, how))
}

/// The values loop `l` defines directly: its μ-nodes and its own items' results.
fn direct_values(pssa: &Pssa, l: LoopId) -> HashSet<Value> {
    let d = &pssa.loops[l];
    let mut out: HashSet<Value> = d.mus.iter().map(|m| m.value).collect();
    for &it in &d.items {
        if let Item::Inst(i) = it {
            out.extend(pssa.func.dfg.inst_result(i));
        }
    }
    out
}

/// Every value loop `l` defines, nested loops included.
fn values_of(pssa: &Pssa, l: LoopId) -> HashSet<Value> {
    let mut out = direct_values(pssa, l);
    for &it in &pssa.loops[l].items {
        if let Item::Loop(inner) = it {
            out.extend(values_of(pssa, inner));
        }
    }
    out
}

/// Do loops `a` and `b` not read each other's values? (Memory is the dependence
/// summary's question: [`conflict`] of the two loop items.)
fn independent(pssa: &Pssa, a: LoopId, b: LoopId) -> bool {
    let (va, vb) = (values_of(pssa, a), values_of(pssa, b));
    read_outside(pssa, a, &va)
        .iter()
        .all(|v| !reads(pssa, b, *v))
        && read_outside(pssa, b, &vb)
            .iter()
            .all(|v| !reads(pssa, a, *v))
}

/// Does loop `l` (its predicate, or anything in it at any depth) read `v`?
fn reads(pssa: &Pssa, l: LoopId, v: Value) -> bool {
    let d = &pssa.loops[l];
    let mut found = d.mus.iter().any(|m| m.init == v || m.rec == v);
    pssa.preds.for_each_cond(d.pred, &mut |c| found |= c == v);
    pssa.preds.for_each_cond(d.cont, &mut |c| found |= c == v);
    for &it in &d.items {
        match it {
            Item::Inst(i) => {
                pssa.for_each_operand(i, |x| found |= x == v);
                pssa.for_each_cond(i, |x| found |= x == v);
            }
            Item::Loop(inner) => {
                pssa.preds
                    .for_each_cond(pssa.loops[inner].pred, &mut |c| found |= c == v);
                found |= reads(pssa, inner, v);
            }
        }
    }
    found
}

/// Do the loops run the same iterations (counted, with one start, bound, step and
/// test)? Their predicates may differ.
fn fusable(pssa: &Pssa, loops: &[LoopId]) -> bool {
    let key = |l: LoopId| {
        counted(pssa, l).map(|c| {
            let iv = pssa.loops[l].mus[c.iv];
            (iv.init, c.bound, c.step, c.compare)
        })
    };
    let Some(first) = key(loops[0]) else {
        return false;
    };
    loops.iter().all(|&l| {
        key(l).is_some_and(|k| {
            same_value(pssa, k.0, first.0, 4)
                && same_value(pssa, k.1, first.1, 4)
                && (k.2, k.3) == (first.2, first.3)
        })
    })
}

/// Do `a` and `b` hold the same value: the same value, or the same pure operation on
/// the same values (two `zext n` of one `n`, say)?
fn same_value(pssa: &Pssa, a: Value, b: Value, depth: u32) -> bool {
    if a == b {
        return true;
    }
    let f = &pssa.func;
    let (Some(ia), Some(ib)) = (f.dfg.def_inst(a), f.dfg.def_inst(b)) else {
        return false;
    };
    let (da, db) = (f.dfg.inst(ia), f.dfg.inst(ib));
    if depth == 0
        || da.has_side_effects()
        || da.reads_memory()
        || pssa.gates.contains_key(&ia)
        || matches!(da, InstData::Phi { .. })
        || f.dfg.value_type(a) != f.dfg.value_type(b)
    {
        return false;
    }
    let strip = |d: &InstData| {
        let mut d = d.clone();
        d.for_each_arg_mut(|v| *v = Value::from_u32(0));
        d
    };
    let (xa, xb) = (da.args(), db.args());
    strip(da) == strip(db)
        && xa.len() == xb.len()
        && xa
            .iter()
            .zip(&xb)
            .all(|(&x, &y)| same_value(pssa, x, y, depth - 1))
}

/// One loop with the loops' μ-nodes and items; the first loop's induction serves all.
/// Under different predicates, the loop runs where any holds and each loop's items run
/// under its own — except the shared induction's step and exit test, which run in every
/// iteration.
fn fuse(pssa: &mut Pssa, loops: &[LoopId]) -> LoopId {
    let first = pssa.loops[loops[0]].clone();
    let c0 = counted(pssa, loops[0]).expect("checked by fusable");
    let iv0 = first.mus[c0.iv];
    let preds: Vec<Pred> = loops.iter().map(|&l| pssa.loops[l].pred).collect();
    let same_pred = preds.iter().all(|&p| p == preds[0]);
    // The step and the test of the shared induction.
    let f = &pssa.func;
    let mut keep: HashSet<lanes_ir::Inst> = HashSet::new();
    keep.extend(f.dfg.def_inst(iv0.rec));
    pssa.preds
        .for_each_cond(first.cont, &mut |c| keep.extend(f.dfg.def_inst(c)));
    let mut subst: HashMap<Value, Value> = HashMap::new();
    let mut merged = LoopData {
        mus: Vec::new(),
        items: Vec::new(),
        pred: pssa.preds.or(&preds),
        ..first
    };
    for (k, &l) in loops.iter().enumerate() {
        let d = pssa.loops[l].clone();
        let c = counted(pssa, l).expect("checked by fusable");
        for (j, m) in d.mus.iter().enumerate() {
            if k > 0 && j == c.iv {
                subst.insert(m.value, iv0.value);
            } else {
                merged.mus.push(*m);
            }
        }
        for &it in &d.items {
            if !same_pred {
                match it {
                    Item::Inst(i) if !(k == 0 && keep.contains(&i)) => {
                        let q = pssa.inst_pred[i];
                        pssa.inst_pred[i] = pssa.preds.and2(q, preds[k]);
                    }
                    Item::Loop(inner) => {
                        let q = pssa.loops[inner].pred;
                        pssa.loops[inner].pred = pssa.preds.and2(q, preds[k]);
                    }
                    Item::Inst(_) => {}
                }
            }
            merged.items.push(it);
        }
    }
    let per_loop: Vec<Vec<lanes_ir::Inst>> = loops
        .iter()
        .map(|&l| pssa.loops[l].mus.iter().map(|m| m.inst).collect())
        .collect();
    let kept: HashSet<lanes_ir::Inst> = merged.mus.iter().map(|m| m.inst).collect();
    merged.columns = columns(pssa, &per_loop, &kept);
    let id = finish_merge(pssa, loops, merged);
    // The other loops' inductions are the first's (the same values, every iteration).
    crate::substitute::substitute(pssa, &subst);
    id
}

/// Position `j` of every loop's μ-nodes in `per_loop`, lane by lane, where the loops
/// have as many μ-nodes, position by position of one type, and `kept` has them all (a
/// fused loop keeps only the first loop's induction).
fn columns(
    pssa: &Pssa,
    per_loop: &[Vec<lanes_ir::Inst>],
    kept: &HashSet<lanes_ir::Inst>,
) -> Vec<Vec<lanes_ir::Inst>> {
    let f = &pssa.func;
    let ty = |i: lanes_ir::Inst| f.dfg.inst_result(i).map(|v| f.dfg.value_type(v));
    let n = per_loop[0].len();
    if per_loop.iter().any(|p| p.len() != n) {
        return Vec::new();
    }
    (0..n)
        .map(|j| per_loop.iter().map(|p| p[j]).collect::<Vec<_>>())
        .filter(|col| {
            col.iter()
                .all(|&i| kept.contains(&i) && ty(i) == ty(col[0]))
        })
        .collect()
}

/// Registers `merged`, reparents the loops nested in it and retires `loops`.
fn finish_merge(pssa: &mut Pssa, loops: &[LoopId], merged: LoopData) -> LoopId {
    let items = merged.items.clone();
    let id = pssa.loops.push(merged);
    for it in items {
        if let Item::Loop(inner) = it {
            pssa.loops[inner].parent = Some(id);
        }
    }
    for &l in loops {
        pssa.loops[l].dead = true;
    }
    id
}

/// Co-iteration (Fig. 9): the merged loop, the items to place before it (the active
/// flags' first values, zeros for the live-out μs), and for each live-out the value
/// that holds its last iteration's.
fn coiterate(
    pssa: &mut Pssa,
    loops: &[LoopId],
    live_outs: &[Vec<Value>],
) -> (LoopId, Vec<Item>, HashMap<Value, Value>) {
    let always = pssa.preds.always();
    let datas: Vec<LoopData> = loops.iter().map(|&l| pssa.loops[l].clone()).collect();
    let parent = datas[0].parent;
    let preds: Vec<Pred> = datas.iter().map(|d| d.pred).collect();
    let any = pssa.preds.or(&preds);
    // Before the loop: each loop's flag starts as its predicate.
    let mut pre = Emit {
        pssa,
        items: Vec::new(),
    };
    let inits: Vec<Value> = preds.iter().map(|&p| pre.materialize(p, always)).collect();
    let Emit {
        pssa,
        items: mut pre_items,
    } = pre;
    let mut mus: Vec<Mu> = Vec::new();
    let mut body: Vec<Item> = Vec::new();
    let mut actives = Vec::with_capacity(loops.len());
    for d in &datas {
        let (phi, active) = pssa.new_phi(Type::I1);
        actives.push((phi, active));
        let on = pssa.preds.lit(active, false);
        for &it in &d.items {
            match it {
                Item::Inst(i) => {
                    let q = pssa.inst_pred[i];
                    pssa.inst_pred[i] = pssa.preds.and2(q, on);
                }
                Item::Loop(inner) => {
                    let q = pssa.loops[inner].pred;
                    pssa.loops[inner].pred = pssa.preds.and2(q, on);
                }
            }
            body.push(it);
        }
    }
    // After the bodies: whether each loop goes on, and its μ-nodes held once it stopped.
    let mut tail = Emit {
        pssa,
        items: Vec::new(),
    };
    let mut nexts = Vec::with_capacity(loops.len());
    for (k, d) in datas.iter().enumerate() {
        let (phi, active) = actives[k];
        let goes_on = tail.materialize(d.cont, always);
        let next = tail.binary(lanes_ir::BinaryOp::And, active, goes_on, always);
        nexts.push(next);
        mus.push(Mu {
            inst: phi,
            value: active,
            init: inits[k],
            rec: next,
        });
        // A stopped loop's μ-nodes take stale values: nothing of it reads them any more
        // (its items run under its flag, its live-outs were kept while it ran).
        mus.extend(d.mus.iter().copied());
    }
    let Emit {
        pssa,
        items: tail_items,
    } = tail;
    body.extend(tail_items);
    let goes: Vec<Pred> = nexts.iter().map(|&v| pssa.preds.lit(v, false)).collect();
    let cont = pssa.preds.or(&goes);
    // Live-out μs: zero before the loop, the loop's value while it runs, held after.
    let mut last_values: HashMap<Value, Value> = HashMap::new();
    let mut holds: Vec<Vec<lanes_ir::Inst>> = vec![Vec::new(); loops.len()];
    let mut post = Emit {
        pssa,
        items: Vec::new(),
    };
    for (k, outs) in live_outs.iter().enumerate() {
        let (_, active) = actives[k];
        for &x in outs {
            let ty = post.pssa.func.dfg.value_type(x);
            let x_pred = match post.pssa.func.dfg.def_inst(x) {
                Some(i) if datas[k].items.contains(&Item::Inst(i)) => post.pssa.inst_pred[i],
                _ => always,
            };
            // The stored predicate already holds `active` (conjoined above).
            let on = post.pssa.preds.lit(active, false);
            let ran = post.pssa.preds.and2(on, x_pred);
            let not_ran = post.pssa.preds.not(ran);
            let (hold_phi, hold) = post.pssa.new_phi(ty);
            let last = post.phi(ty, vec![(ran, x), (not_ran, hold)], always);
            last_values.insert(x, last);
            holds[k].push(hold_phi);
            mus.push(Mu {
                inst: hold_phi,
                value: hold,
                init: hold, // set below, to a zero placed before the loop
                rec: last,
            });
        }
    }
    let Emit {
        pssa,
        items: post_items,
    } = post;
    body.extend(post_items);
    // Zeros to start the live-out μs from.
    let mut zeros = Emit {
        pssa,
        items: Vec::new(),
    };
    let mut zero_of: HashMap<Type, Value> = HashMap::new();
    for m in mus.iter_mut() {
        if m.init != m.value {
            continue;
        }
        let ty = zeros.pssa.func.dfg.value_type(m.value);
        let z = *zero_of.entry(ty).or_insert_with(|| {
            let data = if ty.is_float() {
                InstData::Fconst { bits: 0 }
            } else {
                InstData::Iconst { imm: 0 }
            };
            zeros.value(data, ty, always)
        });
        m.init = z;
    }
    let Emit {
        pssa,
        items: zero_items,
    } = zeros;
    pre_items.extend(zero_items);
    // Columns: the flags, each position of the loops' own μ-nodes, the held live-outs.
    let kept: HashSet<lanes_ir::Inst> = mus.iter().map(|m| m.inst).collect();
    let flags: Vec<Vec<lanes_ir::Inst>> = actives.iter().map(|a| vec![a.0]).collect();
    let own: Vec<Vec<lanes_ir::Inst>> = datas
        .iter()
        .map(|d| d.mus.iter().map(|m| m.inst).collect())
        .collect();
    let mut cols = columns(pssa, &flags, &kept);
    cols.extend(columns(pssa, &own, &kept));
    cols.extend(columns(pssa, &holds, &kept));
    let merged = LoopData {
        parent,
        pred: any,
        mus,
        items: body,
        cont,
        hints: datas[0].hints.clone(),
        dead: false,
        columns: cols,
    };
    let id = finish_merge(pssa, loops, merged);
    (id, pre_items, last_values)
}
