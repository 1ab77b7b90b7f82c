//! Vectorization-aware unrolling (SuperVectorization, PLDI'22 §4.1): SLP finds
//! loop-level parallelism once a loop is unrolled, because the unrolled copies of an
//! instruction are isomorphic and, for adjacent iterations, touch adjacent memory.
//!
//! A *counted* innermost loop — its only exit test compares its induction variable's next
//! value with a bound fixed before the loop, `i + s < n` (signed or unsigned, the
//! increment flagged not to wrap) or `i + 1 != n` — is split into a main loop running `U`
//! iterations per trip, whose copies need no predicate of their own, and the original
//! loop as a remainder for the iterations left:
//!
//! ```text
//! g0 = block(init)                       : P
//! loop main : P ∧ g0   with i = mu(init, i_U), x = mu(x0, x_U)
//!     copy 0 … copy U-1 of the body     (each copy's μ values are the previous copy's)
//!     g = block(i_U)
//! while g
//! i' = phi(i_U : P ∧ g0, init : P ∧ ¬g0) …   : P
//! loop rest : P ∧ (¬g0 ∨ runs(i'))   with i = mu(i', …)   (the original loop)
//! v' = phi(v : rest ran, v of copy U-1 : otherwise)         for values read after it
//! ```
//!
//! `block(i)` says that all `U` iterations from `i` run: `n - i ≥ U` (unsigned) for `!=`,
//! `i < n ∧ n - i > (U-1)·s` for `<` — written so that nothing can wrap. Whether to keep
//! an unrolled loop is decided by packing its main loop (§4.1's virtual unrolling): the
//! caller keeps it only where packs are found that pay.

use std::collections::{HashMap, HashSet};

use lanes_ir::{BinaryOp, InstData, IntCC, Value};

use crate::clone::{clone_inst, clone_loop, read_outside, values_in};
use crate::items::Emit;
use crate::predicate::Pred;
use crate::pssa::{Item, LoopData, LoopId, Mu, Pssa};
use crate::substitute::substitute_outside;

/// How a counted loop's exit test compares.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Compare {
    /// Continue while `i + 1 != n`.
    NotEqual,
    /// Continue while `i + s < n` (signed).
    SignedLess,
    /// Continue while `i + s < n` (unsigned).
    UnsignedLess,
}

/// A recognized counted loop.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Counted {
    /// The induction variable's μ (index into the loop's μ-nodes).
    pub iv: usize,
    pub step: i64,
    pub bound: Value,
    pub compare: Compare,
}

/// The negation of a condition (`a < b` → `a >= b`).
fn negate(cc: IntCC) -> IntCC {
    use IntCC::*;
    match cc {
        Eq => Ne,
        Ne => Eq,
        Slt => Sge,
        Sge => Slt,
        Sgt => Sle,
        Sle => Sgt,
        Ult => Uge,
        Uge => Ult,
        Ugt => Ule,
        Ule => Ugt,
    }
}

/// The condition with its operands swapped (`a < b` ⇔ `b > a`).
fn swap(cc: IntCC) -> IntCC {
    use IntCC::*;
    match cc {
        Eq | Ne => cc,
        Slt => Sgt,
        Sgt => Slt,
        Sle => Sge,
        Sge => Sle,
        Ult => Ugt,
        Ugt => Ult,
        Ule => Uge,
        Uge => Ule,
    }
}

