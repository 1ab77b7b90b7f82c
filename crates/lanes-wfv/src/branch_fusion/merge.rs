//! Code generation for branch fusion (PACT'11 §IV-A(c)), in SSA form.
//!
//! The divergent `head: brif c, T, F` with sides `T` and `F` that both jump to `join`
//! becomes one chain of blocks continuing `head`. Walking the alignment:
//!
//! - a merged pair `(T[x], F[y])` becomes `T[x]` moved to the end of the chain, each
//!   operand that differs between the two replaced by `select c, a, b` (a lane that took
//!   `T` gets `T`'s operand, the others `F`'s; `F[y]`'s first two operands swapped first
//!   where the operation commutes and that makes fewer differ), and `F[y]`'s uses rewired
//!   to it;
//! - the instructions between two pairs that did not merge (a gap, on one side or both)
//!   keep their divergent branch: the chain ends with `brif c, T′, F′`, `T′` holds the
//!   `T` part of the gap and `F′` the `F` part (either may be empty), and both jump to a
//!   new block that continues the chain.
//!
//! What a gap defines and later code uses reaches the chain through a φ in the block
//! after it, with a "don't care" zero from the other side (only lanes of the defining
//! side ever read it: later merged operands select by `c` and later gap code of the same
//! side runs for the same lanes). Finally `join`'s φs take one value from the chain's end,
//! selected by `c` where the sides' values still differ, and `T` and `F` are removed.

use std::collections::HashMap;

use lanes_ir::{Block, FuncCursor, Function, Inst, InstData, Type, Value};

use super::cost::paired_operands;
use crate::cfg_edit::zero_value;

/// A divergent if-then-else with one block on each side (Definition 4.1's unifiable
/// branch: neither side reaches the other).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Diamond {
    pub head: Block,
    /// The branch condition: lanes where it holds take `then_side`.
    pub cond: Value,
    pub then_side: Block,
    pub else_side: Block,
    pub join: Block,
}

/// The instructions of `side` but its terminator.
pub(super) fn body(func: &Function, side: Block) -> Vec<Inst> {
    let insts = func.layout.block_insts(side);
    insts[..insts.len().saturating_sub(1)].to_vec()
}

/// Fuses `d` along `pairs` (indices into the sides' [`body`]s, increasing in both).
pub(super) fn fuse(
    func: &mut Function,
    d: &Diamond,
    pairs: &[(usize, usize)],
    zeros: &mut HashMap<Type, Value>,
) {
    let then_insts = body(func, d.then_side);
    let else_insts = body(func, d.else_side);
    let mut chain = Chain {
        cond: d.cond,
        cur: d.head,
        then_last_use: last_uses(func, &then_insts, d.join, d.then_side),
        else_last_use: last_uses(func, &else_insts, d.join, d.else_side),
        then_map: HashMap::new(),
        else_map: HashMap::new(),
        selected: HashMap::new(),
        zeros,
    };
    if let Some(branch) = func.terminator(d.head) {
        func.layout.remove_inst(branch);
    }
    let (mut ti, mut fi) = (0, 0);
    for q in 0..=pairs.len() {
        let (tx, fy) = pairs
            .get(q)
            .copied()
            .unwrap_or((then_insts.len(), else_insts.len()));
        if ti < tx || fi < fy {
            chain.gap(func, &then_insts[ti..tx], &else_insts[fi..fy], (tx, fy));
        }
        if q < pairs.len() {
            chain.merge(func, then_insts[tx], else_insts[fy]);
        }
        (ti, fi) = (tx + 1, fy + 1);
    }
    chain.finish(func, d);
}

/// For each value a side's instructions define, the position of its last use on that
/// side (`insts.len()` for a use by a φ of `join`).
fn last_uses(func: &Function, insts: &[Inst], join: Block, side: Block) -> HashMap<Value, usize> {
    let mut last = HashMap::new();
    for (pos, &i) in insts.iter().enumerate() {
        func.dfg.inst(i).for_each_arg(|v| {
            last.insert(v, pos);
        });
    }
    for &i in func.layout.block_insts(join) {
        if let InstData::Phi { incoming } = func.dfg.inst(i) {
            for &(_, v) in incoming.iter().filter(|(p, _)| *p == side) {
                last.insert(v, insts.len());
            }
        }
    }
    last
}

/// The chain being built, and where each side's values now live.
struct Chain<'z> {
    cond: Value,
    /// The block the chain continues in.
    cur: Block,
    then_last_use: HashMap<Value, usize>,
    else_last_use: HashMap<Value, usize>,
    /// Side values replaced by another (a merged instruction's result, a gap's φ).
    then_map: HashMap<Value, Value>,
    else_map: HashMap<Value, Value>,
    /// The selectors made so far, by the values they choose between.
    selected: HashMap<(Value, Value), Value>,
    zeros: &'z mut HashMap<Type, Value>,
}

