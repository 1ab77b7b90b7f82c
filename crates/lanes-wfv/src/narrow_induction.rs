//! Varying induction variables back at the width of their bounds.
//!
//! clang's induction-variable widening turns `for (int k = a; k < b; k++) … x[k] …` into a
//! 64-bit counter that starts at `sext a` and runs to `sext b`, so that scalar code needs
//! no sign extension per access. When `a` and `b` differ across instances the counter
//! is varying, and widened (PLDI'18 §2.3, shapes) every address made from it is a
//! vector of 64-bit offsets: on AVX-512 a gather through it is two `vgatherqps` of 8
//! lanes per 16 lanes, and each address computation two instructions, where ISPC, which
//! keeps `int` at 32 bits, gathers with one `vgatherdps`. (The BVH kernel's leaf loop
//! over its spheres is such a loop.)
//!
//! This pass gives the counter back its 32 bits: `k = φ(sext a, k + c)` becomes
//! `k = sext k32` with `k32 = φ(a, k32 + c)`. The exporter then sees the offsets as a
//! sign-extended 32-bit index times a scale, which the code generator gathers with
//! 32-bit indices (lanes-llvm's addressing module).
//!
//! **Why it is exact.** The header has one edge from outside the loop and one back edge,
//! from the latch, whose branch goes round only if `k + c < sext b` (or `≤`), with `c > 0`;
//! or, in the rotated form clang makes of `for`, only if `k + 1 ≠ sext b`, with the loop
//! entered only when `a < b`. By induction, every value the counter takes is in the
//! 32-bit range: the first is `sext a`; the next, `k + c`, is above `k` and at most
//! `sext b` (counting up by one from below `b`, it meets `b` before passing it). So `k32 + c` does not
//! wrap whenever the back edge is taken, and `sext k32` equals `k` at every iteration.
//! When the loop leaves, `k32 + c` may wrap, but the φ that would read it is not
//! entered. The increment is therefore a plain (wrapping) add.
//!
//! Only counters the shape analysis calls varying are narrowed: a uniform or strided
//! counter keeps its shape (a strided one proves contiguous accesses through its
//! no-wrap flags, which the narrow add does not claim).

use crate::cfg_edit::brif_of;
use lanes_analysis::shapes::{ShapeInfo, VShape};
use lanes_ir::{
    BinaryOp, Block, CastOp, FuncCursor, Function, Inst, InstData, IntCC, IntFlags, Type, Value,
    ValueDef, ValueSubstitution,
};

/// Narrows the varying 64-bit induction variables of `func` whose bounds are
/// sign-extended 32-bit values (module docs); returns how many. `info` is the shape
/// analysis of `func` as it is.
pub fn narrow_varying_inductions(func: &mut Function, info: &ShapeInfo) -> usize {
    let loops = info.loops();
    let cfg = info.cfg();
    let mut found = Vec::new();
    for l in loops.loops() {
        let header = loops.header(l);
        let [latch] = loops.latches(l) else {
            continue;
        };
        let preds = cfg.preds(header);
        let outside: Vec<Block> = preds.iter().copied().filter(|&p| p != *latch).collect();
        let [pre] = outside[..] else {
            continue;
        };
        if preds.len() != 2 || loops.contains(l, pre) {
            continue;
        }
        for &inst in func.layout.block_insts(header) {
            let InstData::Phi { incoming } = func.dfg.inst(inst) else {
                break;
            };
            let Some(k) = func.dfg.inst_result(inst) else {
                continue;
            };
            let varying = matches!(info.shape(k), VShape::Varying { .. });
            if !varying || func.dfg.value_type(k) != Type::I64 {
                continue;
            }
            let from = |b: Block| incoming.iter().find(|&&(p, _)| p == b).map(|&(_, v)| v);
            let (Some(start), Some(next)) = (from(pre), from(*latch)) else {
                continue;
            };
            let Some(start32) = narrow_source(func, start) else {
                continue;
            };
            let Some(step) = positive_step(func, next, k) else {
                continue;
            };
            let bound = back_edge_bound(func, *latch, header, next);
            let bounded = match bound {
                Some(Bound::Below) => true,
                Some(Bound::Until(end)) => {
                    step == 1
                        && entered_below(func, cfg, header, pre, start32, end).unwrap_or(false)
                }
                None => false,
            };
            if bounded {
                found.push(Counter {
                    phi: inst,
                    k,
                    pre,
                    latch: *latch,
                    header,
                    start32,
                    step,
                });
            }
        }
    }
    let mut subst = ValueSubstitution::new();
    for c in &found {
        narrow(func, c, &mut subst);
    }
    func.dfg.apply_substitution(&subst);
    found.len()
}

/// A counter to narrow: its φ and result, the loop's entry and latch blocks, the 32-bit
/// start and the step.
struct Counter {
    phi: Inst,
    k: Value,
    pre: Block,
    latch: Block,
    header: Block,
    start32: Start,
    step: i64,
}

/// The counter's 32-bit start: a value, or a constant.
#[derive(Clone, Copy)]
enum Start {
    Value(Value),
    Const(i64),
}

