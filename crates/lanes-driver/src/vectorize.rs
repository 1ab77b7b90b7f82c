//! Vectorizing one SPMD function: its vector-function-ABI variant and its launcher.
//!
//! The function is imported (C, OpenCL C, `.ll`, `.bc`, `.lir`), control-flow vectorized
//! by lanes-wfv (partial linearization, PLDI'18 §3–5, or full if-conversion) and widened to
//! `W` lanes (CC'12 §3.3). The result is named by the x86 vector-function ABI
//! ([`lanes_wfv::vfabi`]) for the target's ISA: `_ZGV` + ISA + `N` + `W` + one letter per
//! parameter + `_` + the name, e.g. `_ZGVeN16vu_F`.
//!
//! When exactly one parameter is contiguous (the instance index) and the others are
//! uniform, a launcher `F_spmd` with `F`'s signature is defined too, where the index is a
//! count: `F_spmd(…, n, …)` runs `F(…, i, …)` for `i` in `0..n`, `W` instances at a time,
//! the lanes past `n` masked off ([`lanes_wfv::outer_loop::launcher`]). Every other
//! function of the module is internalized, so objects made for several functions of one
//! source file link into one program.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Instant;

use lanes_interp::runline::ArgSpec;
use lanes_ir::branch_profile::fingerprint;
use lanes_ir::{BranchProfile, ExternFunc, FuncEntry, FuncId, InstData, Module, Shape};
use lanes_llvm::c_params::c_signature;
use lanes_llvm::clang::ClangOptions;
use lanes_llvm::driver::{compile_module_exporting, import_file_partial, CompileOptions};
use lanes_llvm::emit::EmitKind;
use lanes_llvm::pipeline::PipelineOptions;
use lanes_llvm::target::{Target, TargetRequest};
use lanes_llvm::ExportOptions;
use lanes_simt::precision::{branch_profile, ProfileConfig};
use lanes_wfv::chunks::{split_if_large, PIECE_INSTS};
use lanes_wfv::outer_loop::{launcher, unmasked_through_masked};
use lanes_wfv::vfabi::{mangle, VParam};
use lanes_wfv::{Mode, VariantSpec, VariantStats, WidenReport};

use crate::declare_simd::widen_variant;
use crate::param_shapes::{needs_c_signature, parameter_shapes_with};
use crate::phases::PhaseTimes;
use crate::remarks::Remark;
use crate::{setup, DriverError, Setup};

/// What `vectorize` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// lanes IR text (the vectorized module before LLVM).
    Lir,
    /// Through LLVM: object, assembly, LLVM IR or bitcode.
    Llvm(EmitKind),
}

/// Which function to vectorize, with which parameter shapes, for which target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VectorizeRequest {
    pub input: PathBuf,
    pub clang: ClangOptions,
    pub target: TargetRequest,
    /// The function (with or without `@`); the only one the file defines if `None`.
    pub function: Option<String>,
    /// Parameter shapes as `lanes vectorize --shapes` takes them (`c,u,v`, `n=u,out=v`),
    /// one per C parameter for C, C++ and OpenCL C input ([`crate::param_shapes`]); all
    /// varying if `None`.
    pub shapes: Option<String>,
    /// Lanes; the target's natural width for 32-bit elements if `None`.
    pub width: Option<u16>,
    pub mode: Mode,
    pub opt_level: u8,
    pub veclib: Option<String>,
    pub output: Output,
    /// Counts of a SIMT run of the function at `width` lanes ([`spmd_module`] imports
    /// the module it ran), which decide its empty-mask skips under `--linearize
    /// reconverge`; the static estimate decides without.
    pub branch_profile: Option<BranchProfile>,
    /// Or a training run that makes those counts: the function in lanes' SIMT
    /// interpreter at the vector width, on these arguments, after the import.
    pub training_run: Option<TrainingRun>,
}

/// A profile-guided build's training run: `groups` waves of the function, each lane's
/// arguments made from lane 0's `args` (`lanes interp` notation) by the parameters'
/// shapes (contiguous ones step by one per lane, varying ones vary), or generated from
/// `seed` if there are none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrainingRun {
    pub args: Option<Vec<ArgSpec>>,
    pub groups: u64,
    pub seed: u64,
}

