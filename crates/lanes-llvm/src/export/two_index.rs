//! Gathers and scatters whose addresses add two varying 32-bit indices to a uniform base,
//! narrowed to one 32-bit index where the sum does not overflow — tested at run time.
//!
//! **Why.** C code indexes a row and then a column with two `int`s: `row = grid + r[i];
//! row[c[i]]`, or `g = grid + (z * n + y) * n + x` which clang splits into
//! `sext((z * n + y) * n) + sext(x)` (it may: the `int` sum does not overflow). Widened,
//! the address is `base + sext(a) · S + sext(b) · S`, a vector of 64-bit offsets, and the
//! code generator gathers with 64-bit indices: two `vgatherqps` of 8 lanes per 16 lanes on
//! AVX-512, two `vpgatherqd` of 4 per 8 on AVX2, where one `int` index gives one gather of
//! the full width. ISPC gathers with 32-bit offsets always (`--addressing=32`, its
//! default, an assumption the programmer makes); lanes cannot assume it, since `a + b` may
//! leave `int` while the address is valid (an object beyond 2 GiB).
//!
//! **How.** Each such access calls an `internal alwaysinline` function that adds `a + b`
//! in 32 bits with an overflow test per lane. When no active lane overflows — the case
//! for any object under 2 GiB from its base, and for most beyond — it makes one access
//! at `base + sext(a + b) · S`; otherwise the access at the full 64-bit address, as
//! before. Inactive lanes neither decide the test nor touch memory. Uniform offsets on
//! the way (`row[c + 1]`'s `+ 4`, volume rendering's `g[sy]`) fold into the base. After
//! inlining, accesses with the same two indices share one test and one branch (LLVM's
//! CSE and jump threading), as the eight corners of a trilinear sample do.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;

use lanes_ir::{CastOp, InstData, Intrinsic, Value};

use super::func::FuncCx;
use crate::error::ExportError;
use crate::llvm::noname;

/// An address `base + sext(first) · 2^log2 + sext(second) · 2^log2`.
pub(super) struct TwoIndexAddress {
    /// The uniform base with the uniform offsets added (a scalar pointer).
    base: LLVMValueRef,
    /// The two indices, `<N x i32>`.
    first: LLVMValueRef,
    second: LLVMValueRef,
    log2: u32,
}

