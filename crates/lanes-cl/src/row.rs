//! The work-item loop of one row of a work-group (CC'12 §2.2, Fig. 2's inner loop): the
//! work-items `0..local_size(0)` of one `(ly, lz)`, `W` at a time through a continuation's
//! vector variant, the last partial vector through its masked variant (local sizes need
//! not be multiples of `W`: lanes past the row do nothing and touch no memory).
//!
//! The row function has one signature for every kernel,
//! `row(ctx: ptr, args: ptr, ly: i64, lz: i64, live_in: ptr, live_out: ptr) -> i32`,
//! so that the executor calls it without knowing the kernel's parameters: it loads the
//! kernel's arguments from `args` (one 8-byte slot each, in order), uniform values the
//! continuation keeps scalar. It returns what every work-item of the row returned (the
//! next barrier's id, 0 at the kernel's end), or -1 when they disagree — work-items of a
//! group that reach different barriers, which OpenCL leaves undefined and the executor
//! reports ([`crate::executor`]).

use lanes_ir::{
    BinaryOp, FuncBuilder, FuncId, Function, InstData, IntCC, Intrinsic, Type, Value, ValueDef,
};

use crate::group_context::field;

/// Not a barrier id: no work-item of the row has returned yet.
const NONE_YET: i64 = -2;
/// The row's work-items returned different ids.
pub const DISAGREE: i32 = -1;

/// The row function `name` over continuation variants `full` (unmasked; or the scalar
/// continuation when `width` is 1) and `masked` (with a trailing `<width x i1>` mask;
/// unused at width 1). `params` are the kernel's own parameter types; `varying` says which
/// of the variants' parameters (the kernel's, then the work-item function's own) were
/// declared varying, which the variants take as vectors (CC'12's naive configuration,
/// which treats every value as varying).
pub fn row_function(
    name: &str,
    params: &[Type],
    varying: &[bool],
    width: u16,
    full: FuncId,
    masked: FuncId,
) -> Function {
    let sig = [
        Type::PTR,
        Type::PTR,
        Type::I64,
        Type::I64,
        Type::PTR,
        Type::PTR,
    ];
    let mut f = Function::new(name, &sig, Some(Type::I32));
    let [ctx, args, ly, lz, live_in, live_out] = [0, 1, 2, 3, 4, 5].map(|i| f.params[i].value);
    let mut b = FuncBuilder::new(&mut f);
    let [entry, group, check_tail, tail, exit] = [(); 5].map(|()| b.create_block());
    b.switch_to_block(entry);
    let mut call_args: Vec<Value> = params
        .iter()
        .enumerate()
        .map(|(i, &ty)| {
            let off = b.iconst(Type::I64, 8 * i as i64);
            let slot = b.ptradd(args, off);
            b.load(ty, slot, 8)
        })
        .collect();
    let size_off = b.iconst(Type::I64, 8 * field::LOCAL_SIZE as i64);
    let size_ptr = b.ptradd(ctx, size_off);
    let size = b.load(Type::I64, size_ptr, 8);
    let zero = b.iconst(Type::I64, 0);
    let step = b.iconst(Type::I64, i64::from(width));
    let rest = b.binary(BinaryOp::URem, size, step);
    let end = b.binary(BinaryOp::Sub, size, rest);
    let none_yet = b.iconst(Type::I32, NONE_YET);
    // The variants' arguments but the index (set per vector), vectors where varying.
    let base = call_args.len();
    call_args.extend([ctx, zero, ly, lz, live_in, live_out]);
    if width > 1 {
        for (i, a) in call_args.iter_mut().enumerate() {
            if varying.get(i).copied().unwrap_or(false) && i != base + 1 {
                let ty = b.func.dfg.value_type(*a);
                *a = b.broadcast(*a, Type::Vector(width, ty.elem()));
            }
        }
    }
    let any_full = b.icmp(IntCC::Ult, zero, end);
    b.brif(any_full, group, check_tail);
    // Full vectors.
    b.switch_to_block(group);
    let x = b.phi(Type::I64, vec![(entry, zero)]);
    let acc = b.phi(Type::I32, vec![(entry, none_yet)]);
    call_args[base + 1] = x;
    let ret_ty = if width == 1 {
        Type::I32
    } else {
        Type::Vector(width, lanes_ir::ScalarType::I32)
    };
    let r = call(&mut b, full, call_args.clone(), ret_ty);
    let acc_next = combine(&mut b, acc, r, None);
    let x_next = b.binary(BinaryOp::Add, x, step);
    let more = b.icmp(IntCC::Ult, x_next, end);
    b.brif(more, group, check_tail);
    // The partial vector.
    b.switch_to_block(check_tail);
    let acc_full = b.phi(Type::I32, vec![(entry, none_yet), (group, acc_next)]);
    let left = b.icmp(IntCC::Ult, zero, rest);
    b.brif(left, tail, exit);
    b.switch_to_block(tail);
    let acc_tail = if width == 1 {
        acc_full
    } else {
        let vty = Type::Vector(width, lanes_ir::ScalarType::I64);
        let lane = b.lane_id(vty);
        let vrest = b.broadcast(rest, vty);
        let active = b.icmp(IntCC::Ult, lane, vrest);
        let mut margs = call_args;
        margs[base + 1] = end;
        margs.push(active);
        let r = call(&mut b, masked, margs, ret_ty);
        combine(&mut b, acc_full, r, Some(active))
    };
    b.jump(exit);
    b.switch_to_block(exit);
    let result = b.phi(Type::I32, vec![(check_tail, acc_full), (tail, acc_tail)]);
    b.ret(Some(result));
    for (phi, v) in [(x, x_next), (acc, acc_next)] {
        if let ValueDef::Result(i) = f.dfg.value_def(phi) {
            if let InstData::Phi { incoming } = f.dfg.inst_mut(i) {
                incoming.push((group, v));
            }
        }
    }
    f
}

