//! SIMD utilization of a kernel on its benchmark data: the fraction of lanes doing useful
//! work, measured by running groups of instances in lanes' SIMT interpreter (lanes-simt,
//! the μ-SIMD semantics of PACT'11 §II: lanes in lock step, divergent branches split and
//! reconverge) and counting active lanes per executed block. It is a property of the
//! kernel, its data and the width, not of a build: the share of the vector work that is
//! not wasted on inactive lanes, which bounds what any linearization can gain.
//!
//! The same runs count, per branch, the waves that sent no thread to one side: the
//! profile that decides the empty-mask skips of the `reconverge+profile` build.
//!
//! The arguments come from the kernel's own data set: its timing program writes them
//! (`driver N 0 FILE`, `wfv_dump`) and they are loaded into the interpreter's memory.

use std::path::Path;
use std::process::Command;

use lanes_interp::context::{ExecContext, WorkItemContext};
use lanes_interp::memory::Memory;
use lanes_interp::value::RtValue;
use lanes_ir::{AddrSpace, BranchProfile, Module, ScalarType, Type};
use lanes_llvm::clang::ClangOptions;
use lanes_llvm::driver::import_file;
use lanes_simt::{LaneInput, Simt, SimtProfile};

use crate::{spmd_module, VectorizeRequest};

use super::error::BenchError;
use super::kernels::Kernel;

/// Instructions one group may run (a kernel that does not end is reported, not waited for).
const FUEL: u64 = 2_000_000_000;

/// Groups of lanes run, at scattered positions among the instances.
pub const GROUPS: u64 = 64;

/// The utilization of `kernel` at `width` lanes over [`GROUPS`] groups of its `instances`,
/// with the arguments the timing program `exe` writes.
pub fn simt_utilization(
    sources: &Path,
    dir: &Path,
    kernel: &Kernel,
    exe: &Path,
    instances: u64,
    width: u16,
) -> Result<f64, BenchError> {
    let symbol = format!("{}_simt", kernel.name);
    let clang = ClangOptions {
        includes: vec![sources.to_path_buf()],
        defines: vec![format!("KERNEL={symbol}")],
        opt: Some("3".into()),
        ..ClangOptions::default()
    };
    let src = sources.join(format!("{}.c", kernel.name));
    let module = import_file(&src, &clang).map_err(|e| simt_failed(kernel, e.to_string()))?;
    let profile = run_groups(dir, kernel, exe, instances, width, &module, &symbol)?;
    Ok(profile.utilization())
}

/// The branch counts of `kernel`'s build `req` at `width` lanes: a SIMT run of the module
/// the build imports ([`spmd_module`], so that its blocks are the build's) over
/// [`GROUPS`] groups of its `instances`, with the arguments the timing program `exe`
/// writes.
pub fn simt_branch_profile(
    dir: &Path,
    kernel: &Kernel,
    exe: &Path,
    instances: u64,
    width: u16,
    req: &VectorizeRequest,
) -> Result<BranchProfile, BenchError> {
    let module = spmd_module(req).map_err(|e| simt_failed(kernel, e.to_string()))?;
    let symbol = req.function.as_deref().unwrap_or_default();
    let profile = run_groups(dir, kernel, exe, instances, width, &module, symbol)?;
    let func = module
        .functions()
        .find(|(_, f)| f.name == symbol)
        .map(|(_, f)| f)
        .ok_or_else(|| simt_failed(kernel, format!("the kernel's module defines no {symbol}")))?;
    Ok(profile.branch_profile(&module, func))
}

fn simt_failed(kernel: &Kernel, message: String) -> BenchError {
    BenchError::Run {
        kernel: kernel.name.to_string(),
        message: format!("SIMT run: {message}"),
    }
}