/// The result of [`vectorize`].
#[derive(Clone, Debug)]
pub struct Vectorized {
    pub bytes: Vec<u8>,
    /// The externally visible functions: the variant, and the launcher if any.
    pub exported: Vec<String>,
    /// Notes for the user (no launcher, a vector library not available).
    pub notes: Vec<String>,
    /// Where the vector code has gathers, scatters or code run once per lane, and why.
    pub remarks: Vec<Remark>,
    /// PLDI'18 Table 1 for each vector function made (the variant, the masked body, the
    /// callees' variants).
    pub stats: Vec<VariantStats>,
    pub target: Target,
    /// Wall time per phase (`-ftime-report`).
    pub times: PhaseTimes,
}

/// Adds the clang options that keep the SPMD function's loops loops until lanes has
/// vectorized them: clang's full unrolling would turn a short loop with a divergent
/// early exit (a retry loop, a search) into a cascade of divergent exits whose live
/// values are blended at every copy, where the loop costs one mask update per iteration
/// (ambient occlusion's sample retries: 1.18x ISPC's time unrolled, 1.01x as a loop).
/// The vector function then runs the whole optimization pipeline, which fully unrolls
/// what is still counted. First, so that a `-funroll-loops` of the user's comes after
/// and wins.
/// Its `int` counters stay 32-bit too: clang's induction-variable widening turns the
/// int index `4 * k` of `sph[4 * k + j]`, which C promises does not overflow, into
/// 64-bit arithmetic that may, and the vector function then gathers with 64-bit
/// indices (two `vgatherqps` per 16 lanes where a 32-bit index takes one
/// `vgatherdps`). The vector function's own pipeline widens the uniform counters.
fn keep_scalar_loops(clang: &mut ClangOptions) {
    let scalar_loops = [
        "-fno-unroll-loops",
        "-mllvm",
        "-indvars-widen-indvars=false",
    ];
    clang.extra.splice(0..0, scalar_loops.map(String::from));
}

/// The module [`vectorize`] would import for `req`, before any of lanes' passes: what a
/// SIMT run must profile for [`VectorizeRequest::branch_profile`] (the same blocks).
pub fn spmd_module(req: &VectorizeRequest) -> Result<Module, DriverError> {
    let mut clang = setup(
        &req.clang,
        &req.target,
        req.opt_level.min(3),
        req.veclib.as_deref(),
    )?
    .clang;
    keep_scalar_loops(&mut clang);
    Ok(import_file_partial(&req.input, &clang)?.module)
}

/// The branch counts of function `id` of `module` in `run`, at `width` lanes with the
/// parameters' `shapes`; an error if a lane faulted (its counts would be cut short).
fn train(
    module: &Module,
    id: FuncId,
    shapes: &[Option<(Shape, u32)>],
    width: u16,
    run: &TrainingRun,
) -> Result<BranchProfile, DriverError> {
    let cfg = ProfileConfig {
        width: usize::from(width),
        groups: run.groups.max(1),
        seed: run.seed,
        ..ProfileConfig::default()
    };
    let plain: Vec<Option<Shape>> = shapes.iter().map(|s| s.map(|(s, _)| s)).collect();
    let failed = |message: String| DriverError::Profile {
        function: module.funcs[id].name().to_string(),
        message,
    };
    let (profile, faults) = branch_profile(module, id, &plain, run.args.as_deref(), &cfg)
        .map_err(|e| failed(e.to_string()))?;
    match faults.first() {
        None => Ok(profile),
        Some((group, lane, error)) => Err(failed(format!(
            "{} lane(s) faulted, the first lane {lane} of wave {group}: {error}; give arguments that the function runs on with --profile-arg",
            faults.len()
        ))),
    }
}

/// The function `name` (with or without a leading `@`), or the only defined one.
pub fn select_function(module: &Module, name: Option<&str>) -> Result<FuncId, DriverError> {
    let defined: Vec<(FuncId, &str)> = module
        .functions()
        .map(|(id, f)| (id, f.name.as_str()))
        .collect();
    let names = || {
        let all: Vec<String> = defined.iter().map(|(_, f)| format!("@{f}")).collect();
        if all.is_empty() {
            "none".to_string()
        } else {
            all.join(", ")
        }
    };
    match name.map(|n| n.strip_prefix('@').unwrap_or(n)) {
        Some(n) => defined
            .iter()
            .find(|(_, f)| *f == n)
            .map(|&(id, _)| id)
            .ok_or_else(|| {
                DriverError::Function(format!("no function @{n}; the file defines {}", names()))
            }),
        None => match defined.as_slice() {
            [(id, _)] => Ok(*id),
            [] => Err(DriverError::Function(
                "the file defines no function".to_string(),
            )),
            _ => Err(DriverError::Function(format!(
                "the file defines {} functions ({}); choose one with --function",
                defined.len(),
                names()
            ))),
        },
    }
}

