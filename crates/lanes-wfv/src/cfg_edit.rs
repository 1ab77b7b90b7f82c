//! Edits shared by the passes of this crate, on top of lanes-ir's
//! [`FuncCursor`](lanes_ir::FuncCursor) (which holds the CFG edits proper: splitting
//! predecessors, retargeting branches, removing unreachable blocks):
//!
//! - [`zero_value`] and [`bool_const`] make the "don't care" constants that SSA repair uses
//!   on paths where a value is not defined, and the constant masks of predicates;
//! - [`return_zero_unless`] puts a test in front of a function's entry;
//! - [`phi_result`] and [`def_block`] are the facts about values those edits ask for.

use std::collections::HashMap;

use cranelift_entity::EntitySet;
use lanes_analysis::ControlFlowGraph;
use lanes_ir::{Block, FuncBuilder, FuncCursor, Function, Inst, InstData, Type, Value, ValueDef};

/// The result of the φ `phi`. The functions this crate works on are verified (the
/// importers and the command line run the verifier), and the verifier gives every φ a
/// result; the φs of the passes come from [`FuncCursor::insert_phi`], which makes one.
pub(crate) fn phi_result(func: &Function, phi: Inst) -> Value {
    func.dfg.inst_result(phi).expect(
        "every φ has a result: the verifier checks the input's, insert_phi makes the passes'",
    )
}

/// The entry block of `func`, to which the passes add constants. They do so only for
/// functions that hold code (loops, φs, guarded instructions, uses to repair), and a
/// function with code has an entry block.
fn entry_of(func: &Function) -> Block {
    func.entry_block()
        .expect("constants are only made for functions that hold code, so have an entry block")
}

/// A "don't care" value of type `ty` defined at the top of the entry block (zero, null,
/// false), cached in `cache`. SSA repair uses it where a value is not defined because the
/// block defining it was skipped; predicates use `false` the same way.
pub(crate) fn zero_value(func: &mut Function, ty: Type, cache: &mut HashMap<Type, Value>) -> Value {
    if let Some(&v) = cache.get(&ty) {
        return v;
    }
    let entry = entry_of(func);
    let data = if ty.is_float() {
        InstData::Fconst { bits: 0 }
    } else {
        InstData::Iconst { imm: 0 }
    };
    let v = FuncCursor::new(func)
        .goto_first_non_phi(entry)
        .insert_value(data, ty);
    cache.insert(ty, v);
    v
}

/// An `i1` constant at the top of the entry block.
pub(crate) fn bool_const(func: &mut Function, value: bool) -> Value {
    let entry = entry_of(func);
    let data = InstData::Iconst {
        imm: i64::from(value),
    };
    FuncCursor::new(func)
        .goto_first_non_phi(entry)
        .insert_value(data, Type::I1)
}

/// The `then` and `else` targets of the `brif` ending `b`, if it ends in one.
pub(crate) fn brif_targets(func: &Function, b: Block) -> Option<(Block, Block)> {
    brif_of(func, b).map(|(_, t, e)| (t, e))
}

/// The condition and the `then` and `else` targets of the `brif` ending `b`, if it ends
/// in one.
pub(crate) fn brif_of(func: &Function, b: Block) -> Option<(Value, Block, Block)> {
    match func.dfg.inst(func.terminator(b)?) {
        InstData::Brif {
            cond,
            then_dest,
            else_dest,
        } => Some((*cond, *then_dest, *else_dest)),
        _ => None,
    }
}

/// The block defining `v` (None for parameters).
pub(crate) fn def_block(func: &Function, v: Value) -> Option<Block> {
    match func.dfg.value_def(v) {
        ValueDef::Param(_) => None,
        ValueDef::Result(i) => func.layout.inst_block(i),
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
    let start = FuncCursor::new(func).create_entry_block();
    let done = func.append_new_block();
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

/// The blocks reachable from `starts` (included) on paths that do not enter `avoid`.
pub(crate) fn reachable_avoiding(
    cfg: &ControlFlowGraph,
    starts: &[Block],
    avoid: Option<Block>,
) -> EntitySet<Block> {
    let mut seen = EntitySet::new();
    let mut work: Vec<Block> = starts.to_vec();
    while let Some(x) = work.pop() {
        if Some(x) == avoid || !seen.insert(x) {
            continue;
        }
        work.extend(cfg.succs(x).iter().copied());
    }
    seen
}

/// The value φ `phi` takes from `from` (`None` if `phi` is no φ or has no such incoming).
pub(crate) fn incoming_of(func: &Function, phi: Inst, from: Block) -> Option<Value> {
    match func.dfg.inst(phi) {
        InstData::Phi { incoming } => incoming.iter().find(|(p, _)| *p == from).map(|&(_, v)| v),
        _ => None,
    }
}

/// The condition under which a branch on `cond` goes to its `then` side (`then_side`) or
/// to its `else` side: `cond` itself, or its `not`, inserted at the cursor.
pub(crate) fn side_condition(cur: &mut FuncCursor, cond: Value, then_side: bool) -> Value {
    if then_side {
        return cond;
    }
    cur.insert_value(
        InstData::Unary {
            op: lanes_ir::UnaryOp::Not,
            arg: cond,
        },
        Type::I1,
    )
}
