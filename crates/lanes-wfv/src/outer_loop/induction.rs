//! Induction variables of a parallel loop (PLDI'18 §7): `x = start + k·step` in iteration
//! `k`. Recognized from the header φ and its latch value (`induction_step`) and
//! recomputed from an iteration number wherever the vectorized loop needs one
//! ([`Induction::value_at`]): each lane's own iteration in the outlined body, the previous
//! iteration for a first-order recurrence, the final value after the loop.

use lanes_ir::{BinaryOp, CastOp, FuncBuilder, Function, InstData, Type, Value};

/// `phi = start + k·step` in iteration `k` (`next` is its value for iteration `k + 1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Induction {
    pub phi: Value,
    pub start: Value,
    pub next: Value,
    /// In elements for integers, bytes for pointers.
    pub step: i64,
}

impl Induction {
    /// `start + count·step` for the count `count` of integer type `count_ty`, built at the
    /// builder's position from `start` (the start value where the code goes); `ty` is the
    /// induction's type.
    pub fn value_at(
        &self,
        b: &mut FuncBuilder,
        ty: Type,
        start: Value,
        count: Value,
        count_ty: Type,
    ) -> Value {
        if ty.is_ptr() {
            let c64 = int_to(b, count, count_ty, Type::I64);
            let step = b.iconst(Type::I64, self.step);
            let off = b.binary(BinaryOp::Mul, c64, step);
            b.ptradd(start, off)
        } else {
            let c = int_to(b, count, count_ty, ty);
            let step = b.iconst(ty, self.step);
            let off = b.binary(BinaryOp::Mul, c, step);
            b.binary(BinaryOp::Add, start, off)
        }
    }
}

/// Casts integer `v` to `to` (zero-extending: `k` is a count).
pub(crate) fn int_to(b: &mut FuncBuilder, v: Value, from: Type, to: Type) -> Value {
    match from.bytes().cmp(&to.bytes()) {
        std::cmp::Ordering::Less => b.cast(CastOp::Zext, v, to),
        std::cmp::Ordering::Greater => b.cast(CastOp::Trunc, v, to),
        std::cmp::Ordering::Equal => v,
    }
}

/// `step` if `next` is `phi + step` (`ptradd phi, step` for pointers).
pub(crate) fn induction_step(func: &Function, phi: Value, next: Value) -> Option<i64> {
    let ty = func.value_type(phi);
    if ty.is_vector() || !(ty.is_int() || ty.is_ptr()) || ty == Type::I1 {
        return None;
    }
    match func.dfg.inst(func.dfg.def_inst(next)?) {
        InstData::Binary {
            op: BinaryOp::Add,
            args: [a, b],
            ..
        } if ty.is_int() => {
            if *a == phi {
                int_const(func, *b)
            } else if *b == phi {
                int_const(func, *a)
            } else {
                None
            }
        }
        InstData::Binary {
            op: BinaryOp::Sub,
            args: [a, b],
            ..
        } if ty.is_int() && *a == phi => int_const(func, *b).and_then(i64::checked_neg),
        InstData::PtrAdd { args: [a, b], .. } if *a == phi => int_const(func, *b),
        _ => None,
    }
}

/// The integer constant `v` is, if it is one.
pub(crate) fn int_const(func: &Function, v: Value) -> Option<i64> {
    match func.dfg.def_inst(v).map(|i| func.dfg.inst(i)) {
        Some(InstData::Iconst { imm }) if !func.value_type(v).is_vector() => Some(*imm),
        _ => None,
    }
}
