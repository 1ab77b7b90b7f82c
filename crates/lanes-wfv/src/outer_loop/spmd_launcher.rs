//! The SPMD launcher: the loop that runs an SPMD function's vector variant over a range of
//! instances, `W` at a time (CC'12 §3.3: the work-item loop around a vectorized kernel;
//! PLDI'18 §7: the same shape as an outer loop vectorized by lanes). Instances past the
//! count are masked off through the variant's entry mask ([`crate::with_entry_mask`]),
//! so a range that is not a multiple of `W` touches no memory the scalar loop would not;
//! full groups run the unmasked variant, which needs no mask at all.
//!
//! A very large function can instead have one body for both ([`unmasked_through_masked`]):
//! the unmasked variant becomes a call of the masked body with every lane on. Its
//! code would otherwise be there twice, which doubles LLVM's optimization and code
//! generation time (their largest cost on such functions) and the instruction-cache
//! footprint; the price is the entry mask's conjunction at each divergent branch, which
//! is one mask-register instruction where the target has mask registers.

use lanes_ir::{BinaryOp, FuncBuilder, FuncId, Function, InstData, IntCC, IntFlags, Type};

/// `name(params of scalar)`: the instances `0..n` (`n` the parameter `idx`), `W` at a time:
/// full groups `b = 0, W, …` below `end = n - n mod W` call the unmasked variant
/// `full(…, b, …)`, and if `n mod W` instances are left, one last group calls the masked
/// body `masked(…, end, …, lane_id < n mod W)`. Both take the index as a linear parameter
/// (lane 0's value; [`crate::Prepared::linear_params`]).
///
/// The full groups are a counted loop: `b + W ≤ end ≤ n` cannot wrap (`add nuw nsw`), so
/// LLVM knows the trip count `end / W` and widens an `i32` counter to the 64-bit offsets
/// of the variant's addresses (lane 0's `sext(b)` is the counter itself) for any index
/// type alike; `n` near the type's maximum is fine, the only indices past `n` are those of
/// inactive lanes of the last group.
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
    let [entry, counted, group, check_tail, tail, exit] = [(); 6].map(|()| b.create_block());
    b.switch_to_block(entry);
    let zero = b.iconst(ity, 0);
    let any = b.icmp(IntCC::Slt, zero, count);
    b.brif(any, counted, exit);
    // 0 < n: `end` full groups' worth of instances, `rest` after them.
    b.switch_to_block(counted);
    let step = b.iconst(ity, i64::from(width));
    let rest = b.binary(BinaryOp::URem, count, step);
    let end = b.binary(BinaryOp::Sub, count, rest);
    let any_full = b.icmp(IntCC::Slt, zero, end);
    b.brif(any_full, group, check_tail);
    // A full group.
    b.switch_to_block(group);
    let base = b.phi(ity, vec![(counted, zero)]);
    let mut call_args = params.clone();
    call_args[idx] = base;
    b.call(full, call_args, None);
    let next = b.binary(BinaryOp::Add, base, step);
    let more = b.icmp(IntCC::Slt, next, end);
    b.brif(more, group, check_tail);
    // The last, partial group, if any.
    b.switch_to_block(check_tail);
    let left = b.icmp(IntCC::Slt, zero, rest);
    b.brif(left, tail, exit);
    b.switch_to_block(tail);
    let mut call_args = params.clone();
    call_args[idx] = end;
    let lane = b.lane_id(vty);
    let vrest = b.broadcast(rest, vty);
    let active = b.icmp(IntCC::Slt, lane, vrest);
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
    // 0 ≤ rest ≤ n and b + W ≤ end ≤ n: neither wraps.
    for v in [end, next] {
        if let lanes_ir::ValueDef::Result(i) = f.dfg.value_def(v) {
            if let InstData::Binary { flags, .. } = f.dfg.inst_mut(i) {
                *flags = IntFlags::NUW.union(IntFlags::NSW);
            }
        }
    }
    f
}

/// A body for the unmasked variant `unmasked` that calls the masked body `masked` (the
/// same parameters and a last `<W x i1>` entry mask) with every lane active and returns
/// what it returns. The result keeps `unmasked`'s name, signature, parameter attributes
/// and ABI, so callers and the vector-function ABI see no difference.
pub fn unmasked_through_masked(unmasked: &Function, masked: FuncId, width: u16) -> Function {
    let tys: Vec<Type> = unmasked
        .params
        .iter()
        .map(|p| unmasked.dfg.value_type(p.value))
        .collect();
    let mut f = Function::new(&unmasked.name, &tys, unmasked.ret);
    f.abi = unmasked.abi.clone();
    f.origin = unmasked.origin.clone();
    for (to, from) in f.params.iter_mut().zip(&unmasked.params) {
        to.attrs = from.attrs;
    }
    let mut args: Vec<_> = f.params.iter().map(|p| p.value).collect();
    let mut b = FuncBuilder::new(&mut f);
    let entry = b.create_block();
    b.switch_to_block(entry);
    args.push(b.iconst(Type::mask(width), 1));
    let call = b.call(masked, args, unmasked.ret);
    let result = f.dfg.inst_result(call);
    let mut b = FuncBuilder::new(&mut f);
    b.switch_to_block(entry);
    b.ret(result);
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanes_ir::{Module, ScalarType};

    /// A stand-in for a widened variant: `name(i64 %i, ptr %p [, <W x i1> %m])`, empty.
    fn variant(name: &str, masked: Option<u16>) -> Function {
        let mut tys = vec![Type::I64, Type::ptr(lanes_ir::AddrSpace::GLOBAL)];
        if let Some(w) = masked {
            tys.push(Type::mask(w));
        }
        let mut f = Function::new(name, &tys, None);
        let mut b = FuncBuilder::new(&mut f);
        let entry = b.create_block();
        b.switch_to_block(entry);
        b.ret(None);
        f
    }

    #[test]
    fn the_unmasked_variant_calls_the_masked_body_with_every_lane_on() {
        let mut module = Module::new();
        let mut plain = variant("_ZGVeN16lu_f", None);
        plain.params[1].attrs.align = 64;
        let masked = module.define(variant("f.masked.w16", Some(16)));
        let through = unmasked_through_masked(&plain, masked, 16);
        assert_eq!(through.name, plain.name);
        assert_eq!(through.params.len(), 2);
        assert_eq!(through.params[1].attrs.align, 64);
        lanes_ir::verifier::verify_function(&module, &through).expect("verifies");
        let entry = through.entry_block().expect("a body");
        let insts = through.layout.block_insts(entry);
        let call = insts
            .iter()
            .find_map(|&i| match through.dfg.inst(i) {
                InstData::Call { func, args } => Some((*func, args.clone())),
                _ => None,
            })
            .expect("a call");
        assert_eq!(call.0, masked);
        assert_eq!(call.1.len(), 3);
        let mask = call.1[2];
        assert_eq!(
            through.dfg.value_type(mask),
            Type::vector(16, ScalarType::I1)
        );
        let lanes_ir::ValueDef::Result(def) = through.dfg.value_def(mask) else {
            panic!("the mask is not an instruction's result");
        };
        assert!(matches!(through.dfg.inst(def), InstData::Iconst { imm: 1 }));
    }
}
