//! Fast-math flags between LLVM's bit set and lanes' [`FastMath`], both ways. The two use
//! different bit orders; this table is the only place that knows both.

use inkwell::llvm_sys::{
    LLVMFastMathAllowContract, LLVMFastMathAllowReassoc, LLVMFastMathAllowReciprocal,
    LLVMFastMathApproxFunc, LLVMFastMathFlags, LLVMFastMathNoInfs, LLVMFastMathNoNaNs,
    LLVMFastMathNoSignedZeros,
};
use lanes_ir::FastMath;

const PAIRS: [(LLVMFastMathFlags, FastMath); 7] = [
    (LLVMFastMathAllowReassoc, FastMath::REASSOC),
    (LLVMFastMathNoNaNs, FastMath::NNAN),
    (LLVMFastMathNoInfs, FastMath::NINF),
    (LLVMFastMathNoSignedZeros, FastMath::NSZ),
    (LLVMFastMathAllowReciprocal, FastMath::ARCP),
    (LLVMFastMathAllowContract, FastMath::CONTRACT),
    (LLVMFastMathApproxFunc, FastMath::AFN),
];

pub(crate) fn from_llvm(bits: LLVMFastMathFlags) -> FastMath {
    PAIRS
        .iter()
        .filter(|(l, _)| bits & l != 0)
        .fold(FastMath::NONE, |acc, &(_, f)| acc.union(f))
}

pub(crate) fn to_llvm(flags: FastMath) -> LLVMFastMathFlags {
    PAIRS
        .iter()
        .filter(|(_, f)| flags.contains(*f))
        .fold(0, |acc, &(l, _)| acc | l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_flag_maps_both_ways() {
        for &(l, f) in &PAIRS {
            assert_eq!(from_llvm(l), f);
            assert_eq!(to_llvm(f), l);
        }
        assert_eq!(from_llvm(to_llvm(FastMath::FAST)), FastMath::FAST);
    }
}
