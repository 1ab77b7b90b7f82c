//! BOSCC gadgets (PLDI'18 §6.1): branches on superword condition codes that skip a
//! linearized region when no lane would run it.
//!
//! Linearization runs both sides of a divergent branch, each under its mask, even when the
//! mask of one is all false. For a divergent `a: brif c, b, d` whose side `b` has `a` as
//! its only predecessor, the gadget moves the branch into a new block `a'` and ends `a`
//! with `brif any(c), a', d`: `any` asks whether some active lane takes `b`, a uniform
//! question (every lane gets the same answer), so the new branch is uniform. Partial
//! linearization keeps uniform branches (Theorem 4.5) and folds the divergent one in
//! `a'`, so the linearized code jumps over `b` and everything `b` dominates when no lane
//! needs it — with no change to linearization itself and no data structure beside the
//! CFG (Fig. 13). At width 1 `any(c)` is `c`, so the scalar function keeps its meaning.
//!
//! Which branches get one: `All` guards every divergent two-way branch that is not a loop's
//! back edge or exit and has a side with a single predecessor (the heavier side when both
//! qualify); `Auto` only those whose guarded side dominates work of at least
//! [`AUTO_MIN_COST`], where skipping can repay the test. The work is weighed per
//! instruction, as ISPC weighs the statements of a varying `if` before it decides to test
//! its mask: a square root, a division or a transcendental function, a memory access under
//! a varying mask (a masked access or a gather once vectorized) and a call count many
//! times an add. A vector test and a branch cost two instructions, and a misprediction
//! when the groups' answers vary: a side must weigh more than a square root with its
//! compare and a few operations (12). At 12, ambient occlusion's test of a sample ray
//! against a sphere (a square root, a negation, a subtraction and a compare), which the
//! eight or sixteen random directions of a group rarely all miss, was guarded and ran
//! 4–6% slower than unguarded; the ray/sphere kernel's nearest-hit update (18), which
//! coherent primary rays skip together, keeps its gadget.

use cranelift_entity::EntitySet;
use lanes_analysis::shapes::ShapeInfo;
use lanes_ir::{Block, FuncCursor, Function, InstData, Intrinsic, Type, UnaryOp, Value};

use crate::cfg_edit::{brif_targets, side_condition};

/// Which divergent branches get a BOSCC gadget.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BosccPolicy {
    /// Where the skippable side is heavy enough ([`AUTO_MIN_COST`]).
    Auto,
    /// Every divergent branch that can have one.
    All,
}

/// The least work ([`work`]) a side must dominate for `Auto` to guard it.
pub const AUTO_MIN_COST: usize = 13;

/// Loads and stores, which widening makes gathers and scatters unless their addresses
/// are consecutive.
pub fn is_memory_access(data: &InstData) -> bool {
    matches!(
        data,
        InstData::Load { .. }
            | InstData::Store { .. }
            | InstData::MaskedLoad { .. }
            | InstData::MaskedStore { .. }
            | InstData::Gather { .. }
            | InstData::Scatter { .. }
    )
}

/// What one instruction weighs in the work a gadget may skip.
pub fn work(data: &InstData) -> usize {
    use lanes_ir::BinaryOp;
    match data {
        InstData::Phi { .. } | InstData::Jump { .. } | InstData::Brif { .. } => 0,
        InstData::Unary {
            op: UnaryOp::Copy, ..
        } => 0,
        InstData::Call { .. } | InstData::CallIndirect { .. } => 16,
        d if is_memory_access(d) => 4,
        InstData::AtomicRmw { .. } | InstData::AtomicCas { .. } => 4,
        InstData::Binary {
            op: BinaryOp::FDiv | BinaryOp::FRem | BinaryOp::SDiv | BinaryOp::UDiv,
            ..
        }
        | InstData::Binary {
            op: BinaryOp::SRem | BinaryOp::URem,
            ..
        } => 8,
        InstData::Intrinsic { id, .. } => match id.class() {
            lanes_ir::IntrinsicClass::FloatMath(_)
                if !matches!(
                    id,
                    Intrinsic::Fabs | Intrinsic::Copysign | Intrinsic::Fma | Intrinsic::FMulAdd
                ) =>
            {
                8
            }
            _ => 1,
        },
        _ => 1,
    }
}

