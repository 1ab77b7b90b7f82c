//! Compiling a translation unit through lanes: the drop-in for `clang-19 -c`.
//!
//! The input is imported function by function ([`lanes_llvm::import::import_partial`]);
//! under `-fopenmp-simd`/`-fopenmp` the `declare simd` variants clang announces are
//! defined (`crate::declare_simd`); loops marked parallel (`#pragma omp simd`, `#pragma
//! clang loop vectorize(assume_safety)`) are vectorized as outer loops (PLDI'18 §7,
//! [`lanes_wfv::outer_loop`]) at the target's width (or `simdlen(N)`); then lanes writes
//! its functions back into clang's module, where the functions it could not express stayed,
//! and LLVM's `default<On>` pipeline and code generator finish. A marked loop lanes cannot
//! take is left to LLVM's loop vectorizer with a warning remark.
//!
//! With `slp`, lanes' SuperVectorization (PLDI'22, [`lanes_slp`]) packs every lanes
//! function across its blocks in place of LLVM's SLP vectorizer; a function it packs
//! nothing in is left as it was, and LLVM's loop vectorizer (unless turned off, as in the
//! paper's evaluation) takes the loops it left: the fallback where its cost model sees
//! no gain.

use std::path::PathBuf;

use lanes_llvm::clang::ClangOptions;
use lanes_llvm::code_cost::TargetCostModel;
use lanes_llvm::driver::{compile_file_with, CompileOptions};
use lanes_llvm::emit::EmitKind;
use lanes_llvm::pipeline::PipelineOptions;
use lanes_llvm::target::{Target, TargetRequest};
use lanes_llvm::ExportOptions;
use lanes_wfv::chunks::split_if_large;
use lanes_wfv::outer_loop::{vectorize_parallel_loops_in, OuterLoopOptions};
use lanes_wfv::Mode;

use crate::declare_simd::define_variants;
use crate::vectorize::split_note;
use crate::{setup, DriverError, Remark, RemarkKind, Setup};

/// What to compile, for which target, into what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileRequest {
    /// The source (C, C++, OpenCL C, `.ll`, `.bc`) or `.lir` file.
    pub input: PathBuf,
    /// clang's options; `opt` is set from `opt_level` when `None`.
    pub clang: ClangOptions,
    pub target: TargetRequest,
    /// 0 to 3, for clang's front end, LLVM's pipeline and the code generator.
    pub opt_level: u8,
    /// LLVM's loop and SLP vectorizers (only from -O2 on, as clang).
    pub loop_vectorize: bool,
    pub slp_vectorize: bool,
    pub emit: EmitKind,
    /// `-fveclib=` (`libmvec`).
    pub veclib: Option<String>,
    /// Vectorize parallel loops with lanes (else LLVM's loop vectorizer sees them).
    pub outer_loops: bool,
    /// Lanes of parallel loops without `simdlen`; the target's natural width if `None`.
    pub simd_width: Option<u16>,
    /// How parallel loop bodies and `declare simd` functions are linearized (partial
    /// linearization with BOSCC gadgets where they pay, by default).
    pub mode: Mode,
    /// Vectorize with lanes' SuperVectorization (PLDI'22) in place of LLVM's SLP
    /// vectorizer (from -O2 on). LLVM's loop vectorizer, unless `loop_vectorize` turns
    /// it off, then takes only the loops it left: the loops it vectorized say so
    /// (`llvm.loop.isvectorized`). With it off, SuperVectorization alone runs, as in the
    /// paper's evaluation.
    pub slp: bool,
    /// The prices SuperVectorization weighs packs with.
    pub slp_cost: SlpCost,
}

/// The cost model of SuperVectorization's packing (PLDI'22 §4.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SlpCost {
    /// The code generator's cost model of the target (LLVM's `TargetTransformInfo`), as
    /// the paper prices packs.
    #[default]
    Target,
    /// One per instruction and per register a vector fills: the same decisions on every
    /// machine with the same register width (what the filetests use).
    Registers,
}

impl CompileRequest {
    /// A request with clang's defaults for `input` at `-O2` for the default target.
    pub fn new(input: impl Into<PathBuf>) -> CompileRequest {
        CompileRequest {
            input: input.into(),
            clang: ClangOptions::default(),
            target: TargetRequest::default(),
            opt_level: 2,
            loop_vectorize: true,
            slp_vectorize: true,
            emit: EmitKind::Object,
            veclib: None,
            outer_loops: true,
            simd_width: None,
            mode: Mode::boscc(lanes_wfv::BosccPolicy::Auto)
                .with_fusion(lanes_wfv::FusionPolicy::Auto),
            slp: false,
            slp_cost: SlpCost::Target,
        }
    }
}

/// The result of [`compile`].
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The bytes of the requested kind.
    pub bytes: Vec<u8>,
    /// Per parallel loop and per function left as LLVM IR, in order.
    pub remarks: Vec<Remark>,
    /// Notes for the user (variants not emitted, a vector library not available).
    pub notes: Vec<String>,
    /// The target the code was made for.
    pub target: Target,
    /// Per function SuperVectorization took (with `slp`), what it did.
    pub slp: Vec<(String, lanes_slp::SlpReport)>,
}

