//! `lanes vectorize`: one SPMD function of a file → its vector variant and a launcher.
//!
//! The function is imported (C, OpenCL C, `.ll`, `.bc`, `.lir`), control-flow vectorized
//! by `lanes-wfv` (partial linearization, PLDI'18 §3–5, or `--linearize full`) and widened
//! to `W` lanes (CC'12 §3.3). The result is named by the x86 vector-function ABI
//! (Intel's "Vector Function ABI", as GCC and clang mangle `#pragma omp declare simd`):
//! `_ZGV` + ISA (`b` SSE, `c` AVX, `d` AVX2, `e` AVX-512) + `N` (unmasked) + `W` + one
//! letter per parameter (`u` uniform, passed as a scalar; `v` anything else, passed as a
//! vector) + `_` + the name, e.g. `_ZGVeN16vu_F`.
//!
//! When exactly one parameter is contiguous (the instance index) and the others are
//! uniform, a launcher `F_spmd` with `F`'s signature is defined too, where the index is a
//! count: `F_spmd(…, n, …)` runs `F(…, i, …)` for `i` in `0..n`, `W` instances at a time,
//! the lanes past `n` masked off by [`lanes_wfv::with_entry_mask`]. Every other function
//! of the module is internalized, so objects made for several functions of one source
//! file link into one program. With `-fveclib=libmvec` (`--veclib`), vector math calls
//! glibc's libmvec for the host's ISA, as in `lanes compile`.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context as _, Result};
use clap::{Args, ValueEnum};

use lanes_analysis::shapes::parse_shape_list;
use lanes_ir::{BinaryOp, FuncBuilder, FuncId, Function, InstData, IntCC, Module, Shape, Type};
use lanes_llvm::emit::{configure_module, emit, target_machine, EmitKind, TargetOptions};
use lanes_llvm::inkwell::module::Linkage;
use lanes_llvm::pipeline::{optimize, verify, PipelineOptions};
use lanes_llvm::{Context, ExportOptions};
use lanes_wfv::Mode;

use super::declare_simd::widen_variant;

use super::import::ClangArgs;
use super::target_args::TargetArgs;
use crate::input::select_function;
use crate::output::{write_bytes, OutputKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Linearize {
    Partial,
    Full,
}

/// Vectorize one SPMD function: its x86 vector-ABI variant and an `F_spmd` launcher
#[derive(Args, Debug)]
#[command(
    after_help = "Example:\n  lanes vectorize saxpy.c --function saxpy --shapes c,u,u,u,u --width 16 -o saxpy.o"
)]
pub struct VectorizeArgs {
    /// The input file (.c, .cl, .ll, .bc or .lir)
    pub file: PathBuf,
    /// The function to vectorize (optional if the file defines only one)
    #[arg(long)]
    pub function: Option<String>,
    /// Argument shapes: u, c, s<n>, v with optional a<n>, comma-separated (default: all v)
    #[arg(long)]
    pub shapes: Option<String>,
    /// Lanes (default: the target's natural width for 32-bit elements: 16 with AVX-512,
    /// 8 with AVX, else 4; the target is the host unless -march=, --target-cpu or -m… say)
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub width: Option<u16>,
    /// Linearize divergent control flow only (partial) or all of it (full)
    #[arg(long, value_enum, default_value = "partial")]
    pub linearize: Linearize,
    /// Output: .o (object), .s (assembly), .ll (LLVM IR), .bc (bitcode) or .lir (lanes IR);
    /// `-` writes an object to standard output
    #[arg(short, long)]
    pub output: PathBuf,
    /// Optimization level (0-3)
    #[arg(short = 'O', value_name = "LEVEL", default_value = "2")]
    pub opt: u8,
    /// Vector math library for vectorized math (`libmvec` or `none`; clang's -fveclib=);
    /// link with `-lmvec -lm`
    #[arg(long, value_name = "LIB")]
    pub veclib: Option<String>,
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub clang: ClangArgs,
}

