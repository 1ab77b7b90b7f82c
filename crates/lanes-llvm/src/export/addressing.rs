//! Vector addresses in the form LLVM's gathers and scatters use best.
//!
//! lanes IR adds byte offsets to pointers (`ptradd`); widened, an access `a[i]` with a
//! varying `int i` becomes `ptradd a, (sext i) << 2`, which exported as `gep i8` hides
//! the element scale from the code generator: its gathers then take 64-bit indices, two
//! `vpgatherqd` of four lanes each on AVX2 instead of one `vpgatherdd` of eight. A vector
//! `ptradd` of a uniform base and an offset that is a sign-extended narrow integer
//! scaled by a power of two is exported as `gep iS, base, sext i` instead (the same
//! address, `base + sext(i) · S`), which LLVM's instruction selection recognizes as base,
//! 32-bit index and scale.
//!
//! Gathers and scatters into a stack allocation — a private array of an SPMD function,
//! laid out across lanes, `ptradd (ptradd a, lane · g), i · W · g` — reach their
//! allocation through a chain of vector offsets from a vector of pointers, which LLVM
//! splits into 64-bit-pointer gathers of half the width (two `vpgatherqd` per 16 lanes).
//! The allocation's size is known: an access inside it is at an offset below that size, so
//! when it is under 2 GiB the summed offset is exact in 32 bits, and the address is
//! exported as `gep i8, a, sext(trunc(Σ offsets))`: one `vpgatherdd` off the frame. A
//! lane whose offset does not fit reads outside the allocation, which is undefined in the
//! source program too; inactive lanes' addresses are never dereferenced.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;

use lanes_ir::{BinaryOp, CastOp, InstData, Intrinsic, Type, Value};

use super::func::FuncCx;
use crate::llvm::noname;