fn narrow(func: &mut Function, c: &Counter, subst: &mut ValueSubstitution) {
    let mut cur = FuncCursor::new(func);
    cur.goto_before_terminator(c.pre);
    let start = match c.start32 {
        Start::Value(v) => v,
        Start::Const(n) => cur.insert_value(InstData::Iconst { imm: n }, Type::I32),
    };
    let k32 = cur
        .goto_top(c.header)
        .insert_phi(Type::I32, vec![(c.pre, start)]);
    cur.goto_first_non_phi(c.header);
    let wide = cur.insert_value(
        InstData::Cast {
            op: CastOp::Sext,
            arg: k32,
            flags: IntFlags::NONE,
        },
        Type::I64,
    );
    cur.goto_before_terminator(c.latch);
    let step = cur.insert_value(InstData::Iconst { imm: c.step }, Type::I32);
    let next = cur.insert_value(
        InstData::Binary {
            op: BinaryOp::Add,
            args: [k32, step],
            flags: IntFlags::NONE,
        },
        Type::I32,
    );
    if let ValueDef::Result(phi) = func.dfg.value_def(k32) {
        if let InstData::Phi { incoming } = func.dfg.inst_mut(phi) {
            incoming.push((c.latch, next));
        }
    }
    func.layout.remove_inst(c.phi);
    subst.insert(c.k, wide);
}

/// `a` if `v` is `sext a` with `a` an `i32`, or an `i32`-ranged constant.
fn narrow_source(func: &Function, v: Value) -> Option<Start> {
    match func.dfg.inst(func.dfg.def_inst(v)?) {
        InstData::Cast {
            op: CastOp::Sext,
            arg,
            ..
        } if func.dfg.value_type(*arg) == Type::I32 => Some(Start::Value(*arg)),
        InstData::Iconst { imm } if i32::try_from(*imm).is_ok() => Some(Start::Const(*imm)),
        _ => None,
    }
}

/// `c` if `next` is `k + c` with a constant `0 < c < 2^31`.
fn positive_step(func: &Function, next: Value, k: Value) -> Option<i64> {
    let InstData::Binary {
        op: BinaryOp::Add,
        args,
        ..
    } = func.dfg.inst(func.dfg.def_inst(next)?)
    else {
        return None;
    };
    let c = match args {
        [a, c] if *a == k => *c,
        [c, a] if *a == k => *c,
        _ => return None,
    };
    let c = func.dfg.splat_constant(c)?;
    (c > 0 && i32::try_from(c).is_ok()).then_some(c)
}

/// What the latch's branch says of `next` when it goes back to the header.
enum Bound {
    /// `next < sext b` or `next ≤ sext b`, `b` 32-bit.
    Below,
    /// `next ≠ end`, `end` a sign-extended 32-bit value (clang's rotated loops).
    Until(Value),
}

fn back_edge_bound(func: &Function, latch: Block, header: Block, next: Value) -> Option<Bound> {
    let (cond, then_dest, else_dest) = brif_of(func, latch)?;
    if then_dest == else_dest {
        return None;
    }
    let InstData::Icmp { cond: cc, args } = func.dfg.inst(func.dfg.def_inst(cond)?) else {
        return None;
    };
    // The condition under which the back edge is taken, as `lhs cc rhs`.
    let cc = if then_dest == header {
        *cc
    } else {
        cc.negated()
    };
    // … with `next` on the left.
    let (cc, rhs) = match args {
        [l, r] if *l == next => (cc, *r),
        [l, r] if *r == next => (cc.swapped(), *l),
        _ => return None,
    };
    narrow_source(func, rhs)?;
    match cc {
        IntCC::Slt | IntCC::Sle => Some(Bound::Below),
        IntCC::Ne => Some(Bound::Until(rhs)),
        _ => None,
    }
}

/// Whether the loop entered through `pre` is entered only when its start is below `end`
/// (a step of 1 then reaches `end` before it can leave the 32-bit range): a branch on
/// `start < end`, in 32 or 64 bits, whose taken edge leads to the header through `pre`
/// and blocks above it with one predecessor each; `None` if `end` is not a sign
/// extension.
fn entered_below(
    func: &Function,
    cfg: &lanes_analysis::ControlFlowGraph,
    header: Block,
    pre: Block,
    start: Start,
    end: Value,
) -> Option<bool> {
    let end32 = match narrow_source(func, end)? {
        Start::Value(v) => Some(v),
        Start::Const(_) => None,
    };
    let is = |v: Value, s: Start| match s {
        Start::Value(x) => v == x,
        Start::Const(n) => func.dfg.splat_constant(v) == Some(n),
    };
    let below = |a: Value, b: Value| {
        let narrow = |v: Value| match narrow_source(func, v) {
            Some(Start::Value(x)) => x,
            _ => v,
        };
        (is(a, start) || is(narrow(a), start)) && (b == end || Some(narrow(b)) == end32)
    };
    // The edge into `cur` from `p`, from the loop's entry edge upwards.
    let (mut cur, mut p) = (header, pre);
    for _ in 0..8 {
        if let Some((cond, then_dest, else_dest)) = brif_of(func, p) {
            if let Some(InstData::Icmp { cond: cc, args }) =
                func.dfg.def_inst(cond).map(|i| func.dfg.inst(i))
            {
                let taken = if then_dest == cur && else_dest != cur {
                    Some(*cc)
                } else if else_dest == cur && then_dest != cur {
                    Some(cc.negated())
                } else {
                    None
                };
                let holds = match taken {
                    Some(IntCC::Slt) => below(args[0], args[1]),
                    Some(IntCC::Sgt) => below(args[1], args[0]),
                    _ => false,
                };
                if holds {
                    return Some(true);
                }
            }
        }
        let [above] = cfg.preds(p) else {
            return Some(false);
        };
        (cur, p) = (p, *above);
    }
    Some(false)
}