/// Vectorizes `req` (module docs).
pub fn vectorize(req: &VectorizeRequest) -> Result<Vectorized, DriverError> {
    let opt = req.opt_level.min(3);
    let Setup {
        target,
        mut clang,
        veclib,
        mut notes,
    } = setup(&req.clang, &req.target, opt, req.veclib.as_deref())?;
    keep_scalar_loops(&mut clang);
    let mut times = PhaseTimes::default();
    // `--shapes` by C parameter reads the C signature from a second, `-O0 -g` compile of
    // the source; when the function is named it runs beside the optimizing import.
    let early_name = req
        .function
        .as_deref()
        .map(|n| n.strip_prefix('@').unwrap_or(n));
    let (imported, early_signature) = std::thread::scope(|scope| {
        let signature = early_name
            .filter(|_| req.shapes.is_some() && needs_c_signature(&req.input))
            .map(|name| {
                scope.spawn(|| {
                    let start = Instant::now();
                    let sig = c_signature(&req.input, &clang, name);
                    (sig, start.elapsed())
                })
            });
        let module = times.time("front end and import (clang, LLVM IR to lanes IR)", || {
            import_file_partial(&req.input, &clang)
        });
        (module, signature.map(|handle| handle.join()))
    });
    let imported = imported?;
    if let Some(kept) = req.function.as_deref().and_then(|name| {
        let name = name.strip_prefix('@').unwrap_or(name);
        imported.kept.iter().find(|k| k.name == name)
    }) {
        return Err(DriverError::Vectorize {
            function: kept.name.clone(),
            message: format!("lanes IR cannot express it: {}", kept.reason),
        });
    }
    let mut module = imported.module;
    let id = select_function(&module, req.function.as_deref())?;
    self_contained(&module, id, &imported.kept, &imported.opaque_globals)?;
    let scalar = module
        .function(id)
        .cloned()
        .ok_or_else(|| DriverError::Function("the function has no body".into()))?;
    let signature = match early_signature {
        Some(Ok((sig, time))) => {
            times.record("C parameter signature (clang -O0 -g)", time, true);
            Some(sig?)
        }
        Some(Err(panic)) => std::panic::resume_unwind(panic),
        None => None,
    };
    let n = scalar.params.len();
    let shapes: Vec<Option<(Shape, u32)>> = match &req.shapes {
        Some(text) => parameter_shapes_with(&req.input, &clang, &scalar, text, signature)?,
        None => vec![Some((Shape::Varying, 0)); n],
    };
    let width = req.width.unwrap_or_else(|| target.default_width());
    let trained = match &req.training_run {
        Some(run) => Some(train(&module, id, &shapes, width, run)?),
        None => None,
    };
    if let Some(profile) = req.branch_profile.as_ref().or(trained.as_ref()) {
        if profile.width != u32::from(width) {
            return Err(DriverError::Vectorize {
                function: scalar.name.clone(),
                message: format!(
                    "the branch profile was counted with {} lanes and the function is vectorized with {width}; profile it at this width",
                    profile.width
                ),
            });
        }
        if profile.fingerprint != fingerprint(&module, &scalar) {
            return Err(DriverError::Vectorize {
                function: scalar.name.clone(),
                message: "the branch profile was counted on another import of the function (its instructions differ); profile the module `spmd_module` imports".into(),
            });
        }
        if let Some(f) = module.function_mut(id) {
            f.branch_profile = Some(profile.clone());
        }
    }
    // The unmasked vector variant.
    let plain: Vec<Option<Shape>> = shapes.iter().map(|s| s.map(|(s, _)| s)).collect();
    let isa = target.vfabi_isa(u32::from(width) * 32);
    // Contiguous and strided parameters are the ABI's linear ones (lane 0's value).
    let params: Vec<VParam> = shapes
        .iter()
        .map(|s| VParam::of_shape(s.map(|(s, _)| s), s.map_or(0, |(_, a)| a), true))
        .collect();
    let vname = mangle(&scalar.name, isa, width, &params);
    // The masked body repeats the unmasked variant's remarks: one report for both.
    let mut widened = WidenReport::default();
    let unmasked = times.time("vectorize: the unmasked variant (lanes-wfv)", || {
        let spec = VariantSpec {
            shapes: &shapes,
            mode: req.mode,
            width,
            masked: false,
            name: &vname,
            linear: true,
        };
        widen_variant(&mut module, id, &spec, &mut widened)
    })?;
    let mut exported = vec![vname];
    let mut vector_ids = vec![unmasked];
    // The launcher, when one parameter is the instance index and the others uniform.
    let index: Vec<usize> = (0..n)
        .filter(|&i| plain[i] != Some(Shape::Uniform))
        .collect();
    match index[..] {
        [idx]
            if plain[idx] == Some(Shape::Contiguous)
                && scalar.ret.is_none()
                && scalar.dfg.value_type(scalar.params[idx].value).is_int() =>
        {
            let name = format!("{}_spmd", scalar.name);
            let body_name = format!("{}.masked.w{width}", scalar.name);
            let body = times.time("vectorize: the masked body (lanes-wfv)", || {
                let spec = VariantSpec {
                    shapes: &shapes,
                    mode: req.mode,
                    width,
                    masked: true,
                    name: &body_name,
                    linear: true,
                };
                widen_variant(&mut module, id, &spec, &mut widened)
            })?;
            vector_ids.push(body);
            module.define(launcher(&scalar, &name, unmasked, body, idx, width));
            exported.push(name);
            if let Some(size) = one_body_size(&module, body, &target) {
                let plain_variant = module.function(unmasked).expect("widened variant");
                let through = unmasked_through_masked(plain_variant, body, width);
                *module.function_mut(unmasked).expect("widened variant") = through;
                notes.push(format!(
                    "note: {} runs the masked body with every lane on ({size} instructions: one copy of the code instead of two)",
                    exported[0]
                ));
            }
        }
        _ => notes.push(format!(
            "note: no {}_spmd launcher (it needs a void function whose only non-uniform parameter is a contiguous integer)",
            scalar.name
        )),
    }
    if !target.has_mask_registers() {
        times.time("masks as lane-width integers (no mask registers)", || {
            lanes_wfv::lane_masks::lane_width_masks_in(&mut module, target.vector_bits())
        });
    }
    // At -O0 LLVM selects and allocates with its fast, linear-time methods: no split.
    for id in vector_ids.into_iter().filter(|_| opt >= 1) {
        let start = Instant::now();
        let pieces = split_if_large(&mut module, id).len();
        if pieces > 0 {
            times.record(
                "split into pieces for LLVM (lanes-wfv)",
                start.elapsed(),
                false,
            );
            notes.push(split_note(module.funcs[id].name(), pieces));
        }
    }
    times
        .time("verify the vector module", || {
            lanes_ir::verifier::verify_module(&module)
        })
        .map_err(|e| DriverError::Internal(e.to_string()))?;
    if matches!(req.output, Output::Llvm(_)) {
        // Only what the exported functions reach goes to LLVM: the scalar function and
        // the masked scalar body the variants were made from are as large as the input
        // and would be exported, verified and deleted again as dead.
        drop_unreached(&mut module, &exported);
    }
    let bytes = match req.output {
        Output::Lir => times.time("write lanes IR", || {
            lanes_ir::write::module_to_string(&module).into_bytes()
        }),
        Output::Llvm(emit) => {
            let opts = CompileOptions {
                clang,
                pipeline: PipelineOptions {
                    opt_level: opt,
                    loop_vectorize: false,
                    slp_vectorize: false,
                    verify_each: false,
                },
                target: target.vector_code_options(opt),
                emit,
                export: ExportOptions {
                    veclib,
                    fast_gather: false,
                    vector_width_bits: Some(u32::from(width) * 32),
                },
            };
            let name = req
                .input
                .file_name()
                .map_or_else(|| "lanes".into(), |n| n.to_string_lossy().into_owned());
            times.time("LLVM: export, optimization, code generation", || {
                compile_module_exporting(&module, &name, &opts, &exported)
            })?
        }
    };
    let remarks = widened
        .notes
        .iter()
        .map(|n| Remark::widened(&req.input, 0, n))
        .collect();
    Ok(Vectorized {
        bytes,
        exported,
        notes,
        remarks,
        stats: widened.variants,
        target,
        times,
    })
}

