//! `&&` and `||` reductions, which clang lowers to a branch on the running value.
//!
//! `#pragma omp simd reduction(&&: s)` over `s = s && x[i]` short-circuits: the loop
//! branches on `s` and evaluates `x[i]` only while `s` holds, so the running value is
//! never an operand of an `and`:
//!
//! ```text
//! header: s = φ [pre: init], [latch: s']      brif s, eval, join
//! eval:   x = …                               br join
//! join:   s' = φ [header: false], [eval: x]
//! ```
//!
//! That is `s' = s && x` (and, with `true` on the branch's true edge, `s' = s || x`). Each
//! lane keeps its own partial result and branches on it (a divergent branch of the body,
//! which the vectorizer linearizes), and the partials are combined by `and` (`or`) after
//! the loop, in any order, as the reduction clause allows.

use cranelift_entity::EntitySet;
use lanes_ir::{BinaryOp, Block, Function, InstData, Type, Value};

/// The combining operation if the `i1` header φ `phi`, whose value after an iteration is
/// `next`, is an `&&` or `||` reduction of the shape above.
pub(super) fn logical_reduction(
    func: &Function,
    in_loop: &EntitySet<Block>,
    phi: Value,
    next: Value,
) -> Option<BinaryOp> {
    if func.dfg.value_type(phi) != Type::I1 {
        return None;
    }
    // The running value's only use in the loop: the condition of one branch.
    let mut branch = None;
    for b in in_loop.iter() {
        for &i in func.layout.block_insts(b) {
            if !func.dfg.inst(i).args().contains(&phi) {
                continue;
            }
            match func.dfg.inst(i) {
                InstData::Brif {
                    cond,
                    then_dest,
                    else_dest,
                } if *cond == phi && branch.is_none() && then_dest != else_dest => {
                    branch = Some((b, *then_dest, *else_dest));
                }
                _ => return None,
            }
        }
    }
    let (from, on_true, on_false) = branch?;
    // `next`: a φ merging a constant from that branch's edge with one other value.
    let InstData::Phi { incoming } = func.dfg.inst(func.dfg.def_inst(next)?) else {
        return None;
    };
    let join = func.layout.inst_block(func.dfg.def_inst(next)?)?;
    let [(p0, v0), (p1, v1)] = incoming[..] else {
        return None;
    };
    let (constant, other) = match (p0 == from, p1 == from) {
        (true, false) => (v0, v1),
        (false, true) => (v1, v0),
        _ => return None,
    };
    if other == phi || constant == phi {
        return None;
    }
    let InstData::Iconst { imm } = func.dfg.inst(func.dfg.def_inst(constant)?) else {
        return None;
    };
    let constant_true = imm & 1 == 1;
    // false when the running value is false: `&&`; true when it is true: `||`.
    match (join == on_false, join == on_true, constant_true) {
        (true, false, false) => Some(BinaryOp::And),
        (false, true, true) => Some(BinaryOp::Or),
        _ => None,
    }
}
