//! Loop metadata (`!llvm.loop`) in both directions.
//!
//! Clang attaches loop hints (`#pragma clang loop`, `mustprogress`, OpenMP `simd`'s
//! `llvm.loop.parallel_accesses`) to the back-edge branch as a self-referencing node
//! `!0 = distinct !{!0, !{!"llvm.loop.unroll.count", i32 4}, …}`. lanes keeps each hint as a
//! name and an optional integer ([`lanes_ir::LoopHint`]) on the latch block
//! ([`lanes_ir::LoopMd`]); other operands (follow-up loop-id lists) are dropped.
//! `llvm.loop.parallel_accesses` is kept in lanes IR (it licenses vectorization) but not
//! re-exported: its access groups would have to be distinct empty nodes on every memory
//! access, which the LLVM-C API cannot create.

use std::ffi::c_uint;

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::debuginfo::{LLVMMetadataReplaceAllUsesWith, LLVMTemporaryMDNode};
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
            if name == "llvm.loop.parallel_accesses" {
                hints.push(LoopHint { name, value: None });
            } else if inner.len() <= 2 {
                hints.push(LoopHint { name, value });
            }
        }
        Some(hints)
    }
}

/// Attaches `hints` as a fresh self-referencing `!llvm.loop` node to branch `term`.
pub(crate) fn attach(ctx: LLVMContextRef, term: LLVMValueRef, hints: &[LoopHint]) {
    // SAFETY: all metadata is created in `ctx`; the temporary node is replaced (and thereby
    // freed) before returning.
    unsafe {
        let tmp = LLVMTemporaryMDNode(ctx, std::ptr::null_mut(), 0);
        let mut ops = vec![tmp];
        for h in hints {
            if h.name == "llvm.loop.parallel_accesses" {
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
