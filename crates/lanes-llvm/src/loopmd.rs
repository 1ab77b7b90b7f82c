//! Loop metadata (`!llvm.loop`) in both directions.
//!
//! Clang attaches loop hints (`#pragma clang loop`, `mustprogress`, OpenMP `simd`'s
//! `llvm.loop.parallel_accesses`) to the back-edge branch as a self-referencing node
//! `!0 = distinct !{!0, !{!"llvm.loop.unroll.count", i32 4}, …}`. lanes keeps each hint as a
//! name and an optional integer ([`lanes_ir::LoopHint`]) on the latch block
//! ([`lanes_ir::LoopMd`]); other operands (follow-up loop-id lists) are dropped.
//! `llvm.loop.parallel_accesses` (the loop's memory accesses are independent across
//! iterations, which licenses vectorization) is kept as a hint without value; the export
//! recreates it with a fresh access group (a distinct empty node, which the LLVM-C API can
//! only obtain by parsing `distinct !{}`) put on every memory access of the loop body.

use std::ffi::c_uint;

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::debuginfo::{
    LLVMDILocationGetLine, LLVMGetMetadataKind, LLVMMetadataKind, LLVMMetadataReplaceAllUsesWith,
    LLVMTemporaryMDNode,
};
use inkwell::llvm_sys::prelude::*;

use lanes_ir::LoopHint;

const LOOP_KIND: &str = "llvm.loop";

fn loop_kind(ctx: LLVMContextRef) -> c_uint {
    // SAFETY: pointer and length describe the name.
    unsafe { LLVMGetMDKindIDInContext(ctx, LOOP_KIND.as_ptr().cast(), LOOP_KIND.len() as u32) }
}

/// The operands of an MD node value.
///
/// # Safety
/// `node` must be a live metadata-as-value MDNode.
unsafe fn operands(node: LLVMValueRef) -> Vec<LLVMValueRef> {
    let n = LLVMGetMDNodeNumOperands(node) as usize;
    let mut ops = vec![std::ptr::null_mut(); n];
    LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
    ops
}

/// Reads the loop hints on terminator `term`, if it carries `!llvm.loop`.
pub(crate) fn read(ctx: LLVMContextRef, term: LLVMValueRef) -> Option<Vec<LoopHint>> {
    // SAFETY: `term` is a live instruction of context `ctx`; metadata accessors are used
    // only on values LLVM reports as MD nodes or strings.
    unsafe {
        let md = LLVMGetMetadata(term, loop_kind(ctx));
        if md.is_null() {
            return None;
        }
        let mut hints = Vec::new();
        for op in operands(md).into_iter().skip(1) {
            if op.is_null() || LLVMIsAMDNode(op).is_null() {
                continue;
            }
            let meta = LLVMValueAsMetadata(op);
            if matches!(
                LLVMGetMetadataKind(meta),
                LLVMMetadataKind::LLVMDILocationMetadataKind
            ) {
                // The loop's start location (the first one listed): for messages.
                if !hints.iter().any(|h: &LoopHint| h.name == LINE) {
                    hints.push(LoopHint {
                        name: LINE.to_string(),
                        value: Some(i64::from(LLVMDILocationGetLine(meta))),
                    });
                }
                continue;
            }
            let inner = operands(op);
            let Some(&first) = inner.first() else {
                continue;
            };
            if first.is_null() || LLVMIsAMDString(first).is_null() {
                continue;
            }
            let mut len = 0;
            let p = LLVMGetMDString(first, &mut len);
            let name =
                String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len as usize))
                    .into_owned();
            let value = inner.get(1).and_then(|&v| {
                (!v.is_null() && !LLVMIsAConstantInt(v).is_null())
                    .then(|| LLVMConstIntGetSExtValue(v))
            });
            if name == PARALLEL {
                hints.push(LoopHint { name, value: None });
            } else if inner.len() <= 2 {
                hints.push(LoopHint { name, value });
            }
        }
        Some(hints)
    }
}

