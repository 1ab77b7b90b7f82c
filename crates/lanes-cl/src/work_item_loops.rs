//! The work-item loops of one work-group (CC'12 §2.2, Fig. 2's inner loops): for one
//! continuation, every work-item of the group — `lz`, then `ly`, then `lx` `W` at a time
//! through the continuation's vector variant, the last partial vector of each row
//! through its masked variant (local sizes need not be multiples of `W`: lanes past the
//! row do nothing and touch no memory).
//!
//! The loops are compiled code, so the executor makes one call per group and
//! continuation, whatever the group's shape (a 16 × 16 group is 16 rows of two vectors;
//! a call per row would cost more than the work). The function has one signature for
//! every kernel, `phase(ctx: ptr, args: ptr, live_in: ptr, live_out: ptr) -> i32`: it
//! loads the kernel's arguments from `args` (one 8-byte slot each, in order), uniform
//! values the continuation keeps scalar. It returns what every work-item returned (the
//! next barrier's id, 0 at the kernel's end), or -1 when they disagree — work-items of a
//! group that reach different barriers, which OpenCL leaves undefined and the executor
//! reports ([`crate::executor`]).

use lanes_ir::{
    AbiAttrs, BinaryOp, Block, FuncBuilder, FuncId, Function, InstData, IntCC, Intrinsic,
    ScalarType, Type, Value, ValueDef,
};

use crate::group_context::field;
use crate::work_items::extra;

/// Not a barrier id: no work-item has returned yet.
const NONE_YET: i64 = -2;
/// The group's work-items returned different ids.
pub const DISAGREE: i32 = -1;

