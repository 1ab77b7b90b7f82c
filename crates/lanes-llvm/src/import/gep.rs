//! `getelementptr` → `ptradd` by a byte offset.
//!
//! lanes has no aggregate types, so addressing into structs and arrays is lowered to
//! byte arithmetic with the module's data layout (ARCHITECTURE.md, "The IR"): the first
//! index steps over whole source elements, each further index selects a struct field (a
//! constant offset) or steps over array/vector elements. Constant parts are folded into
//! one constant; variable indices are sign-extended or truncated to `i64` (LangRef: GEP
//! indices are sign-extended to the pointer width) and scaled. The result is one
//! `ptradd base, offset`, or the base itself when the offset is zero.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;

use lanes_ir::{BinaryOp, CastOp, InstData, IntFlags, ScalarType, Type, Value};

use super::func::FnCx;
use super::types::{element_type, struct_fields};
use crate::error::ImportError;

/// `inbounds` and `nuw` of GEP `g`, which hold as well for the one byte-offset `ptradd` it
/// becomes: `inbounds` implies that the whole offset, computed exactly, does not overflow
/// and lands in the object, so the wrapped sum lanes computes is that offset.
unsafe fn gep_flags(g: LLVMValueRef) -> IntFlags {
    let nowrap = LLVMGEPGetNoWrapFlags(g);
    let mut flags = IntFlags::NONE;
    if nowrap & inkwell::llvm_sys::LLVMGEPFlagInBounds != 0 {
        flags = flags.union(IntFlags::INBOUNDS);
    }
    if nowrap & inkwell::llvm_sys::LLVMGEPFlagNUW != 0 {
        flags = flags.union(IntFlags::NUW);
    }
    flags
}

impl FnCx<'_> {
    /// Lowers the GEP instruction or constant expression `g`.
    pub(super) unsafe fn gep(&mut self, g: LLVMValueRef) -> Result<Value, ImportError> {
        let base = self.op(LLVMGetOperand(g, 0))?;
        // A vector GEP (vector base or indices) yields a vector of pointers; its offset
        // terms are `<N x i64>`.
        let result_ty = self.llty(g)?;
        let off_ty = result_ty.with_elem(ScalarType::I64);
        let mut ty = LLVMGetGEPSourceElementType(g);
        let n = LLVMGetNumOperands(g) as u32;
        let mut konst: i64 = 0;
        let mut dynamic: Option<Value> = None;
        for k in 1..n {
            let idx = LLVMGetOperand(g, k);
            let step = if k == 1 {
                self.mcx.layout.alloc_size(ty)
            } else if let Some(fields) = struct_fields(ty) {
                if LLVMIsAConstantInt(idx).is_null() {
                    return Err(self.err("variable struct field index"));
                }
                let i = LLVMConstIntGetZExtValue(idx) as u32;
                if i >= fields {
                    return Err(self.err("struct field index out of range"));
                }
                konst = konst.wrapping_add(self.mcx.layout.field_offset(ty, i) as i64);
                ty = LLVMStructGetTypeAtIndex(ty, i);
                continue;
            } else {
                let elem = element_type(ty)
                    .ok_or_else(|| self.err("getelementptr index into a non-aggregate type"))?;
                ty = elem;
                self.mcx.layout.alloc_size(elem)
            } as i64;
            if !LLVMIsAConstantInt(idx).is_null() {
                konst = konst.wrapping_add(LLVMConstIntGetSExtValue(idx).wrapping_mul(step));
                continue;
            }
            let mut x = self.op(idx)?;
            let xt = self.ty_of(x);
            let x64 = xt.with_elem(ScalarType::I64);
            if xt != x64 {
                x = self.emit_v(
                    InstData::Cast {
                        op: CastOp::Sext,
                        arg: x,
                        flags: IntFlags::NONE,
                    },
                    x64,
                );
            }
            x = self.widen(x, off_ty);
            if step != 1 {
                let s = self.iconst(off_ty, step);
                x = self.emit_v(
                    InstData::Binary {
                        op: BinaryOp::Mul,
                        args: [x, s],
                        flags: IntFlags::NONE,
                    },
                    off_ty,
                );
            }
            dynamic = Some(match dynamic {
                None => x,
                Some(d) => self.emit_v(
                    InstData::Binary {
                        op: BinaryOp::Add,
                        args: [d, x],
                        flags: IntFlags::NONE,
                    },
                    off_ty,
                ),
            });
        }
        let offset = match (dynamic, konst) {
            (None, 0) if self.ty_of(base) == result_ty => return Ok(base),
            (None, c) => self.iconst(off_ty, c),
            (Some(d), 0) => d,
            (Some(d), c) => {
                let c = self.iconst(off_ty, c);
                self.emit_v(
                    InstData::Binary {
                        op: BinaryOp::Add,
                        args: [d, c],
                        flags: IntFlags::NONE,
                    },
                    off_ty,
                )
            }
        };
        Ok(self.emit_v(
            InstData::PtrAdd {
                args: [base, offset],
                flags: gep_flags(g),
            },
            result_ty,
        ))
    }

    /// Broadcasts scalar `x` to the vector type `to` (no-op if `to` is scalar).
    fn widen(&mut self, x: Value, to: Type) -> Value {
        if to.is_vector() && !self.ty_of(x).is_vector() {
            let data = InstData::Intrinsic {
                id: lanes_ir::Intrinsic::Broadcast,
                args: vec![x],
            };
            self.emit_v(data, to)
        } else {
            x
        }
    }
}
