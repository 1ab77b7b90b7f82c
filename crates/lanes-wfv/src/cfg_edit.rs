//! CFG surgery shared by the passes of this crate.
//!
//! Normalization (loop simplify, dedicated exits, one exit block) and the divergent loop
//! transform (PLDI'18 §5) are built from a handful of edits that keep φs consistent with
//! the predecessor lists, in the manner of LLVM's `SplitBlockPredecessors`:
//!
//! - [`split_preds`] moves some predecessors of a block onto a new block that jumps to it,
//!   merging their φ entries into new φs of the new block (this also splits edges);
//! - [`retarget`] redirects the edges of one branch;
//! - [`remove_unreachable`] deletes blocks the entry cannot reach and their φ entries;
//! - [`insert_phi`] and [`zero_value`] create φs and the "don't care" constants that SSA
//!   repair uses on paths where a value is not defined.

use std::collections::HashMap;

use lanes_analysis::ControlFlowGraph;
use lanes_ir::{Block, FuncBuilder, Function, Inst, InstData, Type, Value};

/// The predecessors of `block` (deduplicated, in layout order of the branch blocks).
pub(crate) fn preds_of(func: &Function, block: Block) -> Vec<Block> {
    let mut out = Vec::new();
    for b in func.layout.blocks() {
        if func.successors(b).contains(&block) && !out.contains(&b) {
            out.push(b);
        }
    }
    out
}

/// Redirects every edge `from → old` to `from → new`.
pub(crate) fn retarget(func: &mut Function, from: Block, old: Block, new: Block) {
    if let Some(t) = func.terminator(from) {
        func.dfg.inst_mut(t).for_each_target_mut(|d| {
            if *d == old {
                *d = new
            }
        });
    }
}

/// The φ instructions at the top of `block`.
pub(crate) fn phis(func: &Function, block: Block) -> Vec<Inst> {
    func.layout
        .block_insts(block)
        .iter()
        .copied()
        .take_while(|&i| func.dfg.inst(i).is_phi())
        .collect()
}

/// Index of the first non-φ instruction of `block`.
pub(crate) fn first_non_phi(func: &Function, block: Block) -> usize {
    phis(func, block).len()
}

/// Creates a φ of type `ty` at the end of the φs of `block`; returns its result.
pub(crate) fn insert_phi(
    func: &mut Function,
    block: Block,
    ty: Type,
    incoming: Vec<(Block, Value)>,
) -> Value {
    let at = first_non_phi(func, block);
    let inst = func.dfg.make_inst(InstData::Phi { incoming }, Some(ty));
    func.layout.insert_inst_at(inst, block, at);
    func.dfg.inst_result(inst).expect("φ has a result")
}

/// Inserts a non-φ instruction before the terminator of `block`; returns its result.
pub(crate) fn insert_before_terminator(
    func: &mut Function,
    block: Block,
    data: InstData,
    ty: Option<Type>,
) -> Inst {
    let inst = func.dfg.make_inst(data, ty);
    match func.terminator(block) {
        Some(t) => func.layout.insert_inst_before(inst, t),
        None => func.layout.append_inst(inst, block),
    }
    inst
}

/// Creates a new block that receives the edges from `moved` into `block` and jumps to
/// `block`. φ entries of the moved predecessors become φs of the new block (or are
/// renamed when only one predecessor moves). Returns the new block, placed in the layout
/// before `block`.
pub(crate) fn split_preds(func: &mut Function, block: Block, moved: &[Block]) -> Block {
    let new = func.dfg.make_block();
    insert_block_before(func, new, block);
    for &p in moved {
        retarget(func, p, block, new);
    }
    for phi in phis(func, block) {
        let ty = func
            .dfg
            .value_type(func.dfg.inst_result(phi).expect("φ result"));
        let InstData::Phi { incoming } = func.dfg.inst(phi).clone() else {
            continue;
        };
        let (mine, rest): (Vec<_>, Vec<_>) =
            incoming.into_iter().partition(|(p, _)| moved.contains(p));
        if mine.is_empty() {
            continue;
        }
        let merged = if mine.len() == 1 {
            mine[0].1
        } else {
            insert_phi(func, new, ty, mine)
        };
        let mut incoming = rest;
        incoming.push((new, merged));
        *func.dfg.inst_mut(phi) = InstData::Phi { incoming };
    }
    let mut b = FuncBuilder::new(func);
    b.switch_to_block(new);
    b.jump(block);
    new
}

