//! lanes' comparison codes, atomic operations and integer flags in LLVM's terms: the
//! one-to-one tables both the arithmetic (`arith`) and the instruction walk (`func`) of the
//! exporter use.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMAtomicRMWBinOp, LLVMIntPredicate, LLVMRealPredicate};

use lanes_ir::{AtomicOp, FloatCC, IntCC, IntFlags};

/// Puts `flags` on `v` if it is an instruction that takes them (the builder folds constant
/// operands into a constant, which has none; the verifier rejects flags on other
/// operations, and an unverified one is dropped rather than handed to LLVM); returns `v`.
///
/// # Safety
/// `v` must be a live value.
pub(super) unsafe fn set_flags(v: LLVMValueRef, flags: IntFlags) -> LLVMValueRef {
    use inkwell::llvm_sys::LLVMOpcode::*;
    if flags.is_empty() || LLVMIsAInstruction(v).is_null() {
        return v;
    }
    match LLVMGetInstructionOpcode(v) {
        LLVMAdd | LLVMSub | LLVMMul | LLVMShl => {
            LLVMSetNUW(v, i32::from(flags.nuw()));
            LLVMSetNSW(v, i32::from(flags.nsw()));
        }
        LLVMUDiv | LLVMSDiv | LLVMLShr | LLVMAShr => LLVMSetExact(v, i32::from(flags.exact())),
        LLVMOr => LLVMSetIsDisjoint(v, i32::from(flags.disjoint())),
        LLVMZExt => LLVMSetNNeg(v, i32::from(flags.nneg())),
        _ => {}
    }
    v
}

pub(super) fn int_pred(c: IntCC) -> LLVMIntPredicate {
    use LLVMIntPredicate::*;
    match c {
        IntCC::Eq => LLVMIntEQ,
        IntCC::Ne => LLVMIntNE,
        IntCC::Slt => LLVMIntSLT,
        IntCC::Sle => LLVMIntSLE,
        IntCC::Sgt => LLVMIntSGT,
        IntCC::Sge => LLVMIntSGE,
        IntCC::Ult => LLVMIntULT,
        IntCC::Ule => LLVMIntULE,
        IntCC::Ugt => LLVMIntUGT,
        IntCC::Uge => LLVMIntUGE,
    }
}

pub(super) fn real_pred(c: FloatCC) -> LLVMRealPredicate {
    use LLVMRealPredicate::*;
    match c {
        FloatCC::Oeq => LLVMRealOEQ,
        FloatCC::One => LLVMRealONE,
        FloatCC::Olt => LLVMRealOLT,
        FloatCC::Ole => LLVMRealOLE,
        FloatCC::Ogt => LLVMRealOGT,
        FloatCC::Oge => LLVMRealOGE,
        FloatCC::Ord => LLVMRealORD,
        FloatCC::Uno => LLVMRealUNO,
        FloatCC::Ueq => LLVMRealUEQ,
        FloatCC::Une => LLVMRealUNE,
        FloatCC::Ult => LLVMRealULT,
        FloatCC::Ule => LLVMRealULE,
        FloatCC::Ugt => LLVMRealUGT,
        FloatCC::Uge => LLVMRealUGE,
    }
}

pub(super) fn rmw_op(op: AtomicOp) -> LLVMAtomicRMWBinOp {
    use LLVMAtomicRMWBinOp::*;
    match op {
        AtomicOp::Xchg => LLVMAtomicRMWBinOpXchg,
        AtomicOp::Add => LLVMAtomicRMWBinOpAdd,
        AtomicOp::Sub => LLVMAtomicRMWBinOpSub,
        AtomicOp::And => LLVMAtomicRMWBinOpAnd,
        AtomicOp::Or => LLVMAtomicRMWBinOpOr,
        AtomicOp::Xor => LLVMAtomicRMWBinOpXor,
        AtomicOp::SMin => LLVMAtomicRMWBinOpMin,
        AtomicOp::SMax => LLVMAtomicRMWBinOpMax,
        AtomicOp::UMin => LLVMAtomicRMWBinOpUMin,
        AtomicOp::UMax => LLVMAtomicRMWBinOpUMax,
    }
}
