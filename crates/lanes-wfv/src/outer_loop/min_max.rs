//! Minimum and maximum reductions written as a compare and a select.
//!
//! `#pragma omp simd reduction(min: m)` over `m = x < m ? x : m` reaches lanes as
//! `select(fcmp olt x, m; x, m)` whenever no fast-math flag lets clang use `minnum` (floats
//! always; integers only until InstCombine turns the pair into `smin`). The running value
//! is then read by the compare, which a plain reduction chain does not allow. The pair
//! computes the minimum (or maximum) of the running value and `x`, so it is a reduction
//! chain of `fmin`/`fmax` (or the integer `smin`… of the compare's signedness): each lane
//! keeps the compare and select on its own partial result, and the partials are combined
//! by that operation after the loop, which `reduction(min/max)` licenses in any order.
//!
//! Only ordered float compares are taken: `x olt m` is false for a NaN `x`, so NaNs never
//! enter a partial result and combining partials with `fmin` (which ignores NaNs) gives the
//! sequential result. An unordered compare lets a NaN in, and `fmin` would drop it again.

use lanes_ir::{BinaryOp, FloatCC, Function, InstData, IntCC, Value};

/// Whether a compare picks the smaller or the larger of its operands when true.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pick {
    Smaller,
    Larger,
}

/// The comparison defining `cond`: its operands and, for `select(cond, a, b)` choosing
/// `a`, the operation it computes when true (`a < b` picks the smaller), with its kind.
fn comparison(func: &Function, cond: Value) -> Option<(Value, Value, Pick, bool, bool)> {
    // (lhs, rhs, what lhs-when-true means, float, signed)
    match func.dfg.inst(func.dfg.def_inst(cond)?) {
        InstData::Fcmp { cond, args: [a, b] } => {
            let pick = match cond {
                FloatCC::Olt | FloatCC::Ole => Pick::Smaller,
                FloatCC::Ogt | FloatCC::Oge => Pick::Larger,
                _ => return None,
            };
            Some((*a, *b, pick, true, false))
        }
        InstData::Icmp { cond, args: [a, b] } => {
            let (pick, signed) = match cond {
                IntCC::Slt | IntCC::Sle => (Pick::Smaller, true),
                IntCC::Sgt | IntCC::Sge => (Pick::Larger, true),
                IntCC::Ult | IntCC::Ule => (Pick::Smaller, false),
                IntCC::Ugt | IntCC::Uge => (Pick::Larger, false),
                _ => return None,
            };
            Some((*a, *b, pick, false, signed))
        }
        _ => None,
    }
}

/// The min/max operation of `select(cond, then, other)` if `cond` compares exactly
/// `then` and `other` (in either order) and exactly one of them is on the chain.
pub(super) fn select_min_max(
    func: &Function,
    on_chain: &dyn Fn(Value) -> bool,
    [cond, then, other]: [Value; 3],
) -> Option<BinaryOp> {
    let (a, b, pick, float, signed) = comparison(func, cond)?;
    if on_chain(then) == on_chain(other) || on_chain(cond) {
        return None;
    }
    // `a cmp b ? a : b` picks what the compare says of `a`; `a cmp b ? b : a` the other.
    let pick = if (a, b) == (then, other) {
        pick
    } else if (a, b) == (other, then) {
        match pick {
            Pick::Smaller => Pick::Larger,
            Pick::Larger => Pick::Smaller,
        }
    } else {
        return None;
    };
    Some(match (pick, float, signed) {
        (Pick::Smaller, true, _) => BinaryOp::FMin,
        (Pick::Larger, true, _) => BinaryOp::FMax,
        (Pick::Smaller, false, true) => BinaryOp::SMin,
        (Pick::Larger, false, true) => BinaryOp::SMax,
        (Pick::Smaller, false, false) => BinaryOp::UMin,
        (Pick::Larger, false, false) => BinaryOp::UMax,
    })
}

/// Is the compare `cmp` (reading a chain value) used only as the condition of selects
/// that [`select_min_max`] accepts?
pub(super) fn compare_only_selects(
    func: &Function,
    users: &[&InstData],
    on_chain: &dyn Fn(Value) -> bool,
    cmp: Value,
) -> bool {
    !users.is_empty()
        && users.iter().all(|data| match data {
            InstData::Select { args } => {
                args[0] == cmp && select_min_max(func, on_chain, *args).is_some()
            }
            _ => false,
        })
}