/// The loop `l` as a counted loop, if it is one.
pub(crate) fn counted(pssa: &Pssa, l: LoopId) -> Option<Counted> {
    let f = &pssa.func;
    let data = &pssa.loops[l];
    let crate::PredData::Lit { cond, negated } = *pssa.preds.data(data.cont) else {
        return None;
    };
    let in_loop = |v: Value| {
        data.mus.iter().any(|m| m.value == v)
            || data
                .items
                .iter()
                .any(|&it| matches!(it, Item::Inst(i) if f.dfg.inst_result(i) == Some(v)))
    };
    let always = pssa.preds.always();
    let unconditional = |v: Value| {
        f.dfg
            .def_inst(v)
            .is_some_and(|i| data.items.contains(&Item::Inst(i)) && pssa.inst_pred[i] == always)
    };
    if !unconditional(cond) {
        return None;
    }
    let InstData::Icmp { cond: cc, args } = *f.dfg.inst(f.dfg.def_inst(cond)?) else {
        return None;
    };
    let cc = if negated { negate(cc) } else { cc };
    // `next cc bound`, the induction's next value on the left.
    let (next, bound, cc) = if data.mus.iter().any(|m| m.rec == args[0]) {
        (args[0], args[1], cc)
    } else {
        (args[1], args[0], swap(cc))
    };
    if in_loop(bound) || !unconditional(next) {
        return None;
    }
    let iv = data.mus.iter().position(|m| m.rec == next)?;
    let InstData::Binary {
        op: BinaryOp::Add,
        args: add,
        flags,
    } = *f.dfg.inst(f.dfg.def_inst(next)?)
    else {
        return None;
    };
    let step_of = |v: Value| match f.dfg.def_inst(v).map(|i| f.dfg.inst(i)) {
        Some(InstData::Iconst { imm }) => Some(*imm),
        _ => None,
    };
    let mu = data.mus[iv].value;
    let step = match (add[0] == mu, add[1] == mu) {
        (true, _) => step_of(add[1])?,
        (_, true) => step_of(add[0])?,
        _ => return None,
    };
    if f.dfg.value_type(mu).is_vector() || !f.dfg.value_type(mu).is_int() || step <= 0 {
        return None;
    }
    let compare = match cc {
        IntCC::Ne if step == 1 => Compare::NotEqual,
        IntCC::Slt if flags.nsw() => Compare::SignedLess,
        IntCC::Ult if flags.nuw() => Compare::UnsignedLess,
        _ => return None,
    };
    Some(Counted {
        iv,
        step,
        bound,
        compare,
    })
}

/// Is loop `l` a counted loop that [`unroll`] can take?
pub fn is_counted(pssa: &Pssa, l: LoopId) -> bool {
    counted(pssa, l).is_some()
}

impl Emit<'_> {
    /// Do all `u` iterations from `i` run?
    fn block_runs(&mut self, c: &Counted, i: Value, u: u32, pred: Pred) -> Value {
        let ty = self.pssa.func.dfg.value_type(i);
        let left = self.binary(BinaryOp::Sub, c.bound, i, pred);
        match c.compare {
            Compare::NotEqual => {
                let k = self.konst(ty, i64::from(u), pred);
                self.icmp(IntCC::Uge, left, k, pred)
            }
            Compare::SignedLess | Compare::UnsignedLess => {
                let less = if c.compare == Compare::SignedLess {
                    IntCC::Slt
                } else {
                    IntCC::Ult
                };
                let started = self.icmp(less, i, c.bound, pred);
                let span = self.konst(ty, (i64::from(u) - 1) * c.step, pred);
                let room = self.icmp(IntCC::Ugt, left, span, pred);
                self.binary(BinaryOp::And, started, room, pred)
            }
        }
    }

    /// Does the iteration at `i` run (the loop's own exit test)?
    fn runs(&mut self, c: &Counted, i: Value, pred: Pred) -> Value {
        let cc = match c.compare {
            Compare::NotEqual => IntCC::Ne,
            Compare::SignedLess => IntCC::Slt,
            Compare::UnsignedLess => IntCC::Ult,
        };
        self.icmp(cc, i, c.bound, pred)
    }
}

/// Unrolls counted loop `l` by `u` (at least 2) into a main loop and `l` as its
/// remainder; returns the main loop, or `None` if `l` is not a counted loop.
pub fn unroll(pssa: &mut Pssa, l: LoopId, u: u32) -> Option<LoopId> {
    unroll_with_copies(pssa, l, u).map(|(main, _)| main)
}

