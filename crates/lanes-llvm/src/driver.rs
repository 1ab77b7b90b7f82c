//! The two user-facing flows, shared by `lanes import`, `lanes compile` and the tests.
//!
//! - [`import_file`]: source or LLVM file → verified lanes IR;
//! - [`compile_file_with`]: what a compiler driver does with a translation unit. The
//!   source's LLVM module is imported function by function ([`import_partial`]); a caller's
//!   transformation runs on the lanes IR; lanes writes its functions back into the same LLVM
//!   module ([`export_into`]), where the functions lanes cannot express stayed untouched;
//!   then the new-PM pipeline (only its second half for the functions lanes left as clang
//!   optimized them, [`crate::pipeline::optimize_changed`]) and code generation. Nothing
//!   clang compiles is refused, and what lanes left alone is reported ([`KeptFunction`]).
//!   `.lir` files compile too (a fresh LLVM module), which is how vector IR reaches LLVM.
//! - [`compile_file`]: [`compile_file_with`] with no transformation.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::Path;

use inkwell::attributes::AttributeLoc;
use inkwell::context::Context;

use lanes_ir::Module;

use crate::clang::{load_module, ClangOptions, SourceKind};
use crate::emit::{configure_module, emit, target_machine, EmitKind, TargetOptions};
use crate::error::LlvmError;
use crate::export::{export_into, ExportOptions};
use crate::import::{import_partial, KeptFunction};
use crate::pipeline::{optimize, optimize_changed, verify, PipelineOptions};

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
    let variants = announced_variants(&llm);
    Ok((crate::import::import_module(&llm)?, variants))
}

/// Imports `path` function by function ([`import_partial`]): what lanes IR cannot express
/// is reported rather than failing the file (a `.lir` file is read whole).
pub fn import_file_partial(
    path: &Path,
    clang: &ClangOptions,
) -> Result<crate::import::PartialImport, LlvmError> {
    if path.extension().is_some_and(|e| e == "lir") {
        let module = import_file(path, clang)?;
        return Ok(crate::import::PartialImport {
            module,
            kept: Vec::new(),
            opaque_globals: Vec::new(),
        });
    }
    if SourceKind::of(path).is_none() {
        return Err(LlvmError::UnknownInput(path.to_path_buf()));
    }
    let ctx = Context::create();
    let llm = load_module(&ctx, path, clang)?;
    import_partial(&llm)
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
    internalize(&llm, internal);
    lower(&llm, opts)
}

/// [`compile_module`], where only the functions named in `exported` stay visible: every
/// other defined function and every initialized global becomes internal (the output of
/// `lanes vectorize`, whose objects for several functions of one file link together).
pub fn compile_module_exporting(
    module: &Module,
    name: &str,
    opts: &CompileOptions,
    exported: &[String],
) -> Result<Vec<u8>, LlvmError> {
    let ctx = Context::create();
    let llm = crate::export::export_module_with(&ctx, module, name, &opts.export)?;
    for f in llm.get_functions() {
        let fname = f.get_name().to_string_lossy();
        if f.count_basic_blocks() > 0 && !exported.iter().any(|e| *e == fname) {
            f.set_linkage(inkwell::module::Linkage::Internal);
        }
    }
    for g in llm.get_globals() {
        // `llvm.compiler.used` (kept vector-library declarations) is LLVM's, not the module's.
        if g.get_initializer().is_some() && !g.get_name().to_bytes().starts_with(b"llvm.") {
            g.set_linkage(inkwell::module::Linkage::Internal);
        }
    }
    lower(&llm, opts)
}

/// The one lowering path of every compilation: the module is given the target's triple and
/// data layout, verified, optimized by the new pass manager's pipeline, and emitted as
/// `opts.emit` (the JIT, [`crate::jit`], runs the same pipeline before it compiles).
pub fn lower(
    llm: &inkwell::module::Module<'_>,
    opts: &CompileOptions,
) -> Result<Vec<u8>, LlvmError> {
    lower_changed(llm, opts, None)
}