fn call(b: &mut FuncBuilder<'_>, func: FuncId, args: Vec<Value>, ty: Type) -> Value {
    b.value(InstData::Call { func, args }, ty)
}

/// The row's id so far after a vector (or one work-item) returned `r`: `r`'s value if
/// its active lanes (`mask`; all without) agree among themselves and with `acc`, else
/// [`DISAGREE`].
fn combine(b: &mut FuncBuilder<'_>, acc: Value, r: Value, mask: Option<Value>) -> Value {
    let (first, lanes_agree) = match b.func.dfg.value_type(r).lanes() {
        None => (r, None),
        Some(w) => {
            let lane0 = b.iconst(Type::I32, 0);
            let first = b.value(
                InstData::Intrinsic {
                    id: Intrinsic::Extract,
                    args: vec![r, lane0],
                },
                Type::I32,
            );
            let all = b.broadcast(first, Type::Vector(w, lanes_ir::ScalarType::I32));
            let mut same = b.icmp(IntCC::Eq, r, all);
            if let Some(m) = mask {
                let t = b.iconst(Type::Vector(w, lanes_ir::ScalarType::I1), -1);
                let inactive = b.binary(BinaryOp::Xor, m, t);
                same = b.binary(BinaryOp::Or, same, inactive);
            }
            let agree = b.value(
                InstData::Intrinsic {
                    id: Intrinsic::All,
                    args: vec![same],
                },
                Type::I1,
            );
            (first, Some(agree))
        }
    };
    let none_yet = b.iconst(Type::I32, NONE_YET);
    let fresh = b.icmp(IntCC::Eq, acc, none_yet);
    let same_as_acc = b.icmp(IntCC::Eq, acc, first);
    let mut ok = b.binary(BinaryOp::Or, fresh, same_as_acc);
    if let Some(agree) = lanes_agree {
        ok = b.binary(BinaryOp::And, ok, agree);
    }
    let disagree = b.iconst(Type::I32, i64::from(DISAGREE));
    b.select(ok, first, disagree)
}
