//! Divergent `break`s that leave to where the latch leaves, and carry out what the latch
//! would, become a flag tested by the latch's exit branch: the loop gets one exit instead
//! of two, and its live-outs are kept in place (PLDI'18 §5) instead of tracked.
//!
//! Why. The divergent loop transform ([`crate::divergent_loops`]) keeps a live-out in
//! place only when every exiting edge to its exit carries the same value. A ray-marching
//! loop `for (k..steps) { …; if (d > 0) { c += …; a += …; if (a > .97) break; } }` leaves
//! twice to one block: from the latch with the latch's φ of `c` and from the `break`
//! with the new `c`. The two values differ, so each live-out is *tracked*: a φ in the
//! header and two selects per iteration in the pure latch, besides the blend of the
//! join — ISPC's loop pays only the blend. Yet the `break`'s value is exactly what the
//! latch's φ takes from the `break`'s block: the lane leaves with the value it would have
//! carried round the loop. Sending the breaking lanes through the latch with a flag
//! therefore gives them the same value the latch's other exit reads; the exit reads one
//! value and keeps it in place.
//!
//! The rewrite, for a loop whose unique latch `L` ends in a divergent `brif` to its header
//! `h` and to an exit `x`, and a block `e` of the loop (not of an inner loop) ending in a
//! divergent `brif` to `L` and `x`:
//!
//! - `e` jumps to `L`; a φ `brk` in `L` is `e`'s "leaves" condition from each such `e`
//!   and `false` from `L`'s other predecessors;
//! - `L`'s exit branch leaves when `brk` holds: its condition becomes
//!   `select(brk, leave, cond)` (a `select`, not an `and`/`or`: `cond` may be poison for
//!   a lane that broke out, as `k + 1` with `nsw` at the end of the range);
//! - `x`'s φs lose `e`'s incoming.
//!
//! It is only done where it keeps the meaning and the vectorizer's guarantees:
//! - every φ of `x` reads from `L` a value that equals what it reads from `e` for a lane
//!   coming from `e`: a φ of `L` whose incoming from `e` is that value, or that value
//!   itself, defined outside `L`;
//! - `L` holds nothing but φs, its branch and what may run for an inactive lane (pure
//!   arithmetic that cannot trap, no memory, no question of which lanes run): the lanes
//!   that broke out run it once more, and inactive lanes never touch memory that scalar
//!   execution would not;
//! - both branches are divergent: a uniform latch exit stays a uniform branch of the
//!   linearized loop (a search loop `for (k < n) if (a[k] == key) break;` keeps its scalar
//!   counter test), and a uniform `break` is no divergent exit to track.

use std::collections::HashMap;

use lanes_analysis::shapes::ShapeInfo;
use lanes_ir::cursor::phis;
use lanes_ir::{Block, FuncCursor, Function, InstData, Type, Value};

use crate::cfg_edit::{bool_const, brif_targets, incoming_of, side_condition};

/// Folds the qualifying `break`s of every divergent loop of `func` (described by `info`)
/// into their latch's exit branch. Returns how many were folded; the caller recomputes
/// the analyses when any was (the CFG changed).
pub fn fold_breaks_into_latches(func: &mut Function, info: &ShapeInfo) -> usize {
    let loops = info.loops();
    let mut plans: Vec<(Block, Block, Block, Vec<Block>)> = Vec::new();
    for l in loops.loops() {
        if !info.is_divergent_loop(l) {
            continue;
        }
        let [latch] = loops.latches(l) else {
            continue;
        };
        let latch = *latch;
        let h = loops.header(l);
        let Some(x) = other_target(func, latch, h) else {
            continue;
        };
        if loops.contains(l, x) || !info.is_divergent_branch(latch) || !runs_harmlessly(func, latch)
        {
            continue;
        }
        let breaks: Vec<Block> = loops
            .blocks(l)
            .iter()
            .copied()
            .filter(|&e| {
                e != latch
                    && loops.innermost_loop(e) == Some(l)
                    && info.is_divergent_branch(e)
                    && other_target(func, e, latch) == Some(x)
                    && carries_latch_values(func, e, latch, x)
            })
            .collect();
        if !breaks.is_empty() {
            plans.push((h, latch, x, breaks));
        }
    }
    let mut folded = 0;
    for (h, latch, x, breaks) in plans {
        fold(func, h, latch, x, &breaks);
        folded += breaks.len();
    }
    folded
}

