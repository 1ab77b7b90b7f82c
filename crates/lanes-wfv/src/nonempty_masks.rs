//! `any(m)` where some lane of `m` is known to be active.
//!
//! Widening keeps inactive lanes away from memory: a uniform load or store, or a uniform
//! divisor, under a varying mask runs once, and only if `any(mask)` (CC'12 §3.3; the
//! table of the widening's memory module). Inside a divergent loop that guard is a test
//! and a branch per uniform access per iteration, and it is nearly always needless: the
//! divergent loop transform (PLDI'18 §5) goes round again only while `any` lane is live,
//! so the body's mask is never empty. aobench's occlusion test reads four sphere
//! coordinates per iteration of such a loop; each read was a `kortest`, a branch and a
//! φ of the loaded value.
//!
//! This pass proves that a mask `m` has an active lane where `any(m)` is computed, and
//! replaces that `any` by `true` (a `brif` on it becomes a jump). The proof rules, on the
//! widened function:
//!
//! - **A guarded edge.** A block `C` whose only predecessor `A` ends in
//!   `brif any(g), C, D` (`D ≠ C`) runs only when `g` has an active lane. If `C` dominates
//!   the block of the query and `g ⊆ m` (`g` is `m`, or a copy or an `and` of something
//!   `⊆ m`), `m` has one. `m` cannot have changed since the test: `g` is computed from
//!   `m`, so `m`'s definition dominates the test, and the edge dominates the query.
//! - **Copies, `or`s and constants.** `copy x` has an active lane where `x` has one;
//!   `or(x, y)` where `x` or `y` has one; an all-true constant always.
//! - **φs.** A φ has an active lane if every incoming value has one at the end of its
//!   edge: by the rules above in the predecessor, or because the predecessor's `brif
//!   any(g)` takes the edge only when `g ⊆` the incoming value has one (a divergent
//!   loop's back edge). A φ being proven is assumed to hold for the values it reaches:
//!   each time it is assigned, its incoming value was made from earlier assignments,
//!   which held by induction.
//!
//! The masked entry of a variant needs no rule of its own: the function returns at once
//! when no lane is active (`return_early_when_no_lane_is_active`), a guarded edge.
//! Each proof visits at most `MAX_STEPS` values, so the pass stays linear in the
//! function's size.

use std::collections::HashSet;

use crate::cfg_edit::brif_of;
use cranelift_entity::SecondaryMap;
use lanes_analysis::{ControlFlowGraph, DominatorTree};
use lanes_ir::{
    BinaryOp, Block, FuncCursor, Function, Inst, InstData, Intrinsic, Type, UnaryOp, Value,
    ValueDef, ValueSubstitution,
};

/// Values one proof looks at, at most.
const MAX_STEPS: u32 = 64;

/// Replaces every `any(m)` of `func` whose mask is proven to have an active lane (module
/// docs) by `true`, turns the `brif`s on them into jumps and removes what that leaves
/// unreachable or unused; returns how many `any`s went.
pub fn fold_any_of_nonempty_masks(func: &mut Function) -> usize {
    let proven = proven_anys(func);
    if proven.is_empty() {
        return 0;
    }
    let Some(entry) = func.entry_block() else {
        return 0;
    };
    let yes = FuncCursor::new(func)
        .goto_first_non_phi(entry)
        .insert_value(InstData::Iconst { imm: 1 }, Type::I1);
    let mut subst = ValueSubstitution::new();
    for &(_, result) in &proven {
        subst.insert(result, yes);
    }
    func.dfg.apply_substitution(&subst);
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for b in blocks {
        jump_if_always(func, b, yes);
    }
    FuncCursor::new(func).remove_unreachable();
    crate::ssa_repair::remove_dead_code(func, &[]);
    proven.len()
}

/// The `any` instructions (and their results) whose masks are proven non-empty.
fn proven_anys(func: &Function) -> Vec<(Inst, Value)> {
    // Most functions have none: no CFG analyses for them.
    let has_any = func.layout.blocks().any(|b| {
        func.layout
            .block_insts(b)
            .iter()
            .any(|&i| any_arg(func, i).is_some())
    });
    if !has_any {
        return Vec::new();
    }
    let cfg = ControlFlowGraph::with_function(func);
    let doms = DominatorTree::with_function(func, &cfg);
    let mut guard_of: SecondaryMap<Block, Option<Value>> = SecondaryMap::new();
    for &c in cfg.rpo() {
        if let [a] = cfg.preds(c) {
            guard_of[c] = any_guard(func, *a, c);
        }
    }
    let proof = Proof {
        func,
        cfg: &cfg,
        doms: &doms,
        guard_of: &guard_of,
    };
    let mut proven = Vec::new();
    for &b in cfg.rpo() {
        for &inst in func.layout.block_insts(b) {
            let Some(m) = any_arg(func, inst) else {
                continue;
            };
            let Some(result) = func.dfg.inst_result(inst) else {
                continue;
            };
            let mut search = Search {
                steps: MAX_STEPS,
                assumed: HashSet::new(),
            };
            if proof.nonempty_at(m, b, &mut search) {
                proven.push((inst, result));
            }
        }
    }
    proven
}

