//! `volatile`, atomic orderings and synchronization scopes between LLVM instructions and
//! lanes' [`MemAccess`], in both directions, so that the importer and the exporter cannot
//! disagree.
//!
//! LLVM 19's C API tells only whether an atomic operation is `syncscope("singlethread")`;
//! any other named scope (OpenCL's `workgroup` on GPU targets, never emitted for x86) is
//! read as system-wide, which synchronizes at least as much: stronger, never weaker.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::llvm_sys::LLVMAtomicOrdering as L;
use lanes_ir::{Atomic, MemAccess, Ordering, SyncScope};

/// The lanes ordering of an LLVM one; `None` for "not atomic".
pub(crate) fn from_llvm(o: L) -> Option<Ordering> {
    Some(match o {
        L::LLVMAtomicOrderingNotAtomic => return None,
        L::LLVMAtomicOrderingUnordered => Ordering::Unordered,
        L::LLVMAtomicOrderingMonotonic => Ordering::Monotonic,
        L::LLVMAtomicOrderingAcquire => Ordering::Acquire,
        L::LLVMAtomicOrderingRelease => Ordering::Release,
        L::LLVMAtomicOrderingAcquireRelease => Ordering::AcqRel,
        L::LLVMAtomicOrderingSequentiallyConsistent => Ordering::SeqCst,
    })
}

pub(crate) fn to_llvm(o: Ordering) -> L {
    match o {
        Ordering::Unordered => L::LLVMAtomicOrderingUnordered,
        Ordering::Monotonic => L::LLVMAtomicOrderingMonotonic,
        Ordering::Acquire => L::LLVMAtomicOrderingAcquire,
        Ordering::Release => L::LLVMAtomicOrderingRelease,
        Ordering::AcqRel => L::LLVMAtomicOrderingAcquireRelease,
        Ordering::SeqCst => L::LLVMAtomicOrderingSequentiallyConsistent,
    }
}

/// The scope of atomic instruction `i`.
///
/// # Safety
/// `i` is a live atomic instruction (load/store with an ordering, RMW, cmpxchg, fence).
pub(crate) unsafe fn scope_of(i: LLVMValueRef) -> SyncScope {
    if LLVMIsAtomicSingleThread(i) != 0 {
        SyncScope::SingleThread
    } else {
        SyncScope::System
    }
}

/// The access of load, store, `atomicrmw` or `cmpxchg` `i` (for `cmpxchg`, its success
/// ordering).
///
/// # Safety
/// `i` is a live instruction of one of those kinds.
pub(crate) unsafe fn access_of(i: LLVMValueRef) -> MemAccess {
    let ordering = if LLVMIsAAtomicCmpXchgInst(i).is_null() {
        from_llvm(LLVMGetOrdering(i))
    } else {
        from_llvm(LLVMGetCmpXchgSuccessOrdering(i))
    };
    MemAccess {
        volatile: LLVMGetVolatile(i) != 0,
        atomic: ordering.map(|ordering| Atomic {
            ordering,
            scope: scope_of(i),
        }),
    }
}

/// Gives load or store `i` the volatility and atomicity of `access`.
///
/// # Safety
/// `i` is a live load or store.
pub(crate) unsafe fn set_access(i: LLVMValueRef, access: MemAccess) {
    if access.volatile {
        LLVMSetVolatile(i, 1);
    }
    if let Some(a) = access.atomic {
        LLVMSetOrdering(i, to_llvm(a.ordering));
        if a.scope == SyncScope::SingleThread {
            LLVMSetAtomicSingleThread(i, 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orderings_round_trip() {
        for o in Ordering::ALL {
            assert_eq!(from_llvm(to_llvm(o)), Some(o));
        }
        assert_eq!(from_llvm(L::LLVMAtomicOrderingNotAtomic), None);
    }
}
