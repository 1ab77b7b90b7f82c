//! The internal functions that hold lanes' inline vector math (`lanes.powi`, `lanes.exp`,
//! `lanes.log`): one `internal alwaysinline` definition per name in the module, built on
//! first use, so that the export stays instruction by instruction and LLVM inlines the
//! body at each call.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMLinkage;

use lanes_ir::{ScalarType, Type};

use super::func::FuncCx;
use super::veclib::VecLib;
use crate::error::ExportError;
use crate::llvm::{attr_kind, noname};

impl FuncCx<'_> {
    /// A call of lanes' inline `base` (`lanes.{base}.v{N}f32`) on `args` when libmvec is
    /// chosen, every argument is the same `float` vector type and, if `needs_fma`, the
    /// target has fused multiply-add; `None` otherwise (the caller then calls the library).
    /// `build` makes the body of the function, given it, its type and its lane count.
    pub(crate) unsafe fn call_inline_math(
        &self,
        base: &str,
        args: &[(LLVMValueRef, Type)],
        needs_fma: bool,
        build: unsafe fn(&Self, LLVMValueRef, Type, u32) -> Result<(), ExportError>,
    ) -> Result<Option<LLVMValueRef>, ExportError> {
        let Some(VecLib::Libmvec(isa)) = self.opts.veclib else {
            return Ok(None);
        };
        let Some(&(_, ty @ Type::Vector(lanes, ScalarType::F32))) = args.first() else {
            return Ok(None);
        };
        if args.iter().any(|&(_, t)| t != ty) || (needs_fma && !isa.fma) {
            return Ok(None);
        }
        let name = format!("lanes.{base}.v{lanes}f32");
        let (f, fty) = self.inline_math_function(&name, ty, args.len(), |cx, f| {
            build(cx, f, ty, u32::from(lanes))
        })?;
        let vals: Vec<LLVMValueRef> = args.iter().map(|&(v, _)| v).collect();
        Ok(Some(self.call(f, fty, &vals)))
    }

    /// New blocks of function `f`, appended in the order of `names`.
    pub(crate) unsafe fn body_blocks<const N: usize>(
        &self,
        f: LLVMValueRef,
        names: [&std::ffi::CStr; N],
    ) -> [LLVMBasicBlockRef; N] {
        names.map(|name| LLVMAppendBasicBlockInContext(self.t.ctx, f, name.as_ptr()))
    }

    /// Ends an inline function's body in `done`: returns the value of type `ty` that
    /// came from whichever of the two `(value, block)` pairs jumped there.
    pub(crate) unsafe fn return_merged(
        &self,
        done: LLVMBasicBlockRef,
        ty: LLVMTypeRef,
        incoming: [(LLVMValueRef, LLVMBasicBlockRef); 2],
    ) {
        LLVMPositionBuilderAtEnd(self.b, done);
        let phi = LLVMBuildPhi(self.b, ty, noname());
        let mut values = incoming.map(|(v, _)| v);
        let mut from = incoming.map(|(_, b)| b);
        LLVMAddIncoming(phi, values.as_mut_ptr(), from.as_mut_ptr(), 2);
        LLVMBuildRet(self.b, phi);
    }

    /// The module's inline function `name` from `arity` values of `ty` to `ty`
    /// ([`Self::internal_inline_function`]).
    unsafe fn inline_math_function(
        &self,
        name: &str,
        ty: Type,
        arity: usize,
        build: impl FnOnce(&Self, LLVMValueRef) -> Result<(), ExportError>,
    ) -> Result<(LLVMValueRef, LLVMTypeRef), ExportError> {
        let vt = self.t.ty(ty);
        let mut params = vec![vt; arity];
        let fty = LLVMFunctionType(vt, params.as_mut_ptr(), arity as u32, 0);
        self.internal_inline_function(name, fty, build)
    }

    /// The module's `internal alwaysinline` function `name` of type `fty`, its body built
    /// by `build` (with the function's builder, which is put back where it was) when the
    /// module does not have it yet. Such a function holds control flow that one lanes
    /// instruction needs, so that the export stays instruction by instruction.
    pub(crate) unsafe fn internal_inline_function(
        &self,
        name: &str,
        fty: LLVMTypeRef,
        build: impl FnOnce(&Self, LLVMValueRef) -> Result<(), ExportError>,
    ) -> Result<(LLVMValueRef, LLVMTypeRef), ExportError> {
        let existing = LLVMGetNamedFunction(self.m, crate::llvm::cstr(name).as_ptr());
        if !existing.is_null() {
            return Ok((existing, fty));
        }
        let f = crate::llvm::declare(self.m, name, fty);
        LLVMSetLinkage(f, LLVMLinkage::LLVMInternalLinkage);
        for attr in ["alwaysinline", "nounwind", "willreturn"] {
            let a = LLVMCreateEnumAttribute(self.t.ctx, attr_kind(attr), 0);
            LLVMAddAttributeAtIndex(f, u32::MAX, a);
        }
        let resume = LLVMGetInsertBlock(self.b);
        let body = build(self, f);
        LLVMPositionBuilderAtEnd(self.b, resume);
        body.map(|()| (f, fty))
    }
}

/// The vector types and splat constants of one lane count, for the bodies of the inline
/// functions.
pub(crate) struct Splats {
    ctx: LLVMContextRef,
    lanes: u32,
}

impl Splats {
    pub(crate) fn new(ctx: LLVMContextRef, lanes: u32) -> Splats {
        Splats { ctx, lanes }
    }

    /// `<lanes x i1>` and `<lanes x i32>`.
    pub(crate) unsafe fn mask_and_int_types(&self) -> (LLVMTypeRef, LLVMTypeRef) {
        (
            LLVMVectorType(LLVMInt1TypeInContext(self.ctx), self.lanes),
            LLVMVectorType(LLVMInt32TypeInContext(self.ctx), self.lanes),
        )
    }

    unsafe fn splat(&self, c: LLVMValueRef) -> LLVMValueRef {
        LLVMConstVector(vec![c; self.lanes as usize].as_mut_ptr(), self.lanes)
    }

    /// The all-zeros `<lanes x i32>` shuffle mask: a broadcast of lane 0.
    pub(crate) unsafe fn zeros(&self) -> LLVMValueRef {
        self.splat(LLVMConstInt(LLVMInt32TypeInContext(self.ctx), 0, 0))
    }

    pub(crate) unsafe fn i32(&self, v: i32) -> LLVMValueRef {
        self.splat(LLVMConstInt(LLVMInt32TypeInContext(self.ctx), v as u64, 1))
    }

    pub(crate) unsafe fn f32(&self, v: f32) -> LLVMValueRef {
        self.splat(LLVMConstReal(
            LLVMFloatTypeInContext(self.ctx),
            f64::from(v),
        ))
    }

    pub(crate) unsafe fn f64(&self, v: f64) -> LLVMValueRef {
        self.splat(LLVMConstReal(LLVMDoubleTypeInContext(self.ctx), v))
    }
}
