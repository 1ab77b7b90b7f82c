//! The vector loop that replaces a parallel loop (PLDI'18 §7).
//!
//! ```text
//! T = trip count;  slots = alloca W × size each;  reduction slots = [init, id, …, id]
//! for (base = 0; T - base >= 2W; base += 2W) {
//!     body_W(base + <0..W-1>, live-ins…, slots…); body_W(base + W + <0..W-1>, …, slots2…) }
//! if (T - base >= W) { body_W(base + <0..W-1>, …, slots…); base += W }
//! if (T - base != 0) body_W_masked(base + <0..W-1>, live-ins…, slots…, lanes < T)
//! reductions = reduce(slot op slot2);  last values = slot[(T - 1) mod W];  inductions closed-form
//! ```
//!
//! The main loop calls the unmasked variant, so a loop of `T` iterations does its mask
//! work once, in the remainder. It runs two vectors per step, like LLVM's interleaving:
//! reductions then have two independent dependence chains (`slots2` hold the second
//! chain's partials, combined lane-wise after the loop) and the loop overhead halves; after LLVM inlines the bodies, the slots of full
//! iterations are promoted to registers. A lane keeps its reduction partial in the same
//! slot element from call to call, and a masked call leaves inactive lanes' elements
//! alone, so the element of the lane that ran iteration `T - 1` holds its values.

use lanes_ir::{
    BinaryOp, CastOp, FuncBuilder, FuncCursor, FuncId, Function, InstData, IntCC, Intrinsic,
    LoopHint, LoopMd, Type, Value,
};

use super::outline::{Outlined, SlotKind};
use super::recognize::{Declined, LiveOut, ParallelLoop};

/// The reduction intrinsic of a combining operation.
fn reduce_intrinsic(op: BinaryOp) -> Intrinsic {
    use BinaryOp::*;
    match op {
        Add => Intrinsic::ReduceAdd,
        Mul => Intrinsic::ReduceMul,
        And => Intrinsic::ReduceAnd,
        Or => Intrinsic::ReduceOr,
        Xor => Intrinsic::ReduceXor,
        SMin => Intrinsic::ReduceSMin,
        SMax => Intrinsic::ReduceSMax,
        UMin => Intrinsic::ReduceUMin,
        UMax => Intrinsic::ReduceUMax,
        FMul => Intrinsic::ReduceFMul,
        FMin => Intrinsic::ReduceFMin,
        FMax => Intrinsic::ReduceFMax,
        _ => Intrinsic::ReduceFAdd,
    }
}

/// The identity of `op` on `ty`.
fn identity(b: &mut FuncBuilder, op: BinaryOp, ty: Type) -> Value {
    use BinaryOp::*;
    if ty.is_float() {
        let x = match op {
            FMul => 1.0,
            FMin => f64::INFINITY,
            FMax => f64::NEG_INFINITY,
            _ => -0.0,
        };
        return if ty == Type::F32 {
            b.f32const(x as f32)
        } else {
            b.f64const(x)
        };
    }
    let bits = ty.bytes() * 8;
    let imm = match op {
        Mul => 1,
        And | UMin => -1,
        SMin if bits == 64 => i64::MAX,
        SMin => (1i64 << (bits - 1)) - 1,
        SMax => i64::MIN >> (64 - bits),
        _ => 0,
    };
    b.iconst(ty, imm)
}

/// `T`, the number of iterations of `pl` (at least 1: the loop is a do-while).
pub(super) fn trip_count(
    b: &mut FuncBuilder,
    func_ty: Type,
    pl: &ParallelLoop,
    start: Value,
) -> Value {
    use IntCC::*;
    let d = pl.inductions[pl.trip.induction];
    let ty = func_ty;
    let x0 = if pl.trip.offset == 1 {
        let s = b.iconst(ty, d.step);
        b.binary(BinaryOp::Add, start, s)
    } else {
        start
    };
    let n = pl.trip.bound;
    // Iterations after the first: how often the continue test holds, counting from x0.
    let (hi, lo) = if d.step == 1 { (n, x0) } else { (x0, n) };
    let diff = b.binary(BinaryOp::Sub, hi, lo);
    let one = b.iconst(ty, 1);
    let zero = b.iconst(ty, 0);
    let more = match pl.trip.pred {
        Ne => diff,
        pred => {
            let (gt, ge) = if matches!(pred, Slt | Sle | Sgt | Sge) {
                (Sgt, Sge)
            } else {
                (Ugt, Uge)
            };
            if matches!(pred, Slt | Ult | Sgt | Ugt) {
                let pos = b.icmp(gt, hi, lo);
                b.select(pos, diff, zero)
            } else {
                let pos = b.icmp(ge, hi, lo);
                let d1 = b.binary(BinaryOp::Add, diff, one);
                b.select(pos, d1, zero)
            }
        }
    };
    b.binary(BinaryOp::Add, more, one)
}

