//! Float intrinsics lanes spells out with its own operations, exactly as LLVM defines
//! them: `llvm.minimum`/`maximum` (IEEE 754-2019 `minimum`/`maximum`: a NaN operand gives
//! NaN, and −0 < +0), `llvm.powi` with a constant exponent (what `__builtin_powi` becomes:
//! the multiplications of compiler-rt's `__powidf2` and of LLVM's own expansion, in their
//! order, so results agree to the bit), and `llvm.lrint`/`llround` (and the `ll` forms:
//! C's `lrint`, `lround` without `errno`), the rounding then the conversion.

use inkwell::llvm_sys::core::{LLVMConstIntGetSExtValue, LLVMIsAConstantInt};
use inkwell::llvm_sys::prelude::*;

use lanes_ir::{BinaryOp, CastOp, FloatCC, InstData, IntFlags, Intrinsic, Type, Value};

use super::func::FnCx;
use crate::error::ImportError;

impl FnCx<'_> {
    fn fbin(&mut self, op: BinaryOp, x: Value, y: Value) -> Value {
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

    /// `llvm.minimum(a, b)` (`min`) or `llvm.maximum(a, b)`: NaN if either is NaN; for
    /// equal operands (only ±0 differ) the bits of both combined, `or` for the minimum
    /// (−0 wins) and `and` for the maximum (+0 wins); else the smaller or larger one.
    pub(super) unsafe fn minimum_maximum(
        &mut self,
        min: bool,
        ops: &[LLVMValueRef],
    ) -> Result<Value, ImportError> {
        let (a, b) = (self.op(self.nth(ops, 0)?)?, self.op(self.nth(ops, 1)?)?);
        let ty = self.ty_of(a);
        let bty = ty.as_bool();
        let ity = ty.with_elem(if ty.elem() == lanes_ir::ScalarType::F32 {
            lanes_ir::ScalarType::I32
        } else {
            lanes_ir::ScalarType::I64
        });
        let fcmp = |s: &mut Self, cond, x, y| s.emit_v(InstData::Fcmp { cond, args: [x, y] }, bty);
        let cast = |s: &mut Self, op, v, t| {
            s.emit_v(
                InstData::Cast {
                    op,
                    arg: v,
                    flags: IntFlags::NONE,
                },
                t,
            )
        };
        let sel = |s: &mut Self, c, x, y| s.emit_v(InstData::Select { args: [c, x, y] }, ty);
        let unordered = fcmp(self, FloatCC::Uno, a, b);
        let first = fcmp(self, if min { FloatCC::Olt } else { FloatCC::Ogt }, a, b);
        let equal = fcmp(self, FloatCC::Oeq, a, b);
        let (ia, ib) = (
            cast(self, CastOp::Bitcast, a, ity),
            cast(self, CastOp::Bitcast, b, ity),
        );
        let combine = if min { BinaryOp::Or } else { BinaryOp::And };
        let both = self.fbin(combine, ia, ib);
        let both = cast(self, CastOp::Bitcast, both, ty);
        let nan = self.fbin(BinaryOp::FAdd, a, b);
        let pick = sel(self, first, a, b);
        let ordered = sel(self, equal, both, pick);
        Ok(sel(self, unordered, nan, ordered))
    }

    /// `llvm.powi(x, n)` for a constant `n`: the product of the squarings `x^(2^k)` for the
    /// set bits `k` of `|n|`, lowest first, and its reciprocal for negative `n`.
    pub(super) unsafe fn powi(&mut self, ops: &[LLVMValueRef]) -> Result<Value, ImportError> {
        let x = self.op(self.nth(ops, 0)?)?;
        let n = self.nth(ops, 1)?;
        if LLVMIsAConstantInt(n).is_null() {
            return Err(self.err(
                "llvm.powi with a variable exponent (`__builtin_powi(x, n)`); write the \
                 multiplications as a loop, or use pow()",
            ));
        }
        let n = LLVMConstIntGetSExtValue(n);
        let ty = self.ty_of(x);
        let one = self.emit_v(
            InstData::Fconst {
                bits: if ty.elem() == lanes_ir::ScalarType::F32 {
                    u64::from(1.0f32.to_bits())
                } else {
                    1.0f64.to_bits()
                },
            },
            ty,
        );
        let mut e = n.unsigned_abs();
        let mut result: Option<Value> = None;
        let mut square = x;
        while e != 0 {
            if e & 1 == 1 {
                result = Some(match result {
                    Some(r) => self.fbin(BinaryOp::FMul, r, square),
                    None => square,
                });
            }
            e >>= 1;
            if e != 0 {
                square = self.fbin(BinaryOp::FMul, square, square);
            }
        }
        let r = result.unwrap_or(one);
        Ok(if n < 0 {
            self.fbin(BinaryOp::FDiv, one, r)
        } else {
            r
        })
    }

    /// `llvm.lrint(x)` (`rint`) or `llvm.lround(x)`: `x` rounded to an integral value (to
    /// even, or half away from zero), then converted to the integer type `ty`. Out of
    /// range, LLVM leaves the result unspecified; lanes' conversion gives its own.
    pub(super) unsafe fn round_to_int(
        &mut self,
        rint: bool,
        ops: &[LLVMValueRef],
        ty: Type,
    ) -> Result<Value, ImportError> {
        let x = self.op(self.nth(ops, 0)?)?;
        let fty = self.ty_of(x);
        let id = if rint {
            Intrinsic::Rint
        } else {
            Intrinsic::Round
        };
        let r = self.emit_v(InstData::Intrinsic { id, args: vec![x] }, fty);
        Ok(self.emit_v(
            InstData::Cast {
                op: CastOp::FpToSi,
                arg: r,
                flags: IntFlags::NONE,
            },
            ty,
        ))
    }
}
