//! Guarded execution of side effects in linearized regions (PLDI'18 §2.4, §3.4).
//!
//! "If the CFG is if-converted, `a` will execute whenever the loop iterates. However, it
//! is only safe to *perform* the load in `a` if the condition `q ∧ m` holds." After
//! linearization a block with a varying predicate may run while its predicate is false,
//! so its effects must be guarded.
//!
//! # Representation (before widening)
//!
//! The linearized function is still a scalar function of one instance. Its predicated
//! code is described by a side table, [`Predication`], that the widening stage maps 1:1
//! onto masked vector operations:
//!
//! - `block_mask[b]`: the `i1` predicate of every block whose predicate is varying
//!   (becomes the block's `<W x i1>` mask). Blocks absent from the table have a uniform
//!   predicate and are reached exactly when it holds (Theorem 4.1): they run under the
//!   function's entry mask and carry no mask work;
//! - `guarded`: every instruction of such a block that stores, calls, reads memory or
//!   otherwise must not run for an inactive instance, with the mask it runs under. Widening
//!   turns a guarded load into `masked_load`/`gather`, a store into
//!   `masked_store`/`scatter`, a call into a loop over the active lanes.
//! - Integer division and remainder by anything but a constant that cannot trap (not 0,
//!   not -1 for signed ones) are made safe in place instead: the divisor becomes
//!   `select(p, d, 1)`, so an inactive instance never traps, and for signed ones the
//!   dividend `select(p, x, 0)` as well (`INT_MIN / -1` traps too). These selects are
//!   recorded as [`OperandGuard`]s: on the active lanes of the block, the only lanes whose
//!   results count, each is its operand, so the shape analysis gives it the operand's shape
//!   (its filler constant is a "don't care" value). A divisor that is uniform stays uniform
//!   then, and widening guards it with one scalar `select(any(p), d, 1)` (no lane active:
//!   nothing may trap) instead of a vector of divisors: a division of uniform operands
//!   stays one scalar division, and a varying dividend is divided by a splat rather than
//!   lane by lane by a vector of divisors.
//!
//! [`lower_guards`] gives the table its width-1 meaning as plain control flow, so the
//! interpreter can run the linearized function: each guarded instruction moves into a
//! block entered only when its mask is true, and its result is `0` otherwise. Tests use
//! it to check that linearization preserves the semantics and the memory trace.

use std::collections::HashMap;

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use lanes_ir::cursor::phis;
use lanes_ir::{
    BinaryOp, Block, FuncBuilder, FuncCursor, Function, Inst, InstData, IntFlags, Value,
};

use crate::cfg_edit::zero_value;

/// Masks of the linearized function; see the module documentation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Predication {
    /// The predicate of each block whose predicate is varying; none for the others.
    pub block_mask: SecondaryMap<Block, PackedOption<Value>>,
    pub guarded: Vec<(Inst, Value)>,
    /// The selects guarding the operands of integer divisions, by select.
    pub operand_guards: HashMap<Inst, OperandGuard>,
}

/// `select p, v, filler` in front of an operand `v` of an integer division in a block of
/// predicate `p` (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandGuard {
    /// The block's predicate.
    pub pred: Value,
    /// The value inactive instances take: 1 for a divisor, 0 for a dividend.
    pub filler: Value,
    /// Whether it guards the divisor (else the dividend of a signed division).
    pub divisor: bool,
}

impl Predication {
    /// The mask of block `b`, or None if its predicate is uniform.
    pub fn mask(&self, b: Block) -> Option<Value> {
        self.block_mask[b].expand()
    }

    /// Every block mask (in block order).
    pub fn masks(&self) -> impl Iterator<Item = Value> + '_ {
        self.block_mask.values().filter_map(|m| m.expand())
    }

    /// The fillers of the operand guards: values no active instance takes.
    pub fn guard_fillers(&self) -> Vec<Value> {
        self.operand_guards.values().map(|g| g.filler).collect()
    }
}