/// Replaces loop `pl` of `func` by the vector loop calling `full` (unmasked) and
/// `masked` (with a trailing lane mask), the `width`-lane variants of `outlined.body`.
/// On error `func` is left half-rewritten: callers work on a copy.
pub fn build(
    func: &mut Function,
    pl: &ParallelLoop,
    outlined: &Outlined,
    full: FuncId,
    masked: FuncId,
    width: u16,
) -> Result<(), Declined> {
    let ity = outlined.index_type;
    let vty = Type::vector(width, ity.elem());
    let w = i64::from(width);
    let mut cur = FuncCursor::new(func);
    let mut at = pl.preheader;
    let [entry, head, body, one_check, one_body, rem, tail, done] = [(); 8].map(|_| {
        at = cur.create_block_after(at);
        at
    });
    if let Some(t) = func.terminator(pl.preheader) {
        func.dfg.inst_mut(t).for_each_target_mut(|d| {
            if *d == pl.header {
                *d = entry
            }
        });
    }
    let ctrl = pl.inductions[pl.trip.induction];
    let live_out_types: Vec<Type> = pl
        .live_outs
        .iter()
        .map(|&(v, _)| func.value_type(v))
        .collect();
    let mut b = FuncBuilder::new(func);
    b.switch_to_block(entry);
    let trips = trip_count(&mut b, ity, pl, ctrl.start);
    // Slots of the first and second body call of an unrolled step: reduction partials
    // are kept twice (two independent chains), other slots are shared.
    let mut slot_ptrs = Vec::new();
    let mut second_ptrs = Vec::new();
    for s in &outlined.slots {
        let bytes = s.ty.bytes() * u32::from(width);
        let vty = Type::vector(width, s.ty.elem());
        let ptr = b.alloca(bytes, bytes.min(64));
        let mut second = ptr;
        if let SlotKind::Reduction(r) = s.kind {
            let red = pl.reductions[r];
            let id = identity(&mut b, red.combine, s.ty);
            let ids = b.broadcast(id, vty);
            let lane0 = b.iconst(Type::I32, 0);
            // A boolean reduction's slot holds bytes.
            let start = if b.func.dfg.value_type(red.init) == Type::I1 {
                b.cast(CastOp::Zext, red.init, s.ty)
            } else {
                red.init
            };
            let init = b.value(
                InstData::Intrinsic {
                    id: Intrinsic::Insert,
                    args: vec![ids, start, lane0],
                },
                vty,
            );
            b.store(init, ptr, s.ty.bytes());
            second = b.alloca(bytes, bytes.min(64));
            b.store(ids, second, s.ty.bytes());
        }
        slot_ptrs.push(ptr);
        second_ptrs.push(second);
    }
    let zero = b.iconst(ity, 0);
    b.jump(head);

    b.switch_to_block(head);
    let base = b.phi(ity, vec![(entry, zero)]);
    let left = b.binary(BinaryOp::Sub, trips, base);
    let wv = b.iconst(ity, w);
    let w2 = b.iconst(ity, 2 * w);
    let two_vectors = b.icmp(IntCC::Uge, left, w2);
    b.brif(two_vectors, body, one_check);

    let lanes_from = |b: &mut FuncBuilder, base: Value| {
        let splat = b.broadcast(base, vty);
        let lane = b.lane_id(vty);
        b.binary(BinaryOp::Add, splat, lane)
    };
    let args = |k: Value, slots: &[Value]| -> Vec<Value> {
        std::iter::once(k)
            .chain(outlined.live_ins.iter().copied())
            .chain(slots.iter().copied())
            .collect()
    };
    // Two full vectors per step (interleaved: reductions get two independent chains).
    b.switch_to_block(body);
    let k = lanes_from(&mut b, base);
    b.call(full, args(k, &slot_ptrs), None);
    let base_w = b.binary(BinaryOp::Add, base, wv);
    let k = lanes_from(&mut b, base_w);
    b.call(full, args(k, &second_ptrs), None);
    let next = b.binary(BinaryOp::Add, base, w2);
    b.jump(head);

    // One more full vector, then the masked remainder.
    b.switch_to_block(one_check);
    let one_vector = b.icmp(IntCC::Uge, left, wv);
    b.brif(one_vector, one_body, rem);
    b.switch_to_block(one_body);
    let k = lanes_from(&mut b, base);
    b.call(full, args(k, &slot_ptrs), None);
    let after_one = b.binary(BinaryOp::Add, base, wv);
    b.jump(rem);

    b.switch_to_block(rem);
    let rbase = b.phi(ity, vec![(one_check, base), (one_body, after_one)]);
    let rest = b.binary(BinaryOp::Sub, trips, rbase);
    let some = b.icmp(IntCC::Ne, rest, zero);
    b.brif(some, tail, done);

    b.switch_to_block(tail);
    let k = lanes_from(&mut b, rbase);
    let vt = b.broadcast(trips, vty);
    let active = b.icmp(IntCC::Ult, k, vt);
    let mut a = args(k, &slot_ptrs);
    a.push(active);
    b.call(masked, a, None);
    b.jump(done);

    // After the loop: live-out values.
    b.switch_to_block(done);
    let one = b.iconst(ity, 1);
    let last_iter = b.binary(BinaryOp::Sub, trips, one);
    let last_lane = b.binary(BinaryOp::URem, last_iter, wv);
    let mut replace: Vec<(Value, Value)> = Vec::new();
    for (&(v, kind), &ty) in pl.live_outs.iter().zip(&live_out_types) {
        let nv = match kind {
            LiveOut::Reduction(r) => {
                let slot = slot_index(outlined, SlotKind::Reduction(r))?;
                let sty = outlined.slots[slot].ty;
                let vt = Type::vector(width, sty.elem());
                let first = b.load(vt, slot_ptrs[slot], sty.bytes());
                let second = b.load(vt, second_ptrs[slot], sty.bytes());
                let combine = pl.reductions[r].combine;
                let vec = b.binary(combine, first, second);
                let x = b.value(
                    InstData::Intrinsic {
                        id: reduce_intrinsic(combine),
                        args: vec![vec],
                    },
                    sty,
                );
                if ty == Type::I1 {
                    b.cast(CastOp::Trunc, x, Type::I1)
                } else {
                    x
                }
            }
            _ => {
                let at = LastIteration {
                    iter: last_iter,
                    next: trips,
                    lane: last_lane,
                };
                final_value(&mut b, pl, outlined, &slot_ptrs, width, (v, kind, ty), &at)?
            }
        };
        replace.push((v, nv));
    }
    b.jump(pl.exit);

    for (old, new) in replace {
        func.dfg.replace_uses(old, new);
    }
    // The exit's φs now come from `done`.
    let exit_insts: Vec<_> = func.layout.block_insts(pl.exit).to_vec();
    for i in exit_insts {
        if let InstData::Phi { incoming } = func.dfg.inst_mut(i) {
            for (p, _) in incoming.iter_mut() {
                if *p == pl.latch {
                    *p = done;
                }
            }
        }
    }
    if let lanes_ir::ValueDef::Result(phi) = func.dfg.value_def(base) {
        if let InstData::Phi { incoming } = func.dfg.inst_mut(phi) {
            incoming.push((body, next));
        }
    }
    let mut cur = FuncCursor::new(func);
    for &blk in &pl.blocks {
        cur.remove_block(blk);
    }
    func.abi.loops.retain(|md| !pl.blocks.contains(&md.latch));
    func.abi.loops.push(LoopMd {
        latch: body,
        hints: vec![LoopHint {
            name: "llvm.loop.isvectorized".to_string(),
            value: Some(1),
        }],
    });
    Ok(())
}

