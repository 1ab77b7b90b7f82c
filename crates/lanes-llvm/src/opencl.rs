//! The OpenCL C front end of the kernel compiler (CC'12 §2): clang-19 compiles the
//! program, the OpenCL builtin library is linked in and inlined, OpenCL vector types are
//! scalarized, and the result is imported as lanes IR, with what the host needs to know
//! about each kernel's arguments.
//!
//! Why this order: clang lowers `float4` arithmetic, swizzles and vector builtins to LLVM
//! vector operations and calls to overloaded builtins (`_Z3dotDv4_fS_`). The builtin
//! library (OpenCL C, compiled by the same clang with the same `-cl-std`, so the mangled
//! names agree) defines each overload element-wise; once it is inlined, LLVM's scalarizer
//! turns every remaining short vector into scalars, and lanes' own vectorizer later widens
//! the scalar work-item function across work-items — the only vectors left are lanes'.
//! Work-item queries (`get_global_id`) and `barrier` stay calls, which the import maps to
//! lanes' `global_id`/`barrier` instructions.
//!
//! Address spaces are kept (`-ffake-address-space-map`): a kernel's `__local` variables
//! are globals in address space 3, which the runtime gives one copy per work-group.

use std::path::Path;

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::module::Linkage;
use inkwell::values::AsValueRef;

use crate::clang::{compile_to_bitcode, parse_module, ClangOptions, SourceKind};
use crate::emit::{init_native, target_machine, TargetOptions};
use crate::error::LlvmError;
use crate::Context;

/// The OpenCL address space of a kernel argument (clang's `kernel_arg_addr_space`
/// numbering).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgSpace {
    /// A value passed by copy (`int n`, `float a`).
    Private,
    Global,
    Constant,
    Local,
}

/// One kernel argument as written in OpenCL C.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelArg {
    pub name: String,
    pub space: ArgSpace,
    /// The type as written (`float4*`, `uint`).
    pub type_name: String,
    /// `const` or `volatile` qualifiers as clang reports them (`const`, `volatile`, ``).
    pub qualifiers: String,
}

/// A `__kernel` function of the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelSignature {
    pub name: String,
    pub args: Vec<KernelArg>,
}

/// A compiled OpenCL program: lanes IR with the builtins inlined, and its kernels.
pub struct OpenClModule {
    pub module: lanes_ir::Module,
    pub kernels: Vec<KernelSignature>,
}

/// The clang arguments every OpenCL compilation of lanes-cl adds: the language version
/// (`std`, e.g. `CL1.2`), address spaces kept, argument names recorded.
pub fn opencl_clang_args(std: &str) -> Vec<String> {
    vec![
        format!("-cl-std={std}"),
        "-Xclang".into(),
        "-ffake-address-space-map".into(),
        "-cl-kernel-arg-info".into(),
        // 8- and 16-wide vector types passed by value warn about the x86 ABI; lanes
        // inlines and scalarizes them.
        "-Wno-psabi".into(),
    ]
}

/// Compiles OpenCL C source `src` with `clang` (which must carry [`opencl_clang_args`]),
/// links `builtins` (the library's bitcode, compiled with the same options), inlines and
/// scalarizes, and imports the result.
pub fn compile_opencl(
    src: &Path,
    builtins: &[u8],
    clang: &ClangOptions,
) -> Result<OpenClModule, LlvmError> {
    let bitcode = compile_to_bitcode(src, SourceKind::OpenCl, clang)?;
    let ctx = Context::create();
    let name = src.display().to_string();
    let program = parse_module(&ctx, &bitcode, SourceKind::OpenCl, &name)?;
    // SAFETY: `program` is a live module of `ctx`; metadata is only read.
    let kernels = unsafe { kernel_signatures(&ctx, &program) };
    init_native()?;
    scalarize_memory_too();
    let tm = target_machine(&TargetOptions::default())?;
    // SAFETY: both modules belong to `ctx`; the library is consumed by the link.
    unsafe { link_lazily(&ctx, &program, builtins)? };
    let kernel_names: Vec<&str> = kernels.iter().map(|k| k.name.as_str()).collect();
    for f in program.get_functions() {
        let fname = f.get_name().to_string_lossy();
        if f.count_basic_blocks() > 0 && !kernel_names.contains(&&*fname) {
            f.set_linkage(Linkage::Internal);
        }
    }
    let pbo = inkwell::passes::PassBuilderOptions::create();
    program
        .run_passes(
            "always-inline,globaldce,function(sroa,instcombine<no-verify-fixpoint>,scalarizer,instcombine<no-verify-fixpoint>,simplifycfg,sroa,early-cse),globaldce",
            &tm,
            pbo,
        )
        .map_err(|e| LlvmError::Llvm(e.to_string_lossy().into_owned()))?;
    let module = crate::import::import_module(&program)?;
    Ok(OpenClModule { module, kernels })
}

/// The builtin library's bitcode as [`compile_opencl`] links it: every definition
/// `linkonce_odr`, so that a link takes only the overloads a program calls (and what
/// they call), reading only their bodies from the lazily loaded library — thousands of
/// overloads, of which a kernel uses a handful.
pub fn library_bitcode(bitcode: &[u8]) -> Result<Vec<u8>, LlvmError> {
    let ctx = Context::create();
    let library = parse_module(&ctx, bitcode, SourceKind::OpenCl, "builtins")?;
    for f in library.get_functions() {
        if f.count_basic_blocks() > 0 {
            f.set_linkage(Linkage::LinkOnceODR);
        }
    }
    Ok(library.write_bitcode_to_memory().as_slice().to_vec())
}

