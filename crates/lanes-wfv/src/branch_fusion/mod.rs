//! Branch fusion (PACT'11 §IV-A): the two sides of a divergent if-then-else that do
//! similar work become one sequence, with selectors on the operands that differ.
//!
//! After linearization both sides of a divergent branch run, each under its mask, so a
//! divergent `if (c) y = a*x + b; else y = a*x - d;` costs the arithmetic of both. Fusion
//! aligns the sides' instruction sequences ([`align`], Smith–Waterman over the profits of
//! `cost`), runs each aligned pair once with `select c, …` choosing its operands, and
//! keeps the unaligned rest divergent (`merge`). It runs before BOSCC and linearization
//! (which then fold the short divergent gaps that remain) on the branches the shape
//! analysis calls divergent: a uniform branch runs one side only, so merging would only add
//! selectors.
//!
//! The branches fused are the paper's *unifiable* ones (Definition 4.1: neither successor
//! reaches the other) in their simplest and most common form, a diamond: each side is one
//! block whose only predecessor is the branch and which jumps to a common join, whose
//! values leave only through the join's φs. Merged instructions run for the lanes of both
//! sides at once, which is the same work each lane did before — its own operation on its
//! own operands and address — so they may be arithmetic, comparisons, casts, address
//! arithmetic, lane-wise math and plain loads and stores, but not calls, atomics, volatile
//! accesses or cross-lane operations (module `cost`). Each side's instructions keep their
//! order, so every lane still sees its own side's effects in program order; lanes of
//! different sides are unordered in the SPMD model either way.
//!
//! Constants are moved out of the sides first: they are operands, which selectors choose
//! between, not work to align.
//!
//! `Auto` fuses where the alignment's profit, counting the gap branches it leaves against
//! the one it removes, is positive. `All` merges the longest sequence of mergeable pairs
//! regardless of profit: it exists to test code generation on every candidate.

mod align;
mod cost;
mod merge;

pub use align::{align, Alignment, Ends, MAX_CELLS};

use std::collections::{HashMap, HashSet};

use lanes_analysis::shapes::ShapeInfo;
use lanes_ir::{Block, Function, InstData};

use crate::cfg_edit::def_block;
use cost::{Profit, Side};
use merge::{body, fuse, Diamond};

/// Which divergent if-then-elses branch fusion merges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FusionPolicy {
    /// None.
    #[default]
    Off,
    /// Where the cost model finds a profit.
    Auto,
    /// Every one with a mergeable pair, as many pairs as possible.
    All,
}

/// The cost of a gap, a divergent branch left in the fused code (PACT'11 uses 2 cycles
/// for a branch; after linearization it is the masks and blends of one more diamond).
pub const GAP_COST: i64 = 2;

/// Fuses the divergent if-then-elses of `func` (whose shapes, CFG and loops `info`
/// describes) by `policy`; returns how many instruction pairs became one.
pub fn fuse_branches(func: &mut Function, info: &ShapeInfo, policy: FusionPolicy) -> usize {
    if policy == FusionPolicy::Off {
        return 0;
    }
    let found = diamonds(func, info);
    for d in &found {
        hoist_constants(func, d);
    }
    let mut plans = Vec::new();
    for d in found {
        if let Some(pairs) = plan(func, info, &d, policy) {
            plans.push((d, pairs));
        }
    }
    let mut zeros = HashMap::new();
    let mut fused = 0;
    for (d, pairs) in plans {
        fused += pairs.len();
        fuse(func, &d, &pairs, &mut zeros);
    }
    fused
}

/// The alignment to fuse `d` along, if `policy` fuses it.
fn plan(
    func: &Function,
    info: &ShapeInfo,
    d: &Diamond,
    policy: FusionPolicy,
) -> Option<Vec<(usize, usize)>> {
    let then_side = Side::new(func, body(func, d.then_side));
    let else_side = Side::new(func, body(func, d.else_side));
    let (n, m) = (then_side.insts.len(), else_side.insts.len());
    let profit = Profit {
        func,
        info,
        then_side: &then_side,
        else_side: &else_side,
    };
    let alignment = if policy == FusionPolicy::All {
        align(
            n,
            m,
            |i, j| profit.mergeable(i, j).then_some(1),
            Ends::local(0),
        )?
    } else {
        // Every gap left is a divergent branch, the unmatched head and tail included; the
        // one branch fusion removes is a gain besides, so any positive score pays.
        align(n, m, |i, j| profit.gain(i, j), Ends::uniform(GAP_COST))?
    };
    (!alignment.pairs.is_empty()).then_some(alignment.pairs)
}