/// Places `new` (not yet in the layout) right before `before`.
pub(crate) fn insert_block_before(func: &mut Function, new: Block, before: Block) {
    let order: Vec<Block> = func.layout.blocks().collect();
    match order.iter().position(|&b| b == before) {
        Some(0) | None => {
            func.layout.append_block(new);
            if order.first() == Some(&before) {
                let mut o = vec![new];
                o.extend(order);
                func.layout.set_block_order(o);
            }
        }
        Some(i) => func.layout.insert_block_after(new, order[i - 1]),
    }
}

/// Removes the blocks not reachable from the entry, and their φ entries in the others.
pub(crate) fn remove_unreachable(func: &mut Function) {
    let cfg = ControlFlowGraph::with_function(func);
    let dead: Vec<Block> = func
        .layout
        .blocks()
        .filter(|&b| !cfg.is_reachable(b))
        .collect();
    if dead.is_empty() {
        return;
    }
    for &b in &dead {
        for inst in func.layout.block_insts(b).to_vec() {
            func.layout.remove_inst(inst);
        }
        func.layout.remove_block(b);
    }
    for b in func.layout.blocks().collect::<Vec<_>>() {
        for phi in phis(func, b) {
            if let InstData::Phi { incoming } = func.dfg.inst_mut(phi) {
                incoming.retain(|(p, _)| !dead.contains(p));
            }
        }
    }
}

/// A "don't care" value of type `ty` defined at the top of the entry block (zero, null,
/// false), cached in `cache`. SSA repair uses it where a value is not defined because the
/// block defining it was skipped; predicates use `false` the same way.
pub(crate) fn zero_value(func: &mut Function, ty: Type, cache: &mut HashMap<Type, Value>) -> Value {
    if let Some(&v) = cache.get(&ty) {
        return v;
    }
    let entry = func.entry_block().expect("function has an entry");
    let data = if ty.is_float() {
        InstData::Fconst { bits: 0 }
    } else {
        InstData::Iconst { imm: 0 }
    };
    let inst = func.dfg.make_inst(data, Some(ty));
    let at = first_non_phi(func, entry);
    func.layout.insert_inst_at(inst, entry, at);
    let v = func.dfg.inst_result(inst).expect("constant result");
    cache.insert(ty, v);
    v
}

/// An `i1` constant at the top of the entry block.
pub(crate) fn bool_const(func: &mut Function, value: bool) -> Value {
    let entry = func.entry_block().expect("function has an entry");
    let inst = func.dfg.make_inst(
        InstData::Iconst {
            imm: i64::from(value),
        },
        Some(Type::I1),
    );
    let at = first_non_phi(func, entry);
    func.layout.insert_inst_at(inst, entry, at);
    func.dfg.inst_result(inst).expect("constant result")
}

/// The block defining `v` (None for parameters).
pub(crate) fn def_block(func: &Function, v: Value) -> Option<Block> {
    match func.dfg.value_def(v) {
        lanes_ir::ValueDef::Param(_) => None,
        lanes_ir::ValueDef::Result(i) => func.layout.inst_block(i),
    }
}

/// Gives `func` a new entry block that goes on to the old entry when the condition `cond`
/// computes there holds, and otherwise returns zero of the return type (nothing for a
/// `void` function). False if `func` has no entry.
pub(crate) fn return_zero_unless(
    func: &mut Function,
    cond: impl FnOnce(&mut FuncBuilder) -> Value,
) -> bool {
    let Some(entry) = func.entry_block() else {
        return false;
    };
    let start = func.dfg.make_block();
    insert_block_before(func, start, entry);
    let done = func.dfg.make_block();
    func.layout.append_block(done);
    let ret = func.ret;
    let mut b = FuncBuilder::new(func);
    b.switch_to_block(start);
    let c = cond(&mut b);
    b.brif(c, entry, done);
    b.switch_to_block(done);
    let zero = ret.map(|t| {
        let data = if t.is_float() {
            InstData::Fconst { bits: 0 }
        } else {
            InstData::Iconst { imm: 0 }
        };
        b.value(data, t)
    });
    b.ret(zero);
    true
}
