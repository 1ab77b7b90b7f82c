//! `llvm.is.fpclass` (what clang -O0 emits for `isnan`, `isinf`, `isfinite`, …) as
//! integer tests on the float's bits.
//!
//! The test mask of LangRef's `llvm.is.fpclass`: bit 0 signaling NaN, 1 quiet NaN,
//! 2 −∞, 3 −normal, 4 −subnormal, 5 −0, 6 +0, 7 +subnormal, 8 +normal, 9 +∞. With `a` the
//! bits without the sign and `inf` the bits of +∞: NaN is `a > inf` (quiet if the top
//! mantissa bit is set), ∞ is `a == inf`, zero `a == 0`, subnormal `0 < a < 2^mantissa`,
//! normal the rest below `inf`.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;

use lanes_ir::{BinaryOp, CastOp, InstData, IntCC, IntFlags, ScalarType, Value};

use super::func::FnCx;
use crate::error::ImportError;

impl FnCx<'_> {
    /// Translates `llvm.is.fpclass(x, mask)`.
    pub(super) unsafe fn is_fpclass(&mut self, ops: &[LLVMValueRef]) -> Result<Value, ImportError> {
        if ops.len() != 2 || LLVMIsAConstantInt(ops[1]).is_null() {
            return Err(self.err("llvm.is.fpclass needs a constant test mask"));
        }
        let mask = LLVMConstIntGetZExtValue(ops[1]) as u32;
        let x = self.op(ops[0])?;
        let fty = self.ty_of(x);
        let (ity, mant) = match fty.elem() {
            ScalarType::F32 => (ScalarType::I32, 23u32),
            ScalarType::F64 => (ScalarType::I64, 52),
            _ => return Err(self.err("llvm.is.fpclass of a non-float")),
        };
        let it = fty.with_elem(ity);
        let bt = fty.as_bool();
        let bits = self.emit_v(
            InstData::Cast {
                op: CastOp::Bitcast,
                arg: x,
                flags: IntFlags::NONE,
            },
            it,
        );
        let width = ity.bits();
        let abs_mask = self.iconst(it, ((1u64 << (width - 1)) - 1) as i64);
        let a = self.emit_v(
            InstData::Binary {
                op: BinaryOp::And,
                args: [bits, abs_mask],
                flags: IntFlags::NONE,
            },
            it,
        );
        let zero = self.iconst(it, 0);
        let neg = self.emit_v(
            InstData::Icmp {
                cond: IntCC::Slt,
                args: [bits, zero],
            },
            bt,
        );
        let pos = self.emit_v(
            InstData::Unary {
                op: lanes_ir::UnaryOp::Not,
                arg: neg,
            },
            bt,
        );
        let inf_bits = ((1u64 << (width - 1 - mant)) - 1) << mant;
        let inf = self.iconst(it, inf_bits as i64);
        let quiet = self.iconst(it, (inf_bits | (1u64 << (mant - 1))) as i64);
        let min_normal = self.iconst(it, (1u64 << mant) as i64);
        let cmp = |s: &mut Self, cond, p, q| s.emit_v(InstData::Icmp { cond, args: [p, q] }, bt);
        let and = |s: &mut Self, p, q| {
            s.emit_v(
                InstData::Binary {
                    op: BinaryOp::And,
                    args: [p, q],
                    flags: IntFlags::NONE,
                },
                bt,
            )
        };
        let mut acc: Option<Value> = None;
        let mut add = |s: &mut Self, v: Value| {
            acc = Some(match acc {
                None => v,
                Some(p) => s.emit_v(
                    InstData::Binary {
                        op: BinaryOp::Or,
                        args: [p, v],
                        flags: IntFlags::NONE,
                    },
                    bt,
                ),
            });
        };
        if mask & 0b11 != 0 {
            let nan = cmp(self, IntCC::Ugt, a, inf);
            let q = cmp(self, IntCC::Uge, a, quiet);
            match mask & 0b11 {
                0b11 => add(self, nan),
                0b10 => add(self, q),
                _ => {
                    let not_q = self.emit_v(
                        InstData::Unary {
                            op: lanes_ir::UnaryOp::Not,
                            arg: q,
                        },
                        bt,
                    );
                    let s = and(self, nan, not_q);
                    add(self, s);
                }
            }
        }
        // (negative bit, positive bit, class test)
        let classes: [(u32, u32, u8); 4] = [(2, 9, 0), (3, 8, 1), (4, 7, 2), (5, 6, 3)];
        for (nb, pb, class) in classes {
            let (want_neg, want_pos) = (mask >> nb & 1 == 1, mask >> pb & 1 == 1);
            if !want_neg && !want_pos {
                continue;
            }
            let test = match class {
                0 => cmp(self, IntCC::Eq, a, inf),
                1 => {
                    let lo = cmp(self, IntCC::Uge, a, min_normal);
                    let hi = cmp(self, IntCC::Ult, a, inf);
                    and(self, lo, hi)
                }
                2 => {
                    let lo = cmp(self, IntCC::Ne, a, zero);
                    let hi = cmp(self, IntCC::Ult, a, min_normal);
                    and(self, lo, hi)
                }
                _ => cmp(self, IntCC::Eq, a, zero),
            };
            let v = match (want_neg, want_pos) {
                (true, true) => test,
                (true, false) => and(self, test, neg),
                _ => and(self, test, pos),
            };
            add(self, v);
        }
        Ok(match acc {
            Some(v) => v,
            None => self.iconst(bt, 0),
        })
    }
}