/// The last iteration the vector loop ran: its number, the next one's, and the lane (the
/// element of the slots) that ran it.
pub(super) struct LastIteration {
    pub iter: Value,
    pub next: Value,
    pub lane: Value,
}

/// The value after the loop of live-out `v` of kind `kind` (not a reduction) and type
/// `ty`: an induction in closed form at `at`'s iteration (or the next, for its next
/// value), any other value from `at`'s element of its slot.
pub(super) fn final_value(
    b: &mut FuncBuilder,
    pl: &ParallelLoop,
    outlined: &Outlined,
    slot_ptrs: &[Value],
    width: u16,
    (v, kind, ty): (Value, LiveOut, Type),
    at: &LastIteration,
) -> Result<Value, Declined> {
    match kind {
        LiveOut::Induction { index, offset } => {
            let d = pl.inductions[index];
            let count = if offset == 1 { at.next } else { at.iter };
            Ok(d.value_at(b, ty, d.start, count, outlined.index_type))
        }
        LiveOut::Reduction(_) => Err(Declined::Vectorizer(
            "internal error: a reduction's value is combined, not picked".into(),
        )),
        LiveOut::Last => {
            let slot = slot_index(outlined, SlotKind::Last(v))?;
            let sty = outlined.slots[slot].ty;
            let vec = b.load(
                Type::vector(width, sty.elem()),
                slot_ptrs[slot],
                sty.bytes(),
            );
            let x = b.value(
                InstData::Intrinsic {
                    id: Intrinsic::Extract,
                    args: vec![vec, at.lane],
                },
                sty,
            );
            Ok(if ty == Type::I1 {
                b.cast(CastOp::Trunc, x, Type::I1)
            } else {
                x
            })
        }
    }
}

fn slot_index(o: &Outlined, kind: SlotKind) -> Result<usize, Declined> {
    o.slots
        .iter()
        .position(|s| s.kind == kind)
        .ok_or_else(|| Declined::Vectorizer("internal error: a live-out has no slot".to_string()))
}