pub(crate) fn has(features: &str, f: &str) -> bool {
    features.split(',').any(|x| x == format!("+{f}"))
}

/// `_ZGV<isa>N<width><params>_<name>`.
pub fn vector_abi_name(name: &str, isa: char, width: u16, shapes: &[Option<Shape>]) -> String {
    let params: String = shapes
        .iter()
        .map(|s| if *s == Some(Shape::Uniform) { 'u' } else { 'v' })
        .collect();
    format!("_ZGV{isa}N{width}{params}_{name}")
}

pub fn run(args: &VectorizeArgs) -> Result<()> {
    let opt = args.opt.min(3);
    let mut clang = args.clang.options(Some(opt.to_string()));
    // Vector code is for this machine unless a target is named.
    let target = args.target.resolve(&mut clang.extra, Some("native"))?;
    if let Some(lib) = &args.veclib {
        clang.extra.push(format!("-fveclib={lib}"));
    }
    let mut module = lanes_llvm::driver::import_file(&args.file, &clang)
        .with_context(|| format!("{}: import failed", args.file.display()))?;
    let id = select_function(&module, args.function.as_deref(), &args.file)?;
    let scalar = module.function(id).context("no body")?.clone();
    let n = scalar.params.len();
    let shapes: Vec<Option<(Shape, u32)>> = match &args.shapes {
        Some(text) => parse_shape_list(text)
            .map_err(|e| anyhow!("bad --shapes: {e}"))?
            .into_iter()
            .map(Some)
            .collect(),
        None => vec![Some((Shape::Varying, 0)); n],
    };
    if shapes.len() != n {
        bail!(
            "--shapes gives {} shapes, @{} has {n} parameters",
            shapes.len(),
            scalar.name
        );
    }
    let features = target.feature_string();
    let width = args.width.unwrap_or_else(|| target.default_width());
    let mode = match args.linearize {
        Linearize::Partial => Mode::Partial,
        Linearize::Full => Mode::Full,
    };
    // The unmasked vector variant.
    let plain: Vec<Option<Shape>> = shapes.iter().map(|s| s.map(|(s, _)| s)).collect();
    let isa = target.vfabi_isa(u32::from(width) * 32);
    let vname = vector_abi_name(&scalar.name, isa, width, &plain);
    widen_variant(&mut module, id, &shapes, mode, width, false, &vname)?;
    let mut exported = vec![vname];
    // The launcher, when one parameter is the instance index and the others uniform.
    let index: Vec<usize> = (0..n)
        .filter(|&i| plain[i] != Some(Shape::Uniform))
        .collect();
    if let [idx] = index[..] {
        if plain[idx] == Some(Shape::Contiguous)
            && scalar.ret.is_none()
            && scalar.dfg.value_type(scalar.params[idx].value).is_int()
        {
            let name = format!("{}_spmd", scalar.name);
            let body_name = format!("{}.masked.w{width}", scalar.name);
            let body = widen_variant(&mut module, id, &shapes, mode, width, true, &body_name)?;
            module.define(launcher(&scalar, &name, body, idx, width));
            exported.push(name);
        } else {
            eprintln!(
                "lanes: note: no {}_spmd launcher (it needs a void function whose only non-uniform parameter is a contiguous integer)",
                scalar.name
            );
        }
    }
    let export = ExportOptions {
        veclib: args
            .veclib
            .as_deref()
            .and_then(|lib| super::compile::veclib(lib, args.target.target.as_deref(), &features)),
    };
    write_output(
        &module,
        &exported,
        &args.output,
        &target.options(opt),
        &export,
    )
}

