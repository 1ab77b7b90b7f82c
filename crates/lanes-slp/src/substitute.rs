//! Replacing values everywhere a Predicated SSA function reads them: operands, gated φ
//! incoming values, μ-nodes, and the conditions of predicates (which are hash-consed, so
//! a predicate over a replaced condition is rebuilt). Packing needs it when a packed
//! scalar that other code still reads becomes an extraction from its vector
//! (SuperVectorization, PLDI'22 §3.4).

use std::collections::HashMap;

use lanes_ir::{Inst, Value};

use crate::predicate::{Pred, PredData};
use crate::pssa::{Item, LoopId, Pssa};

/// Rewrites every read of a key of `subst` — operands, gates, μ-nodes, predicates.
pub(crate) fn substitute(pssa: &mut Pssa, subst: &HashMap<Value, Value>) {
    if subst.is_empty() {
        return;
    }
    let get = |v: &mut Value| {
        if let Some(&n) = subst.get(v) {
            *v = n;
        }
    };
    let insts: Vec<Inst> = pssa
        .walk()
        .into_iter()
        .filter_map(|(_, it)| match it {
            Item::Inst(i) => Some(i),
            Item::Loop(_) => None,
        })
        .collect();
    for &i in &insts {
        pssa.func.dfg.inst_mut(i).for_each_arg_mut(get);
        if let Some(g) = pssa.gates.get_mut(&i) {
            g.iter_mut().for_each(|(_, v)| get(v));
        }
    }
    for l in pssa.loops.values_mut() {
        for m in &mut l.mus {
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
    let loops: Vec<LoopId> = pssa.loops.keys().collect();
    for l in loops {
        let (p, c) = (pssa.loops[l].pred, pssa.loops[l].cont);
        pssa.loops[l].pred = rewrite_pred(pssa, p, subst, &mut memo);
        pssa.loops[l].cont = rewrite_pred(pssa, c, subst, &mut memo);
    }
}

fn rewrite_pred(
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
