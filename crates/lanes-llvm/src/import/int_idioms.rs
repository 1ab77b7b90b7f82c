//! Integer idioms LLVM has intrinsics for and lanes spells out: funnel shifts
//! (`llvm.fshl`/`fshr`, what rotates become), saturating add/subtract
//! (`llvm.{u,s}{add,sub}.sat`, which InstCombine forms from clamping code), arithmetic with
//! overflow (`llvm.{s,u}{add,sub,mul}.with.overflow`: `__builtin_*_overflow`, and what
//! InstCombine makes of `a + b < a`), and byte and bit reversal (`llvm.bswap`,
//! `llvm.bitreverse`: `__builtin_bswap32`, and the shift-and-mask idiom clang recognizes).
//! Each expansion is exact for every input, including shift amounts of the width or more
//! and the signed overflow boundaries; all are plain lane-wise operations, so they
//! vectorize as they are (LLVM recognizes the reversals again on export). Also the integer flags of LLVM's binary operations, which
//! lanes keeps ([`binary_flags`]).

use inkwell::llvm_sys::core::{LLVMGetExact, LLVMGetIsDisjoint, LLVMGetNSW, LLVMGetNUW};
use inkwell::llvm_sys::prelude::*;

use lanes_ir::{BinaryOp, CastOp, InstData, IntCC, IntFlags, Type, Value};

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

