//! The SPMD launcher: the loop that runs an SPMD function's vector variant over a range of
//! instances, `W` at a time (CC'12 §3.3: the work-item loop around a vectorized kernel;
//! PLDI'18 §7: the same shape as an outer loop vectorized by lanes). Instances past the
//! count are masked off through the variant's entry mask ([`crate::with_entry_mask`]),
//! so a range that is not a multiple of `W` touches no memory the scalar loop would not.

use lanes_ir::{BinaryOp, FuncBuilder, FuncId, Function, InstData, IntCC, Type};

/// `name(params of scalar)`: `for (b = 0; b < n; b += W) body(…, b + lane_id, …, b + lane_id < n)`.
pub fn launcher(scalar: &Function, name: &str, body: FuncId, idx: usize, width: u16) -> Function {
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
    let (entry, header, looping, exit) = (
        b.create_block(),
        b.create_block(),
        b.create_block(),
        b.create_block(),
    );
    b.switch_to_block(entry);
    let zero = b.iconst(ity, 0);
    b.jump(header);
    b.switch_to_block(header);
    let base = b.phi(ity, vec![(entry, zero)]);
    let go = b.icmp(IntCC::Slt, base, count);
    b.brif(go, looping, exit);
    b.switch_to_block(looping);
    let vbase = b.broadcast(base, vty);
    let lane = b.lane_id(vty);
    let items = b.binary(BinaryOp::Add, vbase, lane);
    let vcount = b.broadcast(count, vty);
    let active = b.icmp(IntCC::Slt, items, vcount);
    let mut call_args = params.clone();
    call_args[idx] = items;
    call_args.push(active);
    b.call(body, call_args, None);
    let step = b.iconst(ity, i64::from(width));
    let next = b.binary(BinaryOp::Add, base, step);
    b.jump(header);
    b.switch_to_block(exit);
    b.ret(None);
    if let lanes_ir::ValueDef::Result(phi) = f.dfg.value_def(base) {
        if let InstData::Phi { incoming } = f.dfg.inst_mut(phi) {
            incoming.push((looping, next));
        }
    }
    f
}
