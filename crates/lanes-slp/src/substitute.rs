//! Replacing values everywhere a Predicated SSA function reads them: operands, gated φ
//! incoming values, μ-nodes, and the conditions of predicates (which are hash-consed, so
//! a predicate over a replaced condition is rebuilt). Packing needs it when a packed
//! scalar that other code still reads becomes an extraction from its vector
//! (SuperVectorization, PLDI'22 §3.4).

use std::collections::{HashMap, HashSet};

use lanes_ir::{Inst, Value};

use crate::predicate::{Pred, PredData};
use crate::pssa::{Item, LoopId, Pssa};

/// Rewrites every read of a key of `subst` — operands, gates, μ-nodes, predicates.
pub(crate) fn substitute(pssa: &mut Pssa, subst: &HashMap<Value, Value>) {
    substitute_outside(pssa, subst, &HashSet::new());
}

/// [`substitute`], except inside the loops of `excluded` (their items, μ-nodes and
/// continue predicates; a loop's own predicate belongs to the list holding it).
pub(crate) fn substitute_outside(
    pssa: &mut Pssa,
    subst: &HashMap<Value, Value>,
    excluded: &HashSet<LoopId>,
) {
    if subst.is_empty() {
        return;
    }
    let inside = |pssa: &Pssa, mut l: Option<LoopId>| {
        while let Some(x) = l {
            if excluded.contains(&x) {
                return true;
            }
            l = pssa.loops[x].parent;
        }
        false
    };
    let get = |v: &mut Value| {
        if let Some(&n) = subst.get(v) {
            *v = n;
        }
    };
    let walk = pssa.walk();
    let insts: Vec<Inst> = walk
        .iter()
        .filter(|(parent, _)| !inside(pssa, *parent))
        .filter_map(|&(_, it)| match it {
            Item::Inst(i) => Some(i),
            Item::Loop(_) => None,
        })
        .collect();
    let loops: Vec<LoopId> = pssa.loops.keys().collect();
    for &i in &insts {
        pssa.func.dfg.inst_mut(i).for_each_arg_mut(get);
        if let Some(g) = pssa.gates.get_mut(&i) {
            g.iter_mut().for_each(|(_, v)| get(v));
        }
    }
    for &l in &loops {
        if inside(pssa, Some(l)) {
            continue;
        }
        for m in &mut pssa.loops[l].mus {
            get(&mut m.init);
            get(&mut m.rec);
        }
    }
    // Predicates over replaced conditions.
    let mut memo: HashMap<Pred, Pred> = HashMap::new();
    for &i in &insts {
        let p = pssa.inst_pred[i];
        pssa.inst_pred[i] = rewrite_pred(pssa, p, subst, &mut memo);
        if let Some(g) = pssa.gates.get(&i).cloned() {
            let g = g
                .into_iter()
                .map(|(p, v)| (rewrite_pred(pssa, p, subst, &mut memo), v))
                .collect();
            pssa.gates.insert(i, g);
        }
    }
    for l in loops {
        if !inside(pssa, pssa.loops[l].parent) {
            let p = pssa.loops[l].pred;
            pssa.loops[l].pred = rewrite_pred(pssa, p, subst, &mut memo);
        }
        if !inside(pssa, Some(l)) {
            let c = pssa.loops[l].cont;
            pssa.loops[l].cont = rewrite_pred(pssa, c, subst, &mut memo);
        }
    }
}

pub(crate) fn rewrite_pred(
    pssa: &mut Pssa,
    p: Pred,
    subst: &HashMap<Value, Value>,
    memo: &mut HashMap<Pred, Pred>,
) -> Pred {
    if let Some(&q) = memo.get(&p) {
        return q;
    }
    let q = match pssa.preds.data(p).clone() {
        PredData::True | PredData::False => p,
        PredData::Lit { cond, negated } => match subst.get(&cond) {
            Some(&n) => pssa.preds.lit(n, negated),
            None => p,
        },
        PredData::And(ps) => {
            let ps: Vec<Pred> = ps
                .into_iter()
                .map(|x| rewrite_pred(pssa, x, subst, memo))
                .collect();
            pssa.preds.and(&ps)
        }
        PredData::Or(ps) => {
            let ps: Vec<Pred> = ps
                .into_iter()
                .map(|x| rewrite_pred(pssa, x, subst, memo))
                .collect();
            pssa.preds.or(&ps)
        }
    };
    memo.insert(p, q);
    q
}