/// The functions `root` calls or takes the address of, directly or not, itself included.
fn reached(module: &Module, root: FuncId) -> HashSet<FuncId> {
    let mut reached: HashSet<FuncId> = HashSet::new();
    let mut work = vec![root];
    while let Some(id) = work.pop() {
        if !reached.insert(id) {
            continue;
        }
        let Some(f) = module.function(id) else {
            continue;
        };
        for i in f.dfg.insts() {
            if let InstData::Call { func, .. } | InstData::FuncAddr { func } = f.dfg.inst(i) {
                work.push(*func);
            }
        }
    }
    reached
}

/// Refuses to vectorize `id` when it (or a function it reaches) needs what the import
/// left to LLVM: a function lanes IR cannot express, or a global whose initializer it
/// cannot (`lanes vectorize` writes a module of its own, without clang's). The rest of
/// the file does not matter.
fn self_contained(
    module: &Module,
    id: FuncId,
    kept: &[lanes_llvm::import::KeptFunction],
    opaque_globals: &[String],
) -> Result<(), DriverError> {
    let function = module.funcs[id].name().to_string();
    for f in reached(module, id) {
        let name = module.funcs[f].name();
        // How the function at hand reaches `name`.
        let via = if f == id {
            "it".to_string()
        } else {
            format!("it calls @{name}, which")
        };
        if let Some(k) = kept.iter().find(|k| k.name == name) {
            return Err(DriverError::Vectorize {
                function,
                message: format!(
                    "it calls @{name}, which lanes IR cannot express: {}",
                    k.reason
                ),
            });
        }
        let Some(body) = module.function(f) else {
            continue;
        };
        for i in body.dfg.insts() {
            if let InstData::GlobalAddr { global } = body.dfg.inst(i) {
                let g = &module.globals[*global].name;
                if opaque_globals.contains(g) {
                    return Err(DriverError::Vectorize {
                        function,
                        message: format!(
                            "{via} uses the global @{g}, whose contents lanes IR cannot \
                             express (an initializer holding addresses, or a declaration)"
                        ),
                    });
                }
            }
        }
    }
    Ok(())
}

