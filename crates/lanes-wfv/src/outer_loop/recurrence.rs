//! First-order recurrences of a parallel loop: a header φ that carries a value computed
//! in the previous iteration from the inductions alone (LLVM's name for what its loop
//! vectorizer handles with vector splices).
//!
//! They are what clang makes of a stencil: in `out[i] = a[i-1] + a[i] + a[i+1]` the
//! optimizer loads `a[i+1]` once and hands it to the next iteration as its `a[i]`
//! (`φ [a[0], a[i+1]]`), so the loop carries a value that is neither an induction nor a
//! reduction. In the SPMD body of the outer-loop vectorizer (PLDI'18 §7) every lane runs
//! its own iteration, so the value is recomputed: iteration `k` evaluates the latch
//! value's computation for iteration `k - 1` — the same loads at the same addresses the
//! scalar loop made there, and pure arithmetic — and iteration 0 takes the initial value.
//! The recomputation runs only for `k ≠ 0` (a branch in the body, masked like any other),
//! so no lane loads what the scalar loop never loaded.
//!
//! Taken when the computation (the *slice*) uses only inductions, values from before the
//! loop, and non-trapping instructions without effects (plain loads included, which the
//! parallel loop's lack of carried dependences makes safe to repeat), all in blocks that
//! run in every iteration (the header and the latch).

use cranelift_entity::EntitySet;
use lanes_ir::{BinaryOp, Block, FuncBuilder, Function, Inst, InstData, IntCC, Type, Value};

use super::induction::Induction;

/// `phi = init` in iteration 0 and `latch_value` of iteration `k - 1` in iteration `k`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recurrence {
    pub phi: Value,
    pub init: Value,
    pub latch_value: Value,
    /// The instructions computing `latch_value` in the loop, in layout order, each with
    /// its result (every one defines a value the computation reads).
    pub slice: Vec<(Inst, Value)>,
}

/// The recurrence `phi` (a header φ from `init` and `next`) is, if it is one; `inductions`
/// are the loop's inductions, `in_loop` its blocks.
pub(crate) fn first_order_recurrence(
    func: &Function,
    header: Block,
    latch: Block,
    in_loop: &EntitySet<Block>,
    inductions: &[Induction],
    (phi, init, next): (Value, Value, Value),
) -> Option<Recurrence> {
    if func.value_type(phi).is_vector() {
        return None;
    }
    let mut slice: EntitySet<Inst> = EntitySet::new();
    let mut work = vec![next];
    while let Some(v) = work.pop() {
        let Some(i) = func.dfg.def_inst(v) else {
            continue; // a parameter: from before the loop
        };
        let b = func.layout.inst_block(i)?;
        if !in_loop.contains(b) || inductions.iter().any(|d| d.phi == v) {
            continue;
        }
        if b != header && b != latch {
            return None;
        }
        let data = func.dfg.inst(i);
        let safe = match data {
            InstData::Phi { .. } => false,
            InstData::Load { access, .. } => access.is_plain(),
            InstData::Binary { op, .. } => !op.can_trap(),
            d => !d.has_side_effects() && !d.reads_memory() && !d.is_terminator(),
        };
        if !safe {
            return None;
        }
        if slice.insert(i) {
            work.extend(data.args());
        }
    }
    let order: Vec<(Inst, Value)> = [header, latch]
        .into_iter()
        .enumerate()
        .filter(|&(k, b)| k == 0 || b != header)
        .flat_map(|(_, b)| func.layout.block_insts(b).iter().copied())
        .filter(|&i| slice.contains(i))
        .filter_map(|i| Some((i, func.dfg.inst_result(i)?)))
        .collect();
    Some(Recurrence {
        phi,
        init,
        latch_value: next,
        slice: order,
    })
}

/// Emits, at the end of block `from` (the body's entry, which then ends), the values of
/// `recs` for iteration `k`: `brif k != 0` into a block that recomputes each slice for
/// iteration `k - 1` (the inductions' values there from their starts in the body, paired
/// with them), and a join block with one φ per recurrence, where the builder is left.
/// Returns `(φ, value)` pairs for the caller to substitute.
pub(crate) fn emit_previous(
    b: &mut FuncBuilder,
    from: Block,
    old: &Function,
    recs: &[Recurrence],
    inductions: &[(Induction, Value)],
    k: Value,
    index_type: Type,
) -> Vec<(Value, Value)> {
    b.switch_to_block(from);
    let again = b.create_block();
    let join = b.create_block();
    let zero = b.iconst(index_type, 0);
    let later = b.icmp(IntCC::Ne, k, zero);
    b.brif(later, again, join);
    b.switch_to_block(again);
    let one = b.iconst(index_type, 1);
    let prev_k = b.binary(BinaryOp::Sub, k, one);
    // Old value → its value in iteration k - 1.
    let mut prev: Vec<(Value, Value)> = Vec::new();
    for &(d, start) in inductions {
        let v = d.value_at(b, old.value_type(d.phi), start, prev_k, index_type);
        prev.push((d.phi, v));
    }
    let lookup = |prev: &[(Value, Value)], v: Value| {
        prev.iter().find(|(o, _)| *o == v).map_or(v, |&(_, n)| n)
    };
    let mut latch_values = Vec::new();
    for r in recs {
        let mut local = prev.clone();
        for &(i, result) in &r.slice {
            let mut data = old.dfg.inst(i).clone();
            data.for_each_arg_mut(|a| *a = lookup(&local, *a));
            let copy = b.value(data, old.value_type(result));
            local.push((result, copy));
        }
        latch_values.push(lookup(&local, r.latch_value));
    }
    b.jump(join);
    b.switch_to_block(join);
    recs.iter()
        .zip(latch_values)
        .map(|(r, v)| {
            let ty = old.value_type(r.phi);
            (r.phi, b.phi(ty, vec![(from, r.init), (again, v)]))
        })
        .collect()
}
