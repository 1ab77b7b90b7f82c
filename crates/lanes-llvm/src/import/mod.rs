//! Import: LLVM IR (from clang-19, `.ll` or `.bc`) → verified lanes IR.
//!
//! Real users bring C, C++ and OpenCL C; lanes reads them through clang and LLVM.
//! The importer covers what scalar kernels and loops use — integer
//! and float arithmetic, compares, select, freeze, φ, branches and switches, loads and
//! stores, `getelementptr` over structs and arrays, `alloca`, globals and constant tables,
//! direct calls, libm/OpenCL math and the common `llvm.*` intrinsics — and keeps loop
//! metadata and parameter ABI attributes ([`lanes_ir::FuncAbi`]). Everything else is an
//! [`ImportError`] naming the function, the printed instruction and the source line; the
//! importer never panics on its input. The result is checked by the lanes verifier.
//!
//! - `types`: type mapping and data layout;
//! - `consts`: global initializers as bytes;
//! - `func`: function bodies; `gep`: address arithmetic; `calls`: calls and intrinsics.

mod calls;
mod consts;
mod float_idioms;
mod fpclass;
mod func;
mod gep;
mod int_idioms;
mod memloop;
mod odd_ints;
mod types;

use std::collections::HashMap;

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::target::LLVMGetModuleDataLayout;
use inkwell::module::Module as LlModule;

use lanes_ir::{
    AbiAttrs, AddrSpace, ExternFunc, FuncEntry, FuncId, Function, GlobalData, GlobalId, Module,
    Signature,
};

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
    Ok(Signature {
        params,
        ret,
        variadic: LLVMIsFunctionVarArg(fty) != 0,
    })
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

/// Imports the LLVM module `llm` and verifies the result. Every construct lanes IR cannot
/// express is an error (the `.lir` output of `lanes import` must stand alone).
pub fn import_module(llm: &LlModule<'_>) -> Result<Module, LlvmError> {
    // SAFETY: `llm` is a live module; everything read stays owned by it and is only
    // inspected through accessors matching each value's kind.
    let imported = unsafe { import_raw(llm, false)? };
    lanes_ir::verifier::verify_module(&imported.module)
        .map_err(|e| LlvmError::Verify(e.to_string()))?;
    Ok(imported.module)
}

/// A function of the LLVM module that lanes IR cannot express: it stays LLVM IR, untouched,
/// in the module lanes writes ([`import_partial`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptFunction {
    /// The LLVM function's name.
    pub name: String,
    /// Why: the first construct lanes could not express, with its source line if known.
    pub reason: ImportError,
}

/// The result of [`import_partial`].
#[derive(Clone, Debug)]
pub struct PartialImport {
    /// Every function lanes IR can express, defined; the others declared where their
    /// signature allows (so that calls to them stay calls), else absent.
    pub module: Module,
    /// The functions left as LLVM IR, in module order.
    pub kept: Vec<KeptFunction>,
    /// Globals whose contents lanes does not know (external declarations, initializers
    /// holding addresses): lanes code only takes their address, and the LLVM module keeps
    /// their definitions.
    pub opaque_globals: Vec<String>,
}

/// Imports what lanes IR can express of `llm`, function by function, as a compiler driver
/// must: one construct lanes lacks (a variadic call, inline assembly, a volatile access)
/// keeps its function as LLVM IR instead of failing the translation unit. The result is
/// meant to be exported back into `llm` itself ([`crate::export::export_into`]), which
/// keeps those functions and every global's LLVM initializer.
pub fn import_partial(llm: &LlModule<'_>) -> Result<PartialImport, LlvmError> {
    // SAFETY: as in `import_module`.
    let imported = unsafe { import_raw(llm, true)? };
    lanes_ir::verifier::verify_module(&imported.module)
        .map_err(|e| LlvmError::Verify(e.to_string()))?;
    Ok(imported)
}

/// The source file and line of LLVM function `f`'s definition, from its debug info.
unsafe fn function_location(f: LLVMValueRef) -> (Option<String>, u32) {
    use inkwell::llvm_sys::debuginfo::*;
    let sp = LLVMGetSubprogram(f);
    if sp.is_null() {
        return (None, 0);
    }
    let line = LLVMDISubprogramGetLine(sp);
    let file = LLVMDIScopeGetFile(sp);
    let name = if file.is_null() {
        None
    } else {
        let mut len = 0;
        let p = LLVMDIFileGetFilename(file, &mut len);
        (!p.is_null()).then(|| {
            String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len as usize))
                .into_owned()
        })
    };
    (name, line)
}

/// `err`, located at `f`'s definition if it has no source line of its own.
unsafe fn located(mut err: ImportError, f: LLVMValueRef) -> ImportError {
    if err.line == 0 {
        let (file, line) = function_location(f);
        err.file = file;
        err.line = line;
    }
    err
}