/// [`unroll`], and for each loop nested directly in `l`, in order, its `u` copies in the
/// main loop (the loops fusion or co-iteration may merge, §3.3).
pub fn unroll_with_copies(
    pssa: &mut Pssa,
    l: LoopId,
    u: u32,
) -> Option<(LoopId, Vec<Vec<LoopId>>)> {
    let c = counted(pssa, l)?;
    if u < 2 {
        return None;
    }
    let data: LoopData = pssa.loops[l].clone();
    // A masked tail copies the body once more per lane; with loops inside, the
    // original loop runs what the main loop leaves.
    let innermost = !data.items.iter().any(|i| matches!(i, Item::Loop(_)));
    let parent = data.parent;
    let p = data.pred;
    let iv = data.mus[c.iv];
    let mut hints = data.hints.clone();
    hints.push(lanes_ir::LoopHint {
        name: "llvm.loop.isvectorized".to_string(),
        value: Some(1),
    });
    let main = pssa.loops.push(LoopData {
        parent,
        pred: p,
        mus: Vec::new(),
        items: Vec::new(),
        cont: p,
        hints: Vec::new(),
        dead: false,
        columns: Vec::new(),
    });
    // The main loop's μ-nodes and U copies of the body.
    let mut map: HashMap<Value, Value> = HashMap::new();
    let mut mus = Vec::with_capacity(data.mus.len());
    for m in &data.mus {
        let ty = pssa.func.dfg.value_type(m.value);
        let (inst, value) = pssa.new_phi(ty);
        mus.push(Mu {
            inst,
            value,
            init: m.init,
            rec: m.rec,
        });
        map.insert(m.value, value);
    }
    let mut body: Vec<Item> = Vec::new();
    let mut copies: Vec<Vec<LoopId>> = Vec::new();
    let mut last_map = map.clone();
    for copy in 0..u {
        if copy > 0 {
            // This copy's μ values are the previous copy's recurrences.
            let next: Vec<(Value, Value)> = data
                .mus
                .iter()
                .map(|m| (m.value, last_map.get(&m.rec).copied().unwrap_or(m.rec)))
                .collect();
            map = last_map.clone();
            for (k, v) in next {
                map.insert(k, v);
            }
        }
        let mut nested = 0;
        for &item in &data.items {
            match item {
                Item::Inst(inst) => body.push(Item::Inst(clone_inst(pssa, inst, &mut map))),
                Item::Loop(inner) => {
                    let new = clone_loop(pssa, inner, &mut map, main);
                    if copies.len() <= nested {
                        copies.push(Vec::new());
                    }
                    copies[nested].push(new);
                    nested += 1;
                    body.push(Item::Loop(new));
                }
            }
        }
        last_map = map.clone();
    }
    for (m, orig) in mus.iter_mut().zip(&data.mus) {
        // A recurrence from outside the loop (`x = mu(a, b)` with `b` fixed) stays.
        m.rec = last_map.get(&orig.rec).copied().unwrap_or(orig.rec);
    }
    let iv_u = last_map.get(&iv.rec).copied().unwrap_or(iv.rec);
    let always = pssa.preds.always();
    let mut inner = Emit { pssa, items: body };
    let g = inner.block_runs(&c, iv_u, u, always);
    let body = inner.items;
    let pssa = inner.pssa;
    let cont = pssa.preds.lit(g, false);
    // Before the main loop: does a whole first block run?
    let mut outer = Emit {
        pssa,
        items: Vec::new(),
    };
    let g0 = outer.block_runs(&c, iv.init, u, p);
    let pssa = outer.pssa;
    let ran = pssa.preds.lit(g0, false);
    let not_ran = pssa.preds.lit(g0, true);
    let p_ran = pssa.preds.and2(p, ran);
    let p_not_ran = pssa.preds.and2(p, not_ran);
    pssa.loops[main] = LoopData {
        parent,
        pred: p_ran,
        mus: mus.clone(),
        items: body,
        cont,
        hints,
        dead: false,
        columns: Vec::new(),
    };
    // Values of `l` read after it, for the φs that pick the remainder's or the main
    // loop's last copy's.
    let defined = values_in(pssa, l);
    let live_out = read_outside(pssa, l, &defined);
    let guard_items = outer.items;
    let mut mid = Emit {
        pssa,
        items: Vec::new(),
    };
    let mut inits = Vec::with_capacity(data.mus.len());
    for (m, nm) in data.mus.iter().zip(&mus) {
        let ty = mid.pssa.func.dfg.value_type(m.value);
        let v = mid.phi(ty, vec![(p_ran, nm.rec), (p_not_ran, m.init)], p);
        inits.push(v);
    }
    let iv_after = inits[c.iv];
    if c.step == 1 && innermost {
        let tail = masked_tail(mid, &c, &data, &inits, u, TailContext { p, ran, not_ran });
        let main = finish(tail, l, main, guard_items, &inits, &last_map, live_out);
        return Some((main, copies));
    }
    let more = mid.runs(&c, iv_after, p);
    let pssa = mid.pssa;
    let mid_items = mid.items;
    let more_lit = pssa.preds.lit(more, false);
    let no_more = pssa.preds.lit(more, true);
    let either = pssa.preds.or(&[not_ran, more_lit]);
    let rest_runs = pssa.preds.and2(p, either);
    let main_only = pssa.preds.and(&[p, ran, no_more]);
    let tail = Tail {
        pssa,
        mid_items,
        tail_items: Vec::new(),
        rest_runs,
        lasts: vec![(main_only, None)],
        rest_inits_original: false,
    };
    let main = finish(tail, l, main, guard_items, &inits, &last_map, live_out);
    Some((main, copies))
}

