//! Recognizing a parallel loop the outer-loop vectorizer can take (PLDI'18 §7).
//!
//! The loop must be a counted loop in the form LLVM's loop passes leave a `for` loop in:
//! one preheader, one latch that exits (a rotated, "do-while" loop behind a guard), and an
//! exit test there comparing an induction variable of step ±1 with a loop-invariant bound.
//! From that the trip count `T ≥ 1` is computed before the loop ([`TripCount`]), so
//! iteration `k` of `0..T` can run in lane `k mod W`. Other blocks may leave the loop too
//! (`break`, `return`): those edges are [`ParallelLoop::early_exits`], and `T` is then
//! only a bound (module `early_exit`).
//!
//! Every value carried around the back edge must be an induction (`start + k·step`,
//! recomputed from `k` in each lane), a first-order recurrence recomputed from the
//! previous iteration's inductions ([`Recurrence`]), or a reduction ([`Reduction`]): a chain of one
//! associative, commutative operation (or `sub`, combined by `add`) from the header φ to
//! the latch, possibly through φs and selects that pass the running value unchanged
//! (conditional updates). Each lane then keeps a partial result that is combined after
//! the loop; for floating point this reorders the operations, which `#pragma omp simd`
//! and forced vectorization license (LLVM's loop vectorizer does the same).
//!
//! Values of the loop used after it become the final induction value, the combined
//! reduction, or the value of the last iteration ([`LiveOut`]).

use std::fmt;

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{EntitySet, SecondaryMap};
use lanes_analysis::{FunctionAnalyses, Loop};

use super::exit_edges::{self, ExitEdge};
use super::induction::induction_step;
pub use super::induction::Induction;
use super::recurrence::{self, Recurrence};
use super::{logical, min_max};
use lanes_ir::{BinaryOp, Block, Function, Inst, InstData, IntCC, Intrinsic, Type, Value};

/// Why a parallel loop is left alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Declined {
    NoPreheader,
    SeveralLatches,
    /// The latch does not test whether to leave (the loop's count is not checked at its
    /// back edge), or branches elsewhere too.
    LatchNotExit,
    /// The exit test is not `icmp` of an induction of step ±1 against an invariant bound.
    UncountedExit,
    /// A value carried around the loop that is neither an induction nor a reduction.
    CarriedValue(Value),
    /// A reduction's running value (before the update) is used after the loop.
    ReductionUsedOutside(Value),
    /// A loop left from the body that also carries a reduction.
    ExitWithReduction,
    /// The exit test cannot be run ahead for later iterations ([`super::probe`]).
    Unprobeable(String),
    /// The body could not be vectorized.
    Vectorizer(String),
}

impl fmt::Display for Declined {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Declined::NoPreheader => write!(f, "the loop has no unique preheader"),
            Declined::SeveralLatches => write!(f, "the loop has several back edges"),
            Declined::LatchNotExit => write!(
                f,
                "the loop's back edge does not test whether to leave it (a trip count is needed there)"
            ),
            Declined::UncountedExit => write!(
                f,
                "the trip count is not computable (the exit test must compare an induction variable of step 1 or -1 with a loop-invariant bound)"
            ),
            Declined::CarriedValue(v) => write!(
                f,
                "a value ({v} in lanes IR) is carried from one iteration to the next and is neither an induction nor a reduction"
            ),
            Declined::ReductionUsedOutside(v) => {
                write!(f, "the reduction value {v} before its last update is used after the loop")
            }
            Declined::ExitWithReduction => write!(
                f,
                "the loop is left from the body (break or return) and also carries a reduction"
            ),
            Declined::Unprobeable(why) => write!(
                f,
                "the loop is left from the body and its exit test cannot be run ahead for later iterations: {why}"
            ),
            Declined::Vectorizer(why) => write!(f, "{why}"),
        }
    }
}

/// The loop continues after iteration `k` while `pred(x_k, bound)`, where `x_k` is
/// induction `induction`'s value in iteration `k + offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TripCount {
    pub induction: usize,
    pub offset: i64,
    pub pred: IntCC,
    pub bound: Value,
}