/// [`lower`]; with `changed`, the module is clang's optimized output in which lanes
/// changed or added the functions named there: they get the whole pipeline and the
/// others only its second half ([`optimize_changed`]), so nothing is optimized twice.
fn lower_changed(
    llm: &inkwell::module::Module<'_>,
    opts: &CompileOptions,
    changed: Option<&HashSet<String>>,
) -> Result<Vec<u8>, LlvmError> {
    let tm = target_machine(&opts.target)?;
    configure_module(llm, &tm);
    if opts.export.fast_gather {
        ask_for_hardware_gathers(llm, changed);
    }
    if let Some(bits) = opts.export.vector_width_bits {
        set_min_legal_vector_width(llm, bits);
    }
    verify(llm)?;
    match changed {
        Some(changed) => optimize_changed(llm, &tm, &opts.pipeline, changed)?,
        None => optimize(llm, &tm, &opts.pipeline)?,
    }
    if opts.pipeline.opt_level >= 1 {
        crate::gather_addresses::sink_gather_scatter_addresses(llm);
        if cfg!(debug_assertions) {
            verify(llm)?;
        }
    }
    emit(llm, &tm, opts.emit)
}

/// Adds `+fast-gather` to the target features of the defined functions named in `changed`
/// (all of them without it): LLVM's tuning for most AVX2 CPUs turns the gathers and
/// scatters of vector code into a branch and a scalar access per lane. A tuning feature,
/// it does not keep such a function from being inlined into one without it.
fn ask_for_hardware_gathers(llm: &inkwell::module::Module<'_>, changed: Option<&HashSet<String>>) {
    use inkwell::attributes::AttributeLoc;
    let ctx = llm.get_context();
    for f in llm.get_functions().filter(|f| f.count_basic_blocks() > 0) {
        let name = f.get_name().to_string_lossy();
        if changed.is_some_and(|c| !c.contains(&*name)) {
            continue;
        }
        let old = f
            .get_string_attribute(AttributeLoc::Function, "target-features")
            .map(|a| a.get_string_value().to_string_lossy().into_owned())
            .unwrap_or_default();
        let features = crate::target::plus_fast_gather(&old);
        if features != old {
            let attr = ctx.create_string_attribute("target-features", &features);
            f.add_attribute(AttributeLoc::Function, attr);
        }
    }
}

/// Gives every defined function of `llm` `"min-legal-vector-width"="bits"`
/// ([`crate::export::ExportOptions::vector_width_bits`]).
fn set_min_legal_vector_width(llm: &inkwell::module::Module<'_>, bits: u32) {
    use inkwell::attributes::AttributeLoc;
    let attr = llm
        .get_context()
        .create_string_attribute("min-legal-vector-width", &bits.to_string());
    for f in llm.get_functions().filter(|f| f.count_basic_blocks() > 0) {
        f.add_attribute(AttributeLoc::Function, attr);
    }
}

/// A digest of each defined function's text, to tell which ones a transformation changed.
fn digests(module: &Module) -> HashMap<String, u64> {
    module
        .functions()
        .map(|(_, f)| {
            let mut h = std::hash::DefaultHasher::new();
            lanes_ir::write::function_to_string(module, f).hash(&mut h);
            (f.name.clone(), h.finish())
        })
        .collect()
}

/// Imports `path` and compiles it.
pub fn compile_file(path: &Path, opts: &CompileOptions) -> Result<Vec<u8>, LlvmError> {
    compile_file_with(path, opts, |_, _| Ok::<_, LlvmError>(Vec::new())).map(|c| c.bytes)
}

/// The output of [`compile_file_with`].
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The bytes of the requested [`EmitKind`].
    pub bytes: Vec<u8>,
    /// The functions left as LLVM IR, with why.
    pub kept: Vec<KeptFunction>,
}