impl FuncCx<'_> {
    /// `ptradd base, off` with a vector offset, as `gep iS, base, index` where that form
    /// applies (module docs); `None` otherwise.
    pub(super) unsafe fn scaled_vector_ptradd(
        &self,
        base: Value,
        off: Value,
        inbounds: bool,
    ) -> Option<LLVMValueRef> {
        if !self.vt(off).is_vector() {
            return None;
        }
        if let Some(g) = self.rebased_vector_ptradd(base, off) {
            return Some(g);
        }
        let base = self.uniform_scalar(base)?;
        let (index, log2) = self.scaled_narrow_index(off)?;
        Some(self.scaled_gep(self.arg(base), index, log2, inbounds))
    }

    /// `gep iS, base, index`: the address `base + index · 2^log2`.
    unsafe fn scaled_gep(
        &self,
        base: LLVMValueRef,
        index: Value,
        log2: u32,
        inbounds: bool,
    ) -> LLVMValueRef {
        let elem = self.scale_type(log2);
        let mut idx = self.arg(index);
        let g = LLVMBuildGEP2(self.b, elem, base, &mut idx, 1, noname());
        if inbounds && !LLVMIsAInstruction(g).is_null() {
            LLVMGEPSetNoWrapFlags(g, inkwell::llvm_sys::LLVMGEPFlagInBounds);
        }
        g
    }

    /// `ptradd (ptradd b, sext(i) << k), c` — a field at a uniform offset `c` of an
    /// element at a varying narrow index, `&a[i].f` — as `gep iS, (b + c), sext i`: the
    /// uniform offset moves into the scalar base, so that the index stays narrow and the
    /// code generator gathers with 32-bit indices (one `vgatherdps` per 16 lanes instead of
    /// two `vgatherqps`). Several uniform offsets in a row are summed into the base the
    /// same way. Neither `gep` is `inbounds`: `b + c` alone may be outside the object.
    unsafe fn rebased_vector_ptradd(&self, base: Value, off: Value) -> Option<LLVMValueRef> {
        let mut uniform = vec![self.uniform_int(off)?];
        let mut p = base;
        let (root, index, log2) = loop {
            let Some(InstData::PtrAdd { args, .. }) = self.def(p) else {
                return None;
            };
            if !self.vt(p).is_vector() {
                return None;
            }
            if let Some(c) = self.uniform_int(args[1]) {
                uniform.push(c);
                p = args[0];
                continue;
            }
            let root = self.uniform_scalar(args[0])?;
            let (index, log2) = self.scaled_narrow_index(args[1])?;
            break (root, index, log2);
        };
        let mut b = self.arg(root);
        for mut c in uniform.into_iter().rev() {
            b = LLVMBuildGEP2(self.b, self.t.i8(), b, &mut c, 1, noname());
        }
        Some(self.scaled_gep(b, index, log2, false))
    }

    /// The scalar integer `v` is, or is a splat of: a scalar value, a broadcast of one, or
    /// a splat constant.
    unsafe fn uniform_int(&self, v: Value) -> Option<LLVMValueRef> {
        if let Some(s) = self.uniform_scalar(v) {
            return Some(self.arg(s));
        }
        let c = self.func.dfg.splat_constant(v)?;
        let ty = self.t.ty(Type::Scalar(self.vt(v).elem()));
        Some(LLVMConstInt(ty, c as u64, 1))
    }

    /// The address vector `ptrs` of a gather or scatter as one stack allocation plus 32-bit
    /// offsets (module docs), when it is a chain of vector `ptradd`s from a uniform
    /// allocation smaller than 2 GiB; `None` otherwise.
    pub(super) unsafe fn stack_vector_address(&self, ptrs: Value) -> Option<LLVMValueRef> {
        let ty = self.vt(ptrs);
        if !ty.is_vector() {
            return None;
        }
        let mut offsets = Vec::new();
        let mut p = ptrs;
        while let Some(InstData::PtrAdd { args, .. }) = self.def(p) {
            if !self.vt(p).is_vector() {
                break;
            }
            offsets.push(args[1]);
            p = args[0];
        }
        let root = self.uniform_scalar(p)?;
        match self.def(root)? {
            InstData::Alloca { size, .. } if !offsets.is_empty() && *size < 1 << 31 => {}
            _ => return None,
        }
        let lanes = ty.lane_count();
        let i32s = LLVMVectorType(self.t.i32(), lanes);
        let mut total: Option<LLVMValueRef> = None;
        for &off in &offsets {
            let mut o = self.arg(off);
            if !self.vt(off).is_vector() {
                o = self.splat(o, ty.with_elem(self.vt(off).elem()));
            }
            let o = LLVMBuildTrunc(self.b, o, i32s, noname());
            total = Some(match total {
                Some(t) => LLVMBuildAdd(self.b, t, o, noname()),
                None => o,
            });
        }
        let i64s = LLVMVectorType(self.t.i64(), lanes);
        let mut index = LLVMBuildSExt(self.b, total?, i64s, noname());
        let g = LLVMBuildGEP2(self.b, self.t.i8(), self.arg(root), &mut index, 1, noname());
        if !LLVMIsAInstruction(g).is_null() {
            LLVMGEPSetNoWrapFlags(g, inkwell::llvm_sys::LLVMGEPFlagInBounds);
        }
        Some(g)
    }

    /// A type of `2^log2` bytes, for `gep`s that scale their index by that much.
    pub(super) unsafe fn scale_type(&self, log2: u32) -> LLVMTypeRef {
        match log2 {
            0 => self.t.i8(),
            1 => LLVMInt16TypeInContext(self.t.ctx),
            2 => self.t.i32(),
            3 => self.t.i64(),
            _ => LLVMArrayType2(self.t.i8(), 1 << log2),
        }
    }

    /// The scalar `v` is, or is a splat of (a pointer, or an offset).
    pub(super) fn uniform_scalar(&self, v: Value) -> Option<Value> {
        if !self.vt(v).is_vector() {
            return Some(v);
        }
        match self.def(v)? {
            InstData::Intrinsic {
                id: Intrinsic::Broadcast,
                args,
            } => args.first().copied().filter(|&s| !self.vt(s).is_vector()),
            _ => None,
        }
    }

    /// `(s, k)` where `off` is `s << k` (or `s · 2^k`) and `s` a sign extension from
    /// integers of at most 32 bits; `k` at most 6.
    pub(super) fn scaled_narrow_index(&self, off: Value) -> Option<(Value, u32)> {
        let narrow_sext = |v: Value| match self.def(v) {
            Some(InstData::Cast {
                op: CastOp::Sext,
                arg,
                ..
            }) if self.vt(*arg).elem().bits() <= 32 => Some(v),
            _ => None,
        };
        if let Some(s) = narrow_sext(off) {
            return Some((s, 0));
        }
        let InstData::Binary { op, args, .. } = self.def(off)? else {
            return None;
        };
        let s = narrow_sext(args[0])?;
        let c = self.func.dfg.splat_constant(args[1])?;
        let k = match op {
            BinaryOp::Shl if (0..=6).contains(&c) => c as u32,
            BinaryOp::Mul if c > 0 && (c as u64).is_power_of_two() && c <= 64 => c.trailing_zeros(),
            _ => return None,
        };
        Some((s, k))
    }

    /// The instruction defining `v`, if an instruction does.
    pub(super) fn def(&self, v: Value) -> Option<&InstData> {
        self.func.dfg.def_inst(v).map(|i| self.func.dfg.inst(i))
    }
}