/// The mask `g` if `inst` is `any(g)`.
fn any_arg(func: &Function, inst: Inst) -> Option<Value> {
    match func.dfg.inst(inst) {
        InstData::Intrinsic {
            id: Intrinsic::Any,
            args,
        } => args.first().copied(),
        _ => None,
    }
}

/// The mask `g` if `a` ends in `brif any(g), to, other` with `other ≠ to`.
fn any_guard(func: &Function, a: Block, to: Block) -> Option<Value> {
    let (cond, then_dest, else_dest) = brif_of(func, a)?;
    if then_dest != to || else_dest == to {
        return None;
    }
    any_arg(func, func.dfg.def_inst(cond)?)
}

/// Replaces the `brif yes, t, e` ending `b` by a jump to `t`, dropping `b` from `e`'s φs.
fn jump_if_always(func: &mut Function, b: Block, yes: Value) {
    let (Some(term), Some((cond, then_dest, else_dest))) = (func.terminator(b), brif_of(func, b))
    else {
        return;
    };
    if cond != yes {
        return;
    }
    *func.dfg.inst_mut(term) = InstData::Jump { dest: then_dest };
    if else_dest == then_dest {
        return;
    }
    for phi in lanes_ir::cursor::phis(func, else_dest) {
        if let InstData::Phi { incoming } = func.dfg.inst_mut(phi) {
            incoming.retain(|&(p, _)| p != b);
        }
    }
}

/// One query's state: the steps left and the φs assumed non-empty.
struct Search {
    steps: u32,
    assumed: HashSet<Value>,
}

struct Proof<'a> {
    func: &'a Function,
    cfg: &'a ControlFlowGraph,
    doms: &'a DominatorTree,
    /// For a block whose only predecessor tests `any(g)` to enter it: `g`.
    guard_of: &'a SecondaryMap<Block, Option<Value>>,
}

impl Proof<'_> {
    /// Whether `m`, whose definition dominates `at`, has an active lane in `at`.
    fn nonempty_at(&self, m: Value, at: Block, s: &mut Search) -> bool {
        if s.steps == 0 {
            return false;
        }
        s.steps -= 1;
        if self.guarded(m, at) {
            return true;
        }
        if let Some(c) = self.func.dfg.splat_constant(m) {
            return c & 1 == 1;
        }
        let def = match self.func.dfg.value_def(m) {
            ValueDef::Result(i) => i,
            ValueDef::Param(_) => return false,
        };
        match self.func.dfg.inst(def) {
            InstData::Unary {
                op: UnaryOp::Copy,
                arg,
            } => self.nonempty_at(*arg, at, s),
            InstData::Binary {
                op: BinaryOp::Or,
                args,
                ..
            } => args.iter().any(|&x| self.nonempty_at(x, at, s)),
            InstData::Phi { incoming } => {
                if !s.assumed.insert(m) {
                    return true;
                }
                let to = self.func.layout.inst_block(def);
                let held = incoming
                    .iter()
                    .all(|&(p, v)| self.nonempty_leaving(v, p, to, s));
                s.assumed.remove(&m);
                held
            }
            _ => false,
        }
    }

    /// Whether `v` has an active lane on the edge `p → to`.
    fn nonempty_leaving(&self, v: Value, p: Block, to: Option<Block>, s: &mut Search) -> bool {
        let tested = to
            .and_then(|to| any_guard(self.func, p, to))
            .is_some_and(|g| self.within(g, v));
        tested || (self.cfg.contains(p) && self.nonempty_at(v, p, s))
    }

    /// Whether an edge into a block that dominates `at` was taken only because some lane
    /// of a mask `⊆ m` was active.
    fn guarded(&self, m: Value, at: Block) -> bool {
        let mut steps = MAX_STEPS;
        let mut cur = Some(at);
        while let Some(c) = cur {
            if let Some(g) = self.guard_of[c] {
                if self.within(g, m) {
                    return true;
                }
            }
            if steps == 0 {
                return false;
            }
            steps -= 1;
            cur = self.doms.idom(c);
        }
        false
    }

    /// Whether the lanes of `g` are lanes of `m`, because `g` is made from `m` by copies
    /// and `and`s.
    fn within(&self, g: Value, m: Value) -> bool {
        let mut work = vec![g];
        let mut steps = MAX_STEPS;
        while let Some(x) = work.pop() {
            if x == m {
                return true;
            }
            if steps == 0 {
                return false;
            }
            steps -= 1;
            let ValueDef::Result(i) = self.func.dfg.value_def(x) else {
                continue;
            };
            match self.func.dfg.inst(i) {
                InstData::Unary {
                    op: UnaryOp::Copy,
                    arg,
                } => work.push(*arg),
                InstData::Binary {
                    op: BinaryOp::And,
                    args,
                    ..
                } => work.extend(args),
                _ => {}
            }
        }
        false
    }
}