/// The predicates the tail is built under.
#[derive(Copy, Clone)]
struct TailContext {
    /// The loop's own predicate.
    p: Pred,
    /// The main loop ran / did not.
    ran: Pred,
    not_ran: Pred,
}

/// What follows the main loop: items computing where it stopped, the tail's items, when
/// the original loop still runs, and for each other way the last iteration can have
/// been run, its gate and the copy's values (`None`: the main loop's last copy).
struct Tail<'a> {
    pssa: &'a mut Pssa,
    mid_items: Vec<Item>,
    tail_items: Vec<Item>,
    rest_runs: Pred,
    lasts: Vec<(Pred, Option<HashMap<Value, Value>>)>,
    /// The original loop, when it runs, starts from the loop's own initial values.
    rest_inits_original: bool,
}

/// With a step of one, the iterations the main loop leaves (fewer than `u`) run as one
/// more unrolled copy of the body, lane `k` under `k < cnt` — a masked vector step once
/// packed, instead of a scalar loop. `cnt` counts the iterations left: `n - i` from
/// where the main loop stopped, at least one when it did not run (the loop runs once
/// before its first test). The original loop stays for the one case with more than
/// `u - 1` left: `i + 1 != n` whose count wraps around (`n == i` at the start).
fn masked_tail<'a>(
    mut mid: Emit<'a>,
    c: &Counted,
    data: &LoopData,
    inits: &[Value],
    u: u32,
    cx: TailContext,
) -> Tail<'a> {
    let p = cx.p;
    let start = inits[c.iv];
    let ty = mid.pssa.func.dfg.value_type(start);
    let diff = mid.binary(BinaryOp::Sub, c.bound, start, p);
    let zero = mid.konst(ty, 0, p);
    let one = mid.konst(ty, 1, p);
    let ran_value = match *mid.pssa.preds.data(cx.ran) {
        crate::PredData::Lit { cond, .. } => cond,
        _ => unreachable!("the main loop's guard is one condition"),
    };
    let cnt = match c.compare {
        Compare::NotEqual => diff,
        Compare::SignedLess | Compare::UnsignedLess => {
            let less = if c.compare == Compare::SignedLess {
                IntCC::Slt
            } else {
                IntCC::Ult
            };
            let before = mid.icmp(less, start, c.bound, p);
            let left = mid.value(
                InstData::Select {
                    args: [before, diff, zero],
                },
                ty,
                p,
            );
            let none = mid.icmp(IntCC::Eq, left, zero, p);
            let at_least_one = mid.value(
                InstData::Select {
                    args: [none, one, left],
                },
                ty,
                p,
            );
            mid.value(
                InstData::Select {
                    args: [ran_value, left, at_least_one],
                },
                ty,
                p,
            )
        }
    };
    let mut lane_conds = Vec::with_capacity(u as usize);
    for k in 0..u {
        let kk = mid.konst(ty, i64::from(k), p);
        lane_conds.push(mid.icmp(IntCC::Ult, kk, cnt, p));
    }
    let Emit {
        pssa,
        items: mid_items,
    } = mid;
    // The copies: lane k's μ values are lane k-1's recurrences.
    let mut map: HashMap<Value, Value> = data
        .mus
        .iter()
        .zip(inits)
        .map(|(m, &v)| (m.value, v))
        .collect();
    let mut tail_items = Vec::new();
    let mut maps = Vec::with_capacity(u as usize);
    for &cond in &lane_conds {
        let lane = pssa.preds.lit(cond, false);
        let extra = pssa.preds.and2(p, lane);
        for &item in &data.items {
            let Item::Inst(inst) = item else {
                unreachable!("an innermost loop")
            };
            let new = clone_inst(pssa, inst, &mut map);
            let q = pssa.inst_pred[new];
            pssa.inst_pred[new] = pssa.preds.and2(q, extra);
            tail_items.push(Item::Inst(new));
        }
        maps.push(map.clone());
        let next: Vec<(Value, Value)> = data
            .mus
            .iter()
            .map(|m| (m.value, map.get(&m.rec).copied().unwrap_or(m.rec)))
            .collect();
        for (k, v) in next {
            map.insert(k, v);
        }
    }
    // Which iteration ran last: lane k when lane k+1 did not; the main loop's last copy
    // when no lane ran.
    let mut lasts = Vec::with_capacity(u as usize + 1);
    for (k, lane_map) in maps.into_iter().enumerate() {
        let this = pssa.preds.lit(lane_conds[k], false);
        let gate = match lane_conds.get(k + 1) {
            Some(&next) => {
                let not_next = pssa.preds.lit(next, true);
                pssa.preds.and(&[p, this, not_next])
            }
            None => pssa.preds.and2(p, this),
        };
        lasts.push((gate, Some(lane_map)));
    }
    let no_lane = pssa.preds.lit(lane_conds[0], true);
    lasts.push((pssa.preds.and(&[p, cx.ran, no_lane]), None));
    let rest_runs = pssa.preds.and(&[p, cx.not_ran, no_lane]);
    Tail {
        pssa,
        mid_items,
        tail_items,
        rest_runs,
        lasts,
        rest_inits_original: true,
    }
}

