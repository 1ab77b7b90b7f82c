//! Which instructions branch fusion may merge, and the profit of merging two (PACT'11
//! §IV-A(a)): `s(i, j)`, the cycles saved by running one instruction instead of two, less
//! `c(i, j)`, the selectors choosing the operands that differ.
//!
//! The paper reads its costs from a GPU manual; ours are the rough throughput costs of the
//! widened instruction on an x86 vector unit, which is what merging saves after
//! linearization (both sides of a divergent branch run, each under its mask). One thing
//! is new on a CPU: a memory access whose address the sides compute differently gets a
//! selected address, which is no longer contiguous, so two vector loads become one
//! gather. The profit of a merge is therefore `cost(T[i]) + cost(F[j]) − cost(merged)`
//! minus one cycle per selector, with `cost(merged)` taken at the merged address's shape.

use std::collections::HashMap;

use lanes_analysis::shapes::ShapeInfo;
use lanes_ir::{
    BinaryOp, EntityRef, FastMath, Function, Inst, InstData, Intrinsic, IntrinsicClass, Type, Value,
};

/// The cost of a selector (`select` of a mask: one blend).
const SELECT: i64 = 1;
/// A contiguous or uniform vector load or store.
const CONTIGUOUS_ACCESS: i64 = 4;
/// A gather or scatter.
const SCATTERED_ACCESS: i64 = 16;

/// What two instructions must share to become one instruction with selected operands:
/// the same operation (opcode, immediates, flags, alignment: the instruction with its
/// operands blanked), result and operand types and fast-math flags. Computed once per
/// instruction, so that the alignment's `|T|·|F|` comparisons are plain equality.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Signature {
    operation: InstData,
    result: Option<Type>,
    operands: Vec<Type>,
    fast_math: FastMath,
}

/// The signature of `inst`, or `None` if fusion may not merge it at all. Mergeable are the
/// operations correct to run for the lanes of both sides at once: arithmetic,
/// comparisons, casts, address arithmetic, lane-wise math intrinsics and plain loads and
/// stores (each lane still computes its own operation on its own operands and touches its
/// own address). Not φs, terminators, allocas, calls, atomics, volatile accesses or
/// cross-lane intrinsics, whose meaning depends on which lanes run them together or on
/// their order.
pub(super) fn signature(func: &Function, inst: Inst) -> Option<Signature> {
    let data = func.dfg.inst(inst);
    if !fusable(data) {
        return None;
    }
    let mut operation = data.clone();
    operation.for_each_arg_mut(|v| *v = Value::new(0));
    Some(Signature {
        operation,
        result: func.dfg.inst_result(inst).map(|v| func.dfg.value_type(v)),
        operands: data
            .args()
            .iter()
            .map(|&v| func.dfg.value_type(v))
            .collect(),
        fast_math: func.dfg.fast_math(inst),
    })
}

/// Is `data` an operation fusion may run for both sides' lanes at once?
fn fusable(data: &InstData) -> bool {
    match data {
        InstData::Iconst { .. }
        | InstData::Fconst { .. }
        | InstData::Unary { .. }
        | InstData::Binary { .. }
        | InstData::Icmp { .. }
        | InstData::Fcmp { .. }
        | InstData::Select { .. }
        | InstData::Cast { .. }
        | InstData::PtrAdd { .. }
        | InstData::GlobalAddr { .. }
        | InstData::FuncAddr { .. }
        | InstData::WorkItem { .. } => true,
        InstData::Load { access, .. } | InstData::Store { access, .. } => {
            !access.volatile && access.atomic.is_none()
        }
        InstData::Intrinsic { id, .. } => matches!(
            id.class(),
            IntrinsicClass::FloatMath(_) | IntrinsicClass::IntMath(_)
        ),
        _ => false,
    }
}

/// Can the first two operands of `data` trade places without changing its result? (Float
/// sums and products commute up to which NaN payload they return, which LLVM does not
/// keep either; `fmin`/`fmax` do not: which zero they return depends on the order.)
fn commutes(data: &InstData) -> bool {
    use BinaryOp::*;
    match data {
        InstData::Binary { op, .. } => matches!(
            op,
            Add | Mul | And | Or | Xor | SMin | SMax | UMin | UMax | FAdd | FMul
        ),
        InstData::Intrinsic { id, .. } => matches!(id, Intrinsic::Fma | Intrinsic::FMulAdd),
        _ => false,
    }
}

/// The else side's operands `f_args` in the order that needs the fewest selectors against
/// `t_args` (the first two swapped where `data` commutes and that agrees better), and the
/// number of selectors: one per operand where `agree` says the two may differ.
pub(super) fn paired_operands(
    data: &InstData,
    t_args: &[Value],
    f_args: &[Value],
    agree: impl Fn(Value, Value) -> bool,
) -> (Vec<Value>, usize) {
    let selectors = |f: &[Value]| {
        t_args
            .iter()
            .zip(f)
            .filter(|&(&a, &b)| !agree(a, b))
            .count()
    };
    let straight = f_args.to_vec();
    let n = selectors(&straight);
    if commutes(data) && f_args.len() >= 2 {
        let mut swapped = straight.clone();
        swapped.swap(0, 1);
        let k = selectors(&swapped);
        if k < n {
            return (swapped, k);
        }
    }
    (straight, n)
}