/// The other target of `b`'s `brif` when `stay` is one of its two distinct targets.
fn other_target(func: &Function, b: Block, stay: Block) -> Option<Block> {
    match brif_targets(func, b)? {
        (t, e) if t == stay && e != stay => Some(e),
        (t, e) if e == stay && t != stay => Some(t),
        _ => None,
    }
}

/// Does `b` hold only φs, its terminator and instructions that may run for a lane that
/// is not active ([`InstData::is_speculatable`]: the lanes that broke out run them)?
fn runs_harmlessly(func: &Function, b: Block) -> bool {
    let term = func.terminator(b);
    func.layout.block_insts(b).iter().all(|&i| {
        let data = func.dfg.inst(i);
        Some(i) == term || data.is_phi() || data.is_speculatable()
    })
}

/// Does every φ of `x` read from `latch` what it reads from `e`, for a lane that comes to
/// `latch` from `e`?
fn carries_latch_values(func: &Function, e: Block, latch: Block, x: Block) -> bool {
    phis(func, x).into_iter().all(|phi| {
        let (Some(from_e), Some(from_latch)) =
            (incoming_of(func, phi, e), incoming_of(func, phi, latch))
        else {
            return false;
        };
        match func.dfg.def_inst(from_latch) {
            Some(def) if func.layout.inst_block(def) == Some(latch) => {
                func.dfg.inst(def).is_phi() && incoming_of(func, def, e) == Some(from_e)
            }
            _ => from_latch == from_e,
        }
    })
}

fn fold(func: &mut Function, h: Block, latch: Block, x: Block, breaks: &[Block]) {
    let f = bool_const(func, false);
    // Each break's "leaves" condition, computed where its branch was; the branch jumps on.
    let mut leaves: HashMap<Block, Value> = HashMap::new();
    for &e in breaks {
        let Some(term) = func.terminator(e) else {
            continue;
        };
        let InstData::Brif {
            cond, then_dest, ..
        } = *func.dfg.inst(term)
        else {
            continue;
        };
        let mut cur = FuncCursor::new(func);
        cur.goto_inst(term);
        let leave = side_condition(&mut cur, cond, then_dest == x);
        *cur.func.dfg.inst_mut(term) = InstData::Jump { dest: latch };
        leaves.insert(e, leave);
        for phi in phis(cur.func, x) {
            if let InstData::Phi { incoming } = cur.func.dfg.inst_mut(phi) {
                incoming.retain(|&(p, _)| p != e);
            }
        }
    }
    let preds = lanes_ir::cursor::preds(func, latch);
    let incoming: Vec<(Block, Value)> = preds
        .iter()
        .map(|p| (*p, leaves.get(p).copied().unwrap_or(f)))
        .collect();
    let mut cur = FuncCursor::new(func);
    let brk = cur.goto_first_non_phi(latch).insert_phi(Type::I1, incoming);
    let Some(term) = cur.func.terminator(latch) else {
        return;
    };
    let InstData::Brif {
        cond, then_dest, ..
    } = *cur.func.dfg.inst(term)
    else {
        return;
    };
    // The condition is "stay" when the branch's first target is the header.
    let on_break = if then_dest == h {
        f
    } else {
        bool_const(cur.func, true)
    };
    cur.goto_inst(term);
    let new_cond = cur.insert_value(
        InstData::Select {
            args: [brk, on_break, cond],
        },
        Type::I1,
    );
    if let InstData::Brif { cond, .. } = cur.func.dfg.inst_mut(term) {
        *cond = new_cond;
    }
}