/// Moves the constants of `d`'s sides to the end of its head. A constant is an operand,
/// not work: `fconst 0.5` against `fconst 1.5` is one selected operand of the instruction
/// using it, where left in the sides the two would be a pair that cannot merge, and so a
/// gap in the alignment.
fn hoist_constants(func: &mut Function, d: &Diamond) {
    let Some(branch) = func.terminator(d.head) else {
        return;
    };
    for side in [d.then_side, d.else_side] {
        for i in body(func, side) {
            if matches!(
                func.dfg.inst(i),
                InstData::Iconst { .. } | InstData::Fconst { .. }
            ) {
                func.layout.remove_inst(i);
                func.layout.insert_inst_before(i, branch);
            }
        }
    }
}

/// The divergent diamonds of `func` fusion can take.
fn diamonds(func: &Function, info: &ShapeInfo) -> Vec<Diamond> {
    let cfg = info.cfg();
    let loops = info.loops();
    let mut found = Vec::new();
    for head in func.layout.blocks() {
        if !info.is_divergent_branch(head) {
            continue;
        }
        let Some(t) = func.terminator(head) else {
            continue;
        };
        let InstData::Brif {
            cond,
            then_dest,
            else_dest,
        } = *func.dfg.inst(t)
        else {
            continue;
        };
        let jump_of = |side: Block| match func.terminator(side).map(|t| func.dfg.inst(t)) {
            Some(&InstData::Jump { dest }) => Some(dest),
            _ => None,
        };
        let plain = |side: Block| {
            cfg.preds(side) == [head]
                && loops.loop_of_header(side).is_none()
                && func
                    .layout
                    .block_insts(side)
                    .iter()
                    .all(|&i| !matches!(func.dfg.inst(i), InstData::Phi { .. }))
        };
        let (Some(join), Some(other)) = (jump_of(then_dest), jump_of(else_dest)) else {
            continue;
        };
        // A side jumping back to a header is a latch: the branch is a loop's, not an
        // if-then-else's.
        if then_dest == else_dest
            || join != other
            || join == head
            || loops.loop_of_header(join).is_some()
            || !plain(then_dest)
            || !plain(else_dest)
        {
            continue;
        }
        found.push(Diamond {
            head,
            cond,
            then_side: then_dest,
            else_side: else_dest,
            join,
        });
    }
    let escaping = escaping_sides(func, &found);
    found.retain(|d| !escaping.contains(&d.then_side) && !escaping.contains(&d.else_side));
    found
}

/// The sides of `diamonds` one of whose values is used outside the side other than by a
/// φ of the join on the edge from that side (SSA allows none, since a side dominates only
/// itself, but the check is what makes fusion's rewiring complete).
fn escaping_sides(func: &Function, diamonds: &[Diamond]) -> HashSet<Block> {
    let mut join_of: HashMap<Block, Block> = HashMap::new();
    for d in diamonds {
        join_of.insert(d.then_side, d.join);
        join_of.insert(d.else_side, d.join);
    }
    let mut escaping = HashSet::new();
    for block in func.layout.blocks() {
        for &i in func.layout.block_insts(block) {
            let mut check = |v, via: Block| {
                if let Some(side) = def_block(func, v).filter(|s| join_of.contains_key(s)) {
                    let through_phi = join_of[&side] == block && via == side;
                    if side != block && !through_phi {
                        escaping.insert(side);
                    }
                }
            };
            match func.dfg.inst(i) {
                InstData::Phi { incoming } => {
                    for &(p, v) in incoming {
                        check(v, p);
                    }
                }
                data => data.for_each_arg(|v| check(v, block)),
            }
        }
    }
    escaping
}
