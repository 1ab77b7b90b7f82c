//! Gathers and scatters get their address computation in their own block, after the
//! optimization pipeline and before code generation.
//!
//! **Why.** x86 gathers and scatters take a scalar base, a vector of 32-bit or 64-bit
//! indices and a scale. LLVM's instruction selection finds that form in a `getelementptr`
//! of a scalar base and a sign-extended 32-bit index, but only when the `getelementptr`
//! and the extension are in the block of the access: instruction selection works one
//! block at a time, and CodeGenPrepare, which sinks addresses into the blocks of loads and
//! stores, leaves those of gathers and scatters where they are (LLVM 19's
//! `optimizeGatherScatterInst`: "We should support this by sinking the GEP"). GVN merges
//! the address of a private stack's push with that of the pop before it, in another block
//! (a BVH walk's `stack[sp - 1] = far` after `node = stack[--sp]`), and the scatter then
//! receives a finished vector of 64-bit pointers: two `vpscatterqd` of 8 lanes each, with
//! the index extraction around them, where one `vpscatterdd` would do.
//!
//! **How.** For each `llvm.masked.gather`/`llvm.masked.scatter` whose address is a
//! `getelementptr` defined in another block, a copy of the `getelementptr` goes right
//! before the access, with copies of its index operands that are casts (the sign
//! extension) defined elsewhere too. The copies compute the same values from the same
//! operands, which dominate the access because the originals do; the originals stay for
//! their other users (or go as dead code in code generation).

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::module::Module as LlModule;
use inkwell::values::AsValueRef;

/// Which operand of a call is the address vector, for the gather and scatter intrinsics.
fn address_operand(callee_name: &[u8]) -> Option<u32> {
    if callee_name.starts_with(b"llvm.masked.gather.") {
        Some(0)
    } else if callee_name.starts_with(b"llvm.masked.scatter.") {
        Some(1)
    } else {
        None
    }
}

/// Copies the address computation of every gather and scatter of `module` whose address is
/// made in another block into the access's block (module docs); returns how many.
pub fn sink_gather_scatter_addresses(module: &LlModule<'_>) -> usize {
    let mut sunk = 0;
    for f in module.get_functions() {
        // SAFETY: every reference below comes from `module`'s live context; instructions
        // are only inserted before the access being visited, which stays valid, and the
        // next instruction is read before anything is inserted.
        unsafe {
            let mut bb = LLVMGetFirstBasicBlock(f.as_value_ref());
            while !bb.is_null() {
                let mut inst = LLVMGetFirstInstruction(bb);
                while !inst.is_null() {
                    let next = LLVMGetNextInstruction(inst);
                    if sink_address(inst, bb) {
                        sunk += 1;
                    }
                    inst = next;
                }
                bb = LLVMGetNextBasicBlock(bb);
            }
        }
    }
    sunk
}

/// For `inst` in block `bb`: if it is a gather or scatter whose address is a
/// `getelementptr` of another block, uses a copy made right before it.
unsafe fn sink_address(inst: LLVMValueRef, bb: LLVMBasicBlockRef) -> bool {
    if LLVMIsACallInst(inst).is_null() {
        return false;
    }
    let callee = LLVMGetCalledValue(inst);
    if callee.is_null() || LLVMIsAFunction(callee).is_null() {
        return false;
    }
    let mut len = 0;
    let name = LLVMGetValueName2(callee, &mut len);
    let name = std::slice::from_raw_parts(name.cast::<u8>(), len);
    let Some(index) = address_operand(name) else {
        return false;
    };
    let gep = LLVMGetOperand(inst, index);
    if LLVMIsAGetElementPtrInst(gep).is_null() || LLVMGetInstructionParent(gep) == bb {
        return false;
    }
    let copy = copy_before(gep, inst);
    for i in 1..LLVMGetNumOperands(gep) as u32 {
        let op = LLVMGetOperand(gep, i);
        if !LLVMIsACastInst(op).is_null() && LLVMGetInstructionParent(op) != bb {
            LLVMSetOperand(copy, i, copy_before(op, copy));
        }
    }
    LLVMSetOperand(inst, index, copy);
    true
}

/// A copy of instruction `original`, inserted right before `at`.
unsafe fn copy_before(original: LLVMValueRef, at: LLVMValueRef) -> LLVMValueRef {
    let copy = LLVMInstructionClone(original);
    let builder = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(original)));
    LLVMPositionBuilderBefore(builder, at);
    LLVMInsertIntoBuilder(builder, copy);
    LLVMDisposeBuilder(builder);
    copy
}