/// Inserts gadgets into `func` (whose shapes, CFG and loops `info` describes) by
/// `policy`; returns how many.
pub fn insert_gadgets(func: &mut Function, info: &ShapeInfo, policy: BosccPolicy) -> usize {
    let cfg = info.cfg();
    let loops = info.loops();
    let dom = info.domtree();
    let blocks: Vec<Block> = func.layout.blocks().collect();
    // The work of the blocks each block dominates.
    let weight = |side: Block| -> usize {
        blocks
            .iter()
            .filter(|&&x| dom.dominates(side, x))
            .flat_map(|&x| func.layout.block_insts(x))
            .map(|&i| work(func.dfg.inst(i)))
            .sum()
    };
    let mut plans: Vec<(Block, Block, Block, bool)> = Vec::new();
    for &a in &blocks {
        if !info.is_divergent_branch(a) {
            continue;
        }
        let Some((then_dest, else_dest)) = brif_targets(func, a) else {
            continue;
        };
        let inner = loops.innermost_loop(a);
        let stays =
            |s: Block| loops.innermost_loop(s) == inner && loops.loop_of_header(s).is_none();
        if then_dest == else_dest || !stays(then_dest) || !stays(else_dest) {
            continue;
        }
        let sole = |s: Block| cfg.preds(s) == [a];
        let candidates: Vec<(Block, bool)> = [(then_dest, true), (else_dest, false)]
            .into_iter()
            .filter(|&(s, _)| sole(s))
            .collect();
        let best = candidates
            .into_iter()
            .map(|(s, taken)| (weight(s), s, taken))
            .max_by_key(|&(w, _, _)| w);
        let Some((w, side, taken)) = best else {
            continue;
        };
        if policy == BosccPolicy::Auto && w < AUTO_MIN_COST {
            continue;
        }
        let other = if taken { else_dest } else { then_dest };
        plans.push((a, side, other, taken));
    }
    let n = plans.len();
    for (a, side, other, taken) in plans {
        install(func, a, side, other, taken);
    }
    n
}

/// The gadget for `a: brif c, …` skipping `side` (reached when `c` is `taken`) to `other`.
fn install(func: &mut Function, a: Block, side: Block, other: Block, taken: bool) {
    let Some(t) = func.terminator(a) else {
        return;
    };
    let InstData::Brif { cond, .. } = *func.dfg.inst(t) else {
        return;
    };
    let mut cur = FuncCursor::new(func);
    let branch = cur.create_block_after(a);
    // The divergent branch moves to the new block.
    func.layout.remove_inst(t);
    func.layout.append_inst(t, branch);
    let mut cur = FuncCursor::new(func);
    cur.goto_bottom(a);
    let wanted: Value = side_condition(&mut cur, cond, taken);
    let any = cur.insert_value(
        InstData::Intrinsic {
            id: Intrinsic::Any,
            args: vec![wanted],
        },
        Type::I1,
    );
    cur.insert_inst(
        InstData::Brif {
            cond: any,
            then_dest: branch,
            else_dest: other,
        },
        None,
    );
    // φs: `side` and `other` are now reached from `branch`; `other` also from `a`.
    let mut done: EntitySet<Block> = EntitySet::new();
    for s in [side, other] {
        if !done.insert(s) {
            continue;
        }
        let phis: Vec<_> = func.layout.block_insts(s).to_vec();
        for i in phis {
            let InstData::Phi { incoming } = func.dfg.inst_mut(i) else {
                continue;
            };
            let from_a: Vec<Value> = incoming
                .iter()
                .filter(|(p, _)| *p == a)
                .map(|&(_, v)| v)
                .collect();
            for (p, _) in incoming.iter_mut() {
                if *p == a {
                    *p = branch;
                }
            }
            if s == other {
                incoming.extend(from_a.into_iter().take(1).map(|v| (a, v)));
            }
        }
    }
}
