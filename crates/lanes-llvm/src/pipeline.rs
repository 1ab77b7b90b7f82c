//! The optimization pipeline: LLVM's new pass manager, `default<O0>` … `default<O3>`.
//!
//! lanes vectorizes before LLVM sees the code, so on lanes output LLVM's own loop and SLP
//! vectorizers are usually off (ARCHITECTURE.md, "Pipelines", step 8); for a drop-in
//! `clang -c` replacement and for comparisons they can be turned on (issue 3, point 2).
//!
//! Through the LLVM-C API, LLVM 19 adds the loop and SLP vectorizers to `default<O2/3>`
//! whatever the pass-builder options say (only process-global `cl::opt`s would stop them,
//! as `opt -vectorize-loops=false` does). So the pipelines are spelled out: `pipelines/On.txt`
//! is `default<On>` as `opt-19 -passes='default<On>' -print-pipeline-passes` prints it, with
//! the loop vectorizer's parameters as `@LV@` and the SLP vectorizer as `@SLP@`, filled in
//! here (a disabled loop vectorizer only acts on loops with `llvm.loop.vectorize.enable`).

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
    /// The pass pipeline text: `default<On>` with the vectorizers as configured.
    pub fn pipeline(&self) -> String {
        let base = match self.opt_level {
            0 => return "default<O0>".to_string(),
            1 => include_str!("../pipelines/O1.txt"),
            2 => include_str!("../pipelines/O2.txt"),
            _ => include_str!("../pipelines/O3.txt"),
        };
        let lv = if self.loop_vectorize {
            "loop-vectorize<no-interleave-forced-only;no-vectorize-forced-only;>"
        } else {
            "loop-vectorize<interleave-forced-only;vectorize-forced-only;>"
        };
        let slp = if self.slp_vectorize {
            ",slp-vectorizer"
        } else {
            ""
        };
        base.trim().replace("@LV@", lv).replace(",@SLP@", slp)
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
    pbo.set_loop_interleaving(opts.loop_vectorize);
    pbo.set_loop_unrolling(opts.opt_level >= 2);
    pbo.set_verify_each(opts.verify_each);
    module
        .run_passes(&opts.pipeline(), tm, pbo)
        .map_err(|e| LlvmError::Llvm(e.to_string_lossy().into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipelines_place_the_vectorizers_as_asked() {
        for level in 1..=3u8 {
            for (lv, slp) in [(false, false), (true, false), (false, true), (true, true)] {
                let p = PipelineOptions {
                    opt_level: level,
                    loop_vectorize: lv,
                    slp_vectorize: slp,
                    verify_each: false,
                }
                .pipeline();
                assert!(!p.contains('@'), "placeholder left in O{level}");
                assert_eq!(p.contains("no-vectorize-forced-only"), lv);
                assert_eq!(p.contains("slp-vectorizer"), slp && level >= 2);
            }
        }
    }
}
