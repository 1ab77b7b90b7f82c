//! The probe of a parallel loop with early exits: the body's exit test alone, safe to run
//! for iterations the scalar loop may never reach (module [`super::early_exit`]).
//!
//! The probe is the outlined body (which returns its exit code) with every store and
//! other effect removed and then everything the returns do not need: what is left is the
//! backward slice of the exit conditions. Running it for a lane whose iteration the scalar
//! loop never runs must do nothing the program could see, so:
//!
//! - it may not need an effect: a call, atomic or volatile access the exit test depends
//!   on cannot be run ahead, nor a division that may trap, nor an inner loop (an
//!   iteration the program never runs need not end one);
//! - each load must read what the body's does: no store or call of the iteration may run
//!   before it (the loop's own iterations are independent: `omp simd` and
//!   `assume_safety` declare it);
//! - each load may not fault: it becomes `if (!page_probe(p, size)) return -1;
//!   speculative_load(p)`. Widened, the probe fails exactly the lanes whose bytes are off
//!   the page of lane 0's access (module `widen::speculation`); such a lane answers
//!   "unknown" (-1), and the step stops before it. `unreachable` answers "unknown" too.

use cranelift_entity::EntitySet;
use lanes_analysis::{AnalysisSet, FunctionAnalyses};
use lanes_ir::{
    BinaryOp, Block, FuncBuilder, FuncCursor, Function, Inst, InstData, Intrinsic, Type, Value,
};

use super::recognize::Declined;
use crate::ssa_repair::remove_dead_code_where;

/// The code a probe returns for a lane it cannot answer for.
pub const UNKNOWN: i64 = -1;

/// Is `i` a store to one of `slots` (the outlined body's live-out slots)?
fn stores_to_slot(f: &Function, i: Inst, slots: &[Value]) -> bool {
    matches!(f.dfg.inst(i), InstData::Store { ptr, .. } if slots.contains(ptr))
}

/// Does `body` do nothing but compute its exit code and store live-outs to `slots`? Then
/// its probe, keeping those stores, can stand for it (module `early_exit`).
pub fn is_pure(body: &Function, slots: &[Value]) -> bool {
    body.layout.blocks().all(|b| {
        body.layout
            .block_insts(b)
            .iter()
            .all(|&i| !body.dfg.inst(i).has_side_effects() || stores_to_slot(body, i, slots))
    })
}

/// The probe of `body` (an outlined body returning exit codes), named `name`; it keeps
/// the stores to `keep_slots` (the live-out slots, when the probe stands for a pure body).
pub fn probe(body: &Function, name: &str, keep_slots: &[Value]) -> Result<Function, Declined> {
    let mut p = body.clone();
    p.name = name.to_string();
    // No effects: stores, fences and calls without results go first, the rest once dead.
    let blocks: Vec<Block> = p.layout.blocks().collect();
    for &b in &blocks {
        let keep: Vec<bool> = p
            .layout
            .block_insts(b)
            .iter()
            .map(|&i| {
                p.dfg.inst(i).is_terminator()
                    || p.dfg.inst_result(i).is_some()
                    || stores_to_slot(&p, i, keep_slots)
            })
            .collect();
        let mut it = keep.into_iter();
        FuncCursor::new(&mut p).retain_insts(b, |_| it.next().unwrap_or(true));
        if let Some(t) = p.terminator(b) {
            if matches!(p.dfg.inst(t), InstData::Unreachable) {
                let mut cur = FuncCursor::new(&mut p);
                cur.goto_inst(t);
                let code = cur.insert_value(InstData::Iconst { imm: UNKNOWN }, Type::I32);
                *p.dfg.inst_mut(t) = InstData::Return { value: Some(code) };
            }
        }
    }
    remove_dead_code_where(&mut p, &[], |_| true);
    check_runnable_ahead(&p, keep_slots)?;
    let loads: Vec<Inst> = blocks
        .iter()
        .flat_map(|&b| p.layout.block_insts(b).to_vec())
        .filter(|&i| matches!(p.dfg.inst(i), InstData::Load { .. }))
        .collect();
    let after_effect = after_effects(body);
    if let Some(&bad) = loads.iter().find(|&&i| after_effect.contains(i)) {
        let line = match body.source_lines[bad] {
            0 => String::new(),
            l => format!(" (line {l})"),
        };
        return Err(Declined::Unprobeable(format!(
            "a load the exit test needs{line} follows a store or call of the same iteration"
        )));
    }
    if !loads.is_empty() {
        let unknown = p.append_new_block();
        let mut b = FuncBuilder::new(&mut p);
        b.switch_to_block(unknown);
        let code = b.iconst(Type::I32, UNKNOWN);
        b.ret(Some(code));
        for load in loads {
            guard_load(&mut p, load, unknown);
        }
    }
    Ok(p)
}