/// Links `library` (from [`library_bitcode`]) into `program`, loading its functions'
/// bodies only where the link needs them.
unsafe fn link_lazily(
    ctx: &Context,
    program: &inkwell::module::Module<'_>,
    library: &[u8],
) -> Result<(), LlvmError> {
    use inkwell::llvm_sys::bit_reader::LLVMGetBitcodeModuleInContext2;
    let buf =
        inkwell::memory_buffer::MemoryBuffer::create_from_memory_range_copy(library, "builtins");
    let mut lib: LLVMModuleRef = std::ptr::null_mut();
    // The module takes the buffer (it reads bodies from it on demand).
    let raw_buf = buf.as_mut_ptr();
    std::mem::forget(buf);
    if LLVMGetBitcodeModuleInContext2(ctx.raw(), raw_buf, &mut lib) != 0 {
        return Err(LlvmError::Llvm(
            "the builtin library's bitcode does not load".into(),
        ));
    }
    if inkwell::llvm_sys::linker::LLVMLinkModules2(program.as_mut_ptr(), lib) != 0 {
        return Err(LlvmError::Llvm("linking the builtin library failed".into()));
    }
    Ok(())
}

/// LLVM 19's scalarizer splits vector loads and stores only under the process-wide option
/// `-scalarize-load-store` (its pass parameters came later). No other pipeline of lanes
/// runs the scalarizer, so setting the option once for the process changes nothing else.
fn scalarize_memory_too() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let args = [c"lanes".as_ptr(), c"-scalarize-load-store".as_ptr()];
        // SAFETY: two valid C strings; LLVM copies what it keeps.
        unsafe {
            inkwell::llvm_sys::support::LLVMParseCommandLineOptions(
                args.len() as i32,
                args.as_ptr(),
                std::ptr::null(),
            )
        };
    });
}

/// The kernels of `llm` (functions with `!kernel_arg_addr_space`) and their arguments.
unsafe fn kernel_signatures(
    ctx: &Context,
    llm: &inkwell::module::Module<'_>,
) -> Vec<KernelSignature> {
    let raw_ctx = ctx.raw();
    let kind =
        |name: &str| LLVMGetMDKindIDInContext(raw_ctx, name.as_ptr().cast(), name.len() as u32);
    let (spaces, types, quals, names) = (
        kind("kernel_arg_addr_space"),
        kind("kernel_arg_type"),
        kind("kernel_arg_type_qual"),
        kind("kernel_arg_name"),
    );
    let mut out = Vec::new();
    for f in llm.get_functions() {
        let raw = f.as_value_ref();
        let Some(space_md) = function_metadata(raw, spaces) else {
            continue;
        };
        let space_ops = md_operands(raw_ctx, space_md);
        let strings = |k: u32| {
            function_metadata(raw, k)
                .map(|md| {
                    md_operands(raw_ctx, md)
                        .into_iter()
                        .map(|v| md_string(v))
                        .collect()
                })
                .unwrap_or_default()
        };
        let (type_names, qualifiers, arg_names): (Vec<String>, Vec<String>, Vec<String>) =
            (strings(types), strings(quals), strings(names));
        let args = space_ops
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                let space = match LLVMConstIntGetZExtValue(v) {
                    1 => ArgSpace::Global,
                    2 => ArgSpace::Constant,
                    3 => ArgSpace::Local,
                    _ => ArgSpace::Private,
                };
                KernelArg {
                    name: arg_names
                        .get(i)
                        .cloned()
                        .unwrap_or_else(|| format!("arg{i}")),
                    space,
                    type_name: type_names.get(i).cloned().unwrap_or_default(),
                    qualifiers: qualifiers.get(i).cloned().unwrap_or_default(),
                }
            })
            .collect();
        out.push(KernelSignature {
            name: f.get_name().to_string_lossy().into_owned(),
            args,
        });
    }
    out
}

/// The function-level metadata node of `kind` attached to `f`, if any.
unsafe fn function_metadata(f: LLVMValueRef, kind: u32) -> Option<LLVMMetadataRef> {
    let mut n = 0usize;
    let entries = LLVMGlobalCopyAllMetadata(f, &mut n);
    if entries.is_null() {
        return None;
    }
    let found = (0..n as u32)
        .find(|&i| LLVMValueMetadataEntriesGetKind(entries, i) == kind)
        .map(|i| LLVMValueMetadataEntriesGetMetadata(entries, i));
    LLVMDisposeValueMetadataEntries(entries);
    found
}

/// The operands of metadata node `md`, as values.
unsafe fn md_operands(ctx: LLVMContextRef, md: LLVMMetadataRef) -> Vec<LLVMValueRef> {
    let node = LLVMMetadataAsValue(ctx, md);
    let n = LLVMGetMDNodeNumOperands(node) as usize;
    let mut ops = vec![std::ptr::null_mut(); n];
    LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
    ops
}

/// The text of an `MDString` operand.
unsafe fn md_string(v: LLVMValueRef) -> String {
    let mut len = 0u32;
    let p = LLVMGetMDString(v, &mut len);
    if p.is_null() {
        return String::new();
    }
    let bytes = std::slice::from_raw_parts(p.cast::<u8>(), len as usize);
    String::from_utf8_lossy(bytes).into_owned()
}