/// The hint lanes keeps the loop's source line in (from the loop ID's `DILocation`);
/// not exported.
pub const LINE: &str = "lanes.line";

/// The name of the parallel-accesses hint.
pub(crate) const PARALLEL: &str = "llvm.loop.parallel_accesses";

/// A fresh access group: a distinct empty metadata node of `ctx`.
pub(crate) fn access_group(ctx: LLVMContextRef) -> Option<LLVMMetadataRef> {
    use inkwell::llvm_sys::ir_reader::LLVMParseIRInContext;
    let text = "!lanes.ag = !{!0}\n!0 = distinct !{}\n";
    // SAFETY: the buffer is consumed by the parser; the temporary module is disposed, while
    // its distinct node stays owned by the context.
    unsafe {
        let buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(
            text.as_ptr().cast(),
            text.len(),
            c"lanes.ag".as_ptr(),
        );
        let mut m = std::ptr::null_mut();
        let mut msg = std::ptr::null_mut();
        if LLVMParseIRInContext(ctx, buf, &mut m, &mut msg) != 0 {
            if !msg.is_null() {
                LLVMDisposeMessage(msg);
            }
            return None;
        }
        let mut ops = [std::ptr::null_mut(); 1];
        LLVMGetNamedMetadataOperands(m, c"lanes.ag".as_ptr(), ops.as_mut_ptr());
        let md = (!ops[0].is_null()).then(|| LLVMValueAsMetadata(ops[0]));
        LLVMDisposeModule(m);
        md
    }
}

/// Puts memory access `inst` into access group `group`.
pub(crate) fn add_to_group(ctx: LLVMContextRef, inst: LLVMValueRef, group: LLVMMetadataRef) {
    let kind = "llvm.access.group";
    // SAFETY: live instruction and metadata of `ctx`.
    unsafe {
        let id = LLVMGetMDKindIDInContext(ctx, kind.as_ptr().cast(), kind.len() as u32);
        LLVMSetMetadata(inst, id, LLVMMetadataAsValue(ctx, group));
    }
}

/// Attaches `hints` as a fresh self-referencing `!llvm.loop` node to branch `term`;
/// `group` is the access group of the loop's accesses, if it has `parallel_accesses`.
pub(crate) fn attach(
    ctx: LLVMContextRef,
    term: LLVMValueRef,
    hints: &[LoopHint],
    group: Option<LLVMMetadataRef>,
) {
    // SAFETY: all metadata is created in `ctx`; the temporary node is replaced (and thereby
    // freed) before returning.
    unsafe {
        let tmp = LLVMTemporaryMDNode(ctx, std::ptr::null_mut(), 0);
        let mut ops = vec![tmp];
        for h in hints {
            if h.name.starts_with("lanes.") {
                continue;
            }
            if h.name == PARALLEL {
                if let Some(g) = group {
                    let s = LLVMMDStringInContext2(ctx, h.name.as_ptr().cast(), h.name.len());
                    let mut inner = [s, g];
                    ops.push(LLVMMDNodeInContext2(ctx, inner.as_mut_ptr(), 2));
                }
                continue;
            }
            let s = LLVMMDStringInContext2(ctx, h.name.as_ptr().cast(), h.name.len());
            let mut inner = vec![s];
            if let Some(v) = h.value {
                let ty = if h.name.ends_with("enable") || h.name.ends_with("disable_nonforced") {
                    LLVMInt1TypeInContext(ctx)
                } else {
                    LLVMInt32TypeInContext(ctx)
                };
                inner.push(LLVMValueAsMetadata(LLVMConstInt(ty, v as u64, 1)));
            }
            ops.push(LLVMMDNodeInContext2(ctx, inner.as_mut_ptr(), inner.len()));
        }
        let node = LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), ops.len());
        LLVMMetadataReplaceAllUsesWith(tmp, node);
        LLVMSetMetadata(term, loop_kind(ctx), LLVMMetadataAsValue(ctx, node));
    }
}
