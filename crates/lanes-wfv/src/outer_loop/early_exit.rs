//! Parallel loops left from the body (`break`, `return`): the vector loop that runs them
//! (PLDI'18 §7, with the divergent loop transform's view of an exit: a lane
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
//!
//! The common step is cheaper: while W iterations are left, the unmasked probe runs and,
//! if no lane stops, all W commit at once (the unmasked body runs; no `m` to settle).
//! A body with no effect but its live-out slots needs no second call at all: its probe
//! keeps the slot stores and stands for it ([`super::probe::is_pure`]).

use lanes_ir::{
    BinaryOp, Block, CastOp, FuncBuilder, FuncCursor, FuncId, Function, InstData, IntCC, Intrinsic,
    LoopHint, LoopMd, Type, Value,
};

use super::outline::Outlined;
use super::recognize::{Declined, LiveOut, ParallelLoop};

/// The functions one vector step calls: `width`-lane variants of the probe and of the
/// body, unmasked for steps of W live lanes and masked for the last.
pub struct StepFunctions {
    pub probe: FuncId,
    pub probe_masked: FuncId,
    /// The body's variants, returning exit codes; `None` when the body has no effect but
    /// its live-out slots, which the probe then writes itself.
    pub body: Option<(FuncId, FuncId)>,
}

/// Replaces loop `pl` of `func`, which has early exits, by the vector loop above: steps
/// of W live lanes call the unmasked probe and, when no lane stops, commit all W
/// iterations at once (the body unmasked); a step where some lane stops, and the last
/// one, settle `m` as above.
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
    let [entry, head, fast, advance, tail, settle, cont, done] = [(); 8].map(|_| {
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
    let wi = b.iconst(ity, i64::from(width));
    let zero32 = b.iconst(Type::I32, 0);
    let one32 = b.iconst(Type::I32, 1);
    let w32 = b.iconst(Type::I32, i64::from(width));
    let w_1 = b.iconst(Type::I32, i64::from(width) - 1);
    let all = b.iconst(mask, 1);
    let zeros = b.iconst(codes, 0);
    b.jump(head);

    b.switch_to_block(head);
    let base = b.phi(ity, vec![(entry, zero)]);
    let splat = b.broadcast(base, vty);
    let lane = b.lane_id(vty);
    let k = b.binary(BinaryOp::Add, splat, lane);
    let left = b.binary(BinaryOp::Sub, trips, base);
    let full = b.icmp(IntCC::Uge, left, wi);
    b.brif(full, fast, tail);
    let args: Vec<Value> = std::iter::once(k)
        .chain(outlined.live_ins.iter().copied())
        .chain(slot_ptrs.iter().copied())
        .collect();
    let with_mask = |m: Value| -> Vec<Value> { args.iter().copied().chain([m]).collect() };

    // W live lanes: commit them all unless one stops.
    b.switch_to_block(fast);
    let probe_full = call_value(&mut b, step.probe, args.clone(), codes);
    let stops = b.icmp(IntCC::Ne, probe_full, zeros);
    let any = intrinsic(&mut b, Intrinsic::Any, vec![stops], Type::I1);
    b.brif(any, settle, advance);
    b.switch_to_block(advance);
    if let Some((body, _)) = step.body {
        b.call(body, args.clone(), Some(codes));
    }
    let next_full = b.binary(BinaryOp::Add, base, wi);
    let more_full = b.icmp(IntCC::Ult, next_full, trips);
    b.brif(more_full, head, done);

    // The last lanes: the probe under the mask of the live ones.
    b.switch_to_block(tail);
    let vt = b.broadcast(trips, vty);
    let live_tail = b.icmp(IntCC::Ult, k, vt);
    let probe_tail = call_value(&mut b, step.probe_masked, with_mask(live_tail), codes);
    b.jump(settle);

    // m: the lanes before the first that stops, and that one if it leaves.
    b.switch_to_block(settle);
    let probe = b.phi(codes, vec![(fast, probe_full), (tail, probe_tail)]);
    let live = b.phi(mask, vec![(fast, all), (tail, live_tail)]);
    let moves = b.icmp(IntCC::Ne, probe, zeros);
    let dead = b.binary(BinaryOp::Xor, live, all);
    let stop = b.binary(BinaryOp::Or, moves, dead);
    let lanes32 = b.lane_id(codes);
    let wv = b.broadcast(w32, codes);
    let idx = b.select(stop, lanes32, wv);
    let f = intrinsic(&mut b, Intrinsic::ReduceUMin, vec![idx], Type::I32);
    let fi = b.binary(BinaryOp::UMin, f, w_1);
    let code_f = intrinsic(&mut b, Intrinsic::Extract, vec![probe, fi], Type::I32);
    let live_f = intrinsic(&mut b, Intrinsic::Extract, vec![live, fi], Type::I1);
    let in_range = b.icmp(IntCC::Ult, f, w32);
    let leaves = b.icmp(IntCC::Sgt, code_f, zero32);
    let incl = b.binary(BinaryOp::And, in_range, leaves);
    let incl = b.binary(BinaryOp::And, incl, live_f);
    let incl = b.cast(CastOp::Zext, incl, Type::I32);
    let m = b.binary(BinaryOp::Add, f, incl);
    let m = b.binary(BinaryOp::UMax, m, one32);
    let mv = b.broadcast(m, codes);
    let prefix = b.icmp(IntCC::Ult, lanes32, mv);
    let code = match step.body {
        Some((_, body_masked)) => call_value(&mut b, body_masked, with_mask(prefix), codes),
        None => probe,
    };
    let m_1 = b.binary(BinaryOp::Sub, m, one32);
    let e_settle = intrinsic(&mut b, Intrinsic::Extract, vec![code, m_1], Type::I32);
    let m_ity = resize(&mut b, m, ity);
    let next_settle = b.binary(BinaryOp::Add, base, m_ity);
    let left_early = b.icmp(IntCC::Ne, e_settle, zero32);
    b.brif(left_early, done, cont);

    b.switch_to_block(cont);
    let more = b.icmp(IntCC::Ult, next_settle, trips);
    b.brif(more, head, done);

    // After the loop: lane `m - 1` of the last step ran the last iteration.
    b.switch_to_block(done);
    let e = b.phi(
        Type::I32,
        vec![(advance, zero32), (settle, e_settle), (cont, zero32)],
    );
    let next = b.phi(
        ity,
        vec![
            (advance, next_full),
            (settle, next_settle),
            (cont, next_settle),
        ],
    );
    let last_lane = b.phi(Type::I32, vec![(advance, w_1), (settle, m_1), (cont, m_1)]);
    let one = b.iconst(ity, 1);
    let last_iter = b.binary(BinaryOp::Sub, next, one);
    let mut replace: Vec<(Value, Value)> = Vec::new();
    let at = super::driver::LastIteration {
        iter: last_iter,
        next,
        lane: last_lane,
    };
    for (&(v, kind), &ty) in pl.live_outs.iter().zip(&live_out_types) {
        if matches!(kind, LiveOut::Reduction(_)) {
            return Err(Declined::ExitWithReduction);
        }
        let live = (v, kind, ty);
        let nv = super::driver::final_value(&mut b, pl, outlined, &slot_ptrs, width, live, &at)?;
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
            incoming.push((advance, next_full));
            incoming.push((cont, next_settle));
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
    for latch in [advance, cont] {
        func.abi.loops.push(LoopMd {
            latch,
            hints: vec![LoopHint {
                name: "llvm.loop.isvectorized".to_string(),
                value: Some(1),
            }],
        });
    }
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
