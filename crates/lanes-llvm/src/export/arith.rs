//! Arithmetic, comparisons and casts on export, where lanes semantics are spelled out:
//! shift amounts masked to the width, `fmin`/`fmax` as `llvm.minnum`/`maxnum`, integer
//! min/max as `llvm.smin` etc., `fptosi`/`fptoui` as the saturating `llvm.fpto[su]i.sat`
//! (spelled out as clamp, convert and a NaN blend on vectors), or with `inrange` as
//! `freeze (fptosi x)`: the target's own conversion, whatever it gives out of range.
//! Integer flags (`nuw`, `nsw`, `exact`, `disjoint`, `nneg`) go back onto the LLVM
//! instruction with the same meaning ([`lanes_ir::flags`]; the tables are in `opcode_map`).

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;

use lanes_ir::{BinaryOp, CastOp, IntFlags, Type, Value};

use super::func::FuncCx;
use crate::error::ExportError;
use crate::llvm::noname;

impl FuncCx<'_> {
    pub(super) unsafe fn binary(
        &self,
        op: BinaryOp,
        a: Value,
        b: Value,
    ) -> Result<LLVMValueRef, ExportError> {
        let ty = self.vt(a);
        let (x, y) = (self.arg(a), self.arg(b));
        let bd = self.b;
        let n = noname();
        let lt = self.t.ty(ty);
        Ok(match op {
            BinaryOp::Add => LLVMBuildAdd(bd, x, y, n),
            BinaryOp::Sub => LLVMBuildSub(bd, x, y, n),
            BinaryOp::Mul => LLVMBuildMul(bd, x, y, n),
            BinaryOp::SDiv => LLVMBuildSDiv(bd, x, y, n),
            BinaryOp::UDiv => LLVMBuildUDiv(bd, x, y, n),
            BinaryOp::SRem => LLVMBuildSRem(bd, x, y, n),
            BinaryOp::URem => LLVMBuildURem(bd, x, y, n),
            BinaryOp::And => LLVMBuildAnd(bd, x, y, n),
            BinaryOp::Or => LLVMBuildOr(bd, x, y, n),
            BinaryOp::Xor => LLVMBuildXor(bd, x, y, n),
            BinaryOp::Shl | BinaryOp::LShr | BinaryOp::AShr => {
                // lanes takes the amount modulo the width; LLVM makes a large one poison.
                let mask = self.const_bits(ty, u64::from(ty.elem().bits() - 1));
                let y = LLVMBuildAnd(bd, y, mask, n);
                match op {
                    BinaryOp::Shl => LLVMBuildShl(bd, x, y, n),
                    BinaryOp::LShr => LLVMBuildLShr(bd, x, y, n),
                    _ => LLVMBuildAShr(bd, x, y, n),
                }
            }
            BinaryOp::SMin => self.call_intrinsic("llvm.smin", &[lt], &[x, y])?,
            BinaryOp::SMax => self.call_intrinsic("llvm.smax", &[lt], &[x, y])?,
            BinaryOp::UMin => self.call_intrinsic("llvm.umin", &[lt], &[x, y])?,
            BinaryOp::UMax => self.call_intrinsic("llvm.umax", &[lt], &[x, y])?,
            BinaryOp::FAdd => LLVMBuildFAdd(bd, x, y, n),
            BinaryOp::FSub => LLVMBuildFSub(bd, x, y, n),
            BinaryOp::FMul => LLVMBuildFMul(bd, x, y, n),
            BinaryOp::FDiv => LLVMBuildFDiv(bd, x, y, n),
            BinaryOp::FRem => LLVMBuildFRem(bd, x, y, n),
            BinaryOp::FMin => self.call_intrinsic("llvm.minnum", &[lt], &[x, y])?,
            BinaryOp::FMax => self.call_intrinsic("llvm.maxnum", &[lt], &[x, y])?,
        })
    }

    pub(super) unsafe fn cast(
        &self,
        op: CastOp,
        arg: Value,
        flags: IntFlags,
        to: Type,
    ) -> Result<LLVMValueRef, ExportError> {
        let x = self.arg(arg);
        let lt = self.t.ty(to);
        let (bd, n) = (self.b, noname());
        Ok(match op {
            // Out of range the plain conversion is poison; frozen, it is some value, as
            // `inrange` says (one `vcvttps2dq` on x86).
            CastOp::FpToSi if flags.inrange() => {
                LLVMBuildFreeze(bd, LLVMBuildFPToSI(bd, x, lt, n), n)
            }
            CastOp::FpToUi if flags.inrange() => {
                LLVMBuildFreeze(bd, LLVMBuildFPToUI(bd, x, lt, n), n)
            }
            CastOp::Trunc => LLVMBuildTrunc(bd, x, lt, n),
            CastOp::Zext => LLVMBuildZExt(bd, x, lt, n),
            CastOp::Sext => LLVMBuildSExt(bd, x, lt, n),
            CastOp::FpTrunc => LLVMBuildFPTrunc(bd, x, lt, n),
            CastOp::FpExt => LLVMBuildFPExt(bd, x, lt, n),
            CastOp::FpToSi | CastOp::FpToUi if to.is_vector() => {
                self.saturating_vector_conversion(op == CastOp::FpToSi, arg, to)
            }
            CastOp::FpToSi => self.call_intrinsic("llvm.fptosi.sat", &[lt, LLVMTypeOf(x)], &[x])?,
            CastOp::FpToUi => self.call_intrinsic("llvm.fptoui.sat", &[lt, LLVMTypeOf(x)], &[x])?,
            CastOp::SiToFp => LLVMBuildSIToFP(bd, x, lt, n),
            CastOp::UiToFp => LLVMBuildUIToFP(bd, x, lt, n),
            CastOp::Bitcast => LLVMBuildBitCast(bd, x, lt, n),
            CastOp::PtrToInt => LLVMBuildPtrToInt(bd, x, lt, n),
            CastOp::IntToPtr => LLVMBuildIntToPtr(bd, x, lt, n),
            CastOp::AddrSpaceCast => LLVMBuildAddrSpaceCast(bd, x, lt, n),
        })
    }

    /// A vector `fptosi`/`fptoui` with lanes' saturating semantics, spelled out: the
    /// operand raised to the integer type's minimum (a power of two, exact as a float), the
    /// plain conversion, the maximum where the operand reaches the first integer out of
    /// range (also a power of two), and 0 for NaN. LLVM 19 scalarizes
    /// `llvm.fpto[su]i.sat` on vectors for targets without AVX-512 (a conversion, two
    /// compares and two moves per lane); this is a few vector compares and blends around
    /// one `vcvttps2dq`.
    unsafe fn saturating_vector_conversion(
        &self,
        signed: bool,
        arg: Value,
        to: Type,
    ) -> LLVMValueRef {
        use inkwell::llvm_sys::LLVMRealPredicate::{LLVMRealOGE, LLVMRealOLT, LLVMRealUNO};
        let from = self.vt(arg);
        let x = self.arg(arg);
        let (bd, n) = (self.b, noname());
        let bits = to.elem().bits();
        let (lo, limit, max) = if signed {
            let k = 2f64.powi(bits as i32 - 1);
            (-k, k, (1u64 << (bits - 1)) - 1)
        } else {
            (0.0, 2f64.powi(bits as i32), u64::MAX >> (64 - bits))
        };
        let float = |v: f64| match from.elem() {
            lanes_ir::ScalarType::F32 => self.const_bits(from, u64::from((v as f32).to_bits())),
            _ => self.const_bits(from, v.to_bits()),
        };
        let (lo, limit) = (float(lo), float(limit));
        let below = LLVMBuildFCmp(bd, LLVMRealOLT, x, lo, n);
        let raised = LLVMBuildSelect(bd, below, lo, x, n);
        let lt = self.t.ty(to);
        // Poison where the operand is at or past the limit, or NaN: both replaced below.
        let converted = if signed {
            LLVMBuildFPToSI(bd, raised, lt, n)
        } else {
            LLVMBuildFPToUI(bd, raised, lt, n)
        };
        let above = LLVMBuildFCmp(bd, LLVMRealOGE, x, limit, n);
        let capped = LLVMBuildSelect(bd, above, self.const_bits(to, max), converted, n);
        let nan = LLVMBuildFCmp(bd, LLVMRealUNO, x, x, n);
        LLVMBuildSelect(bd, nan, self.const_bits(to, 0), capped, n)
    }
}
