//! The optimization pipeline: LLVM's new pass manager, `default<O0>` … `default<O3>`.
//!
//! lanes vectorizes before LLVM sees the code, so on lanes output LLVM's own loop and SLP
//! vectorizers are usually off (ARCHITECTURE.md, "Pipelines", step 8); for a drop-in
//! `clang -c` replacement and for comparisons they can be turned on.
//!
//! Through the LLVM-C API, LLVM 19 adds the loop and SLP vectorizers to `default<O2/3>`
//! whatever the pass-builder options say (only process-global `cl::opt`s would stop them,
//! as `opt -vectorize-loops=false` does). So the pipelines are spelled out: `pipelines/On.txt`
//! is `default<On>` as `opt-19 -passes='default<On>' -print-pipeline-passes` prints it, with
//! the loop vectorizer's parameters as `@LV@` and the SLP vectorizer as `@SLP@`, filled in
//! here (a disabled loop vectorizer only acts on loops with `llvm.loop.vectorize.enable`).
//!
//! A compilation must not optimize twice what clang already optimized: clang's `-O2` has
//! run the whole pipeline except LLVM's vectorizers and partial and runtime unrolling
//! (kept off so that lanes sees scalar loops; full unrolling of constant-trip-count loops
//! stays on), so a function lanes did not change needs only the second half of
//! `default<On>`, the module optimization pipeline (`elim-avail-extern` on: the loop and
//! SLP vectorizers, the unroller and their clean-ups), while a function lanes changed or
//! made needs all of it ([`optimize_changed`]). Each half runs over the module with the
//! functions it must not touch marked `optnone` (and `noinline`) for its duration.

use std::collections::HashSet;

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Module as LlModule;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::TargetMachine;
use inkwell::values::FunctionValue;

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

    /// The module optimization half of [`PipelineOptions::pipeline`] (from
    /// `elim-avail-extern` on), what follows function simplification; `None` at `-O0`.
    pub fn late_pipeline(&self) -> Option<String> {
        let full = self.pipeline();
        let at = full.find(",elim-avail-extern,")?;
        Some(full[at + 1..].to_string())
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
    run_text(module, tm, opts, &opts.pipeline())
}

/// Runs the pipeline on `module` so that no function is optimized twice (module docs):
/// the whole pipeline on the defined functions named in `changed`, the module
/// optimization half on the others (clang's already optimized functions).
pub fn optimize_changed(
    module: &LlModule<'_>,
    tm: &TargetMachine,
    opts: &PipelineOptions,
    changed: &HashSet<String>,
) -> Result<(), LlvmError> {
    let Some(late) = opts.late_pipeline() else {
        return optimize(module, tm, opts);
    };
    // Collected afresh for each run: the first may delete functions (inlined, dead).
    let defined = |want_changed: bool| -> Vec<FunctionValue<'_>> {
        module
            .get_functions()
            .filter(|f| f.count_basic_blocks() > 0)
            .filter(|f| changed.contains(&*f.get_name().to_string_lossy()) == want_changed)
            .collect()
    };
    if !defined(true).is_empty() {
        let guard = Frozen::freeze(module, &defined(false));
        let run = optimize(module, tm, opts);
        guard.thaw();
        run?;
    }
    if !defined(false).is_empty() {
        let guard = Frozen::freeze(module, &defined(true));
        let run = run_text(module, tm, opts, &late);
        guard.thaw();
        run?;
    }
    Ok(())
}

/// Functions marked `optnone` + `noinline` for one pipeline run, with what was added (by
/// name: the run may delete a function, dead after inlining elsewhere).
struct Frozen<'m, 'ctx> {
    module: &'m LlModule<'ctx>,
    added: Vec<(String, u32)>,
}

impl<'m, 'ctx> Frozen<'m, 'ctx> {
    fn freeze(module: &'m LlModule<'ctx>, funcs: &[FunctionValue<'ctx>]) -> Frozen<'m, 'ctx> {
        let ctx = module.get_context();
        let kind = |name: &str| Attribute::get_named_enum_kind_id(name);
        let (optnone, noinline, always) = (kind("optnone"), kind("noinline"), kind("alwaysinline"));
        let mut added = Vec::new();
        for &f in funcs {
            let has = |k: u32| f.get_enum_attribute(AttributeLoc::Function, k).is_some();
            // `optnone` requires `noinline`, which `alwaysinline` excludes: such a
            // function is simply optimized again.
            if has(always) || has(optnone) {
                continue;
            }
            for k in [optnone, noinline] {
                if !has(k) {
                    f.add_attribute(AttributeLoc::Function, ctx.create_enum_attribute(k, 0));
                    added.push((f.get_name().to_string_lossy().into_owned(), k));
                }
            }
        }
        Frozen { module, added }
    }

    fn thaw(self) {
        for (name, k) in self.added {
            if let Some(f) = self.module.get_function(&name) {
                f.remove_enum_attribute(AttributeLoc::Function, k);
            }
        }
    }
}

/// Runs pipeline text `passes` with the options of `opts`.
fn run_text(
    module: &LlModule<'_>,
    tm: &TargetMachine,
    opts: &PipelineOptions,
    passes: &str,
) -> Result<(), LlvmError> {
    verify(module)?;
    let pbo = PassBuilderOptions::create();
    pbo.set_loop_vectorization(opts.loop_vectorize);
    pbo.set_loop_slp_vectorization(opts.slp_vectorize);
    pbo.set_loop_interleaving(opts.loop_vectorize);
    pbo.set_loop_unrolling(opts.opt_level >= 2);
    pbo.set_verify_each(opts.verify_each);
    module
        .run_passes(passes, tm, pbo)
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
                let late = PipelineOptions {
                    opt_level: level,
                    loop_vectorize: lv,
                    slp_vectorize: slp,
                    verify_each: false,
                }
                .late_pipeline()
                .expect("a second half");
                assert!(late.starts_with("elim-avail-extern,") && p.ends_with(&late));
                assert_eq!(late.contains("slp-vectorizer"), slp && level >= 2);
                assert!(
                    !late.contains("inline"),
                    "O{level}: the inliner is in the first half"
                );
            }
        }
    }
}
