//! Checked launches (`lanes cl run --check`): the same group functions, run by lanes'
//! reference interpreter instead of native code, one group after another.
//!
//! The interpreter checks every access against the allocation it falls in, so a kernel
//! that reads or writes past a buffer (a global size larger than the buffer, an index
//! off by one) stops with an error naming the kernel's source line and the faulting
//! instruction, where native code would corrupt memory or crash. The buffers are copied
//! into the interpreter's memory, and back into the host's buffers afterwards.

use lanes_interp::{Interpreter, Memory, RtValue};
use lanes_ir::{AddrSpace, Module};

use crate::compile::KernelInfo;
use crate::error::ClError;
use crate::executor::{drive_group, group_id, GroupMeta};
use crate::group_context::GroupContext;
use crate::host::{Arg, NdRange};
use crate::local_memory::LOCAL_ALIGN;

/// Runs `info`'s kernel of `module` over `range` with `args` (already checked against its
/// signature) on the interpreter.
pub fn run_checked(
    module: &Module,
    file: &str,
    info: &KernelInfo,
    args: &[Arg<'_>],
    range: &NdRange,
    width: u16,
) -> Result<(), ClError> {
    let kernel = info.signature.name.as_str();
    let ctx0 = crate::range::group_context(kernel, range, width)?;
    let interp = Interpreter::new(module);
    let mut mem = Memory::new();
    let mem_err = |e: lanes_interp::MemError| ClError::Internal(format!("interpreter memory: {e}"));
    interp
        .init_globals(&mut mem)
        .map_err(|e| ClError::Internal(e.to_string()))?;
    // Buffers and argument slots.
    let mut slots = Vec::with_capacity(args.len());
    let mut buffers = Vec::new();
    let mut local_args = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        slots.push(match arg {
            Arg::Buffer(b) => {
                let at = mem
                    .alloc(b.len().max(1) as u64, 64, AddrSpace::GLOBAL)
                    .map_err(mem_err)?;
                mem.write_bytes(at, &b.bytes()).map_err(mem_err)?;
                buffers.push((at, *b));
                at
            }
            Arg::Scalar(bytes) => {
                let mut word = [0u8; 8];
                word[..bytes.len().min(8)].copy_from_slice(&bytes[..bytes.len().min(8)]);
                u64::from_le_bytes(word)
            }
            Arg::Local(bytes) => {
                local_args.push((i, *bytes as u64));
                0
            }
        });
    }
    let local_bytes = info.local.size
        + local_args
            .iter()
            .map(|&(_, b)| b.next_multiple_of(LOCAL_ALIGN))
            .sum::<u64>();
    let local = mem
        .alloc(local_bytes.max(1), LOCAL_ALIGN as u32, AddrSpace::LOCAL)
        .map_err(mem_err)?;
    let mut at = info.local.size;
    for &(slot, bytes) in &local_args {
        slots[slot] = local + at;
        at += bytes.next_multiple_of(LOCAL_ALIGN);
    }
    let args_at = mem
        .alloc(8 * slots.len().max(1) as u64, 8, AddrSpace::PRIVATE)
        .map_err(mem_err)?;
    let words: Vec<u8> = slots.iter().flat_map(|s| s.to_le_bytes()).collect();
    mem.write_bytes(args_at, &words).map_err(mem_err)?;
    let live_bytes = (info.bytes_per_item * ctx0.items).max(1);
    let live = [
        mem.alloc(live_bytes, 64, AddrSpace::PRIVATE)
            .map_err(mem_err)?,
        mem.alloc(live_bytes, 64, AddrSpace::PRIVATE)
            .map_err(mem_err)?,
    ];
    let ctx_at = mem.alloc(8 * 18, 8, AddrSpace::PRIVATE).map_err(mem_err)?;
    let phases = info
        .phases
        .iter()
        .map(|r| {
            module
                .func_by_name(r)
                .ok_or_else(|| ClError::Internal(format!("no group function {r}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let groups: u64 = ctx0.num_groups.iter().product();
    for g in 0..groups {
        let mut ctx = ctx0;
        ctx.group_id = group_id(&ctx, g);
        mem.write_bytes(ctx_at, &context_bytes(&ctx, local))
            .map_err(mem_err)?;
        let meta = GroupMeta {
            kernel,
            barrier_lines: &info.barrier_lines,
            group: ctx.group_id,
            continuations: phases.len(),
        };
        drive_group(&meta, |state, reads| {
            let (live_in, live_out) = (live[reads], live[1 - reads]);
            let call_args = [
                RtValue::ptr(ctx_at),
                RtValue::ptr(args_at),
                RtValue::ptr(live_in),
                RtValue::ptr(live_out),
            ];
            let r = interp
                .call(phases[state], &call_args, &mut mem)
                .map_err(|e| fault(module, file, kernel, &e))?;
            r.and_then(|v| v.bits())
                .map(|b| b as u32 as i32)
                .ok_or_else(|| ClError::Internal("a group function returned nothing".into()))
        })?;
    }
    for (at, buffer) in buffers {
        let bytes = mem.read_bytes(at, buffer.len() as u64).map_err(mem_err)?;
        buffer.write_bytes(&bytes);
    }
    Ok(())
}

/// The context's words as the generated code reads them, with the interpreter's address
/// of the group's local memory.
fn context_bytes(ctx: &GroupContext, local: u64) -> Vec<u8> {
    let mut words: Vec<u64> = Vec::with_capacity(18);
    for part in [
        ctx.global_offset,
        ctx.local_size,
        ctx.global_size,
        ctx.num_groups,
        ctx.group_id,
    ] {
        words.extend(part);
    }
    words.extend([ctx.work_dim, local, ctx.items]);
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// An interpreter error as the user reads it: the kernel's source line where known.
fn fault(module: &Module, file: &str, kernel: &str, e: &lanes_interp::InterpError) -> ClError {
    let line = e.location.as_ref().and_then(|loc| {
        let f = module.function(module.func_by_name(&loc.func)?)?;
        f.source_lines.get(loc.inst?).copied().filter(|&l| l > 0)
    });
    ClError::Checked {
        kernel: kernel.to_string(),
        at: line.map_or_else(|| file.to_string(), |l| format!("{file}:{l}")),
        message: e.kind.to_string(),
    }
}