/// Turns every defined function that the functions named in `roots` do not reach (by
/// calls and function addresses) into a declaration; ids stay valid.
pub fn drop_unreached(module: &mut Module, roots: &[String]) {
    let reached: HashSet<FuncId> = module
        .functions()
        .filter(|(_, f)| roots.contains(&f.name))
        .map(|(id, _)| id)
        .collect::<Vec<_>>()
        .into_iter()
        .flat_map(|root| reached(module, root))
        .collect();
    for (id, entry) in module.funcs.iter_mut() {
        if let FuncEntry::Defined(f) = entry {
            if !reached.contains(&id) {
                *entry = FuncEntry::Declared(ExternFunc {
                    name: f.name.clone(),
                    sig: f.signature(),
                });
            }
        }
    }
}

/// Masked bodies of at least this many instructions also serve as the unmasked variant.
/// Around 10k vector instructions the machine code (over 50 KB) is beyond a level-1
/// instruction cache, so a second copy buys nothing at run time, while its LLVM
/// optimization and code generation cost as much as the first and grow faster than
/// linearly (very long blocks after linearization).
const ONE_BODY_MIN_INSTS: usize = 10_000;

/// The size of masked body `body` if the unmasked variant should call it rather than be
/// a second copy: only on targets with mask registers, where the entry mask costs one
/// mask instruction per divergent branch (measured: no slower on AVX-512 at 5,000
/// statements; 1.44x the time on AVX2, where every such conjunction is a vector `and`
/// and the masks are materialized in vector registers).
fn one_body_size(module: &Module, body: FuncId, target: &Target) -> Option<usize> {
    let size = module.function(body)?.num_placed_insts();
    (target.has_mask_registers() && size >= ONE_BODY_MIN_INSTS).then_some(size)
}

/// The note telling that function `name` went to LLVM in `pieces` pieces.
pub(crate) fn split_note(name: &str, pieces: usize) -> String {
    format!(
        "note: {name} is split into {pieces} pieces of about {PIECE_INSTS} instructions (noinline functions), which LLVM compiles in linear time"
    )
}