/// Compiles `req` (module docs).
pub fn compile(req: &CompileRequest) -> Result<Compiled, DriverError> {
    let opt = req.opt_level.min(3);
    let Setup {
        target,
        clang,
        veclib,
        mut notes,
    } = setup(&req.clang, &req.target, opt, req.veclib.as_deref())?;
    let openmp = clang
        .extra
        .iter()
        .any(|a| a == "-fopenmp-simd" || a == "-fopenmp");
    let opts = CompileOptions {
        clang,
        pipeline: PipelineOptions {
            opt_level: opt,
            loop_vectorize: opt >= 2 && req.loop_vectorize,
            // SuperVectorization is the SLP vectorizer: LLVM's would turn its vectors
            // built from scalar loads into slow gathers.
            slp_vectorize: opt >= 2 && req.slp_vectorize && !req.slp,
            verify_each: false,
        },
        target: target.options(opt),
        emit: req.emit,
        export: ExportOptions {
            veclib,
            fast_gather: target.wants_fast_gather(),
            vector_width_bits: None,
        },
    };
    let mut remarks = Vec::new();
    let mut slp = Vec::new();
    let compiled = compile_file_with(&req.input, &opts, |module, variants| {
        // The functions as written: `declare simd` variants are made from them, and their
        // parallel loops are vectorized (a variant's loops run per vector instance).
        let scalar: Vec<_> = module.functions().map(|(id, _)| id).collect();
        let mut internal = Vec::new();
        if openmp {
            let mut widened = Vec::new();
            internal.extend(define_variants(
                module,
                variants,
                &target,
                req.mode,
                &mut notes,
                &mut widened,
            )?);
            remarks.extend(widened.iter().map(|n| Remark::widened(&req.input, 0, n)));
        }
        if req.outer_loops {
            let before: Vec<String> = module.functions().map(|(_, f)| f.name.clone()).collect();
            let width = req.simd_width.unwrap_or_else(|| target.default_width());
            let reports = vectorize_parallel_loops_in(
                module,
                &scalar,
                &OuterLoopOptions {
                    width,
                    mode: req.mode,
                },
            );
            for r in reports {
                let widened = match &r.outcome {
                    Ok(v) => v.notes.clone(),
                    Err(_) => Vec::new(),
                };
                let line = r.line.unwrap_or(0);
                remarks.push(Remark::parallel_loop(&req.input, r));
                remarks.extend(widened.iter().map(|n| Remark::widened(&req.input, line, n)));
            }
            internal.extend(
                module
                    .functions()
                    .map(|(_, f)| f.name.clone())
                    .filter(|n| !before.contains(n)),
            );
        }
        if req.slp && opt >= 2 {
            let bits = target.vector_bits();
            let registers = lanes_slp::cost::RegisterCost {
                register_bits: bits,
            };
            let model = match req.slp_cost {
                SlpCost::Target => Some(TargetCostModel::new(
                    &target,
                    ExportOptions {
                        veclib,
                        fast_gather: false,
                        vector_width_bits: None,
                    },
                )?),
                SlpCost::Registers => None,
            };
            // One price cache for the module: a price depends on the instruction's
            // kind and types only, which functions share.
            let target_prices = model
                .as_ref()
                .map(|m| lanes_slp::target_cost::TargetCost::new(m, bits));
            let cost: &dyn lanes_slp::cost::CostModel = match &target_prices {
                Some(prices) => prices,
                None => &registers,
            };
            for &id in &scalar {
                supervectorize_in(module, id, cost, &req.input, &mut remarks, &mut slp);
            }
        }
        if !target.has_mask_registers() {
            lanes_wfv::lane_masks::lane_width_masks_in(module, target.vector_bits());
        }
        // Very long functions go to LLVM in pieces it compiles in linear time; at -O0
        // its fast instruction selection and allocation are linear already, and a
        // debugger should see the function as written.
        if opt >= 1 {
            let ids: Vec<_> = module.functions().map(|(id, _)| id).collect();
            for id in ids {
                let pieces = split_if_large(module, id);
                if !pieces.is_empty() {
                    notes.push(split_note(module.funcs[id].name(), pieces.len()));
                    internal.extend(pieces.iter().map(|&p| module.funcs[p].name().to_string()));
                }
            }
        }
        Ok::<_, DriverError>(internal)
    })?;
    for kept in &compiled.kept {
        remarks.push(Remark::kept_as_llvm(&req.input, kept));
    }
    Ok(Compiled {
        bytes: compiled.bytes,
        remarks,
        notes,
        target,
        slp,
    })
}

/// SuperVectorizes function `id` of `module` in place (if it has a body), with remarks.
fn supervectorize_in(
    module: &mut lanes_ir::Module,
    id: lanes_ir::FuncId,
    cost: &dyn lanes_slp::cost::CostModel,
    input: &std::path::Path,
    remarks: &mut Vec<Remark>,
    reports: &mut Vec<(String, lanes_slp::SlpReport)>,
) {
    let Some(f) = module.function(id).filter(|f| f.entry_block().is_some()) else {
        return;
    };
    let name = f.name.clone();
    match lanes_slp::supervectorize_with(f, cost) {
        Ok((vectorized, report)) => {
            for (line, why) in &report.rejected {
                remarks.push(Remark::slp_not_packed(input, &name, *line, why));
            }
            if report.packs > 0 {
                // A function the verifier refuses is never exported: it stays as it was,
                // with a warning that names the broken invariant (a lanes bug).
                if let Err(e) = lanes_ir::verifier::verify_function(module, &vectorized) {
                    let why = lanes_slp::SlpError::Invalid {
                        func: name.clone(),
                        message: format!(
                            "internal error, the vectorized function does not verify: {e}"
                        ),
                    };
                    let mut r = Remark::slp_declined(input, &name, &why);
                    r.kind = RemarkKind::Warning;
                    remarks.push(r);
                    return;
                }
                remarks.push(Remark::slp_packed(input, &name, &report));
                if let Some(slot) = module.function_mut(id) {
                    *slot = vectorized;
                }
            }
            reports.push((name, report));
        }
        Err(e) => remarks.push(Remark::slp_declined(input, &name, &e)),
    }
}
