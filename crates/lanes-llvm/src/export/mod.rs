//! Export: lanes IR → LLVM IR.
//!
//! After vectorization, lanes hands its code back to LLVM for optimization and code
//! generation (ARCHITECTURE.md, "Pipelines", step 8). The export is a direct
//! instruction-by-instruction translation; where lanes semantics are stricter than LLVM's
//! the exporter spells them out so that LLVM cannot exploit undefined behaviour the
//! interpreter does not have:
//! - shift amounts are masked to the bit width (lanes: modulo the width; LLVM: poison);
//! - `fptosi`/`fptoui` become `llvm.fpto[su]i.sat` (saturating, NaN → 0), and with
//!   `inrange` (what C's conversions import as) a frozen plain conversion;
//! - `fmin`/`fmax` become `llvm.minnum`/`llvm.maxnum` (IEEE minNum/maxNum);
//! - `i1` lanes occupy one byte in memory, so memory accesses of `i1` and masks go through
//!   `i8`/`<N x i8>` (LLVM packs `<N x i1>` into bits);
//! - float constants are built from their raw bits (NaN payloads survive).
//!
//! Vector IR maps onto LLVM's vector intrinsics: `llvm.masked.{load,store,gather,scatter}`,
//! `llvm.vector.reduce.*`, and mask queries as reductions or bitcasts of the mask.
//! The C ABI attributes an import recorded ([`lanes_ir::FuncAbi`]) and loop metadata are put
//! back, so an object compiled through lanes links against C callers.
//!
//! Module-level work (globals, function declarations, attributes) lives here; function
//! bodies in `func`, intrinsic lowering in `intrinsics`, vector math library calls
//! (`-fveclib=libmvec`) in `veclib`. Addresses of gathers and scatters take the forms
//! the code generator turns into 32-bit-index gathers: a scaled narrow index or a stack
//! offset in `addressing`, and two `int` indices, narrowed where their sum fits, in
//! `two_index`.

mod addressing;
mod arith;
mod exp;
mod func;
mod in_place;
mod inline_math;
mod intrinsics;
mod log;
mod loops;
mod opcode_map;
mod powi;
mod two_index;
mod veclib;

pub use in_place::export_into;
pub use veclib::{VecLib, VecLibError, X86VectorIsa};

use inkwell::context::Context;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMLinkage, LLVMUnnamedAddr};
use inkwell::module::Module as LlModule;

use lanes_ir::{AbiAttrs, FuncEntry, Function, GlobalData, Module, Signature};

use crate::error::ExportError;
use crate::llvm::{attr_kind, cstr, Types};

/// Choices of the export that depend on the target and the command line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// The vector math library vector math intrinsics call (`-fveclib=`); LLVM's vector
    /// intrinsics (scalarized by the backend) if `None`.
    pub veclib: Option<VecLib>,
    /// The functions lanes made or changed get `+fast-gather` in their target features
    /// ([`crate::target::Target::wants_fast_gather`]), so that their gathers and scatters
    /// are hardware ones on AVX2 even where the rest of the module is clang's.
    pub fast_gather: bool,
    /// The vector width in bits the code was vectorized for (`32·W` for `W` lanes of
    /// 32-bit elements): every defined function gets it as `"min-legal-vector-width"`,
    /// as clang gives its functions the width of their vector types. On x86 CPUs whose
    /// tuning prefers 256-bit vectors (Intel's AVX-512 server parts) LLVM then keeps
    /// 8-lane code in `ymm` registers and splits what is wider (an 8-lane `double` or
    /// pointer vector) into two, instead of running 512-bit instructions, which lower the
    /// clock of the whole core. Without it, LLVM takes any width as legal. `None`: no
    /// attribute.
    pub vector_width_bits: Option<u32>,
}

/// Translates `module` into a new LLVM module named `name` in `ctx`.
///
/// Every function keeps its name and external linkage; constant globals become internal
/// (they are tables private to the translation unit), writable ones stay external.
pub fn export_module<'ctx>(
    ctx: &'ctx Context,
    module: &Module,
    name: &str,
) -> Result<LlModule<'ctx>, ExportError> {
    export_module_with(ctx, module, name, &ExportOptions::default())
}

