//! The optimization pipeline: LLVM's new pass manager, `default<O0>` … `default<O3>`.
//!
//! lanes vectorizes before LLVM sees the code, so on lanes output LLVM's own loop and SLP
//! vectorizers are usually off (ARCHITECTURE.md, "Pipelines", step 8); for a drop-in
//! `clang -c` replacement and for comparisons they can be turned on (issue 3, point 2).

use inkwell::module::Module as LlModule;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::TargetMachine;

use crate::error::LlvmError;

/// What the pipeline runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipelineOptions {
    /// 0 to 3, as in `-O0` … `-O3`.
    pub opt_level: u8,
    /// LLVM's loop vectorizer.
    pub loop_vectorize: bool,
    /// LLVM's SLP vectorizer.
    pub slp_vectorize: bool,
    /// Verify the module after each pass (slow; for debugging).
    pub verify_each: bool,
}

impl Default for PipelineOptions {
    /// `-O2` with both of LLVM's vectorizers on, as clang does.
    fn default() -> Self {
        PipelineOptions {
            opt_level: 2,
            loop_vectorize: true,
            slp_vectorize: true,
            verify_each: false,
        }
    }
}

impl PipelineOptions {
    /// The pass pipeline text: `default<On>`.
    pub fn pipeline(&self) -> String {
        format!("default<O{}>", self.opt_level.min(3))
    }
}

/// Verifies `module`; LLVM's message on failure.
pub fn verify(module: &LlModule<'_>) -> Result<(), LlvmError> {
    module
        .verify()
        .map_err(|e| LlvmError::Llvm(format!("invalid module: {}", e.to_string_lossy())))
}

/// Runs the pipeline on `module` for target `tm`.
pub fn optimize(
    module: &LlModule<'_>,
    tm: &TargetMachine,
    opts: &PipelineOptions,
) -> Result<(), LlvmError> {
    verify(module)?;
    let pbo = PassBuilderOptions::create();
    pbo.set_loop_vectorization(opts.loop_vectorize);
    pbo.set_loop_slp_vectorization(opts.slp_vectorize);
    pbo.set_loop_unrolling(opts.opt_level >= 2);
    pbo.set_verify_each(opts.verify_each);
    module
        .run_passes(&opts.pipeline(), tm, pbo)
        .map_err(|e| LlvmError::Llvm(e.to_string_lossy().into_owned()))
}
