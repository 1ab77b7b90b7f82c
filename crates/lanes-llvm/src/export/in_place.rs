//! Export into the LLVM module lanes imported from: the hybrid module of a compiler driver.
//!
//! A translation unit is more than the part lanes IR expresses. Functions lanes cannot take
//! (variadic calls, inline assembly, volatile accesses, …; [`crate::import::import_partial`])
//! stay in clang's module untouched, and so do every global (with initializers holding
//! addresses), every declaration with its attributes (`returns_twice`, `noreturn`, `signext`),
//! comdats, linkages and module flags. lanes then writes its own functions back *into* that
//! module: the body of each function it defines replaces the LLVM body of the function of the
//! same name, whose attributes, linkage and metadata stay; functions lanes made (vector
//! variants, outlined loops) are added. The original function object is reused rather than
//! replaced, so no use of it (a function pointer in a global initializer, a call in a kept
//! function) needs rewriting.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::debuginfo::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::module::Module as LlModule;

use lanes_ir::{FuncEntry, Module};

use super::{fn_type, func, set_abi_attrs, veclib, ExportOptions};
use crate::error::ExportError;
use crate::llvm::{cstr, Types};

/// Writes the functions `module` defines into `llm` (which `module` was imported from, or
/// which holds what it declares), as described in the module docs. Globals and declared
/// functions of `module` resolve to `llm`'s of the same name; what `llm` lacks is added.
pub fn export_into(
    llm: &LlModule<'_>,
    module: &Module,
    opts: &ExportOptions,
) -> Result<(), ExportError> {
    let m = llm.as_mut_ptr();
    // SAFETY: `llm` is a live module; all types are made in its context.
    let t = Types {
        ctx: unsafe { LLVMGetModuleContext(m) },
    };
    let mut globals = Vec::new();
    for g in module.globals.values() {
        let c = cstr(&g.name);
        // SAFETY: live module, NUL-terminated name.
        let existing = unsafe { LLVMGetNamedGlobal(m, c.as_ptr()) };
        if existing.is_null() {
            globals.push(super::add_global(&t, m, g));
        } else {
            globals.push(existing);
        }
    }
    let mut funcs = Vec::new();
    let mut replaced = Vec::new();
    for entry in module.funcs.values() {
        let fn_ty = fn_type(&t, &entry.signature());
        let c = cstr(entry.name());
        // SAFETY: live module, NUL-terminated name.
        let existing = unsafe { LLVMGetNamedFunction(m, c.as_ptr()) };
        if existing.is_null() {
            let f = crate::llvm::declare(m, entry.name(), fn_ty);
            if let FuncEntry::Defined(func) = entry {
                set_abi_attrs(&t, f, func);
            }
            funcs.push((f, fn_ty));
            continue;
        }
        if let FuncEntry::Defined(_) = entry {
            // SAFETY: `existing` is a function of `m`.
            let llvm_ty = unsafe { LLVMGlobalGetValueType(existing) };
            if llvm_ty != fn_ty {
                return Err(ExportError {
                    func: entry.name().to_string(),
                    inst: String::new(),
                    message: format!(
                        "its lanes signature does not match the LLVM function's type {}",
                        crate::llvm::print_type(llvm_ty)
                    ),
                });
            }
            replaced.push(existing);
        }
        funcs.push((existing, fn_ty));
    }
    for (i, entry) in module.funcs.values().enumerate() {
        if let FuncEntry::Defined(lanes_func) = entry {
            let f = funcs[i].0;
            // SAFETY: `f` is a function of `m`; its old body has no users outside itself.
            unsafe { delete_body(f) };
            func::export_function(&t, m, module, lanes_func, f, &funcs, &globals, opts)?;
            // SAFETY: as above.
            unsafe { locate_in_subprogram(t.ctx, f) };
        }
    }
    if opts.veclib.is_some() {
        veclib::keep_variant_declarations(&t, m);
    }
    Ok(())
}

/// Removes every block of `f`, keeping the function itself (its attributes, linkage and
/// metadata). Instructions are first replaced by poison in their uses, then erased, then
/// the empty blocks are deleted, so nothing is destroyed while still used.
unsafe fn delete_body(f: LLVMValueRef) {
    let mut blocks = Vec::new();
    let mut bb = LLVMGetFirstBasicBlock(f);
    while !bb.is_null() {
        blocks.push(bb);
        bb = LLVMGetNextBasicBlock(bb);
    }
    let mut insts = Vec::new();
    for &bb in &blocks {
        let mut i = LLVMGetFirstInstruction(bb);
        while !i.is_null() {
            insts.push(i);
            i = LLVMGetNextInstruction(i);
        }
    }
    for &i in &insts {
        let ty = LLVMTypeOf(i);
        if LLVMGetTypeKind(ty) != inkwell::llvm_sys::LLVMTypeKind::LLVMVoidTypeKind {
            LLVMReplaceAllUsesWith(i, LLVMGetPoison(ty));
        }
    }
    for &i in insts.iter().rev() {
        LLVMInstructionEraseFromParent(i);
    }
    for bb in blocks {
        LLVMDeleteBasicBlock(bb);
    }
}

/// Gives every instruction of `f` a location (line 0) in `f`'s debug subprogram, if it has
/// one: LLVM requires calls between functions with debug info to carry a location, and
/// lanes IR keeps no source lines of its own.
unsafe fn locate_in_subprogram(ctx: LLVMContextRef, f: LLVMValueRef) {
    let sp = LLVMGetSubprogram(f);
    if sp.is_null() {
        return;
    }
    let loc = LLVMDIBuilderCreateDebugLocation(ctx, 0, 0, sp, std::ptr::null_mut());
    let mut bb = LLVMGetFirstBasicBlock(f);
    while !bb.is_null() {
        let mut i = LLVMGetFirstInstruction(bb);
        while !i.is_null() {
            LLVMInstructionSetDebugLoc(i, loc);
            i = LLVMGetNextInstruction(i);
        }
        bb = LLVMGetNextBasicBlock(bb);
    }
}