impl FuncCx<'_> {
    /// The address vector `ptrs` as a uniform base and two scaled 32-bit indices (module
    /// docs): a chain of vector `ptradd`s from a uniform pointer whose offsets are uniform
    /// but for exactly two, each `sext(i) · 2^k` of an integer of at most 32 bits, with
    /// the same `k`; `None` otherwise.
    pub(super) unsafe fn two_index_address(&self, ptrs: Value) -> Option<TwoIndexAddress> {
        if !self.vt(ptrs).is_vector() {
            return None;
        }
        let mut uniform = Vec::new();
        let mut varying = Vec::new();
        let mut p = ptrs;
        while let Some(InstData::PtrAdd { args, .. }) = self.def(p) {
            if !self.vt(p).is_vector() {
                break;
            }
            match self.uniform_offset(args[1]) {
                Some(off) => uniform.push(off),
                None => varying.push(self.scaled_narrow_index(args[1])?),
            }
            if varying.len() > 2 {
                return None;
            }
            p = args[0];
        }
        let root = self.uniform_scalar(p)?;
        let [(a, k), (b, k2)] = varying[..] else {
            return None;
        };
        if k != k2 {
            return None;
        }
        let mut base = self.arg(root);
        for mut off in uniform {
            base = LLVMBuildGEP2(self.b, self.t.i8(), base, &mut off, 1, noname());
        }
        Some(TwoIndexAddress {
            base,
            first: self.narrow_source(a)?,
            second: self.narrow_source(b)?,
            log2: k,
        })
    }

    /// The scalar byte offset a `ptradd` offset is, if it is uniform: a scalar, a
    /// broadcast of one, or a splat constant.
    unsafe fn uniform_offset(&self, off: Value) -> Option<LLVMValueRef> {
        if !self.vt(off).is_vector() {
            return Some(self.arg(off));
        }
        if let Some(c) = self.func.dfg.splat_constant(off) {
            return Some(LLVMConstInt(self.t.i64(), c as u64, 1));
        }
        match self.def(off)? {
            InstData::Intrinsic {
                id: Intrinsic::Broadcast,
                args,
            } if !self.vt(args[0]).is_vector() => Some(self.arg(args[0])),
            _ => None,
        }
    }

    /// The `<N x i32>` that sign extension `s` (from at most 32 bits) extends.
    unsafe fn narrow_source(&self, s: Value) -> Option<LLVMValueRef> {
        let InstData::Cast {
            op: CastOp::Sext,
            arg,
            ..
        } = self.def(s)?
        else {
            return None;
        };
        let ty = self.vt(*arg);
        let v = self.arg(*arg);
        if ty.elem().bits() == 32 {
            return Some(v);
        }
        let i32s = LLVMVectorType(self.t.i32(), ty.lane_count());
        Some(LLVMBuildSExt(self.b, v, i32s, noname()))
    }

    /// `llvm.masked.gather` at `addr`, through the narrowing function (module docs).
    pub(super) unsafe fn two_index_gather(
        &self,
        addr: &TwoIndexAddress,
        mem_ty: LLVMTypeRef,
        align: u32,
        mask: LLVMValueRef,
        passthru: LLVMValueRef,
    ) -> Result<LLVMValueRef, ExportError> {
        let (f, fty) = self.two_index_function(addr, true, mem_ty, align)?;
        Ok(self.call(
            f,
            fty,
            &[addr.base, addr.first, addr.second, mask, passthru],
        ))
    }

    /// `llvm.masked.scatter` of `value` at `addr`, through the narrowing function.
    pub(super) unsafe fn two_index_scatter(
        &self,
        addr: &TwoIndexAddress,
        mem_ty: LLVMTypeRef,
        align: u32,
        value: LLVMValueRef,
        mask: LLVMValueRef,
    ) -> Result<(), ExportError> {
        let (f, fty) = self.two_index_function(addr, false, mem_ty, align)?;
        self.call(f, fty, &[addr.base, addr.first, addr.second, mask, value]);
        Ok(())
    }

    /// The module's narrowing function for a gather (or, unless `gather`, a scatter) of
    /// `mem_ty` at `align` with `addr`'s scale: parameters `(base, first, second, mask,
    /// passthru or value)`.
    unsafe fn two_index_function(
        &self,
        addr: &TwoIndexAddress,
        gather: bool,
        mem_ty: LLVMTypeRef,
        align: u32,
    ) -> Result<(LLVMValueRef, LLVMTypeRef), ExportError> {
        let lanes = LLVMGetVectorSize(mem_ty);
        let i32s = LLVMTypeOf(addr.first);
        let masks = LLVMVectorType(LLVMInt1TypeInContext(self.t.ctx), lanes);
        let mut params = [LLVMTypeOf(addr.base), i32s, i32s, masks, mem_ty];
        let ret = if gather {
            mem_ty
        } else {
            LLVMVoidTypeInContext(self.t.ctx)
        };
        let fty = LLVMFunctionType(ret, params.as_mut_ptr(), params.len() as u32, 0);
        let ty_name: String = crate::llvm::print_type(mem_ty)
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect();
        let kind = if gather { "gather" } else { "scatter" };
        let name = format!("lanes.{kind}.two_index.{ty_name}.s{}.a{align}", addr.log2);
        let log2 = addr.log2;
        self.internal_inline_function(&name, fty, |cx, f| {
            cx.build_two_index_body(f, log2, gather, mem_ty, align)
        })
    }

    /// The body: `a + b` with overflow per lane; one access at the narrow address when no
    /// active lane overflowed, else the access at the wide one.
    unsafe fn build_two_index_body(
        &self,
        f: LLVMValueRef,
        log2: u32,
        gather: bool,
        mem_ty: LLVMTypeRef,
        align: u32,
    ) -> Result<(), ExportError> {
        let (b, n) = (self.b, noname());
        let [entry, narrow, wide] = self.body_blocks(f, [c"entry", c"narrow", c"wide"]);
        let param = |k: u32| LLVMGetParam(f, k);
        let (base, first, second, mask, data) = (param(0), param(1), param(2), param(3), param(4));
        let i32s = LLVMTypeOf(first);
        let i64s = LLVMVectorType(self.t.i64(), LLVMGetVectorSize(i32s));
        let elem = self.scale_type(log2);

        // The sum overflows where its sign differs from both operands' (which then agree):
        // the sign bit of `(sum ^ a) & (sum ^ b)`. Kept in sign bits and tested with the
        // mask's in one `vtestps` (`vptestmd` and `kortest` on AVX-512); the compares of
        // `llvm.sadd.with.overflow` are packed to bytes before the test on AVX2.
        LLVMPositionBuilderAtEnd(b, entry);
        let sum = LLVMBuildAdd(b, first, second, n);
        let overflow = LLVMBuildAnd(
            b,
            LLVMBuildXor(b, sum, first, n),
            LLVMBuildXor(b, sum, second, n),
            n,
        );
        let active = LLVMBuildAnd(b, overflow, LLVMBuildSExt(b, mask, i32s, n), n);
        let negative = LLVMBuildICmp(
            b,
            inkwell::llvm_sys::LLVMIntPredicate::LLVMIntSLT,
            active,
            LLVMConstNull(i32s),
            n,
        );
        let any = self.call_intrinsic("llvm.vector.reduce.or", &[LLVMTypeOf(mask)], &[negative])?;
        LLVMBuildCondBr(b, any, wide, narrow);

        let access = |ptrs: LLVMValueRef, align: u32| -> Result<(), ExportError> {
            let al = self.t.i32c(align);
            if gather {
                let r = self.call_intrinsic(
                    "llvm.masked.gather",
                    &[mem_ty, LLVMTypeOf(ptrs)],
                    &[ptrs, al, mask, data],
                )?;
                LLVMBuildRet(b, r);
            } else {
                self.call_intrinsic(
                    "llvm.masked.scatter",
                    &[mem_ty, LLVMTypeOf(ptrs)],
                    &[data, ptrs, al, mask],
                )?;
                LLVMBuildRetVoid(b);
            }
            Ok(())
        };
        let gep = |p: LLVMValueRef, index: LLVMValueRef| {
            let mut index = LLVMBuildSExt(b, index, i64s, n);
            LLVMBuildGEP2(b, elem, p, &mut index, 1, n)
        };

        // narrow: one 32-bit index, `a + b`, exact in every active lane.
        LLVMPositionBuilderAtEnd(b, narrow);
        access(gep(base, sum), align)?;

        // wide: the address as the program computed it. It states alignment 1 (true of
        // any address): the two accesses then differ in an operand that must be a
        // constant, so LLVM's SimplifyCFG cannot sink them into one access at a φ of the
        // two address vectors, whose gather would take 64-bit indices again.
        LLVMPositionBuilderAtEnd(b, wide);
        access(gep(gep(base, first), second), 1)
    }
}
