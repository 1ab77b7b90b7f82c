//! The SPMD launcher: the loop that runs an SPMD function's vector variant over a range of
//! instances, `W` at a time (CC'12 §3.3: the work-item loop around a vectorized kernel;
//! PLDI'18 §7: the same shape as an outer loop vectorized by lanes). Instances past the
//! count are masked off through the variant's entry mask ([`crate::with_entry_mask`]),
//! so a range that is not a multiple of `W` touches no memory the scalar loop would not;
//! full groups run the unmasked variant, which needs no mask at all.

use lanes_ir::{BinaryOp, FuncBuilder, FuncId, Function, InstData, IntCC, Type, Value};

/// `name(params of scalar)`: the instances `0..n` (`n` the parameter `idx`), `W` at a time:
/// full groups call the unmasked variant `full(…, b + lane_id, …)`, and a last partial group
/// calls the masked body `masked(…, b + lane_id, …, lane_id < n - b)` once.
///
/// The loop counts what is left, `n - b`, which cannot overflow (0 ≤ b ≤ n), rather than
/// testing `b < n` after `b += W`, which wraps for an `n` within `W` of the type's maximum;
/// the only indices past `n` are those of inactive lanes of the last group.
pub fn launcher(
    scalar: &Function,
    name: &str,
    full: FuncId,
    masked: FuncId,
    idx: usize,
    width: u16,
) -> Function {
    let tys: Vec<Type> = scalar
        .params
        .iter()
        .map(|p| scalar.dfg.value_type(p.value))
        .collect();
    let ity = tys[idx];
    let vty = Type::Vector(width, ity.elem());
    let mut f = Function::new(name, &tys, None);
    f.abi.params = scalar.abi.params.clone();
    f.abi.ret = scalar.abi.ret;
    let params: Vec<_> = f.params.iter().map(|p| p.value).collect();
    let count = params[idx];
    let mut b = FuncBuilder::new(&mut f);
    let [entry, header, group, check_tail, tail, exit] = [(); 6].map(|()| b.create_block());
    b.switch_to_block(entry);
    let zero = b.iconst(ity, 0);
    let any = b.icmp(IntCC::Slt, zero, count);
    b.brif(any, header, exit);
    b.switch_to_block(header);
    let base = b.phi(ity, vec![(entry, zero)]);
    let left = b.binary(BinaryOp::Sub, count, base);
    let step = b.iconst(ity, i64::from(width));
    let is_full = b.icmp(IntCC::Sge, left, step);
    b.brif(is_full, group, check_tail);
    // A full group.
    b.switch_to_block(group);
    let (call_args, _) = group_args(&mut b, &params, idx, base, vty);
    b.call(full, call_args, None);
    let next = b.binary(BinaryOp::Add, base, step);
    b.jump(header);
    // The last, partial group, if any.
    b.switch_to_block(check_tail);
    let more = b.icmp(IntCC::Slt, zero, left);
    b.brif(more, tail, exit);
    b.switch_to_block(tail);
    let (mut call_args, lane) = group_args(&mut b, &params, idx, base, vty);
    let vleft = b.broadcast(left, vty);
    let active = b.icmp(IntCC::Slt, lane, vleft);
    call_args.push(active);
    b.call(masked, call_args, None);
    b.jump(exit);
    b.switch_to_block(exit);
    b.ret(None);
    if let lanes_ir::ValueDef::Result(phi) = f.dfg.value_def(base) {
        if let InstData::Phi { incoming } = f.dfg.inst_mut(phi) {
            incoming.push((group, next));
        }
    }
    f
}

/// The arguments of one group's call: the launcher's parameters with the index replaced by
/// `base + lane_id`; and the lane ids.
fn group_args(
    b: &mut FuncBuilder<'_>,
    params: &[Value],
    idx: usize,
    base: Value,
    vty: Type,
) -> (Vec<Value>, Value) {
    let vbase = b.broadcast(base, vty);
    let lane = b.lane_id(vty);
    let items = b.binary(BinaryOp::Add, vbase, lane);
    let mut args = params.to_vec();
    args[idx] = items;
    (args, lane)
}