/// Runs function `symbol` of `module` (`kernel`'s SPMD function) in [`GROUPS`] groups
/// of `width` lanes at scattered positions among `instances`, on the arguments `exe`
/// writes; the profile sums the groups'.
fn run_groups(
    dir: &Path,
    kernel: &Kernel,
    exe: &Path,
    instances: u64,
    width: u16,
    module: &Module,
    symbol: &str,
) -> Result<SimtProfile, BenchError> {
    let failed = |message: String| simt_failed(kernel, message);
    let dump = dir.join(format!("{}.args", kernel.name));
    let status = Command::new(exe)
        .args([instances.to_string(), "0".into()])
        .arg(&dump)
        .status()
        .map_err(|e| BenchError::Io(exe.to_path_buf(), e))?;
    if !status.success() {
        return Err(failed(format!(
            "{} could not write its arguments",
            exe.display()
        )));
    }
    let text = std::fs::read_to_string(&dump).map_err(|e| BenchError::Io(dump.clone(), e))?;
    let (id, func) = module
        .functions()
        .find(|(_, f)| f.name == symbol)
        .ok_or_else(|| failed(format!("the kernel's module defines no {symbol}")))?;
    let mut mem = Memory::new();
    let types: Vec<Type> = func
        .params
        .iter()
        .map(|p| func.dfg.value_type(p.value))
        .collect();
    let mut shared = Vec::new();
    for (line, ty) in text.lines().zip(types.iter().skip(1)) {
        shared.push(argument(line, *ty, &mut mem).map_err(failed)?);
    }
    if shared.len() + 1 != types.len() {
        return Err(failed(format!(
            "{} arguments for {} parameters",
            shared.len() + 1,
            types.len()
        )));
    }
    let index_type = types.first().copied().unwrap_or(Type::I64);
    let w = u64::from(width);
    // Groups at scattered aligned positions: evenly spaced ones would sample the same
    // column of a 2-d kernel (the left edge of every row of an image).
    let slots = (instances / w).max(1);
    let groups = slots.min(GROUPS);
    let start = |g: u64| (g.wrapping_mul(2_654_435_761) % slots) * w;
    let simt = Simt::new(module).fuel(FUEL);
    let mut total = SimtProfile {
        width: usize::from(width),
        ..SimtProfile::default()
    };
    for g in 0..groups {
        let lanes: Vec<LaneInput> = (0..w)
            .map(|l| {
                let i = start(g) + l;
                let mut args = vec![RtValue::int(index_type.elem(), i as i64)];
                args.extend(shared.iter().cloned());
                LaneInput {
                    args,
                    exec: ExecContext {
                        work_item: WorkItemContext::one_dim(g, l, w, groups),
                        lane: l as u32,
                        num_lanes: width.into(),
                    },
                }
            })
            .collect();
        let out = simt
            .run(id, &lanes, &mut mem)
            .map_err(|e| failed(e.to_string()))?;
        total.active_lane_sum += out.profile.active_lane_sum;
        total.block_executions += out.profile.block_executions;
        total.add_branch_counts(&out.profile);
    }
    Ok(total)
}

/// One argument of the dump: `buffer BYTES HEX` (loaded into `mem`), `int V`, `float V`,
/// for a parameter of type `ty`.
fn argument(line: &str, ty: Type, mem: &mut Memory) -> Result<RtValue, String> {
    let mut words = line.split_whitespace();
    let kind = words.next().unwrap_or("");
    let bad = || {
        format!(
            "bad argument line `{}`",
            line.chars().take(60).collect::<String>()
        )
    };
    match kind {
        "buffer" => {
            let hex = words.nth(1).unwrap_or("");
            let bytes: Option<Vec<u8>> = (0..hex.len() / 2)
                .map(|k| u8::from_str_radix(hex.get(2 * k..2 * k + 2)?, 16).ok())
                .collect();
            let bytes = bytes.ok_or_else(bad)?;
            let ptr = mem
                .alloc_init(&bytes, 64, AddrSpace::PRIVATE, false)
                .map_err(|e| e.to_string())?;
            Ok(RtValue::ptr_of(ScalarType::Ptr(AddrSpace::PRIVATE), ptr))
        }
        "int" => {
            let v: i64 = words.next().and_then(|w| w.parse().ok()).ok_or_else(bad)?;
            Ok(RtValue::int(ty.elem(), v))
        }
        "float" => {
            let v: f32 = words.next().and_then(|w| w.parse().ok()).ok_or_else(bad)?;
            Ok(RtValue::f32(v))
        }
        _ => Err(bad()),
    }
}