/// `err` about global `g`, located at the first instruction using `g` that has a source
/// line (globals carry no line of their own in line tables).
unsafe fn located_global(mut err: ImportError, g: LLVMValueRef) -> ImportError {
    let mut u = LLVMGetFirstUse(g);
    while !u.is_null() {
        let user = LLVMGetUser(u);
        if !LLVMIsAInstruction(user).is_null() && LLVMGetDebugLocLine(user) != 0 {
            let mut len = 0;
            let p = LLVMGetDebugLocFilename(user, &mut len);
            err.file = (!p.is_null()).then(|| {
                String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len as usize))
                    .into_owned()
            });
            err.line = LLVMGetDebugLocLine(user);
            err.message
                .push_str(" (the line is the global's first use)");
            return err;
        }
        u = LLVMGetNextUse(u);
    }
    err
}

unsafe fn import_raw(llm: &LlModule<'_>, partial: bool) -> Result<PartialImport, ImportError> {
    let m = llm.as_mut_ptr();
    let mcx_layout = Layout {
        td: LLVMGetModuleDataLayout(m),
    };
    let mut module = Module::new();
    let mut kept = Vec::new();
    let mut opaque_globals = Vec::new();
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
        let vty = LLVMGlobalGetValueType(g);
        let size = mcx.layout.alloc_size(vty);
        let space = u8::try_from(LLVMGetPointerAddressSpace(LLVMTypeOf(g))).unwrap_or(0);
        let bytes = global_bytes(g, size, mcx.layout);
        let init = match bytes {
            Ok(bytes) => bytes,
            Err(_) if partial => {
                opaque_globals.push(name.clone());
                None
            }
            Err(e) => return Err(located_global(e, g)),
        };
        let id = module.add_global(GlobalData {
            name,
            size,
            align: LLVMGetAlignment(g).max(1),
            init,
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
        let sig = signature(f);
        if LLVMIsDeclaration(f) != 0 {
            // Declarations whose types lanes cannot express are only an error if called.
            if let Ok(sig) = sig {
                let id = module.declare(name, sig);
                mcx.funcs.insert(f, id);
            }
            continue;
        }
        let sig = match sig {
            Ok(sig) if sig.variadic => {
                // Its body reads its arguments with `va_arg`, which lanes IR lacks; callers
                // still call it, as they call any declaration.
                let e = module_err(f, "a variadic function definition (va_start/va_arg)");
                if !partial {
                    return Err(located(e, f));
                }
                let id = module.declare(name.clone(), sig);
                mcx.funcs.insert(f, id);
                kept.push(KeptFunction {
                    name,
                    reason: located(e, f),
                });
                continue;
            }
            Ok(sig) => sig,
            Err(e) if partial => {
                kept.push(KeptFunction {
                    name,
                    reason: located(e, f),
                });
                continue;
            }
            Err(e) => return Err(located(e, f)),
        };
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
        let sig = shell.signature();
        let mut func = Function::new(shell.name.clone(), &sig.params, shell.ret);
        func.abi = shell.abi.clone();
        func.attrs = shell.attrs;
        for (p, q) in func.params.iter_mut().zip(&shell.params) {
            p.attrs = q.attrs;
        }
        let mut fcx = func::FnCx::new(&mcx, shell.name.clone(), func);
        match fcx.body(f) {
            Ok(()) => {
                if let Some(slot) = module.function_mut(id) {
                    *slot = fcx.func;
                }
            }
            Err(e) if partial => {
                let name = fcx.name.clone();
                module.funcs[id] = FuncEntry::Declared(ExternFunc {
                    name: name.clone(),
                    sig,
                });
                kept.push(KeptFunction {
                    name,
                    reason: located(e, f),
                });
            }
            Err(e) => return Err(located(e, f)),
        }
    }
    Ok(PartialImport {
        module,
        kept,
        opaque_globals,
    })
}

/// The byte image of global `g`'s initializer (`None`: all zeros), or why it has none: an
/// external declaration, an initializer holding addresses, or one too large to hold.
unsafe fn global_bytes(
    g: LLVMValueRef,
    size: u64,
    layout: Layout,
) -> Result<Option<Vec<u8>>, ImportError> {
    if LLVMIsDeclaration(g) != 0 {
        return Err(module_err(g, "external global variables are not supported"));
    }
    let init = LLVMGetInitializer(g);
    if LLVMIsNull(init) != 0 {
        return Ok(None);
    }
    if size > MAX_INITIALIZED_GLOBAL {
        return Err(module_err(
            g,
            format!("initialized global of {size} bytes (at most {MAX_INITIALIZED_GLOBAL})"),
        ));
    }
    let mut bytes = vec![0u8; size as usize];
    consts::write_const(init, layout, &mut bytes, 0).map_err(|e| module_err(g, e))?;
    Ok(bytes.iter().any(|&b| b != 0).then_some(bytes))
}
