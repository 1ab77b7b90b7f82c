//! Instruction data: what an instruction computes, independent of where it is placed.
//!
//! Following Cranelift's split of a function into data-flow graph and layout
//! (ARCHITECTURE.md, "The IR"), an `InstData` names its operation, its operand values and
//! its immediates; its result type lives with its result value in the DFG. φ-nodes are
//! instructions with (predecessor, value) pairs, as in the papers and LLVM; blends are
//! `select` on masks. Memory operations carry their alignment in bytes (0: natural).

use crate::entities::{Block, FuncId, GlobalId, Value};
use crate::flags::IntFlags;
use crate::memory_order::{MemAccess, Ordering, SyncScope};
use crate::opcodes::{
    AtomicOp, BinaryOp, CastOp, FloatCC, IntCC, Intrinsic, UnaryOp, WorkItemQuery,
};

/// Visits the operands of an `InstData` (by shared or mutable reference, chosen by the
/// binding mode of `$data` and the iterator method `$iter`), in text order.
macro_rules! visit_operands {
    ($data:expr, $f:ident, $iter:ident) => {
        match $data {
            InstData::Iconst { .. }
            | InstData::Fconst { .. }
            | InstData::Alloca { .. }
            | InstData::GlobalAddr { .. }
            | InstData::FuncAddr { .. }
            | InstData::Fence { .. }
            | InstData::WorkItem { .. }
            | InstData::Jump { .. }
            | InstData::Unreachable => {}
            InstData::Unary { arg, .. } | InstData::Cast { arg, .. } => $f(arg),
            InstData::Binary { args, .. }
            | InstData::Icmp { args, .. }
            | InstData::Fcmp { args, .. }
            | InstData::PtrAdd { args, .. }
            | InstData::Shuffle { args, .. } => args.$iter().for_each(|v| $f(v)),
            InstData::Select { args } => args.$iter().for_each(|v| $f(v)),
            InstData::Phi { incoming } => incoming.$iter().for_each(|(_, v)| $f(v)),
            InstData::Load { ptr, .. } => $f(ptr),
            InstData::Store { value, ptr, .. } => {
                $f(value);
                $f(ptr);
            }
            InstData::MaskedLoad {
                ptr,
                mask,
                passthru,
                ..
            }
            | InstData::Gather {
                ptrs: ptr,
                mask,
                passthru,
                ..
            } => {
                $f(ptr);
                $f(mask);
                $f(passthru);
            }
            InstData::MaskedStore {
                value, ptr, mask, ..
            }
            | InstData::Scatter {
                value,
                ptrs: ptr,
                mask,
                ..
            } => {
                $f(value);
                $f(ptr);
                $f(mask);
            }
            InstData::AtomicRmw { ptr, value, .. } => {
                $f(ptr);
                $f(value);
            }
            InstData::AtomicCas {
                ptr,
                expected,
                replacement,
                ..
            } => {
                $f(ptr);
                $f(expected);
                $f(replacement);
            }
            InstData::Call { args, .. } | InstData::Intrinsic { args, .. } => {
                args.$iter().for_each(|v| $f(v))
            }
            InstData::CallIndirect { callee, args, .. } => {
                $f(callee);
                args.$iter().for_each(|v| $f(v))
            }
            InstData::Brif { cond, .. } => $f(cond),
            InstData::Switch { arg, .. } => $f(arg),
            InstData::Return { value } => {
                if let Some(v) = value {
                    $f(v)
                }
            }
        }
    };
}