/// A value carried around the loop by one operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reduction {
    pub phi: Value,
    pub init: Value,
    /// The value after the iteration's update (the latch's φ operand).
    pub latch_value: Value,
    /// The operation that combines two partial results (`add` for a `sub` chain).
    pub combine: BinaryOp,
}

/// What a value of the loop used after it stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LiveOut {
    /// Induction `i` in iteration `T - 1 + offset`.
    Induction { index: usize, offset: i64 },
    /// The combined result of reduction `i`.
    Reduction(usize),
    /// The value of the last iteration.
    Last,
}

/// A loop the outer-loop vectorizer can take.
#[derive(Clone, Debug)]
pub struct ParallelLoop {
    pub header: Block,
    pub latch: Block,
    pub preheader: Block,
    pub exit: Block,
    pub blocks: Vec<Block>,
    /// Blocks outside the loop that hold only `unreachable` and that the loop branches
    /// to: the outlined body keeps them.
    pub traps: Vec<Block>,
    pub inductions: Vec<Induction>,
    pub trip: TripCount,
    pub reductions: Vec<Reduction>,
    /// Values carried from the previous iteration that each iteration can recompute.
    pub recurrences: Vec<Recurrence>,
    /// Values defined in the loop and used after it.
    pub live_outs: Vec<(Value, LiveOut)>,
    /// Edges leaving the loop from the body (`break`, `return`), in the order of their
    /// exit codes 1, 2, …
    pub early_exits: Vec<ExitEdge>,
    /// The [`LiveOut::Last`] values the latch's exit reads (with early exits, others may
    /// exist only on the way to one of them).
    pub latch_live: Vec<Value>,
}

/// Is `b` a block holding only `unreachable`?
fn is_trap(func: &Function, b: Block) -> bool {
    matches!(
        func.layout.block_insts(b),
        [i] if matches!(func.dfg.inst(*i), InstData::Unreachable)
    )
}

/// The block defining each placed instruction's result (none for parameters and the
/// results of unplaced instructions).
type DefBlocks = SecondaryMap<Value, PackedOption<Block>>;

fn def_blocks(func: &Function) -> DefBlocks {
    let mut out = SecondaryMap::new();
    for b in func.layout.blocks() {
        for &i in func.layout.block_insts(b) {
            if let Some(v) = func.dfg.inst_result(i) {
                out[v] = b.into();
            }
        }
    }
    out
}

/// Is `v` defined in a block of `in_loop`?
fn defined_in(defs: &DefBlocks, in_loop: &EntitySet<Block>, v: Value) -> bool {
    defs[v].expand().is_some_and(|b| in_loop.contains(b))
}