/// The group function `name` over continuation variants `full` (unmasked; or the scalar
/// continuation when `width` is 1) and `masked` (with a trailing `<width x i1>` mask;
/// unused at width 1). `params` are the kernel's own parameter types; `varying` says which
/// of the variants' parameters (the kernel's, then the work-item function's own) were
/// declared varying, which the variants take as vectors (CC'12's naive configuration,
/// which treats every value as varying). `local`, when given, is the local size the
/// function is specialized for.
pub fn group_function(
    name: &str,
    params: &[Type],
    varying: &[bool],
    width: u16,
    full: FuncId,
    masked: FuncId,
    local: Option<[u64; 3]>,
) -> Function {
    let sig = [Type::PTR, Type::PTR, Type::PTR, Type::PTR];
    let mut f = Function::new(name, &sig, Some(Type::I32));
    let [ctx, args, live_in, live_out] = [0, 1, 2, 3].map(|i| f.params[i].value);
    let mut b = FuncBuilder::new(&mut f);
    let [entry, z_loop, y_loop, group, check_tail, tail, row_end, z_end, exit] =
        [(); 9].map(|()| b.create_block());
    b.switch_to_block(entry);
    let own = params.len();
    let widen = |b: &mut FuncBuilder<'_>, i: usize, v: Value| {
        if width > 1 && varying.get(i).copied().unwrap_or(false) {
            let ty = b.func.dfg.value_type(v);
            b.broadcast(v, Type::Vector(width, ty.elem()))
        } else {
            v
        }
    };
    let mut call_args: Vec<Value> = Vec::with_capacity(own + extra::COUNT);
    for (i, &ty) in params.iter().enumerate() {
        let off = b.iconst(Type::I64, 8 * i as i64);
        let slot = b.ptradd(args, off);
        let v = b.load(ty, slot, 8);
        call_args.push(widen(&mut b, i, v));
    }
    let sizes = [0, 1, 2].map(|d| match local {
        Some(l) => b.iconst(Type::I64, l[d] as i64),
        None => {
            let off = b.iconst(Type::I64, 8 * (field::LOCAL_SIZE + d) as i64);
            let ptr = b.ptradd(ctx, off);
            b.load(Type::I64, ptr, 8)
        }
    });
    let zero = b.iconst(Type::I64, 0);
    let one = b.iconst(Type::I64, 1);
    let step = b.iconst(Type::I64, i64::from(width));
    let rest = b.binary(BinaryOp::URem, sizes[0], step);
    let end = b.binary(BinaryOp::Sub, sizes[0], rest);
    let none_yet = b.iconst(Type::I32, NONE_YET);
    let any_full = b.icmp(IntCC::Ult, zero, end);
    let any_rest = b.icmp(IntCC::Ult, zero, rest);
    let active = (width > 1).then(|| {
        let vty = Type::Vector(width, ScalarType::I64);
        let lane = b.lane_id(vty);
        let vrest = b.broadcast(rest, vty);
        b.icmp(IntCC::Ult, lane, vrest)
    });
    let fixed = [
        (extra::CTX, ctx),
        (extra::LIVE_IN, live_in),
        (extra::LIVE_OUT, live_out),
    ];
    let mut fixed_args = Vec::new();
    for (k, v) in fixed {
        fixed_args.push((k, widen(&mut b, own + k, v)));
    }
    b.jump(z_loop);
    // for lz in 0..Lz
    b.switch_to_block(z_loop);
    let lz = b.phi(Type::I64, vec![(entry, zero)]);
    let acc_z = b.phi(Type::I32, vec![(entry, none_yet)]);
    b.jump(y_loop);
    // for ly in 0..Ly: the row's arguments, then its vectors.
    b.switch_to_block(y_loop);
    let ly = b.phi(Type::I64, vec![(z_loop, zero)]);
    let acc_y = b.phi(Type::I32, vec![(z_loop, acc_z)]);
    call_args.resize(own + extra::COUNT, zero);
    for &(k, v) in &fixed_args {
        call_args[own + k] = v;
    }
    call_args[own + extra::LY] = widen(&mut b, own + extra::LY, ly);
    call_args[own + extra::LZ] = widen(&mut b, own + extra::LZ, lz);
    b.brif(any_full, group, check_tail);
    b.switch_to_block(group);
    let x = b.phi(Type::I64, vec![(y_loop, zero)]);
    let acc = b.phi(Type::I32, vec![(y_loop, acc_y)]);
    call_args[own + extra::LX] = x;
    let ret_ty = if width == 1 {
        Type::I32
    } else {
        Type::Vector(width, ScalarType::I32)
    };
    let r = b.value(
        InstData::Call {
            func: full,
            args: call_args.clone(),
        },
        ret_ty,
    );
    let acc_next = combine(&mut b, acc, r, None);
    let x_next = b.binary(BinaryOp::Add, x, step);
    let more = b.icmp(IntCC::Ult, x_next, end);
    b.brif(more, group, check_tail);
    b.switch_to_block(check_tail);
    let acc_full = b.phi(Type::I32, vec![(y_loop, acc_y), (group, acc_next)]);
    b.brif(any_rest, tail, row_end);
    b.switch_to_block(tail);
    let acc_tail = match active {
        None => acc_full,
        Some(mask) => {
            let mut margs = call_args.clone();
            margs[own + extra::LX] = end;
            margs.push(mask);
            let r = b.value(
                InstData::Call {
                    func: masked,
                    args: margs,
                },
                ret_ty,
            );
            combine(&mut b, acc_full, r, Some(mask))
        }
    };
    b.jump(row_end);
    b.switch_to_block(row_end);
    let acc_row = b.phi(Type::I32, vec![(check_tail, acc_full), (tail, acc_tail)]);
    let ly_next = b.binary(BinaryOp::Add, ly, one);
    let more_y = b.icmp(IntCC::Ult, ly_next, sizes[1]);
    b.brif(more_y, y_loop, z_end);
    b.switch_to_block(z_end);
    let lz_next = b.binary(BinaryOp::Add, lz, one);
    let more_z = b.icmp(IntCC::Ult, lz_next, sizes[2]);
    b.brif(more_z, z_loop, exit);
    b.switch_to_block(exit);
    b.ret(Some(acc_row));
    let back_edges: [(Value, Block, Value); 6] = [
        (x, group, x_next),
        (acc, group, acc_next),
        (ly, row_end, ly_next),
        (acc_y, row_end, acc_row),
        (lz, z_end, lz_next),
        (acc_z, z_end, acc_row),
    ];
    for (phi, from, v) in back_edges {
        if let ValueDef::Result(i) = f.dfg.value_def(phi) {
            if let InstData::Phi { incoming } = f.dfg.inst_mut(i) {
                incoming.push((from, v));
            }
        }
    }
    // Nothing a group touches through its four pointers (the context, the argument
    // slots, the two live-value buffers) is reached through any other pointer while it
    // runs, and the context and slots are not written: telling LLVM so lets it keep the
    // context's fields in registers across the kernel's stores to global memory instead
    // of loading them again for every vector.
    f.abi.params = vec![
        AbiAttrs {
            noalias: true,
            ..AbiAttrs::default()
        };
        4
    ];
    f
}

/// The group's id so far after a vector (or one work-item) returned `r`: `r`'s value if
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
            let all = b.broadcast(first, Type::Vector(w, ScalarType::I32));
            let mut same = b.icmp(IntCC::Eq, r, all);
            if let Some(m) = mask {
                let t = b.iconst(Type::Vector(w, ScalarType::I1), -1);
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