impl FnCx<'_> {
    /// `op x, y` of `x`'s type, without flags.
    pub(super) fn bin(&mut self, op: BinaryOp, x: Value, y: Value) -> Value {
        let ty = self.ty_of(x);
        self.emit_v(
            InstData::Binary {
                op,
                args: [x, y],
                flags: IntFlags::NONE,
            },
            ty,
        )
    }

    fn icmp(&mut self, cond: IntCC, x: Value, y: Value) -> Value {
        let ty = self.ty_of(x).as_bool();
        self.emit_v(InstData::Icmp { cond, args: [x, y] }, ty)
    }

    /// `llvm.<base>.with.overflow(a, b)` (`base`: `sadd`, `uadd`, `ssub`, `usub`, `smul`,
    /// `umul`): the wrapped result and whether the exact one differs from it.
    pub(super) unsafe fn with_overflow(
        &mut self,
        base: &str,
        ops: &[LLVMValueRef],
    ) -> Result<(Value, Value), ImportError> {
        let (a, b) = (self.op(self.nth(ops, 0)?)?, self.op(self.nth(ops, 1)?)?);
        let ty = self.ty_of(a);
        let zero = self.iconst(ty, 0);
        Ok(match base {
            "uadd" => {
                let r = self.bin(BinaryOp::Add, a, b);
                (r, self.icmp(IntCC::Ult, r, a))
            }
            "usub" => {
                let r = self.bin(BinaryOp::Sub, a, b);
                (r, self.icmp(IntCC::Ult, a, b))
            }
            // Signed: overflow iff the result's sign differs from a's while b has a's sign
            // (add) or the other sign (sub): ((a ^ r) & (add ? ~(a ^ b) : a ^ b)) < 0.
            "sadd" | "ssub" => {
                let add = base == "sadd";
                let r = self.bin(if add { BinaryOp::Add } else { BinaryOp::Sub }, a, b);
                let ar = self.bin(BinaryOp::Xor, a, r);
                let mut ab = self.bin(BinaryOp::Xor, a, b);
                if add {
                    let ones = self.iconst(ty, -1);
                    ab = self.bin(BinaryOp::Xor, ab, ones);
                }
                let both = self.bin(BinaryOp::And, ar, ab);
                (r, self.icmp(IntCC::Slt, both, zero))
            }
            "umul" | "smul" => {
                let signed = base == "smul";
                let r = self.bin(BinaryOp::Mul, a, b);
                let over = if ty.elem().bits() <= 32 {
                    self.mul_overflow_wide(a, b, r, signed)
                } else {
                    self.mul_overflow_by_division(a, b, r, signed)
                };
                (r, over)
            }
            _ => return Err(self.err(format!("unsupported intrinsic llvm.{base}.with.overflow"))),
        })
    }

    /// Overflow of the product `r = a·b` of at most 32 bits: the exact product in 64 bits
    /// differs from `r` extended.
    fn mul_overflow_wide(&mut self, a: Value, b: Value, r: Value, signed: bool) -> Value {
        let ty = self.ty_of(a);
        let wide = ty.with_elem(lanes_ir::ScalarType::I64);
        let op = if signed { CastOp::Sext } else { CastOp::Zext };
        let ext = |s: &mut Self, v| {
            s.emit_v(
                InstData::Cast {
                    op,
                    arg: v,
                    flags: IntFlags::NONE,
                },
                wide,
            )
        };
        let (wa, wb, wr) = (ext(self, a), ext(self, b), ext(self, r));
        let exact = self.bin(BinaryOp::Mul, wa, wb);
        self.icmp(IntCC::Ne, exact, wr)
    }

    /// Overflow of the 64-bit product `r = a·b`: `a ≠ 0` and `r / a ≠ b` (exact for
    /// wrapped products: `r / a = b` would make `r = a·b` as integers). Division by 0 and
    /// the signed `MIN / -1` are steered around: for `a = -1` the product overflows iff
    /// `b = MIN`.
    fn mul_overflow_by_division(&mut self, a: Value, b: Value, r: Value, signed: bool) -> Value {
        let ty = self.ty_of(a);
        let bty = ty.as_bool();
        let zero = self.iconst(ty, 0);
        let one = self.iconst(ty, 1);
        let sel = |s: &mut Self, c, x, y, t| s.emit_v(InstData::Select { args: [c, x, y] }, t);
        let is_zero = self.icmp(IntCC::Eq, a, zero);
        if !signed {
            let divisor = sel(self, is_zero, one, a, ty);
            let q = self.bin(BinaryOp::UDiv, r, divisor);
            let differs = self.icmp(IntCC::Ne, q, b);
            let f = self.iconst(bty, 0);
            return sel(self, is_zero, f, differs, bty);
        }
        let minus_one = self.iconst(ty, -1);
        let is_m1 = self.icmp(IntCC::Eq, a, minus_one);
        let special = self.bin(BinaryOp::Or, is_zero, is_m1);
        let divisor = sel(self, special, one, a, ty);
        let q = self.bin(BinaryOp::SDiv, r, divisor);
        let differs = self.icmp(IntCC::Ne, q, b);
        let min = self.iconst(ty, i64::MIN);
        let b_min = self.icmp(IntCC::Eq, b, min);
        let m1_over = self.bin(BinaryOp::And, is_m1, b_min);
        sel(self, special, m1_over, differs, bty)
    }

    /// `llvm.bswap` (`bits` = false) or `llvm.bitreverse` (`bits` = true) of `x`: swaps of
    /// ever larger halves, `x = ((x >> s) & m_s) | ((x & m_s) << s)` with `m_s` the low
    /// `s` bits of every `2s`-bit group, for `s` = 8, 16, … (after 1, 2, 4 for bits).
    pub(super) unsafe fn reverse(
        &mut self,
        bits: bool,
        ops: &[LLVMValueRef],
    ) -> Result<Value, ImportError> {
        let mut x = self.op(self.nth(ops, 0)?)?;
        let ty = self.ty_of(x);
        let width = ty.elem().bits();
        if (!width.is_multiple_of(8) && !bits) || width > 64 {
            return Err(self.err(format!("byte swap of i{width}")));
        }
        let mut s = if bits { 1 } else { 8 };
        while s < width {
            let mask = swap_mask(s, width);
            let m = self.iconst(ty, mask);
            let k = self.iconst(ty, i64::from(s));
            let hi = self.bin(BinaryOp::LShr, x, k);
            let hi = self.bin(BinaryOp::And, hi, m);
            let lo = self.bin(BinaryOp::And, x, m);
            let lo = self.bin(BinaryOp::Shl, lo, k);
            x = self.bin(BinaryOp::Or, hi, lo);
            s *= 2;
        }
        Ok(x)
    }
}

/// The low `s` bits of every `2s`-bit group of a `width`-bit value, sign-extended to
/// 64 bits (how lanes stores constants of narrower types).
fn swap_mask(s: u32, width: u32) -> i64 {
    let mut m: u64 = 0;
    for pos in 0..width {
        if (pos / s).is_multiple_of(2) {
            m |= 1 << pos;
        }
    }
    let shift = 64 - width;
    ((m << shift) as i64) >> shift
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

#[cfg(test)]
mod tests {
    use super::swap_mask;

    #[test]
    fn swap_masks_take_the_low_half_of_each_group() {
        assert_eq!(swap_mask(8, 32), 0x00ff_00ff);
        assert_eq!(swap_mask(16, 32), 0x0000_ffff);
        assert_eq!(swap_mask(1, 8), 0x55);
        // Sign-extended from the width: 0xff00ff00ff00ff as i64, 0x5555 as i16 is positive.
        assert_eq!(swap_mask(8, 64), 0x00ff_00ff_00ff_00ff);
        assert_eq!(swap_mask(4, 16), 0x0f0f);
        assert_eq!(swap_mask(2, 8), 0x33);
    }
}
