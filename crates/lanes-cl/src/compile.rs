//! The kernel compiler (CC'12 §2): an OpenCL C program to one lanes module holding, for
//! each kernel, the group functions (one per continuation) the executor calls.
//!
//! Per kernel, in order:
//! 1. the work-item function ([`crate::work_items`]): callbacks become context values and
//!    loop counters, `__local` variables offsets into the group's memory
//!    ([`crate::local_memory`]);
//! 2. continuations at its barriers ([`crate::continuations`]);
//! 3. each continuation vectorized across dimension 0 at the target's width by lanes'
//!    whole-function vectorizer (PLDI'18 partial linearization with BOSCC and branch
//!    fusion by default), unmasked and masked, with the kernel's arguments, the context and
//!    `ly`, `lz` uniform and `lx` contiguous — CC'12 §3's uniform values and retained
//!    uniform control flow come from lanes' shape and divergence analysis;
//! 4. one group function per continuation: the work-item loops ([`crate::work_item_loops`]).
//!
//! At width 1 the continuations stay scalar: the baseline, and what `--check` runs on
//! the interpreter.

use std::path::Path;

use lanes_ir::{FuncId, InstData, Module, Shape, Type};
use lanes_llvm::clang::ClangOptions;
use lanes_llvm::opencl::{compile_opencl, opencl_clang_args, ArgSpace, KernelSignature};
use lanes_llvm::target::{Target, TargetRequest};
use lanes_wfv::{Mode, VariantSpec, WidenReport};

use crate::continuations::split_at_barriers;
use crate::error::ClError;
use crate::local_memory::{place_local_variables, LocalLayout};
use crate::work_item_loops::group_function;
use crate::work_items::{extra, work_item_function, EXTRA_PARAMS};

/// How to build a program.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// OpenCL C version (`-cl-std=`): `CL1.2` by default.
    pub cl_std: String,
    /// Further clang arguments (`-D`, `-I`), verbatim.
    pub clang_args: Vec<String>,
    /// Work-items per vector; `None`: the target's natural width, 1: scalar.
    pub width: Option<u16>,
    /// How the vectorizer treats control flow.
    pub mode: Mode,
    /// Declare every value varying, the kernel's arguments and the group context too
    /// (CC'12's "naive" configuration: no uniform values), except the local id of
    /// dimension 0, which stays contiguous.
    pub all_varying: bool,
    /// Compile each kernel again for the local size of its launches, as pocl does
    /// (`get_local_size` constant; [`crate::work_items::work_item_function`]); the
    /// generic code runs otherwise.
    pub specialize_local_size: bool,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            cl_std: "CL1.2".into(),
            clang_args: Vec::new(),
            width: None,
            mode: Mode::boscc(lanes_wfv::BosccPolicy::Auto)
                .with_fusion(lanes_wfv::FusionPolicy::Auto),
            all_varying: false,
            specialize_local_size: true,
        }
    }
}

/// One compiled kernel: what the executor needs to launch it.
#[derive(Clone, Debug)]
pub struct KernelInfo {
    pub signature: KernelSignature,
    /// The lanes type of each argument (what its 8-byte slot holds).
    pub param_types: Vec<Type>,
    /// The group's `__local` variables.
    pub local: LocalLayout,
    /// Live-value bytes per work-item at the barrier that saves most.
    pub bytes_per_item: u64,
    /// Source line of each barrier.
    pub barrier_lines: Vec<u32>,
    /// The group function of each continuation (index: continuation id).
    pub phases: Vec<String>,
    /// Barriers divergent control flow may skip ([`crate::barrier_check`]).
    pub warnings: Vec<String>,
}

/// A compiled program: the module to run and its kernels.
pub struct CompiledProgram {
    pub module: Module,
    /// The program as imported, before any kernel was compiled (for specializations).
    pub front: Module,
    pub options: BuildOptions,
    work_dim_fns: Vec<FuncId>,
    pub kernels: Vec<KernelInfo>,
    /// Work-items per vector.
    pub width: u16,
    /// The source file's name, for messages.
    pub file: String,
    /// The host's vector register width in bits if it has no mask registers (AVX2 and
    /// older): the vector code then holds masks as lane-width integers
    /// (`lanes_wfv::lane_masks`).
    lane_width_masks: Option<u32>,
}