/// The address operand of a load or store.
pub(super) fn address(data: &InstData) -> Option<Value> {
    match *data {
        InstData::Load { ptr, .. } | InstData::Store { ptr, .. } => Some(ptr),
        _ => None,
    }
}

/// The rough cost of the widened `data`; `scattered`: its address is not contiguous.
fn cycles(data: &InstData, scattered: bool) -> i64 {
    match data {
        InstData::Iconst { .. }
        | InstData::Fconst { .. }
        | InstData::GlobalAddr { .. }
        | InstData::FuncAddr { .. }
        | InstData::WorkItem { .. } => 0,
        InstData::Binary { op, .. } => match op {
            // Integer division has no vector instruction: one division per lane.
            BinaryOp::SDiv | BinaryOp::UDiv | BinaryOp::SRem | BinaryOp::URem => 20,
            BinaryOp::FRem => 20,
            BinaryOp::FDiv => 8,
            BinaryOp::Mul => 2,
            _ => 1,
        },
        InstData::Intrinsic { id, .. } => match id {
            Intrinsic::Sqrt => 8,
            Intrinsic::Fabs
            | Intrinsic::Floor
            | Intrinsic::Ceil
            | Intrinsic::Trunc
            | Intrinsic::Round
            | Intrinsic::Rint
            | Intrinsic::Copysign
            | Intrinsic::Fma
            | Intrinsic::FMulAdd => 1,
            // Transcendentals: a vector-library call at best.
            _ if matches!(id.class(), IntrinsicClass::FloatMath(_)) => 20,
            _ => 1,
        },
        InstData::Load { .. } | InstData::Store { .. } => {
            if scattered {
                SCATTERED_ACCESS
            } else {
                CONTIGUOUS_ACCESS
            }
        }
        _ => 1,
    }
}

/// One side of a candidate branch: its instructions, where each result stands among them,
/// and their signatures.
pub(super) struct Side {
    pub insts: Vec<Inst>,
    positions: HashMap<Value, usize>,
    signatures: Vec<Option<Signature>>,
}

impl Side {
    pub fn new(func: &Function, insts: Vec<Inst>) -> Side {
        let positions = insts
            .iter()
            .enumerate()
            .filter_map(|(k, &i)| func.dfg.inst_result(i).map(|v| (v, k)))
            .collect();
        let signatures = insts.iter().map(|&i| signature(func, i)).collect();
        Side {
            insts,
            positions,
            signatures,
        }
    }
}

/// The profit functions of one candidate branch: its two sides and their shapes.
pub(super) struct Profit<'a> {
    pub func: &'a Function,
    pub info: &'a ShapeInfo,
    pub then_side: &'a Side,
    pub else_side: &'a Side,
}

impl Profit<'_> {
    /// Can `then_side.insts[i]` and `else_side.insts[j]` become one instruction?
    pub fn mergeable(&self, i: usize, j: usize) -> bool {
        let t = &self.then_side.signatures[i];
        t.is_some() && *t == self.else_side.signatures[j]
    }

    /// `s(i, j) − c(i, j)` for `then_side.insts[i]` and `else_side.insts[j]`, or `None` if
    /// they cannot merge.
    pub fn gain(&self, i: usize, j: usize) -> Option<i64> {
        if !self.mergeable(i, j) {
            return None;
        }
        let (t, f) = (self.then_side.insts[i], self.else_side.insts[j]);
        let (td, fd) = (self.func.dfg.inst(t), self.func.dfg.inst(f));
        let (_, selectors) =
            paired_operands(td, &td.args(), &fd.args(), |a, b| self.may_agree(a, b));
        let selectors = selectors as i64;
        let scattered = |v: Option<Value>| v.is_some_and(|v| self.info.shape(v).stride().is_none());
        let (ta, fa) = (address(td), address(fd));
        // A merged access keeps a contiguous address only if both sides use the same one.
        let merged_scattered = ta != fa || scattered(ta);
        let saved = cycles(td, scattered(ta)) + cycles(fd, scattered(fa));
        Some(saved - cycles(td, merged_scattered) - SELECT * selectors)
    }

    /// Can operands `a` (then side) and `b` (else side) end up the same value after
    /// fusion, so that no selector chooses between them? Yes if they are the same value,
    /// or each is defined on its side by instructions that may merge themselves (the
    /// estimate is optimistic there: the alignment decides whether they do).
    fn may_agree(&self, a: Value, b: Value) -> bool {
        if a == b {
            return true;
        }
        match (
            self.then_side.positions.get(&a),
            self.else_side.positions.get(&b),
        ) {
            (Some(&i), Some(&j)) => self.mergeable(i, j),
            _ => false,
        }
    }
}
