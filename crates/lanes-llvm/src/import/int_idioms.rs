//! Integer idioms LLVM has intrinsics for and lanes spells out: funnel shifts
//! (`llvm.fshl`/`fshr`, what rotates become) and saturating add/subtract
//! (`llvm.{u,s}{add,sub}.sat`, which InstCombine forms from clamping code). Each expansion
//! is exact for every input, including shift amounts of the width or more and the
//! signed overflow boundaries. Also the integer flags of LLVM's binary operations, which
//! lanes keeps ([`binary_flags`]).

use inkwell::llvm_sys::core::{LLVMGetExact, LLVMGetIsDisjoint, LLVMGetNSW, LLVMGetNUW};
use inkwell::llvm_sys::prelude::*;

use lanes_ir::{BinaryOp, InstData, IntCC, IntFlags, Type, Value};

use super::func::FnCx;
use crate::error::ImportError;

impl FnCx<'_> {
    /// `llvm.fshl(a, b, c)`: the high half of `(a:b) << (c mod w)`, written with shifts
    /// that stay below the width: `(a << c) | ((b >> 1) >> (c ^ (w - 1)))` (lanes shifts
    /// take the amount modulo the width); `fshr` symmetrically.
    pub(super) unsafe fn funnel_shift(
        &mut self,
        left: bool,
        ops: &[LLVMValueRef],
        ty: Type,
    ) -> Result<Value, ImportError> {
        let (a, b, c) = (
            self.op(self.nth(ops, 0)?)?,
            self.op(self.nth(ops, 1)?)?,
            self.op(self.nth(ops, 2)?)?,
        );
        let w = i64::from(ty.elem().bits());
        let one = self.iconst(ty, 1);
        let wm1 = self.iconst(ty, w - 1);
        let inv = self.emit_v(
            InstData::Binary {
                op: BinaryOp::Xor,
                args: [c, wm1],
                flags: IntFlags::NONE,
            },
            ty,
        );
        let bin = |s: &mut Self, op, x, y| {
            s.emit_v(
                InstData::Binary {
                    op,
                    args: [x, y],
                    flags: IntFlags::NONE,
                },
                ty,
            )
        };
        let (hi, lo) = if left {
            let hi = bin(self, BinaryOp::Shl, a, c);
            let b1 = bin(self, BinaryOp::LShr, b, one);
            (hi, bin(self, BinaryOp::LShr, b1, inv))
        } else {
            let lo = bin(self, BinaryOp::LShr, b, c);
            let a1 = bin(self, BinaryOp::Shl, a, one);
            (bin(self, BinaryOp::Shl, a1, inv), lo)
        };
        Ok(bin(self, BinaryOp::Or, hi, lo))
    }

    /// `llvm.{u,s}{add,sub}.sat`: the wrapped result, replaced by the bound on overflow.
    pub(super) unsafe fn saturating(
        &mut self,
        base: &str,
        ops: &[LLVMValueRef],
        ty: Type,
    ) -> Result<Value, ImportError> {
        let (a, b) = (self.op(self.nth(ops, 0)?)?, self.op(self.nth(ops, 1)?)?);
        let bin = |s: &mut Self, op, x, y| {
            s.emit_v(
                InstData::Binary {
                    op,
                    args: [x, y],
                    flags: IntFlags::NONE,
                },
                ty,
            )
        };
        let cmp = |s: &mut Self, cond, x, y| {
            s.emit_v(InstData::Icmp { cond, args: [x, y] }, ty.as_bool())
        };
        let sel = |s: &mut Self, c, x, y| s.emit_v(InstData::Select { args: [c, x, y] }, ty);
        Ok(match base {
            // a - b if a > b, else 0: umax(a, b) - b.
            "usub" => {
                let m = bin(self, BinaryOp::UMax, a, b);
                bin(self, BinaryOp::Sub, m, b)
            }
            // a + umin(b, ~a) never wraps and saturates at all ones.
            "uadd" => {
                let na = self.emit_v(
                    InstData::Unary {
                        op: lanes_ir::UnaryOp::Not,
                        arg: a,
                    },
                    ty,
                );
                let m = bin(self, BinaryOp::UMin, b, na);
                bin(self, BinaryOp::Add, a, m)
            }
            _ => {
                let add = base == "sadd";
                let op = if add { BinaryOp::Add } else { BinaryOp::Sub };
                let r = bin(self, op, a, b);
                // Overflow iff the result's sign differs from a's and (add) b has a's sign /
                // (sub) b has the other sign: ((a ^ r) & (add ? ~(a ^ b) : (a ^ b))) < 0.
                let ar = bin(self, BinaryOp::Xor, a, r);
                let ab = bin(self, BinaryOp::Xor, a, b);
                let ab = if add {
                    self.emit_v(
                        InstData::Unary {
                            op: lanes_ir::UnaryOp::Not,
                            arg: ab,
                        },
                        ty,
                    )
                } else {
                    ab
                };
                let both = bin(self, BinaryOp::And, ar, ab);
                let zero = self.iconst(ty, 0);
                let over = cmp(self, IntCC::Slt, both, zero);
                let bits = ty.elem().bits();
                let min = self.iconst(ty, i64::MIN >> (64 - bits));
                let max = self.iconst(ty, i64::MAX >> (64 - bits));
                let neg = cmp(self, IntCC::Slt, a, zero);
                let bound = sel(self, neg, min, max);
                sel(self, over, bound, r)
            }
        })
    }
}

/// The `nuw`/`nsw`/`exact`/`disjoint` flags of LLVM binary instruction `i` (opcode `op`),
/// which lanes keeps for shape analysis (strides through `sext`, PLDI'18 §2.3).
///
/// # Safety
/// `i` must be a live binary instruction translated to `op`.
pub(super) unsafe fn binary_flags(op: BinaryOp, i: LLVMValueRef) -> IntFlags {
    let allowed = op.allowed_flags();
    let mut flags = IntFlags::NONE;
    if allowed.contains(IntFlags::NSW) {
        if LLVMGetNUW(i) != 0 {
            flags = flags.union(IntFlags::NUW);
        }
        if LLVMGetNSW(i) != 0 {
            flags = flags.union(IntFlags::NSW);
        }
    }
    if allowed.contains(IntFlags::EXACT) && LLVMGetExact(i) != 0 {
        flags = flags.union(IntFlags::EXACT);
    }
    if allowed.contains(IntFlags::DISJOINT) && LLVMGetIsDisjoint(i) != 0 {
        flags = flags.union(IntFlags::DISJOINT);
    }
    flags
}
