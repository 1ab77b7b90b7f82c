//! SIMD utilization of a kernel on its benchmark data: the fraction of lanes doing useful
//! work, measured by running groups of instances in lanes' SIMT interpreter (lanes-simt,
//! the μ-SIMD semantics of PACT'11 §II: lanes in lock step, divergent branches split and
//! reconverge) and counting active lanes per executed block. It is a property of the
//! kernel, its data and the width, not of a build: the share of the vector work that is
//! not wasted on inactive lanes, which bounds what any linearization can gain.
//!
//! The arguments come from the kernel's own data set: its timing program writes them
//! (`driver N 0 FILE`, `wfv_dump`) and they are loaded into the interpreter's memory.

use std::path::Path;
use std::process::Command;

use lanes_interp::context::{ExecContext, WorkItemContext};
use lanes_interp::memory::Memory;
use lanes_interp::value::RtValue;
use lanes_ir::{AddrSpace, ScalarType, Type};
use lanes_llvm::clang::ClangOptions;
use lanes_llvm::driver::import_file;
use lanes_simt::{LaneInput, Simt};

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
    let failed = |message: String| BenchError::Run {
        kernel: kernel.name.to_string(),
        message: format!("SIMD utilization: {message}"),
    };
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
    let symbol = format!("{}_simt", kernel.name);
    let clang = ClangOptions {
        includes: vec![sources.to_path_buf()],
        defines: vec![format!("KERNEL={symbol}")],
        opt: Some("3".into()),
        ..ClangOptions::default()
    };
    let src = sources.join(format!("{}.c", kernel.name));
    let module = import_file(&src, &clang).map_err(|e| failed(e.to_string()))?;
    let (id, func) = module
        .functions()
        .find(|(_, f)| f.name == symbol)
        .ok_or_else(|| failed(format!("{} defines no {symbol}", src.display())))?;
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
    let simt = Simt::new(&module).fuel(FUEL);
    let (mut active, mut blocks) = (0u64, 0u64);
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
        active += out.profile.active_lane_sum;
        blocks += out.profile.block_executions;
    }
    Ok(if blocks == 0 {
        1.0
    } else {
        active as f64 / (blocks as f64 * w as f64)
    })
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
