//! Target machines and output: object files, assembly, LLVM IR text.
//!
//! The default target is the host triple with a generic CPU, like `clang-19 -c` without
//! `-march`; `--target-cpu native` selects the host CPU and its features.

use std::sync::Once;

use inkwell::attributes::AttributeLoc;
use inkwell::module::Module as LlModule;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple,
};
use inkwell::OptimizationLevel;

use crate::error::LlvmError;

/// Which target to generate code for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TargetOptions {
    /// Target triple; the host's if `None`.
    pub triple: Option<String>,
    /// CPU name (`skylake`, `native` for the host); generic if `None`.
    pub cpu: Option<String>,
    /// Feature string (`+avx2,+fma`); with `cpu = native`, the host's if `None`.
    pub features: Option<String>,
    /// Code generation optimization level, 0 to 3.
    pub opt_level: u8,
}

/// What to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmitKind {
    Object,
    Asm,
    Llvm,
    Bitcode,
}

/// Initializes LLVM's native target once per process (and, on CPUs with the JCC erratum,
/// branch alignment: [`crate::branch_alignment`]).
pub fn init_native() -> Result<(), LlvmError> {
    static INIT: Once = Once::new();
    let mut result = Ok(());
    INIT.call_once(|| {
        result =
            Target::initialize_native(&InitializationConfig::default()).map_err(LlvmError::Llvm);
        if result.is_ok() {
            crate::branch_alignment::configure(
                &TargetMachine::get_host_cpu_name().to_string_lossy(),
            );
        }
    });
    result
}

pub fn codegen_level(opt: u8) -> OptimizationLevel {
    match opt {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        _ => OptimizationLevel::Aggressive,
    }
}

/// Creates the target machine for `opts` (position-independent code, as Debian's clang).
pub fn target_machine(opts: &TargetOptions) -> Result<TargetMachine, LlvmError> {
    init_native()?;
    let triple = match &opts.triple {
        Some(t) => {
            // Cross compilation: the targets inkwell was built with (x86, AArch64).
            let config = InitializationConfig::default();
            Target::initialize_x86(&config);
            Target::initialize_aarch64(&config);
            TargetTriple::create(t)
        }
        None => TargetMachine::get_default_triple(),
    };
    let target = Target::from_triple(&triple).map_err(|e| LlvmError::Llvm(e.to_string()))?;
    let (cpu, features) = match opts.cpu.as_deref() {
        Some("native") => (
            TargetMachine::get_host_cpu_name().to_string(),
            opts.features
                .clone()
                .unwrap_or_else(|| TargetMachine::get_host_cpu_features().to_string()),
        ),
        Some(cpu) => (cpu.to_string(), opts.features.clone().unwrap_or_default()),
        None => {
            let generic = if triple.as_str().to_string_lossy().starts_with("x86_64") {
                "x86-64"
            } else {
                "generic"
            };
            (
                generic.to_string(),
                opts.features.clone().unwrap_or_default(),
            )
        }
    };
    target
        .create_target_machine(
            &triple,
            &cpu,
            &features,
            codegen_level(opts.opt_level),
            RelocMode::PIC,
            CodeModel::Default,
        )
        .ok_or_else(|| LlvmError::Llvm(format!("cannot create a target machine for cpu {cpu}")))
}

/// Sets `module`'s triple and data layout to those of `tm`, and gives each defined
/// function without them `tm`'s CPU and features as `"target-cpu"` and
/// `"target-features"` attributes, as clang does: the emitted LLVM IR then says what it
/// was made for, so that `llc` or `opt` given it without `-mcpu` generate the same code
/// (without them, 512-bit vectors compiled for generic x86-64 were split into SSE
/// registers, 60 times slower to compile). Functions clang made keep their own.
pub fn configure_module(module: &LlModule<'_>, tm: &TargetMachine) {
    module.set_triple(&tm.get_triple());
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    let cpu = tm.get_cpu().to_string();
    let features = tm.get_feature_string().to_string_lossy().into_owned();
    let ctx = module.get_context();
    for f in module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
    {
        if f.get_string_attribute(AttributeLoc::Function, "target-cpu")
            .is_some()
        {
            continue;
        }
        f.add_attribute(
            AttributeLoc::Function,
            ctx.create_string_attribute("target-cpu", &cpu),
        );
        if !features.is_empty() {
            let attr = ctx.create_string_attribute("target-features", &features);
            f.add_attribute(AttributeLoc::Function, attr);
        }
    }
}

/// Produces the bytes of `kind` for `module`.
pub fn emit(
    module: &LlModule<'_>,
    tm: &TargetMachine,
    kind: EmitKind,
) -> Result<Vec<u8>, LlvmError> {
    let ft = match kind {
        EmitKind::Llvm => return Ok(module.print_to_string().to_bytes().to_vec()),
        EmitKind::Bitcode => return Ok(module.write_bitcode_to_memory().as_slice().to_vec()),
        EmitKind::Object => FileType::Object,
        EmitKind::Asm => FileType::Assembly,
    };
    let buf = tm
        .write_to_memory_buffer(module, ft)
        .map_err(|e| LlvmError::Llvm(e.to_string()))?;
    Ok(buf.as_slice().to_vec())
}
