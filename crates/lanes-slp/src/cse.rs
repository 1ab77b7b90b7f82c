//! Common subexpressions of a list, removed: what makes the copies of a merged loop
//! share their addresses (SuperVectorization, PLDI'22 §3.3 and §4.1).
//!
//! Unrolling an outer loop copies its inner loop once per lane, and fusion puts the
//! copies' items into one list. Each copy then computes again what does not depend on
//! its lane — `j·m`, the load of `y[j]` — as a value of its own. The packer compares
//! addresses as `base + Σ cᵢ·xᵢ + k` over SSA values (`address`), so `A[j·m + i + k]` in
//! sixteen copies, each with its own `j·m`, are sixteen unrelated addresses rather than
//! one vector load, and sixteen loads of `y[j]` are built into a vector rather than one
//! load splatted. Within one list, an instruction equal to an earlier one — same
//! operation, operands, types and predicate — computes the same value wherever it runs,
//! and the earlier one ran whenever it does; a load equal to an earlier one also needs
//! no write to memory between them (any store, call or loop counts as one).

use std::collections::HashMap;

use lanes_ir::{InstData, Value};

use crate::pssa::{Item, LoopId, Pssa};
use crate::substitute::substitute;

/// Removes the instructions of the list of loop `l` that repeat an earlier one, and
/// reads the earlier one's value in their place; how many were removed.
pub fn eliminate_common_subexpressions(pssa: &mut Pssa, l: LoopId) -> usize {
    let mut seen: HashMap<String, Value> = HashMap::new();
    let mut subst: HashMap<Value, Value> = HashMap::new();
    // Writes to memory so far: a load is only equal to one after the same writes.
    let mut writes = 0usize;
    let mut kept = Vec::with_capacity(pssa.loops[l].items.len());
    for item in pssa.loops[l].items.clone() {
        let Item::Inst(i) = item else {
            writes += 1;
            kept.push(item);
            continue;
        };
        let f = &mut pssa.func;
        f.dfg.inst_mut(i).for_each_arg_mut(|v| {
            if let Some(&to) = subst.get(v) {
                *v = to;
            }
        });
        let data = f.dfg.inst(i);
        if data.has_side_effects() {
            writes += 1;
        }
        let Some(result) = f.dfg.inst_result(i) else {
            kept.push(item);
            continue;
        };
        let pure = !data.has_side_effects()
            && !data.is_phi()
            && !matches!(data, InstData::Alloca { .. })
            && (!data.reads_memory()
                || matches!(data, InstData::Load { access, .. } if access.is_plain()));
        if !pure || pssa.gates.contains_key(&i) {
            kept.push(item);
            continue;
        }
        let epoch = if data.reads_memory() { writes } else { 0 };
        let key = format!(
            "{data:?} {:?} {:?} {:?} {epoch}",
            f.dfg.value_type(result),
            f.dfg.fast_math(i),
            pssa.inst_pred[i],
        );
        match seen.get(&key) {
            Some(&earlier) => {
                subst.insert(result, earlier);
            }
            None => {
                seen.insert(key, result);
                kept.push(item);
            }
        }
    }
    let removed = subst.len();
    pssa.loops[l].items = kept;
    substitute(pssa, &subst);
    removed
}