/// Values after the loop, the remainder's start and predicate, and the splice.
fn finish(
    tail: Tail<'_>,
    l: LoopId,
    main: LoopId,
    guard_items: Vec<Item>,
    inits: &[Value],
    last_map: &HashMap<Value, Value>,
    live_out: Vec<Value>,
) -> LoopId {
    let Tail {
        pssa,
        mid_items,
        tail_items,
        rest_runs,
        lasts,
        rest_inits_original,
    } = tail;
    let p = pssa.loops[l].pred;
    // The φs after the remainder (made before the substitution, placed after it).
    let mut post = Emit {
        pssa,
        items: Vec::new(),
    };
    let mut subst: HashMap<Value, Value> = HashMap::new();
    for v in live_out {
        let ty = post.pssa.func.dfg.value_type(v);
        let mut gates = vec![(rest_runs, v)];
        for (gate, lane_map) in &lasts {
            let from = match lane_map {
                Some(m) => m.get(&v).copied().unwrap_or(v),
                None => last_map.get(&v).copied().unwrap_or(v),
            };
            gates.push((*gate, from));
        }
        let out = post.phi(ty, gates, p);
        subst.insert(v, out);
    }
    let pssa = post.pssa;
    let post_items = post.items;
    let excluded: HashSet<LoopId> = [l, main].into_iter().collect();
    substitute_outside(pssa, &subst, &excluded);
    // The remainder starts where the main loop stopped (or, after a masked tail, runs
    // only when nothing else did, from the start).
    if !rest_inits_original {
        for (m, &init) in pssa.loops[l].mus.iter_mut().zip(inits) {
            m.init = init;
        }
    }
    pssa.loops[l].pred = rest_runs;
    // Splice: guard, main loop, where it stopped, tail, remainder, values after it.
    let (list, pos) = pssa.list_holding(l);
    let mut spliced = guard_items;
    spliced.push(Item::Loop(main));
    spliced.extend(mid_items);
    spliced.extend(tail_items);
    spliced.push(Item::Loop(l));
    spliced.extend(post_items);
    list.splice(pos..=pos, spliced);
    main
}