/// `name(params of scalar)`: `for (b = 0; b < n; b += W) body(…, b + lane_id, …, b + lane_id < n)`.
fn launcher(scalar: &Function, name: &str, body: FuncId, idx: usize, width: u16) -> Function {
    let tys: Vec<Type> = scalar
        .params
        .iter()
        .map(|p| scalar.dfg.value_type(p.value))
        .collect();
    let ity = tys[idx];
    let vty = Type::Vector(width, ity.elem());
    let mut f = Function::new(name, &tys, None);
    f.abi.params = scalar.abi.params.clone();
    f.abi.ret = scalar.abi.ret;
    let params: Vec<_> = f.params.iter().map(|p| p.value).collect();
    let count = params[idx];
    let mut b = FuncBuilder::new(&mut f);
    let (entry, header, looping, exit) = (
        b.create_block(),
        b.create_block(),
        b.create_block(),
        b.create_block(),
    );
    b.switch_to_block(entry);
    let zero = b.iconst(ity, 0);
    b.jump(header);
    b.switch_to_block(header);
    let base = b.phi(ity, vec![(entry, zero)]);
    let go = b.icmp(IntCC::Slt, base, count);
    b.brif(go, looping, exit);
    b.switch_to_block(looping);
    let vbase = b.broadcast(base, vty);
    let lane = b.lane_id(vty);
    let items = b.binary(BinaryOp::Add, vbase, lane);
    let vcount = b.broadcast(count, vty);
    let active = b.icmp(IntCC::Slt, items, vcount);
    let mut call_args = params.clone();
    call_args[idx] = items;
    call_args.push(active);
    b.call(body, call_args, None);
    let step = b.iconst(ity, i64::from(width));
    let next = b.binary(BinaryOp::Add, base, step);
    b.jump(header);
    b.switch_to_block(exit);
    b.ret(None);
    if let lanes_ir::ValueDef::Result(phi) = f.dfg.value_def(base) {
        if let InstData::Phi { incoming } = f.dfg.inst_mut(phi) {
            incoming.push((looping, next));
        }
    }
    f
}

/// Writes `module` to `out` by its extension, with only `exported` externally visible.
fn write_output(
    module: &Module,
    exported: &[String],
    out: &Path,
    target: &TargetOptions,
    export: &ExportOptions,
) -> Result<()> {
    let kind = match out.extension().and_then(|e| e.to_str()) {
        _ if out.as_os_str() == "-" => OutputKind::Object,
        None => OutputKind::Object,
        Some(ext) => OutputKind::of_suffix(ext).ok_or_else(|| {
            anyhow!(
                "-o {}: lanes vectorize writes .o (object), .s (assembly), .ll (LLVM IR), .bc (bitcode) or .lir (lanes IR), not .{ext}",
                out.display()
            )
        })?,
    };
    lanes_ir::verifier::verify_module(module).map_err(|e| anyhow!("internal error: {e}"))?;
    if kind == OutputKind::Lir {
        return write_bytes(out, lanes_ir::write::module_to_string(module).as_bytes());
    }
    let kind = match kind {
        OutputKind::LlvmText => EmitKind::Llvm,
        OutputKind::Bitcode => EmitKind::Bitcode,
        OutputKind::Asm => EmitKind::Asm,
        _ => EmitKind::Object,
    };
    let ctx = Context::create();
    let name = out
        .file_name()
        .map_or_else(|| "lanes".to_string(), |n| n.to_string_lossy().into_owned());
    let llm = lanes_llvm::export_module_with(&ctx, module, &name, export)?;
    for f in llm.get_functions() {
        let fname = f.get_name().to_string_lossy().into_owned();
        if f.count_basic_blocks() > 0 && !exported.contains(&fname) {
            f.set_linkage(Linkage::Internal);
        }
    }
    for g in llm.get_globals() {
        // `llvm.compiler.used` (kept vector-library declarations) is LLVM's, not the module's.
        if g.get_initializer().is_some() && !g.get_name().to_bytes().starts_with(b"llvm.") {
            g.set_linkage(Linkage::Internal);
        }
    }
    let tm = target_machine(target)?;
    let opt = target.opt_level;
    configure_module(&llm, &tm);
    verify(&llm)?;
    optimize(
        &llm,
        &tm,
        &PipelineOptions {
            opt_level: opt,
            loop_vectorize: false,
            slp_vectorize: false,
            verify_each: false,
        },
    )?;
    let bytes = emit(&llm, &tm, kind)?;
    write_bytes(out, &bytes)
}
