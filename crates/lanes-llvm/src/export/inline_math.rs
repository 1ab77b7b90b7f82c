//! The internal functions that hold lanes' inline vector math (`lanes.powi`, `lanes.exp`,
//! `lanes.log`): one `internal alwaysinline` definition per name in the module, built on
//! first use, so that the export stays instruction by instruction and LLVM inlines the
//! body at each call.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMLinkage;

use lanes_ir::Type;

use super::func::FuncCx;
use crate::error::ExportError;
use crate::llvm::attr_kind;

impl FuncCx<'_> {
    /// The module's function `name` from `arity` values of `ty` to `ty`, its body built by
    /// `build` (with the function's builder, which is put back where it was) when the
    /// module does not have it yet.
    pub(crate) unsafe fn inline_math_function(
        &self,
        name: &str,
        ty: Type,
        arity: usize,
        build: impl FnOnce(&Self, LLVMValueRef) -> Result<(), ExportError>,
    ) -> Result<(LLVMValueRef, LLVMTypeRef), ExportError> {
        let vt = self.t.ty(ty);
        let mut params = vec![vt; arity];
        let fty = LLVMFunctionType(vt, params.as_mut_ptr(), arity as u32, 0);
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