impl Chain<'_> {
    fn append(&self, func: &mut Function, data: InstData, ty: Option<Type>) -> Inst {
        FuncCursor::new(func)
            .goto_bottom(self.cur)
            .insert_inst(data, ty)
    }

    /// Moves `inst` to the end of `block`, its operands read through `map`.
    fn move_to(func: &mut Function, inst: Inst, block: Block, map: &HashMap<Value, Value>) {
        func.layout.remove_inst(inst);
        func.layout.append_inst(inst, block);
        func.dfg
            .inst_mut(inst)
            .for_each_arg_mut(|v| *v = map.get(v).copied().unwrap_or(*v));
    }

    /// `select cond, a, b` at the end of the chain, or `a` where the two are one value;
    /// one selector per pair of values (the chain dominates all its later code).
    fn choose(&mut self, func: &mut Function, a: Value, b: Value) -> Value {
        if a == b {
            return a;
        }
        if let Some(&v) = self.selected.get(&(a, b)) {
            return v;
        }
        let ty = func.dfg.value_type(a);
        let data = InstData::Select {
            args: [self.cond, a, b],
        };
        let v = FuncCursor::new(func)
            .goto_bottom(self.cur)
            .insert_value(data, ty);
        self.selected.insert((a, b), v);
        v
    }

    /// Merges `t` and `f` into `t` at the end of the chain.
    fn merge(&mut self, func: &mut Function, t: Inst, f: Inst) {
        let resolve = |map: &HashMap<Value, Value>, v: Value| map.get(&v).copied().unwrap_or(v);
        let t_args: Vec<Value> = func.dfg.inst(t).args();
        let t_args: Vec<Value> = t_args.iter().map(|&a| resolve(&self.then_map, a)).collect();
        let f_args: Vec<Value> = func.dfg.inst(f).args();
        let f_args: Vec<Value> = f_args.iter().map(|&b| resolve(&self.else_map, b)).collect();
        let (f_args, _) = paired_operands(func.dfg.inst(t), &t_args, &f_args, |a, b| a == b);
        let chosen: Vec<Value> = t_args
            .into_iter()
            .zip(f_args)
            .map(|(a, b)| self.choose(func, a, b))
            .collect();
        func.layout.remove_inst(t);
        func.layout.append_inst(t, self.cur);
        let mut next = chosen.into_iter();
        func.dfg.inst_mut(t).for_each_arg_mut(|v| {
            if let Some(c) = next.next() {
                *v = c;
            }
        });
        if let (Some(vt), Some(vf)) = (func.dfg.inst_result(t), func.dfg.inst_result(f)) {
            self.else_map.insert(vf, vt);
        }
        func.layout.remove_inst(f);
    }

    /// Keeps the gap `then_part` / `else_part` divergent; `ends` are the positions on
    /// each side where the gap ends (a value used there or later needs a φ).
    fn gap(
        &mut self,
        func: &mut Function,
        then_part: &[Inst],
        else_part: &[Inst],
        ends: (usize, usize),
    ) {
        let mut cursor = FuncCursor::new(func);
        let then_block = cursor.create_block_after(self.cur);
        let else_block = cursor.create_block_after(then_block);
        let next = cursor.create_block_after(else_block);
        self.append(
            func,
            InstData::Brif {
                cond: self.cond,
                then_dest: then_block,
                else_dest: else_block,
            },
            None,
        );
        for (part, block, map) in [
            (then_part, then_block, &self.then_map),
            (else_part, else_block, &self.else_map),
        ] {
            for &i in part {
                Self::move_to(func, i, block, map);
            }
            FuncCursor::new(func)
                .goto_bottom(block)
                .insert_inst(InstData::Jump { dest: next }, None);
        }
        for (part, end, last_use, map, taken) in [
            (
                then_part,
                ends.0,
                &self.then_last_use,
                &mut self.then_map,
                true,
            ),
            (
                else_part,
                ends.1,
                &self.else_last_use,
                &mut self.else_map,
                false,
            ),
        ] {
            for &i in part {
                let Some(v) = func.dfg.inst_result(i) else {
                    continue;
                };
                if last_use.get(&v).is_none_or(|&u| u < end) {
                    continue;
                }
                let ty = func.dfg.value_type(v);
                let zero = zero_value(func, ty, self.zeros);
                let incoming = if taken {
                    vec![(then_block, v), (else_block, zero)]
                } else {
                    vec![(then_block, zero), (else_block, v)]
                };
                let phi = FuncCursor::new(func)
                    .goto_top(next)
                    .insert_phi(ty, incoming);
                map.insert(v, phi);
            }
        }
        self.cur = next;
    }

    /// `join`'s φs take the chain's values; the chain jumps to `join`; the emptied
    /// sides go.
    fn finish(mut self, func: &mut Function, d: &Diamond) {
        let phis: Vec<Inst> = func.layout.block_insts(d.join).to_vec();
        for i in phis {
            let InstData::Phi { incoming } = func.dfg.inst(i) else {
                continue;
            };
            let from = |side: Block| incoming.iter().find(|(p, _)| *p == side).map(|&(_, v)| v);
            let (Some(a), Some(b)) = (from(d.then_side), from(d.else_side)) else {
                continue;
            };
            let a = self.then_map.get(&a).copied().unwrap_or(a);
            let b = self.else_map.get(&b).copied().unwrap_or(b);
            let v = self.choose(func, a, b);
            if let InstData::Phi { incoming } = func.dfg.inst_mut(i) {
                incoming.retain(|(p, _)| *p != d.then_side && *p != d.else_side);
                incoming.push((self.cur, v));
            }
        }
        self.append(func, InstData::Jump { dest: d.join }, None);
        let mut cursor = FuncCursor::new(func);
        cursor.remove_block(d.then_side);
        cursor.remove_block(d.else_side);
    }
}