/// Recognizes loop `l` of `func`.
pub fn recognize(
    func: &Function,
    analyses: &FunctionAnalyses,
    l: Loop,
) -> Result<ParallelLoop, Declined> {
    let (cfg, loops) = (analyses.cfg(), analyses.loops());
    let header = loops.header(l);
    let blocks: Vec<Block> = loops.blocks(l).to_vec();
    let mut in_loop: EntitySet<Block> = EntitySet::new();
    in_loop.extend(blocks.iter().copied());
    let [latch] = loops.latches(l)[..] else {
        return Err(Declined::SeveralLatches);
    };
    let outside: Vec<Block> = cfg
        .preds(header)
        .iter()
        .copied()
        .filter(|&p| !in_loop.contains(p))
        .collect();
    let [preheader] = outside[..] else {
        return Err(Declined::NoPreheader);
    };
    if cfg.succs(preheader) != [header] {
        return Err(Declined::NoPreheader);
    }
    // An edge to a block that is only `unreachable` (a `switch` whose default cannot be
    // taken) leaves nothing: it stays in the body.
    let traps: Vec<Block> = loops
        .exit_blocks(l)
        .iter()
        .copied()
        .filter(|&b| is_trap(func, b))
        .collect();
    let edges = exit_edges::exit_edges(cfg, loops, l, &in_loop, &traps);
    if edges.iter().all(|&(from, _)| from != latch) {
        return Err(Declined::LatchNotExit);
    }
    let early_edges: Vec<(Block, Block)> = edges
        .into_iter()
        .filter(|&(from, _)| from != latch)
        .collect();
    let exit = match cfg.succs(latch) {
        [a, b] if *a == header && !in_loop.contains(*b) => *b,
        [a, b] if *b == header && !in_loop.contains(*a) => *a,
        _ => return Err(Declined::LatchNotExit),
    };
    let defs = def_blocks(func);
    let defined_inside = |v: Value| defined_in(&defs, &in_loop, v);

    // Header φs: inductions, reductions and first-order recurrences (checked once all
    // inductions are known).
    let mut inductions = Vec::new();
    let mut reductions = Vec::new();
    let mut carried: Vec<(Value, Value, Value)> = Vec::new();
    for &i in func.layout.block_insts(header) {
        let InstData::Phi { incoming } = func.dfg.inst(i) else {
            break;
        };
        let Some(phi) = func.dfg.inst_result(i) else {
            return Err(Declined::Vectorizer(format!(
                "internal error: a φ of {header} has no result"
            )));
        };
        let value_from = |b: Block| incoming.iter().find(|(p, _)| *p == b).map(|&(_, v)| v);
        let (Some(start), Some(next)) = (value_from(preheader), value_from(latch)) else {
            return Err(Declined::CarriedValue(phi));
        };
        if let Some(step) = induction_step(func, phi, next) {
            inductions.push(Induction {
                phi,
                start,
                next,
                step,
            });
        } else if let Some(combine) = reduction_chain(func, &in_loop, &defs, phi, next)
            .or_else(|| logical::logical_reduction(func, &in_loop, phi, next))
        {
            reductions.push(Reduction {
                phi,
                init: start,
                latch_value: next,
                combine,
            });
        } else {
            carried.push((phi, start, next));
        }
    }
    let recurrences = carried
        .into_iter()
        .map(|c| {
            recurrence::first_order_recurrence(func, header, latch, &in_loop, &inductions, c)
                .ok_or(Declined::CarriedValue(c.0))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let trip = trip_count(func, latch, header, &inductions, &defined_inside)?;

    // Values used after the loop.
    let mut live_outs: Vec<(Value, LiveOut)> = Vec::new();
    for b in func.layout.blocks().filter(|&b| !in_loop.contains(b)) {
        for &i in func.layout.block_insts(b) {
            for v in func.dfg.inst(i).args() {
                if !defined_inside(v) || live_outs.iter().any(|(w, _)| *w == v) {
                    continue;
                }
                let kind = if let Some(k) = inductions.iter().position(|d| d.phi == v) {
                    LiveOut::Induction {
                        index: k,
                        offset: 0,
                    }
                } else if let Some(k) = inductions.iter().position(|d| d.next == v) {
                    LiveOut::Induction {
                        index: k,
                        offset: 1,
                    }
                } else if let Some(k) = reductions.iter().position(|r| r.latch_value == v) {
                    LiveOut::Reduction(k)
                } else if reductions.iter().any(|r| r.phi == v)
                    || is_chain_value(func, &reductions, &in_loop, &defs, v)
                {
                    return Err(Declined::ReductionUsedOutside(v));
                } else {
                    LiveOut::Last
                };
                live_outs.push((v, kind));
            }
        }
    }
    if !early_edges.is_empty() && !reductions.is_empty() {
        return Err(Declined::ExitWithReduction);
    }
    let domtree = analyses.domtree();
    let available = |at: Block| -> Vec<Value> {
        live_outs
            .iter()
            .filter(|&&(v, kind)| {
                kind == LiveOut::Last && defs[v].expand().is_some_and(|d| domtree.dominates(d, at))
            })
            .map(|&(v, _)| v)
            .collect()
    };
    let early_exits = early_edges
        .iter()
        .map(|&(from, to)| ExitEdge {
            from,
            to,
            live: available(from),
        })
        .collect();
    let latch_live = available(latch);
    Ok(ParallelLoop {
        header,
        latch,
        preheader,
        exit,
        blocks,
        traps,
        recurrences,
        inductions,
        trip,
        reductions,
        live_outs,
        early_exits,
        latch_live,
    })
}

/// The operation of a reduction chain from `phi` to `next`, if the chain is one.
///
/// Every use of a chain value inside the loop must be the chain's operation (with the
/// chain value as one operand and a value off the chain as the other; for an `fadd` chain
/// also `fmuladd` with the chain value as its addend, clang's contracted `s += x * y`), a φ or a
/// select arm (a conditional update passes the running value through); nothing else
/// may read a partial result.
fn reduction_chain(
    func: &Function,
    in_loop: &EntitySet<Block>,
    defs: &DefBlocks,
    phi: Value,
    next: Value,
) -> Option<BinaryOp> {
    let ty = func.value_type(phi);
    if ty.is_vector() || ty == Type::I1 || ty.is_ptr() {
        return None;
    }
    let (chain, compares) = chain_values(func, in_loop, defs, phi)?;
    if !chain.contains(&next) {
        return None;
    }
    let on_chain = |v: Value| chain.contains(&v);
    for &cmp in &compares {
        let r = func.dfg.inst_result(cmp)?;
        let users: Vec<&InstData> = in_loop
            .iter()
            .flat_map(|b| func.layout.block_insts(b).iter())
            .map(|&i| func.dfg.inst(i))
            .filter(|data| data.args().contains(&r))
            .collect();
        if !min_max::compare_only_selects(func, &users, &on_chain, r) {
            return None;
        }
    }
    let mut op: Option<BinaryOp> = None;
    for &v in &chain {
        let Some(i) = func.dfg.def_inst(v) else {
            continue;
        };
        if let InstData::Select { args } = func.dfg.inst(i) {
            // `x < m ? x : m`: a min/max chain (module `min_max`); other selects pass the
            // running value through a conditional update.
            let is_compare = func
                .dfg
                .def_inst(args[0])
                .is_some_and(|c| compares.contains(&c));
            if is_compare {
                let m = min_max::select_min_max(func, &on_chain, *args)?;
                if op.is_some_and(|p| p != m) {
                    return None;
                }
                op = Some(m);
            }
        }
        if let InstData::Intrinsic {
            id: Intrinsic::FMulAdd,
            args,
        } = func.dfg.inst(i)
        {
            // `fmuladd(x, y, acc)`: an `fadd` chain through the addend (clang's `s += x * y`).
            if !chain_addend(&chain, args) || op.is_some_and(|p| p != BinaryOp::FAdd) {
                return None;
            }
            op = Some(BinaryOp::FAdd);
        }
        if let InstData::Binary {
            op: o,
            args: [a, b],
            ..
        } = func.dfg.inst(i)
        {
            // A chain operation: exactly one operand on the chain (`sub`: the first).
            let (ina, inb) = (chain.contains(a), chain.contains(b));
            let ok = match o {
                BinaryOp::Sub | BinaryOp::FSub => ina && !inb,
                _ => ina != inb,
            };
            let combine = combine_op(*o)?;
            if !ok || op.is_some_and(|p| p != combine) {
                return None;
            }
            op = Some(combine);
        }
    }
    op
}

/// The values reached from `phi` through uses inside the loop, if every such use is a
/// binary operation, an `fmuladd` addend, a φ or a select arm; `None` if a partial result
/// is read otherwise.
fn chain_values(
    func: &Function,
    in_loop: &EntitySet<Block>,
    defs: &DefBlocks,
    phi: Value,
) -> Option<(Vec<Value>, Vec<Inst>)> {
    let mut chain = vec![phi];
    // Compares reading a partial result: allowed only as the condition of a min/max
    // select, which the caller checks once the chain is complete.
    let mut compares: Vec<Inst> = Vec::new();
    let mut seen: EntitySet<Value> = EntitySet::new();
    seen.insert(phi);
    let mut at = 0;
    while at < chain.len() {
        let v = chain[at];
        at += 1;
        for b in in_loop.iter() {
            for &i in func.layout.block_insts(b) {
                let data = func.dfg.inst(i);
                let args = data.args();
                if !args.contains(&v) {
                    continue;
                }
                let ok = match data {
                    InstData::Phi { .. } => true,
                    InstData::Select { args: [c, _, _] } => *c != v,
                    InstData::Binary { op, .. } => combine_op(*op).is_some(),
                    InstData::Intrinsic {
                        id: Intrinsic::FMulAdd,
                        args,
                    } => args.get(2) == Some(&v) && !args[..2].contains(&v),
                    InstData::Icmp { .. } | InstData::Fcmp { .. } => {
                        if !compares.contains(&i) {
                            compares.push(i);
                        }
                        continue;
                    }
                    _ => false,
                };
                if !ok {
                    return None;
                }
                let r = func.dfg.inst_result(i)?;
                if defined_in(defs, in_loop, r) && seen.insert(r) {
                    chain.push(r);
                }
            }
        }
    }
    Some((chain, compares))
}

/// Are the operands of an `fmuladd` on the chain exactly its addend?
fn chain_addend(chain: &[Value], args: &[Value]) -> bool {
    matches!(args, [x, y, acc] if chain.contains(acc) && !chain.contains(x) && !chain.contains(y))
}

/// Is `v` on the chain of one of `reductions` (other than its latch value)?
fn is_chain_value(
    func: &Function,
    reductions: &[Reduction],
    in_loop: &EntitySet<Block>,
    defs: &DefBlocks,
    v: Value,
) -> bool {
    reductions
        .iter()
        .any(|r| chain_values(func, in_loop, defs, r.phi).is_some_and(|(c, _)| c.contains(&v)))
}

/// The operation that combines partial results of a chain of `op`.
pub fn combine_op(op: BinaryOp) -> Option<BinaryOp> {
    use BinaryOp::*;
    Some(match op {
        Add | Sub => Add,
        FAdd | FSub => FAdd,
        Mul | And | Or | Xor | SMin | SMax | UMin | UMax | FMul | FMin | FMax => op,
        _ => return None,
    })
}

/// The trip count from the latch's exit test.
fn trip_count(
    func: &Function,
    latch: Block,
    header: Block,
    inductions: &[Induction],
    defined_inside: &dyn Fn(Value) -> bool,
) -> Result<TripCount, Declined> {
    let term = func.terminator(latch).ok_or(Declined::UncountedExit)?;
    let InstData::Brif {
        cond, then_dest, ..
    } = func.dfg.inst(term)
    else {
        return Err(Declined::UncountedExit);
    };
    let exits_on_true = *then_dest != header;
    let Some(InstData::Icmp {
        cond: cc,
        args: [a, b],
    }) = func.dfg.def_inst(*cond).map(|i| func.dfg.inst(i))
    else {
        return Err(Declined::UncountedExit);
    };
    let find = |v: Value| {
        inductions.iter().enumerate().find_map(|(k, d)| {
            if d.phi == v {
                Some((k, 0))
            } else if d.next == v {
                Some((k, 1))
            } else {
                None
            }
        })
    };
    let (mut pred, (induction, offset), bound) = match (find(*a), find(*b)) {
        (Some(x), None) => (*cc, x, *b),
        (None, Some(x)) => (cc.swapped(), x, *a),
        _ => return Err(Declined::UncountedExit),
    };
    if defined_inside(bound) || func.value_type(bound).is_vector() {
        return Err(Declined::UncountedExit);
    }
    if exits_on_true {
        pred = pred.negated();
    }
    let ty = func.value_type(inductions[induction].phi);
    let step = inductions[induction].step;
    use IntCC::*;
    let ok = ty.is_int()
        && match step {
            1 => matches!(pred, Ne | Slt | Sle | Ult | Ule),
            -1 => matches!(pred, Ne | Sgt | Sge | Ugt | Uge),
            _ => false,
        };
    if !ok {
        return Err(Declined::UncountedExit);
    }
    Ok(TripCount {
        induction,
        offset,
        pred,
        bound,
    })
}