/// One instruction's operation, operands and immediates. `Eq` and `Hash` compare
/// operands as values and float constants as bits (value numbering keys on them).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum InstData {
    /// Integer constant; splatted if the result is a vector. Stored sign-extended.
    Iconst {
        imm: i64,
    },
    /// Float constant as the raw IEEE bits of the result's element type; splatted.
    Fconst {
        bits: u64,
    },
    Unary {
        op: UnaryOp,
        arg: Value,
    },
    /// `flags`: the [`IntFlags`] the producer asserts (`add nsw`); none where unproven.
    Binary {
        op: BinaryOp,
        args: [Value; 2],
        flags: IntFlags,
    },
    Icmp {
        cond: IntCC,
        args: [Value; 2],
    },
    Fcmp {
        cond: FloatCC,
        args: [Value; 2],
    },
    /// `select cond, if_true, if_false`; with a mask condition, a lane-wise blend.
    Select {
        args: [Value; 3],
    },
    /// `flags`: `nneg` on `zext` ([`IntFlags`]).
    Cast {
        op: CastOp,
        arg: Value,
        flags: IntFlags,
    },
    /// φ: the value flowing in from each predecessor.
    Phi {
        incoming: Vec<(Block, Value)>,
    },
    /// Pointer plus a signed byte offset (any integer type, sign-extended). With a vector
    /// operand, a vector of pointers. `flags`: `inbounds` and `nuw` ([`IntFlags`]).
    PtrAdd {
        args: [Value; 2],
        flags: IntFlags,
    },
    /// Stack memory of `size` bytes in the private address space. Widened, each lane gets
    /// a slice of [`alloca_slice`] bytes of one allocation, lane `k` at `k` slices.
    Alloca {
        size: u32,
        align: u32,
    },
    /// The address of a module global.
    GlobalAddr {
        global: GlobalId,
    },
    /// The address of a module function, to call indirectly or to store.
    FuncAddr {
        func: FuncId,
    },
    /// Load of the result type from one address; a vector result is a contiguous load.
    /// `access`: plain, volatile and/or atomic ([`MemAccess`]).
    Load {
        ptr: Value,
        align: u32,
        access: MemAccess,
    },
    Store {
        value: Value,
        ptr: Value,
        align: u32,
        access: MemAccess,
    },
    /// Contiguous vector load of the lanes whose mask bit is set; others from `passthru`.
    MaskedLoad {
        ptr: Value,
        mask: Value,
        passthru: Value,
        align: u32,
    },
    MaskedStore {
        value: Value,
        ptr: Value,
        mask: Value,
        align: u32,
    },
    /// Load each active lane from its own address (`ptrs` is a vector of pointers).
    Gather {
        ptrs: Value,
        mask: Value,
        passthru: Value,
        align: u32,
    },
    Scatter {
        value: Value,
        ptrs: Value,
        mask: Value,
        align: u32,
    },
    /// Atomic read-modify-write; returns the old value. `access.atomic` is always set.
    AtomicRmw {
        op: AtomicOp,
        ptr: Value,
        value: Value,
        access: MemAccess,
    },
    /// Compare-and-swap; returns the old value. `access` holds the ordering on success,
    /// `failure` the one on failure.
    AtomicCas {
        ptr: Value,
        expected: Value,
        replacement: Value,
        access: MemAccess,
        failure: Ordering,
    },
    /// A memory fence (C11 `atomic_thread_fence`, or `atomic_signal_fence` with
    /// [`SyncScope::SingleThread`]).
    Fence {
        ordering: Ordering,
        scope: SyncScope,
    },
    /// A call of a function of the module. A variadic callee (its signature says so) takes
    /// the arguments past its parameters as they are.
    Call {
        func: FuncId,
        args: Vec<Value>,
    },
    /// A call through a function pointer. The callee's type is the arguments' types, the
    /// result's type, and `variadic`: `Some(n)` when it is variadic with `n` fixed
    /// parameters (a call of `printf` through a pointer).
    CallIndirect {
        callee: Value,
        args: Vec<Value>,
        variadic: Option<u32>,
    },
    Intrinsic {
        id: Intrinsic,
        args: Vec<Value>,
    },
    WorkItem {
        query: WorkItemQuery,
        dim: u8,
    },
    /// Lanes of the concatenation `a ++ b` picked by `mask` (indices below `2 * lanes`).
    Shuffle {
        args: [Value; 2],
        mask: Vec<u32>,
    },
    /// Unconditional branch (`br`).
    Jump {
        dest: Block,
    },
    /// Two-way branch on an `i1`.
    Brif {
        cond: Value,
        then_dest: Block,
        else_dest: Block,
    },
    /// Multi-way branch on an integer scalar.
    Switch {
        arg: Value,
        cases: Vec<(i64, Block)>,
        default: Block,
    },
    Return {
        value: Option<Value>,
    },
    Unreachable,
}

