//! Import: LLVM IR (from clang-19, `.ll` or `.bc`) → verified lanes IR.
//!
//! Real users bring C, C++ and OpenCL C; lanes reads them through clang and LLVM
//! (issue 3, point 1). The importer covers what scalar kernels and loops use — integer
//! and float arithmetic, compares, select, freeze, φ, branches and switches, loads and
//! stores, `getelementptr` over structs and arrays, `alloca`, globals and constant tables,
//! direct calls, libm/OpenCL math and the common `llvm.*` intrinsics — and keeps loop
//! metadata and parameter ABI attributes ([`lanes_ir::FuncAbi`]). Everything else is an
//! [`ImportError`] naming the function, the printed instruction and the source line; the
//! importer never panics on its input. The result is checked by the lanes verifier.
//!
//! - [`types`]: type mapping and data layout;
//! - [`consts`]: global initializers as bytes;
//! - [`func`]: function bodies; [`gep`]: address arithmetic; [`calls`]: calls and intrinsics.

mod calls;
mod consts;
mod fpclass;
mod func;
mod gep;
mod int_idioms;
mod memloop;
mod types;

use std::collections::HashMap;

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::target::LLVMGetModuleDataLayout;
use inkwell::module::Module as LlModule;

use lanes_ir::{AbiAttrs, AddrSpace, FuncId, Function, GlobalData, GlobalId, Module, Signature};

use crate::error::{ImportError, LlvmError};
use crate::llvm::{attr_kind, print_type, print_value, value_name};
use types::{lanes_type, Layout};

/// Largest global with a non-zero initializer that is imported (its bytes are held in
/// memory); zero-initialized globals of any size are fine.
const MAX_INITIALIZED_GLOBAL: u64 = 1 << 26;

/// Module-wide facts shared by the function importers.
pub(crate) struct ModuleCx {
    pub ctx: LLVMContextRef,
    pub layout: Layout,
    pub globals: HashMap<LLVMValueRef, GlobalId>,
    pub funcs: HashMap<LLVMValueRef, FuncId>,
}

fn module_err(what: LLVMValueRef, message: impl Into<String>) -> ImportError {
    let text = print_value(what);
    // SAFETY: `what` is a live global value.
    let is_func = unsafe { !LLVMIsAFunction(what).is_null() };
    let header = text
        .lines()
        .find(|l| !is_func || l.starts_with("define") || l.starts_with("declare"))
        .unwrap_or_default();
    ImportError {
        func: is_func.then(|| value_name(what)),
        inst: header.trim_end_matches(" {").to_string(),
        file: None,
        line: 0,
        message: message.into(),
    }
}

/// Iterates LLVM's intrusive lists.
unsafe fn walk(
    first: LLVMValueRef,
    next: unsafe extern "C" fn(LLVMValueRef) -> LLVMValueRef,
) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut v = first;
    while !v.is_null() {
        out.push(v);
        v = next(v);
    }
    out
}