/// The resolved host target (the JIT compiles for the host CPU).
pub fn host_target() -> Result<Target, ClError> {
    Target::resolve(&TargetRequest {
        cpu: Some("native".into()),
        ..TargetRequest::default()
    })
    .map_err(|e| ClError::Compile(e.into()))
}

/// Compiles the OpenCL C program in `source`.
pub fn compile_program(source: &Path, opts: &BuildOptions) -> Result<CompiledProgram, ClError> {
    let target = host_target()?;
    let width = opts.width.unwrap_or_else(|| target.default_width());
    let mut clang = ClangOptions {
        extra: opencl_clang_args(&opts.cl_std),
        ..ClangOptions::default()
    };
    let library = crate::builtins::bitcode(&clang)?;
    clang.extra.extend(opts.clang_args.iter().cloned());
    let front = compile_opencl(source, &library, &clang)?;
    let file = source.display().to_string();
    let mut module = front.module;
    check_builtins(&module, &file)?;
    let work_dim_fns: Vec<FuncId> = module
        .funcs
        .iter()
        .filter(|(_, f)| {
            f.body().is_none() && crate::builtins::demangled(f.name()) == "get_work_dim"
        })
        .map(|(id, _)| id)
        .collect();
    let imported = module.clone();
    let mut kernels = Vec::new();
    for signature in front.kernels {
        let info = compile_kernel(
            &mut module,
            signature,
            &work_dim_fns,
            width,
            opts,
            &file,
            None,
        )?;
        kernels.push(info);
    }
    let roots: Vec<String> = kernels
        .iter()
        .flat_map(|k| k.phases.iter().cloned())
        .collect();
    lanes_driver::vectorize::drop_unreached(&mut module, &roots);
    crate::local_atomics::plain_local_atomics(&mut module);
    let lane_width_masks = (!target.has_mask_registers()).then(|| target.vector_bits());
    if let Some(bits) = lane_width_masks {
        lanes_wfv::lane_masks::lane_width_masks_in(&mut module, bits);
    }
    lanes_ir::verifier::verify_module(&module).map_err(|e| ClError::Internal(e.to_string()))?;
    Ok(CompiledProgram {
        module,
        front: imported,
        options: opts.clone(),
        work_dim_fns,
        kernels,
        width,
        file,
        lane_width_masks,
    })
}

impl CompiledProgram {
    /// Kernel `info`'s code specialized for local size `local`: a module of its own.
    pub fn specialize(
        &self,
        info: &KernelInfo,
        local: [u64; 3],
    ) -> Result<(Module, KernelInfo), ClError> {
        let mut module = self.front.clone();
        let info = compile_kernel(
            &mut module,
            info.signature.clone(),
            &self.work_dim_fns,
            self.width,
            &self.options,
            &self.file,
            Some(local),
        )?;
        lanes_driver::vectorize::drop_unreached(&mut module, &info.phases);
        crate::local_atomics::plain_local_atomics(&mut module);
        if let Some(bits) = self.lane_width_masks {
            lanes_wfv::lane_masks::lane_width_masks_in(&mut module, bits);
        }
        lanes_ir::verifier::verify_module(&module).map_err(|e| ClError::Internal(e.to_string()))?;
        Ok((module, info))
    }
}

/// Every call to a declared OpenCL builtin (a mangled name the import did not turn
/// into an instruction, and not `get_work_dim`) is an error naming it.
fn check_builtins(module: &Module, file: &str) -> Result<(), ClError> {
    for (_, f) in module.functions() {
        for inst in f.dfg.insts() {
            let InstData::Call { func, .. } = f.dfg.inst(inst) else {
                continue;
            };
            let callee = &module.funcs[*func];
            let name = callee.name();
            if callee.body().is_none()
                && crate::builtins::is_builtin_name(name)
                && crate::builtins::demangled(name) != "get_work_dim"
            {
                return Err(ClError::MissingBuiltin {
                    file: file.to_string(),
                    line: f.source_lines.get(inst).copied().unwrap_or(0),
                    kernel: f.origin_name().to_string(),
                    builtin: crate::builtins::demangled(name).to_string(),
                });
            }
        }
    }
    Ok(())
}