impl InstData {
    /// The instruction's mnemonic in the text format.
    pub fn opcode_name(&self) -> &'static str {
        match self {
            InstData::Iconst { .. } => "iconst",
            InstData::Fconst { .. } => "fconst",
            InstData::Unary { op, .. } => op.name(),
            InstData::Binary { op, .. } => op.name(),
            InstData::Icmp { .. } => "icmp",
            InstData::Fcmp { .. } => "fcmp",
            InstData::Select { .. } => "select",
            InstData::Cast { op, .. } => op.name(),
            InstData::Phi { .. } => "phi",
            InstData::PtrAdd { .. } => "ptradd",
            InstData::Alloca { .. } => "alloca",
            InstData::GlobalAddr { .. } => "global_addr",
            InstData::FuncAddr { .. } => "func_addr",
            InstData::Load { .. } => "load",
            InstData::Store { .. } => "store",
            InstData::MaskedLoad { .. } => "masked_load",
            InstData::MaskedStore { .. } => "masked_store",
            InstData::Gather { .. } => "gather",
            InstData::Scatter { .. } => "scatter",
            InstData::AtomicRmw { .. } => "atomic_rmw",
            InstData::AtomicCas { .. } => "atomic_cas",
            InstData::Fence { .. } => "fence",
            InstData::Call { .. } => "call",
            InstData::CallIndirect { .. } => "call_indirect",
            InstData::Intrinsic { id, .. } => id.name(),
            InstData::WorkItem { query, .. } => query.name(),
            InstData::Shuffle { .. } => "shuffle",
            InstData::Jump { .. } => "br",
            InstData::Brif { .. } => "brif",
            InstData::Switch { .. } => "switch",
            InstData::Return { .. } => "ret",
            InstData::Unreachable => "unreachable",
        }
    }

    /// Does the instruction produce a result? `None` for calls, where the callee's
    /// signature decides.
    pub fn has_result(&self) -> Option<bool> {
        match self {
            InstData::Call { .. } | InstData::CallIndirect { .. } => None,
            InstData::Store { .. }
            | InstData::Fence { .. }
            | InstData::MaskedStore { .. }
            | InstData::Scatter { .. }
            | InstData::Jump { .. }
            | InstData::Brif { .. }
            | InstData::Switch { .. }
            | InstData::Return { .. }
            | InstData::Unreachable => Some(false),
            InstData::Intrinsic { id, .. } => {
                Some(id.class() != crate::opcodes::IntrinsicClass::Barrier)
            }
            _ => Some(true),
        }
    }

    /// Is this a block terminator?
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            InstData::Jump { .. }
                | InstData::Brif { .. }
                | InstData::Switch { .. }
                | InstData::Return { .. }
                | InstData::Unreachable
        )
    }

    pub fn is_phi(&self) -> bool {
        matches!(self, InstData::Phi { .. })
    }

    /// The [`IntFlags`] of a binary operation, cast or `ptradd` (none for others).
    pub fn int_flags(&self) -> IntFlags {
        match self {
            InstData::Binary { flags, .. }
            | InstData::Cast { flags, .. }
            | InstData::PtrAdd { flags, .. } => *flags,
            _ => IntFlags::NONE,
        }
    }

    /// Drops the integer flags that speculation would falsify, for code executed where
    /// they were not asserted (for inactive lanes): all but [`IntFlags::speculable`] ones.
    pub fn clear_unspeculable_flags(&mut self) {
        if let InstData::Binary { flags, .. }
        | InstData::Cast { flags, .. }
        | InstData::PtrAdd { flags, .. } = self
        {
            *flags = flags.speculable();
        }
    }

    /// The [`MemAccess`] of a load, store or atomic operation (plain for the others).
    pub fn mem_access(&self) -> MemAccess {
        match self {
            InstData::Load { access, .. }
            | InstData::Store { access, .. }
            | InstData::AtomicRmw { access, .. }
            | InstData::AtomicCas { access, .. } => *access,
            _ => MemAccess::PLAIN,
        }
    }

    /// Does the instruction write memory, make an observable access (volatile or atomic),
    /// synchronize, or call out? Such instructions must never run for an inactive lane, and
    /// run once per active lane.
    pub fn has_side_effects(&self) -> bool {
        match self {
            InstData::Load { access, .. } => !access.is_plain(),
            InstData::Store { .. }
            | InstData::MaskedStore { .. }
            | InstData::Scatter { .. }
            | InstData::AtomicRmw { .. }
            | InstData::AtomicCas { .. }
            | InstData::Fence { .. }
            | InstData::Call { .. }
            | InstData::CallIndirect { .. } => true,
            InstData::Intrinsic { id, .. } => id.has_side_effects(),
            _ => false,
        }
    }

    /// May the instruction run for a lane that is not active, as linearization runs
    /// arithmetic under a false predicate (PLDI'18 §2.4)? Not if it has an effect, reads
    /// memory, may trap (integer division), asks which lanes run (mask and cross-lane
    /// queries, page probes), allocates, or is `unreachable`.
    pub fn is_speculatable(&self) -> bool {
        use crate::opcodes::IntrinsicClass;
        let lanes_matter = matches!(
            self,
            InstData::Intrinsic { id, .. }
                if matches!(id.class(), IntrinsicClass::MaskQuery | IntrinsicClass::CrossLane(_) | IntrinsicClass::PageProbe)
        );
        !(self.has_side_effects()
            || self.reads_memory()
            || matches!(self, InstData::Binary { op, .. } if op.can_trap())
            || lanes_matter
            || matches!(self, InstData::Alloca { .. } | InstData::Unreachable))
    }

    /// Does the instruction read memory?
    pub fn reads_memory(&self) -> bool {
        matches!(
            self,
            InstData::Load { .. }
                | InstData::MaskedLoad { .. }
                | InstData::Gather { .. }
                | InstData::AtomicRmw { .. }
                | InstData::AtomicCas { .. }
                | InstData::Fence { .. }
                | InstData::Call { .. }
                | InstData::CallIndirect { .. }
                | InstData::Intrinsic {
                    id: Intrinsic::SpeculativeLoad,
                    ..
                }
        )
    }

    /// Calls `f` on every operand value, in text order (φ values included).
    pub fn for_each_arg(&self, mut f: impl FnMut(Value)) {
        let mut g = |v: &Value| f(*v);
        visit_operands!(self, g, iter)
    }

    /// The operand values in text order.
    pub fn args(&self) -> Vec<Value> {
        let mut out = Vec::new();
        self.for_each_arg(|v| out.push(v));
        out
    }

    /// Calls `f` on a mutable reference to every operand value, in text order.
    pub fn for_each_arg_mut(&mut self, mut f: impl FnMut(&mut Value)) {
        visit_operands!(self, f, iter_mut)
    }

    /// The successor blocks of a terminator, in order, duplicates kept (a `brif` whose
    /// targets are equal has two edges to the same block). Empty for non-terminators.
    pub fn branch_targets(&self) -> Vec<Block> {
        match self {
            InstData::Jump { dest } => vec![*dest],
            InstData::Brif {
                then_dest,
                else_dest,
                ..
            } => vec![*then_dest, *else_dest],
            InstData::Switch { cases, default, .. } => cases
                .iter()
                .map(|&(_, b)| b)
                .chain(core::iter::once(*default))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Calls `f` on every branch target of a terminator, mutably (for CFG rewrites).
    pub fn for_each_target_mut(&mut self, mut f: impl FnMut(&mut Block)) {
        match self {
            InstData::Jump { dest } => f(dest),
            InstData::Brif {
                then_dest,
                else_dest,
                ..
            } => {
                f(then_dest);
                f(else_dest);
            }
            InstData::Switch { cases, default, .. } => {
                cases.iter_mut().for_each(|(_, b)| f(b));
                f(default);
            }
            _ => {}
        }
    }
}

/// The bytes each lane's slice of a widened `alloca` of `size` bytes aligned to `align`
/// takes: the size rounded up to the alignment, so that every slice stays aligned. Shape
/// analysis calls the alloca strided by this much, and widening lays it out so.
pub fn alloca_slice(size: u32, align: u32) -> u32 {
    size.next_multiple_of(align.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_entity::EntityRef;

    #[test]
    fn operands_and_targets_are_listed_in_text_order() {
        let v = Value::new;
        let b = Block::new;
        let store = InstData::Scatter {
            value: v(1),
            ptrs: v(2),
            mask: v(3),
            align: 4,
        };
        assert_eq!(store.args(), vec![v(1), v(2), v(3)]);
        assert!(store.has_side_effects());
        let sw = InstData::Switch {
            arg: v(0),
            cases: vec![(1, b(2)), (5, b(3))],
            default: b(4),
        };
        assert_eq!(sw.branch_targets(), vec![b(2), b(3), b(4)]);
        assert!(sw.is_terminator());
        let mut phi = InstData::Phi {
            incoming: vec![(b(0), v(1)), (b(1), v(2))],
        };
        phi.for_each_arg_mut(|x| *x = v(x.index() + 10));
        assert_eq!(phi.args(), vec![v(11), v(12)]);
    }
}
