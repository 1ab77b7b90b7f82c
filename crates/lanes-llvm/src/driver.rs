//! The two user-facing flows, shared by `lanes import`, `lanes compile` and the tests.
//!
//! - [`import_file`]: source or LLVM file → verified lanes IR;
//! - [`compile_file`]: the same import, then export with the original ABI, the new-PM
//!   pipeline and code generation — a drop-in for `clang-19 -c` on supported code
//!   (issue 3, point 2). `.lir` files compile too, which is how vector IR reaches LLVM.

use std::path::Path;

use inkwell::context::Context;

use lanes_ir::Module;

use crate::clang::{load_module, ClangOptions, SourceKind};
use crate::emit::{configure_module, emit, target_machine, EmitKind, TargetOptions};
use crate::error::LlvmError;
use crate::pipeline::{optimize, verify, PipelineOptions};

/// Everything `lanes compile` needs to know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileOptions {
    pub clang: ClangOptions,
    pub pipeline: PipelineOptions,
    pub target: TargetOptions,
    pub emit: EmitKind,
}

/// Reads `path` as lanes IR: `.lir` is parsed and verified, anything else is imported.
pub fn import_file(path: &Path, clang: &ClangOptions) -> Result<Module, LlvmError> {
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
        return Ok(module);
    }
    if SourceKind::of(path).is_none() {
        return Err(LlvmError::UnknownInput(path.to_path_buf()));
    }
    let ctx = Context::create();
    let llm = load_module(&ctx, path, clang)?;
    crate::import::import_module(&llm)
}

/// Compiles a lanes module to the bytes of `opts.emit`.
pub fn compile_module(
    module: &Module,
    name: &str,
    opts: &CompileOptions,
) -> Result<Vec<u8>, LlvmError> {
    let ctx = Context::create();
    let llm = crate::export::export_module(&ctx, module, name)?;
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