/// Refuses a slice that needs an effect, may trap, or loops.
fn check_runnable_ahead(p: &Function, slots: &[Value]) -> Result<(), Declined> {
    let refuse = |why: &str| Err(Declined::Unprobeable(why.to_string()));
    for b in p.layout.blocks() {
        for &i in p.layout.block_insts(b) {
            let d = p.dfg.inst(i);
            if d.has_side_effects() && !stores_to_slot(p, i, slots) {
                return refuse("it depends on a call, an atomic or a volatile access");
            }
            if let InstData::Binary { op, args, .. } = d {
                if op.can_trap() && !safe_divisor(p, *op, args[1]) {
                    return refuse("it divides by a value that may be zero");
                }
            }
            if matches!(d, InstData::Alloca { .. }) {
                return refuse("it reads memory private to the iteration");
            }
        }
    }
    let analyses = FunctionAnalyses::with_function(p, AnalysisSet::CFG);
    let cfg = analyses.cfg();
    let acyclic = cfg.rpo().iter().all(|&b| {
        let from = cfg.rpo_number(b);
        cfg.succs(b).iter().all(|&t| cfg.rpo_number(t) > from)
    });
    if !acyclic {
        return refuse("it depends on an inner loop");
    }
    Ok(())
}

/// Is `v` a constant divisor that cannot trap for `op` (not 0, nor -1 when signed)?
fn safe_divisor(p: &Function, op: BinaryOp, v: Value) -> bool {
    let Some(InstData::Iconst { imm }) = p.dfg.def_inst(v).map(|i| p.dfg.inst(i)) else {
        return false;
    };
    let signed = matches!(op, BinaryOp::SDiv | BinaryOp::SRem);
    *imm != 0 && !(signed && *imm == -1)
}

/// The instructions of `f` that a store, call or other effect may precede in one run:
/// those after an effect in its block, and every instruction of a block reachable from
/// such a block.
fn after_effects(f: &Function) -> EntitySet<Inst> {
    let mut out = EntitySet::new();
    let mut work: Vec<Block> = Vec::new();
    let mut reached: EntitySet<Block> = EntitySet::new();
    for b in f.layout.blocks() {
        let insts = f.layout.block_insts(b);
        if let Some(k) = insts.iter().position(|&i| f.dfg.inst(i).has_side_effects()) {
            out.extend(insts[k + 1..].iter().copied());
            work.extend(f.successors(b));
        }
    }
    while let Some(b) = work.pop() {
        if reached.insert(b) {
            out.extend(f.layout.block_insts(b).iter().copied());
            work.extend(f.successors(b));
        }
    }
    out
}

/// Splits the block of `load` before it: `brif page_probe(ptr, size), rest, unknown`,
/// and makes the load speculative.
fn guard_load(p: &mut Function, load: Inst, unknown: Block) {
    let InstData::Load { ptr, .. } = *p.dfg.inst(load) else {
        return;
    };
    let Some(result) = p.dfg.inst_result(load) else {
        return;
    };
    let size = p.dfg.value_type(result).bytes();
    let Some(b) = p.layout.inst_block(load) else {
        return;
    };
    let at = p.layout.inst_index(load);
    let moved: Vec<Inst> = p.layout.block_insts(b)[at..].to_vec();
    let mut cur = FuncCursor::new(p);
    let rest = cur.create_block_after(b);
    for &i in &moved {
        p.layout.remove_inst(i);
        p.layout.append_inst(i, rest);
    }
    for s in p.successors(rest) {
        let phis: Vec<Inst> = p.layout.block_insts(s).to_vec();
        for i in phis {
            if let InstData::Phi { incoming } = p.dfg.inst_mut(i) {
                for (pred, _) in incoming.iter_mut() {
                    if *pred == b {
                        *pred = rest;
                    }
                }
            }
        }
    }
    let mut fb = FuncBuilder::new(p);
    fb.switch_to_block(b);
    let bytes = fb.iconst(Type::I64, i64::from(size));
    let ok = fb.value(
        InstData::Intrinsic {
            id: Intrinsic::PageProbe,
            args: vec![ptr, bytes],
        },
        Type::I1,
    );
    fb.brif(ok, rest, unknown);
    let mut cur = FuncCursor::new(p);
    cur.goto_inst(load);
    let yes = cur.insert_value(InstData::Iconst { imm: 1 }, Type::I1);
    *p.dfg.inst_mut(load) = InstData::Intrinsic {
        id: Intrinsic::SpeculativeLoad,
        args: vec![ptr, yes],
    };
}
