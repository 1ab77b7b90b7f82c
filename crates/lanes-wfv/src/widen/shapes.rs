//! Which values of the linearized function stay scalar when it is widened (CC'12 §3.3).
//!
//! The starting point is the shape analysis of the linearized function: uniform values
//! stay scalar, all others become `<W x T>`. Widening then needs a few facts the analysis
//! does not state, applied as overrides and propagated forward to a fixpoint so that the
//! set stays closed under data flow (a value with a vector operand is a vector):
//!
//! - mask queries (`any`, `all`, `popcount`, `ballot`) reduce across lanes: uniform;
//!   `num_lanes` is the constant `W`; `lane_id` is varying;
//! - atomics run once per active lane: varying results; so do calls, except a call of a
//!   pure function with uniform arguments and a uniform result, which runs once;
//! - `alloca` is private per lane: varying (one slice of a `W`-times larger allocation).

use cranelift_entity::SecondaryMap;
use lanes_analysis::shapes::ShapeInfo;
use lanes_ir::{FuncId, Function, InstData, Intrinsic, IntrinsicClass, Value};

/// `true` for values that stay scalar (and for values the function does not use).
pub(crate) fn uniform_values(
    func: &Function,
    info: &ShapeInfo,
    pure: &dyn Fn(FuncId) -> bool,
) -> SecondaryMap<Value, bool> {
    let forced = |data: &InstData| forced(data, info, pure);
    let mut uni: SecondaryMap<Value, bool> = SecondaryMap::with_default(true);
    for p in &func.params {
        uni[p.value] = info.shape(p.value).is_uniform();
    }
    let mut insts = Vec::new();
    for b in func.layout.blocks() {
        for &i in func.layout.block_insts(b) {
            insts.push(i);
            if let Some(r) = func.dfg.inst_result(i) {
                let forced = forced(func.dfg.inst(i));
                uni[r] = forced.unwrap_or_else(|| info.shape(r).is_uniform());
            }
        }
    }
    // Propagate only what the overrides changed: a value the analysis proved uniform
    // from varying operands (strides that cancel, `gid - lid`) stays uniform.
    let mut changed = true;
    while changed {
        changed = false;
        for &i in &insts {
            let Some(r) = func.dfg.inst_result(i) else {
                continue;
            };
            let data = func.dfg.inst(i);
            if !uni[r] || forced(data).is_some() {
                continue;
            }
            let mut demoted = false;
            data.for_each_arg(|v| demoted |= !uni[v] && info.shape(v).is_uniform());
            if demoted {
                uni[r] = false;
                changed = true;
            }
        }
    }
    uni
}

/// The shape widening imposes on an instruction's result, if any.
fn forced(data: &InstData, info: &ShapeInfo, pure: &dyn Fn(FuncId) -> bool) -> Option<bool> {
    match data {
        InstData::Intrinsic { id, .. } => match id.class() {
            IntrinsicClass::MaskQuery => Some(true),
            _ if *id == Intrinsic::NumLanes => Some(true),
            _ if *id == Intrinsic::LaneId => Some(false),
            _ => None,
        },
        InstData::Call { func, args }
            if pure(*func) && args.iter().all(|&a| info.shape(a).is_uniform()) =>
        {
            None
        }
        InstData::Call { .. }
        | InstData::AtomicRmw { .. }
        | InstData::AtomicCas { .. }
        | InstData::Alloca { .. } => Some(false),
        _ => None,
    }
}