/// Guards the effects of block `b`, whose predicate is `p`.
pub(crate) fn guard_block(func: &mut Function, b: Block, p: Value, out: &mut Predication) {
    let start = phis(func, b).len();
    let insts: Vec<Inst> = func.layout.block_insts(b)[start..].to_vec();
    for inst in insts {
        let data = func.dfg.inst(inst).clone();
        if data.is_terminator() {
            continue;
        }
        match data {
            InstData::Binary {
                op, args: [x, d], ..
            } if op.can_trap() && !never_traps(func, op, d) => {
                let ty = func.dfg.value_type(d);
                let signed = matches!(op, BinaryOp::SDiv | BinaryOp::SRem);
                let mut cur = FuncCursor::new(func);
                cur.goto_inst(inst);
                // `select p, v, filler` in front of operand `v`, recorded as its guard.
                let mut guard = |cur: &mut FuncCursor, v: Value, divisor: bool| {
                    let imm = i64::from(divisor);
                    let filler = cur.insert_value(InstData::Iconst { imm }, ty);
                    let sel = cur.insert_value(
                        InstData::Select {
                            args: [p, v, filler],
                        },
                        ty,
                    );
                    if let Some(select) = cur.func.dfg.def_inst(sel) {
                        let g = OperandGuard {
                            pred: p,
                            filler,
                            divisor,
                        };
                        out.operand_guards.insert(select, g);
                    }
                    sel
                };
                let divisor = guard(&mut cur, d, true);
                let dividend = if signed { guard(&mut cur, x, false) } else { x };
                *func.dfg.inst_mut(inst) = InstData::Binary {
                    op,
                    args: [dividend, divisor],
                    flags: IntFlags::NONE,
                };
            }
            ref d if d.has_side_effects() || d.reads_memory() => out.guarded.push((inst, p)),
            _ => {}
        }
    }
}

/// Whether integer division `op` by `d` cannot trap whatever the dividend: `d` a constant
/// other than 0, and for signed division other than -1 (`INT_MIN / -1`). Such a division
/// needs no guard, and keeping its divisor a constant lets LLVM divide by shifts and
/// multiplications (`(hi - lo) / 2` in a binary search) instead of lane by lane.
fn never_traps(func: &Function, op: BinaryOp, d: Value) -> bool {
    let Some(imm) = lanes_analysis::shapes::constant_of(func, d) else {
        return false;
    };
    let bits = func.dfg.value_type(d).elem().bits();
    let all_ones = u64::MAX >> (64 - bits.clamp(1, 64));
    let v = (imm as u64) & all_ones;
    let signed = matches!(op, BinaryOp::SDiv | BinaryOp::SRem);
    v != 0 && !(signed && v == all_ones)
}

/// Lowers the guarded instructions to branches (their width-1 semantics), so that the
/// interpreter can run the function.
pub fn lower_guards(func: &mut Function, predication: &Predication) {
    let mut zeros = HashMap::new();
    for &(inst, p) in &predication.guarded {
        let Some(b) = func.layout.inst_block(inst) else {
            continue;
        };
        let at = func.layout.inst_index(inst);
        let rest: Vec<Inst> = func.layout.block_insts(b)[at + 1..].to_vec();
        let mut cur = FuncCursor::new(func);
        let body = cur.create_block_after(b);
        let join = cur.create_block_after(body);
        // Successors of b now see join as predecessor.
        for s in func.successors(b) {
            for phi in phis(func, s) {
                if let InstData::Phi { incoming } = func.dfg.inst_mut(phi) {
                    for e in incoming.iter_mut() {
                        if e.0 == b {
                            e.0 = join;
                        }
                    }
                }
            }
        }
        let mut cur = FuncCursor::new(func);
        cur.goto_bottom(body).move_inst(inst);
        cur.goto_bottom(join);
        for &i in &rest {
            cur.move_inst(i);
        }
        let mut bld = FuncBuilder::new(func);
        bld.switch_to_block(b);
        bld.brif(p, body, join);
        bld.switch_to_block(body);
        bld.jump(join);
        if let Some(r) = func.dfg.inst_result(inst) {
            let ty = func.dfg.value_type(r);
            let z = zero_value(func, ty, &mut zeros);
            let merged = FuncCursor::new(func)
                .goto_first_non_phi(join)
                .insert_phi(ty, vec![(b, z), (body, r)]);
            func.dfg.replace_uses(r, merged);
            if let lanes_ir::ValueDef::Result(phi) = func.dfg.value_def(merged) {
                *func.dfg.inst_mut(phi) = InstData::Phi {
                    incoming: vec![(b, z), (body, r)],
                };
            }
        }
    }
}
