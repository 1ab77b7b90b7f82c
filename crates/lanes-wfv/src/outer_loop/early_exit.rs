//! Parallel loops left from the body (`break`, `return`): the edges, and the vector loop
//! that runs them (PLDI'18 §7, with the divergent loop transform's view of an exit: a lane
//! that leaves is masked off; here a lane is an iteration, and leaving ends every later
//! one too).
//!
//! Scalar iteration `k` runs only if no iteration before it left. A vector step runs
//! iterations `base .. base + W` at once, so it must know, before any store, which of them
//! the scalar loop runs: the first lane that leaves and every lane before it. The step
//! first calls the *probe* ([`super::probe`]): the body's exit test alone, without stores,
//! with loads that cannot fault; it answers per lane "continues", "leaves by exit `j`" or
//! "unknown" (a load was off lane 0's page). The step then runs the body under the mask of
//! the lanes before the first that leaves or is unknown, plus that lane if it leaves:
//!
//! ```text
//! for (base = 0; ; base += m) {
//!     k = base + <0..W-1>;  live = k < T
//!     p = probe_masked(k, …, live)              // 0 continue, j > 0 exit j, -1 unknown
//!     f = first lane with p != 0 or !live       // W if none
//!     m = max(1, f + (f < W && p[f] > 0 && live[f]))
//!     c = body_masked(k, …, slots…, lanes < m)   // the real iterations; exit codes
//!     if (c[m-1] != 0) goto exit c[m-1];        // live-outs from lane m-1
//!     if (base + m >= T) goto exit 0
//! }
//! ```
//!
//! Lane 0 is never unknown (its own loads are on its own page), so every step makes
//! progress; a step usually commits W iterations, fewer only at the first exit or where
//! lanes cross a page. Live-outs come from lane `m - 1` of the last step: inductions in
//! closed form from its iteration number, other values from its slot element.

use lanes_ir::{
    BinaryOp, Block, CastOp, FuncBuilder, FuncCursor, FuncId, Function, InstData, IntCC, Intrinsic,
    LoopHint, LoopMd, Type, Value,
};

use super::outline::{Outlined, SlotKind};
use super::recognize::{Declined, LiveOut, ParallelLoop};

/// The functions one vector step calls.
pub struct StepFunctions {
    /// The probe's masked `width`-lane variant.
    pub probe: FuncId,
    /// The body's masked variant, returning exit codes.
    pub body: FuncId,
}

