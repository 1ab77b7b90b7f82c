//! Cross-lane values in lock-step (RV's `rv_extract` / `rv_broadcast` / `rv_any`…,
//! `include/lanes.h`).
//!
//! Run alone, an instance is the only lane of its group and `lane_extract x, lane` and
//! `lane_broadcast x` both give `x` (the interpreter's width-1 meaning). In a SIMT group
//! they read other lanes' registers at the moment the group executes them:
//!
//! - `lane_extract x, lane`: lane `lane mod W`'s `x` (the index read as unsigned);
//! - `lane_broadcast x`: the `x` of the lowest active lane;
//! - `any`/`all`/`popcount`/`ballot c` of a scalar condition: over the active lanes.
//!
//! A lane that is not active holds whatever it last computed; one that never defined `x`
//! gives zero. Both results are unspecified by `lanes.h` in that case, but every lane that
//! reads the same source lane reads the same value, which is what the divergence analysis
//! relies on when it calls a `lane_extract` with a uniform index uniform.

use lanes_interp::error::ErrorKind;
use lanes_interp::eval::Operands;
use lanes_interp::value::RtValue;
use lanes_ir::{Function, Inst, InstData, Intrinsic};

/// The per-lane results of `inst` for the lanes of `active`, if it is a cross-lane
/// intrinsic; `None` for every other instruction.
pub(crate) fn cross_lane(
    func: &Function,
    inst: Inst,
    vals: &[Vec<Option<RtValue>>],
    active: u64,
) -> Option<Vec<(usize, Result<RtValue, ErrorKind>)>> {
    let InstData::Intrinsic { id, args } = func.dfg.inst(inst) else {
        return None;
    };
    if matches!(
        id,
        Intrinsic::Any | Intrinsic::All | Intrinsic::Popcount | Intrinsic::Ballot
    ) {
        return mask_query(func, inst, *id, args, vals, active);
    }
    if !matches!(id, Intrinsic::LaneExtract | Intrinsic::LaneBroadcast) {
        return None;
    }
    let w = vals.len() as u64;
    let x = *args.first()?;
    let zero = RtValue::splat(func.dfg.value_type(x), 0);
    let first = u64::from(active.trailing_zeros());
    let out = super::lanes_of(active)
        .map(|l| {
            let src = match (id, args.get(1)) {
                (Intrinsic::LaneExtract, Some(&lane)) => match vals[l].operand(lane) {
                    Some(i) => i
                        .bits()
                        .map(|b| b % w)
                        .ok_or_else(|| malformed("lane index")),
                    None => Err(malformed("lane index is not defined")),
                },
                (Intrinsic::LaneExtract, None) => Err(malformed("lane_extract takes 2 operands")),
                _ => Ok(first),
            };
            let v = src.map(|s| vals[s as usize].operand(x).cloned().unwrap_or(zero.clone()));
            (l, v)
        })
        .collect();
    Some(out)
}

/// `any`/`all`/`popcount`/`ballot` of a scalar condition: over the active lanes of the
/// group, the same result in each (bit `l` of a ballot is lane `l`). Of a vector mask
/// (`None`), each lane's own question, as the interpreter answers it.
fn mask_query(
    func: &Function,
    inst: Inst,
    id: Intrinsic,
    args: &[lanes_ir::Value],
    vals: &[Vec<Option<RtValue>>],
    active: u64,
) -> Option<Vec<(usize, Result<RtValue, ErrorKind>)>> {
    let &[c] = args else { return None };
    if func.dfg.value_type(c).is_vector() {
        return None;
    }
    let rty = func.dfg.inst_result(inst).map(|v| func.dfg.value_type(v))?;
    let mut bits: Result<u64, ErrorKind> = Ok(0);
    for l in super::lanes_of(active) {
        let b = vals[l]
            .operand(c)
            .and_then(|v| v.bits())
            .ok_or_else(|| malformed("mask query operand is not defined"));
        bits = bits.and_then(|acc| b.map(|b| acc | (b & 1) << l));
    }
    let result = bits.map(|set| match id {
        Intrinsic::Any => RtValue::bool(set != 0),
        Intrinsic::All => RtValue::bool(set == active),
        Intrinsic::Popcount => RtValue::splat(rty, u64::from(set.count_ones())),
        _ => RtValue::splat(rty, set),
    });
    Some(
        super::lanes_of(active)
            .map(|l| (l, result.clone()))
            .collect(),
    )
}

fn malformed(msg: &str) -> ErrorKind {
    ErrorKind::Malformed(msg.into())
}