/// The lanes signature of LLVM function `f`.
unsafe fn signature(f: LLVMValueRef) -> Result<Signature, ImportError> {
    let fty = LLVMGlobalGetValueType(f);
    let n = LLVMCountParamTypes(fty) as usize;
    let mut ps = vec![std::ptr::null_mut(); n];
    LLVMGetParamTypes(fty, ps.as_mut_ptr());
    let params = ps
        .iter()
        .map(|&t| {
            lanes_type(t).ok_or_else(|| {
                module_err(
                    f,
                    format!("parameter type {} has no lanes equivalent", print_type(t)),
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let rt = LLVMGetReturnType(fty);
    let ret = if LLVMGetTypeKind(rt) == inkwell::llvm_sys::LLVMTypeKind::LLVMVoidTypeKind {
        None
    } else {
        Some(lanes_type(rt).ok_or_else(|| {
            module_err(
                f,
                format!("return type {} has no lanes equivalent", print_type(rt)),
            )
        })?)
    };
    Ok(Signature { params, ret })
}

/// ABI attributes at attribute index `idx` (0: return value, i+1: parameter i).
unsafe fn abi_attrs(f: LLVMValueRef, idx: u32, layout: Layout) -> (AbiAttrs, u32) {
    let has = |name: &str| !LLVMGetEnumAttributeAtIndex(f, idx, attr_kind(name)).is_null();
    let sized = |name: &str| {
        let a = LLVMGetEnumAttributeAtIndex(f, idx, attr_kind(name));
        (!a.is_null()).then(|| layout.alloc_size(LLVMGetTypeAttributeValue(a)))
    };
    let align = LLVMGetEnumAttributeAtIndex(f, idx, attr_kind("align"));
    let align = if align.is_null() {
        0
    } else {
        LLVMGetEnumAttributeValue(align) as u32
    };
    (
        AbiAttrs {
            signext: has("signext"),
            zeroext: has("zeroext"),
            noalias: has("noalias"),
            byval: sized("byval"),
            sret: sized("sret"),
        },
        align,
    )
}

/// Is `f` an OpenCL kernel? clang marks kernels with `!kernel_arg_addr_space` metadata
/// (and, for SPIR targets, the `spir_kernel` calling convention, number 76).
unsafe fn is_kernel(ctx: LLVMContextRef, f: LLVMValueRef) -> bool {
    if LLVMGetFunctionCallConv(f) == 76 {
        return true;
    }
    let name = "kernel_arg_addr_space";
    let kind = LLVMGetMDKindIDInContext(ctx, name.as_ptr().cast(), name.len() as u32);
    let mut n = 0usize;
    let entries = LLVMGlobalCopyAllMetadata(f, &mut n);
    if entries.is_null() {
        return false;
    }
    let found = (0..n as u32).any(|i| LLVMValueMetadataEntriesGetKind(entries, i) == kind);
    LLVMDisposeValueMetadataEntries(entries);
    found
}

/// Imports the LLVM module `llm` and verifies the result.
pub fn import_module(llm: &LlModule<'_>) -> Result<Module, LlvmError> {
    // SAFETY: `llm` is a live module; everything read stays owned by it and is only
    // inspected through accessors matching each value's kind.
    let module = unsafe { import_raw(llm)? };
    lanes_ir::verifier::verify_module(&module).map_err(|e| LlvmError::Verify(e.to_string()))?;
    Ok(module)
}

unsafe fn import_raw(llm: &LlModule<'_>) -> Result<Module, ImportError> {
    let m = llm.as_mut_ptr();
    let mcx_layout = Layout {
        td: LLVMGetModuleDataLayout(m),
    };
    let mut module = Module::new();
    let mut mcx = ModuleCx {
        ctx: LLVMGetModuleContext(m),
        layout: mcx_layout,
        globals: HashMap::new(),
        funcs: HashMap::new(),
    };
    for g in walk(LLVMGetFirstGlobal(m), LLVMGetNextGlobal) {
        let name = value_name(g);
        if name.starts_with("llvm.") {
            continue;
        }
        if LLVMIsDeclaration(g) != 0 {
            return Err(module_err(g, "external global variables are not supported"));
        }
        let vty = LLVMGlobalGetValueType(g);
        let size = mcx.layout.alloc_size(vty);
        let init = LLVMGetInitializer(g);
        let zero = LLVMIsNull(init) != 0;
        if !zero && size > MAX_INITIALIZED_GLOBAL {
            return Err(module_err(
                g,
                format!("initialized global of {size} bytes (at most {MAX_INITIALIZED_GLOBAL})"),
            ));
        }
        let mut bytes = vec![0u8; if zero { 0 } else { size as usize }];
        if !zero {
            consts::write_const(init, mcx.layout, &mut bytes, 0).map_err(|e| module_err(g, e))?;
        }
        let space = u8::try_from(LLVMGetPointerAddressSpace(LLVMTypeOf(g))).unwrap_or(0);
        let id = module.add_global(GlobalData {
            name,
            size,
            align: LLVMGetAlignment(g).max(1),
            init: bytes.iter().any(|&b| b != 0).then_some(bytes),
            constant: LLVMIsGlobalConstant(g) != 0,
            space: AddrSpace(space),
        });
        mcx.globals.insert(g, id);
    }
    let all = walk(LLVMGetFirstFunction(m), LLVMGetNextFunction);
    let mut defined = Vec::new();
    for &f in &all {
        let name = value_name(f);
        if name.starts_with("llvm.") {
            continue;
        }
        if LLVMIsDeclaration(f) != 0 {
            // Declarations whose types lanes cannot express are only an error if called.
            if let Ok(sig) = signature(f) {
                let id = module.declare(name, sig);
                mcx.funcs.insert(f, id);
            }
            continue;
        }
        let sig = signature(f)?;
        let mut func = Function::new(name, &sig.params, sig.ret);
        for i in 0..sig.params.len() {
            let (abi, align) = abi_attrs(f, i as u32 + 1, mcx.layout);
            func.abi.params.push(abi);
            func.params[i].attrs.align = align;
        }
        if !func.abi.params.iter().any(|a| !a.is_default()) {
            func.abi.params.clear();
        }
        func.abi.ret = abi_attrs(f, 0, mcx.layout).0;
        func.attrs.kernel = is_kernel(mcx.ctx, f);
        let id = module.define(func);
        mcx.funcs.insert(f, id);
        defined.push((f, id));
    }
    for (f, id) in defined {
        let Some(shell) = module.function(id) else {
            continue;
        };
        let mut func = Function::new(shell.name.clone(), &shell.signature().params, shell.ret);
        func.abi = shell.abi.clone();
        func.attrs = shell.attrs;
        for (p, q) in func.params.iter_mut().zip(&shell.params) {
            p.attrs = q.attrs;
        }
        let mut fcx = func::FnCx::new(&mcx, shell.name.clone(), func);
        fcx.body(f)?;
        if let Some(slot) = module.function_mut(id) {
            *slot = fcx.func;
        }
    }
    Ok(module)
}