/// Replaces loop `pl` of `func`, which has early exits, by the vector loop above.
/// On error `func` is left half-rewritten: callers work on a copy.
pub fn build(
    func: &mut Function,
    pl: &ParallelLoop,
    outlined: &Outlined,
    step: &StepFunctions,
    width: u16,
) -> Result<(), Declined> {
    let ity = outlined.index_type;
    let vty = Type::vector(width, ity.elem());
    let codes = Type::vector(width, lanes_ir::ScalarType::I32);
    let mask = Type::mask(width);
    let mut cur = FuncCursor::new(func);
    let mut at = pl.preheader;
    let [entry, head, cont, done] = [(); 4].map(|_| {
        at = cur.create_block_after(at);
        at
    });
    let edge_blocks: Vec<Block> = std::iter::once(pl.exit)
        .chain(pl.early_exits.iter().map(|e| e.to))
        .map(|_| {
            at = cur.create_block_after(at);
            at
        })
        .collect();
    cur.retarget(pl.preheader, pl.header, entry);
    let ctrl = pl.inductions[pl.trip.induction];
    let live_out_types: Vec<Type> = pl
        .live_outs
        .iter()
        .map(|&(v, _)| func.value_type(v))
        .collect();
    let mut b = FuncBuilder::new(func);
    b.switch_to_block(entry);
    let trips = super::driver::trip_count(&mut b, ity, pl, ctrl.start);
    let slot_ptrs: Vec<Value> = outlined
        .slots
        .iter()
        .map(|s| {
            let bytes = s.ty.bytes() * u32::from(width);
            b.alloca(bytes, bytes.min(64))
        })
        .collect();
    let zero = b.iconst(ity, 0);
    b.jump(head);

    b.switch_to_block(head);
    let base = b.phi(ity, vec![(entry, zero)]);
    let splat = b.broadcast(base, vty);
    let lane = b.lane_id(vty);
    let k = b.binary(BinaryOp::Add, splat, lane);
    let vt = b.broadcast(trips, vty);
    let live = b.icmp(IntCC::Ult, k, vt);
    let mut args: Vec<Value> = std::iter::once(k)
        .chain(outlined.live_ins.iter().copied())
        .chain(slot_ptrs.iter().copied())
        .collect();
    args.push(live);
    let probe = call_value(&mut b, step.probe, args.clone(), codes);
    // f: the first lane that leaves, is unknown or is past the end (W if none).
    let zeros = b.iconst(codes, 0);
    let moves = b.icmp(IntCC::Ne, probe, zeros);
    let all = b.iconst(mask, 1);
    let dead = b.binary(BinaryOp::Xor, live, all);
    let stop = b.binary(BinaryOp::Or, moves, dead);
    let lanes32 = b.lane_id(codes);
    let w32 = b.iconst(Type::I32, i64::from(width));
    let wv = b.broadcast(w32, codes);
    let idx = b.select(stop, lanes32, wv);
    let f = intrinsic(&mut b, Intrinsic::ReduceUMin, vec![idx], Type::I32);
    let w_1 = b.iconst(Type::I32, i64::from(width) - 1);
    let fi = b.binary(BinaryOp::UMin, f, w_1);
    let code_f = intrinsic(&mut b, Intrinsic::Extract, vec![probe, fi], Type::I32);
    let live_f = intrinsic(&mut b, Intrinsic::Extract, vec![live, fi], Type::I1);
    let in_range = b.icmp(IntCC::Ult, f, w32);
    let zero32 = b.iconst(Type::I32, 0);
    let leaves = b.icmp(IntCC::Sgt, code_f, zero32);
    let incl = b.binary(BinaryOp::And, in_range, leaves);
    let incl = b.binary(BinaryOp::And, incl, live_f);
    let incl = b.cast(CastOp::Zext, incl, Type::I32);
    let m = b.binary(BinaryOp::Add, f, incl);
    let one32 = b.iconst(Type::I32, 1);
    let m = b.binary(BinaryOp::UMax, m, one32);
    let mv = b.broadcast(m, codes);
    let prefix = b.icmp(IntCC::Ult, lanes32, mv);
    *args.last_mut().expect("the mask argument") = prefix;
    let code = call_value(&mut b, step.body, args, codes);
    let last_lane = b.binary(BinaryOp::Sub, m, one32);
    let e = intrinsic(&mut b, Intrinsic::Extract, vec![code, last_lane], Type::I32);
    let m_ity = resize(&mut b, m, ity);
    let next = b.binary(BinaryOp::Add, base, m_ity);
    let left = b.icmp(IntCC::Ne, e, zero32);
    b.brif(left, done, cont);

    b.switch_to_block(cont);
    let more = b.icmp(IntCC::Ult, next, trips);
    b.brif(more, head, done);

    // After the loop: lane `m - 1` of the last step ran the last iteration.
    b.switch_to_block(done);
    let one = b.iconst(ity, 1);
    let last_iter = b.binary(BinaryOp::Sub, next, one);
    let mut replace: Vec<(Value, Value)> = Vec::new();
    for (&(v, kind), &ty) in pl.live_outs.iter().zip(&live_out_types) {
        let nv = match kind {
            LiveOut::Induction { index, offset } => {
                let d = pl.inductions[index];
                let count = if offset == 1 { next } else { last_iter };
                d.value_at(&mut b, ty, d.start, count, ity)
            }
            LiveOut::Reduction(_) => return Err(Declined::ExitWithReduction),
            LiveOut::Last => {
                let slot = outlined
                    .slots
                    .iter()
                    .position(|s| s.kind == SlotKind::Last(v))
                    .ok_or_else(|| {
                        Declined::Vectorizer("internal error: a live-out has no slot".into())
                    })?;
                let sty = outlined.slots[slot].ty;
                let vec = b.load(
                    Type::vector(width, sty.elem()),
                    slot_ptrs[slot],
                    sty.bytes(),
                );
                let x = intrinsic(&mut b, Intrinsic::Extract, vec![vec, last_lane], sty);
                if ty == Type::I1 {
                    b.cast(CastOp::Trunc, x, Type::I1)
                } else {
                    x
                }
            }
        };
        replace.push((v, nv));
    }
    let cases: Vec<(i64, Block)> = (1..edge_blocks.len())
        .map(|j| (j as i64, edge_blocks[j]))
        .collect();
    b.switch(e, cases, edge_blocks[0]);
    let sources = std::iter::once(pl.latch).chain(pl.early_exits.iter().map(|x| x.from));
    let targets = std::iter::once(pl.exit).chain(pl.early_exits.iter().map(|x| x.to));
    for ((&eb, from), to) in edge_blocks.iter().zip(sources).zip(targets) {
        let mut b = FuncBuilder::new(func);
        b.switch_to_block(eb);
        b.jump(to);
        rename_phi_pred(func, to, from, eb);
    }
    if let lanes_ir::ValueDef::Result(phi) = func.dfg.value_def(base) {
        if let InstData::Phi { incoming } = func.dfg.inst_mut(phi) {
            incoming.push((cont, next));
        }
    }
    for (old, new) in replace {
        func.dfg.replace_uses(old, new);
    }
    let mut cur = FuncCursor::new(func);
    for &blk in &pl.blocks {
        cur.remove_block(blk);
    }
    func.abi.loops.retain(|md| !pl.blocks.contains(&md.latch));
    func.abi.loops.push(LoopMd {
        latch: cont,
        hints: vec![LoopHint {
            name: "llvm.loop.isvectorized".to_string(),
            value: Some(1),
        }],
    });
    Ok(())
}

/// In the φs of `block`, the entry from `old` now comes from `new`.
fn rename_phi_pred(func: &mut Function, block: Block, old: Block, new: Block) {
    let insts: Vec<_> = func.layout.block_insts(block).to_vec();
    for i in insts {
        if let InstData::Phi { incoming } = func.dfg.inst_mut(i) {
            for (p, _) in incoming.iter_mut() {
                if *p == old {
                    *p = new;
                }
            }
        }
    }
}

fn intrinsic(b: &mut FuncBuilder, id: Intrinsic, args: Vec<Value>, ty: Type) -> Value {
    b.value(InstData::Intrinsic { id, args }, ty)
}

fn call_value(b: &mut FuncBuilder, f: FuncId, args: Vec<Value>, ty: Type) -> Value {
    b.value(InstData::Call { func: f, args }, ty)
}

/// The `i32` `x` as an integer of type `ty`.
fn resize(b: &mut FuncBuilder, x: Value, ty: Type) -> Value {
    match ty.elem().bits() {
        32 => x,
        n if n > 32 => b.cast(CastOp::Zext, x, ty),
        _ => b.cast(CastOp::Trunc, x, ty),
    }
}
