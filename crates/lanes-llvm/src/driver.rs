//! The two user-facing flows, shared by `lanes import`, `lanes compile` and the tests.
//!
//! - [`import_file`]: source or LLVM file → verified lanes IR;
//! - [`compile_file`]: the same import, then export with the original ABI, the new-PM
//!   pipeline and code generation — a drop-in for `clang-19 -c` on supported code
//!   (issue 3, point 2). `.lir` files compile too, which is how vector IR reaches LLVM.

use std::path::Path;

use inkwell::attributes::AttributeLoc;
use inkwell::context::Context;

use lanes_ir::Module;

use crate::clang::{load_module, ClangOptions, SourceKind};
use crate::emit::{configure_module, emit, target_machine, EmitKind, TargetOptions};
use crate::error::LlvmError;
use crate::export::ExportOptions;
use crate::pipeline::{optimize, verify, PipelineOptions};

/// Everything `lanes compile` needs to know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileOptions {
    pub clang: ClangOptions,
    pub pipeline: PipelineOptions,
    pub target: TargetOptions,
    pub emit: EmitKind,
    /// Export choices (`-fveclib=`); they must agree with `target`.
    pub export: ExportOptions,
}

/// Reads `path` as lanes IR: `.lir` is parsed and verified, anything else is imported.
pub fn import_file(path: &Path, clang: &ClangOptions) -> Result<Module, LlvmError> {
    import_file_with_variants(path, clang).map(|(m, _)| m)
}

/// [`import_file`], and the vector-function-ABI variants that clang attached to functions
/// as string attributes (`"_ZGVdN8vu_f"`; clang emits them for `#pragma omp declare simd`
/// under `-fopenmp` or `-fopenmp-simd`), as `(function, variant)` pairs in module order.
pub fn import_file_with_variants(
    path: &Path,
    clang: &ClangOptions,
) -> Result<(Module, Vec<(String, String)>), LlvmError> {
    if path.extension().is_some_and(|e| e == "lir") {
        let text = std::fs::read_to_string(path).map_err(|e| LlvmError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        let module = lanes_ir::parse_module(&text).map_err(|e| LlvmError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        lanes_ir::verifier::verify_module(&module).map_err(|e| LlvmError::Verify(e.to_string()))?;
        return Ok((module, Vec::new()));
    }
    if SourceKind::of(path).is_none() {
        return Err(LlvmError::UnknownInput(path.to_path_buf()));
    }
    let ctx = Context::create();
    let llm = load_module(&ctx, path, clang)?;
    let mut variants = Vec::new();
    for f in llm.get_functions() {
        for a in f.attributes(AttributeLoc::Function) {
            if !a.is_string() {
                continue;
            }
            let kind = a.get_string_kind_id().to_string_lossy();
            if kind.starts_with("_ZGV") {
                let name = f.get_name().to_string_lossy().into_owned();
                variants.push((name, kind.into_owned()));
            }
        }
    }
    Ok((crate::import::import_module(&llm)?, variants))
}

/// Compiles a lanes module to the bytes of `opts.emit`.
pub fn compile_module(
    module: &Module,
    name: &str,
    opts: &CompileOptions,
) -> Result<Vec<u8>, LlvmError> {
    compile_module_internalizing(module, name, opts, &[])
}

/// [`compile_module`], with the functions named in `internal` given internal linkage
/// (helpers a transformation added that must not clash between objects).
pub fn compile_module_internalizing(
    module: &Module,
    name: &str,
    opts: &CompileOptions,
    internal: &[String],
) -> Result<Vec<u8>, LlvmError> {
    let ctx = Context::create();
    let llm = crate::export::export_module_with(&ctx, module, name, &opts.export)?;
    for f in llm.get_functions() {
        if f.count_basic_blocks() > 0
            && internal
                .iter()
                .any(|n| f.get_name().to_bytes() == n.as_bytes())
        {
            f.set_linkage(inkwell::module::Linkage::Internal);
        }
    }
    let tm = target_machine(&opts.target)?;
    configure_module(&llm, &tm);
    verify(&llm)?;
    optimize(&llm, &tm, &opts.pipeline)?;
    emit(&llm, &tm, opts.emit)
}

/// Imports `path` and compiles it.
pub fn compile_file(path: &Path, opts: &CompileOptions) -> Result<Vec<u8>, LlvmError> {
    let module = import_file(path, &opts.clang)?;
    let name = path
        .file_name()
        .map_or_else(|| "lanes".to_string(), |n| n.to_string_lossy().into_owned());
    compile_module(&module, &name, opts)
}