/// Compiles `path` as a compiler driver (module docs): `transform` gets the lanes IR of
/// every function lanes can express and the vector-function variants clang announced
/// (`(function, "_ZGV…")`), and returns the names of functions it added that must get
/// internal linkage.
pub fn compile_file_with<E: From<LlvmError>>(
    path: &Path,
    opts: &CompileOptions,
    transform: impl FnOnce(&mut Module, &[(String, String)]) -> Result<Vec<String>, E>,
) -> Result<Compiled, E> {
    let name = path
        .file_name()
        .map_or_else(|| "lanes".to_string(), |n| n.to_string_lossy().into_owned());
    if path.extension().is_some_and(|e| e == "lir") {
        let (mut module, variants) = import_file_with_variants(path, &opts.clang)?;
        let internal = transform(&mut module, &variants)?;
        let bytes = compile_module_internalizing(&module, &name, opts, &internal)?;
        return Ok(Compiled {
            bytes,
            kept: Vec::new(),
        });
    }
    if SourceKind::of(path).is_none() {
        return Err(LlvmError::UnknownInput(path.to_path_buf()).into());
    }
    let ctx = Context::create();
    let llm = load_module(&ctx, path, &opts.clang)?;
    let variants = announced_variants(&llm);
    let imported = import_partial(&llm)?;
    let mut module = imported.module;
    let before = digests(&module);
    let internal = transform(&mut module, &variants)?;
    let changed: HashSet<String> = digests(&module)
        .into_iter()
        .filter(|(name, d)| before.get(name) != Some(d))
        .map(|(name, _)| name)
        .collect();
    export_into(&llm, &module, &opts.export).map_err(LlvmError::from)?;
    internalize(&llm, &internal);
    if !wants_debug_info(&opts.clang.extra) {
        // lanes asks clang for line tables (for its messages); the user did not.
        // SAFETY: live module.
        unsafe { inkwell::llvm_sys::debuginfo::LLVMStripModuleDebugInfo(llm.as_mut_ptr()) };
    }
    if opts.target.cpu.is_some() || opts.target.features.is_some() {
        // clang's per-function target attributes name its default CPU; the target given
        // to lanes decides for every function.
        drop_target_attributes(&llm);
    }
    // Only clang's own output is already optimized; a `.ll`/`.bc` file may be anything.
    let from_clang = SourceKind::of(path).is_some_and(SourceKind::is_source);
    let bytes = lower_changed(&llm, opts, from_clang.then_some(&changed))?;
    Ok(Compiled {
        bytes,
        kept: imported.kept,
    })
}

/// The vector-function-ABI variants clang attached to functions as string attributes
/// (`"_ZGVdN8vu_f"`; for `#pragma omp declare simd` under `-fopenmp[-simd]`).
fn announced_variants(llm: &inkwell::module::Module<'_>) -> Vec<(String, String)> {
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
    variants
}

/// Gives the functions named in `internal` that `llm` defines internal linkage.
fn internalize(llm: &inkwell::module::Module<'_>, internal: &[String]) {
    for f in llm.get_functions() {
        if f.count_basic_blocks() > 0
            && internal
                .iter()
                .any(|n| f.get_name().to_bytes() == n.as_bytes())
        {
            f.set_linkage(inkwell::module::Linkage::Internal);
        }
    }
}

/// Whether clang's arguments ask for debug information (`-g…` other than `-g0`).
fn wants_debug_info(clang_args: &[String]) -> bool {
    clang_args
        .iter()
        .rev()
        .find(|a| a.starts_with("-g") && !a.starts_with("-gno-"))
        .is_some_and(|a| a != "-g0")
}

/// Removes `target-cpu`, `target-features` and `tune-cpu` from every function of `llm`.
fn drop_target_attributes(llm: &inkwell::module::Module<'_>) {
    for f in llm.get_functions() {
        for key in ["target-cpu", "target-features", "tune-cpu"] {
            f.remove_string_attribute(AttributeLoc::Function, key);
        }
    }
}