/// [`export_module`] with `opts`.
pub fn export_module_with<'ctx>(
    ctx: &'ctx Context,
    module: &Module,
    name: &str,
    opts: &ExportOptions,
) -> Result<LlModule<'ctx>, ExportError> {
    let llm = ctx.create_module(name);
    let m = llm.as_mut_ptr();
    let t = Types { ctx: ctx.raw() };
    let globals: Vec<_> = module
        .globals
        .values()
        .map(|g| add_global(&t, m, g))
        .collect();
    let mut funcs = Vec::new();
    for entry in module.funcs.values() {
        let sig = entry.signature();
        let fn_ty = fn_type(&t, &sig);
        let f = crate::llvm::declare(m, entry.name(), fn_ty);
        if let FuncEntry::Defined(func) = entry {
            set_abi_attrs(&t, f, func);
        }
        funcs.push((f, fn_ty));
    }
    for (i, entry) in module.funcs.values().enumerate() {
        if let FuncEntry::Defined(func) = entry {
            func::export_function(&t, m, module, func, funcs[i].0, &funcs, &globals, opts)?;
        }
    }
    if opts.veclib.is_some() {
        veclib::keep_variant_declarations(&t, m);
    }
    Ok(llm)
}

/// Adds lanes global `g` to `m` as a byte array with its initializer. Constant globals
/// become internal (tables private to the translation unit); writable ones stay external.
fn add_global(t: &Types, m: LLVMModuleRef, g: &GlobalData) -> LLVMValueRef {
    let ty = t.bytes(g.size);
    let c = cstr(&g.name);
    // SAFETY: module and types belong to `t.ctx`; the initializer has type `ty`.
    unsafe {
        let gv = LLVMAddGlobalInAddressSpace(m, ty, c.as_ptr(), u32::from(g.space.0));
        let init = match &g.init {
            Some(bytes) if bytes.len() as u64 == g.size => {
                LLVMConstStringInContext2(t.ctx, bytes.as_ptr().cast(), bytes.len(), 1)
            }
            _ => LLVMConstNull(ty),
        };
        LLVMSetInitializer(gv, init);
        LLVMSetAlignment(gv, g.align.max(1));
        if g.constant {
            LLVMSetGlobalConstant(gv, 1);
            LLVMSetLinkage(gv, LLVMLinkage::LLVMInternalLinkage);
            LLVMSetUnnamedAddress(gv, LLVMUnnamedAddr::LLVMGlobalUnnamedAddr);
        }
        gv
    }
}

/// The LLVM function type of a lanes signature.
pub(crate) fn fn_type(t: &Types, sig: &Signature) -> LLVMTypeRef {
    let mut params: Vec<LLVMTypeRef> = sig.params.iter().map(|&p| t.ty(p)).collect();
    let ret = sig.ret.map_or_else(|| t.void(), |r| t.ty(r));
    // SAFETY: all types are from `t.ctx`; the slice length is passed along.
    unsafe {
        LLVMFunctionType(
            ret,
            params.as_mut_ptr(),
            params.len() as u32,
            i32::from(sig.variadic),
        )
    }
}

/// Adds the recorded C ABI attributes of `func` to the LLVM function `f`.
fn set_abi_attrs(t: &Types, f: LLVMValueRef, func: &Function) {
    let add = |index: u32, abi: AbiAttrs| {
        let enum_attr = |name: &str| {
            // SAFETY: live context and function; kinds come from LLVM's own table.
            unsafe {
                let a = LLVMCreateEnumAttribute(t.ctx, attr_kind(name), 0);
                LLVMAddAttributeAtIndex(f, index, a);
            }
        };
        if abi.signext {
            enum_attr("signext");
        }
        if abi.zeroext {
            enum_attr("zeroext");
        }
        if abi.noalias {
            enum_attr("noalias");
        }
        for (size, name) in [(abi.byval, "byval"), (abi.sret, "sret")] {
            if let Some(n) = size {
                // SAFETY: as above; the type attribute's type is `[n x i8]` of `ctx`.
                unsafe {
                    let a = LLVMCreateTypeAttribute(t.ctx, attr_kind(name), t.bytes(n));
                    LLVMAddAttributeAtIndex(f, index, a);
                }
            }
        }
    };
    for (i, p) in func.params.iter().enumerate() {
        add(i as u32 + 1, func.abi.param(i));
        if p.attrs.align > 1
            && func.value_type(p.value).is_ptr()
            && !func.value_type(p.value).is_vector()
        {
            // SAFETY: as above.
            unsafe {
                let a =
                    LLVMCreateEnumAttribute(t.ctx, attr_kind("align"), u64::from(p.attrs.align));
                LLVMAddAttributeAtIndex(f, i as u32 + 1, a);
            }
        }
    }
    if func.ret.is_some() {
        add(0, func.abi.ret);
    }
    if func.attrs.noinline {
        // SAFETY: as above; index `u32::MAX` is the function itself.
        unsafe {
            let a = LLVMCreateEnumAttribute(t.ctx, attr_kind("noinline"), 0);
            LLVMAddAttributeAtIndex(f, u32::MAX, a);
        }
    }
}