fn compile_kernel(
    module: &mut Module,
    signature: KernelSignature,
    work_dim_fns: &[FuncId],
    width: u16,
    opts: &BuildOptions,
    file: &str,
    local: Option<[u64; 3]>,
) -> Result<KernelInfo, ClError> {
    let mode = opts.mode;
    let name = signature.name.clone();
    let id = module
        .func_by_name(&name)
        .ok_or_else(|| ClError::Internal(format!("kernel `{name}` was not imported")))?;
    let kernel = module
        .function(id)
        .cloned()
        .ok_or_else(|| ClError::Internal(format!("kernel `{name}` has no body")))?;
    let own = kernel.params.len();
    let param_types: Vec<Type> = kernel
        .params
        .iter()
        .map(|p| kernel.dfg.value_type(p.value))
        .collect();
    for (i, arg) in signature.args.iter().enumerate() {
        let by_value_pointer =
            arg.space == ArgSpace::Private && param_types.get(i).is_some_and(|t| t.is_ptr());
        if by_value_pointer || param_types.get(i).is_some_and(|t| t.lanes().is_some()) {
            return Err(ClError::Unsupported {
                kernel: name.clone(),
                message: format!(
                    "argument {i} (`{} {}`) is passed by value as a struct or vector, which lanes-cl does not support yet",
                    arg.type_name, arg.name
                ),
            });
        }
    }
    let mut wi = work_item_function(&kernel, &format!("{name}.wi"), work_dim_fns, local);
    let ctx = wi.params[own + extra::CTX].value;
    let local_layout = place_local_variables(module, &mut wi, ctx);
    let mut shapes: Vec<Option<(Shape, u32)>> = vec![Some((Shape::Uniform, 0)); own];
    shapes.extend(EXTRA_PARAMS.iter().map(|&(_, s)| Some((s, 0))));
    if opts.all_varying {
        for s in shapes
            .iter_mut()
            .filter(|s| **s != Some((Shape::Contiguous, 0)))
        {
            *s = Some((Shape::Varying, 0));
        }
    }
    let varying: Vec<bool> = shapes
        .iter()
        .map(|s| *s == Some((Shape::Varying, 0)))
        .collect();
    let warnings = crate::barrier_check::divergent_barriers(module, &wi, own, &shapes, file);
    let conts = split_at_barriers(module, &wi, own, &shapes).map_err(|e| ClError::Vectorize {
        kernel: name.clone(),
        message: e.to_string(),
    })?;
    let mut phases = Vec::new();
    for (k, cont) in conts.functions.into_iter().enumerate() {
        let cname = cont.name.clone();
        let cid = module.define(cont);
        let (full, masked) = if width == 1 {
            (cid, cid)
        } else {
            let variant = |module: &mut Module, masked: bool| {
                let vname = format!("{cname}.w{width}{}", if masked { ".masked" } else { "" });
                let spec = VariantSpec {
                    shapes: &shapes,
                    mode,
                    width,
                    masked,
                    name: &vname,
                    linear: true,
                };
                lanes_wfv::define_variant_noting(module, cid, &spec, &mut WidenReport::default())
                    .map_err(|e| ClError::Vectorize {
                        kernel: name.clone(),
                        message: e.to_string(),
                    })
            };
            (variant(module, false)?, variant(module, true)?)
        };
        let phase = format!("{name}.group{k}");
        module.define(group_function(
            &phase,
            &param_types,
            &varying,
            width,
            full,
            masked,
            local,
        ));
        phases.push(phase);
    }
    Ok(KernelInfo {
        signature,
        param_types,
        local: local_layout,
        bytes_per_item: conts.bytes_per_item,
        barrier_lines: conts.barrier_lines,
        phases,
        warnings,
    })
}
