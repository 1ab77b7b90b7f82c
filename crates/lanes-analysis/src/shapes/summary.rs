//! Bounded label-propagation walks: the sync dependence of divergence that stays apart
//! across a large part of a function, summarized soundly in linear total time.
//!
//! # Why
//!
//! Each divergent branch and each divergent loop runs one walk of the label propagation
//! ([`super::propagate`]; CC'12 Definition 1, PACT'11 §III), which ends once a single label
//! is left. Lanes that split and meet again soon (every `if`, every loop whose exits
//! reconverge) give short walks. But where two label streams stay apart and keep meeting
//! across the rest of the function — in `bench/analysis_scaling`'s monolithic functions,
//! whose forward edges land anywhere later, every source whose lanes reconverge far away
//! or never — each walk crosses most of the function, and the total work grows with the
//! function's size *times* the number of such sources (7.6 steps per instruction at 96k
//! instructions, 0.7 at 1k; at 96k, 99.8% of the walk steps belong to sources without a
//! post-dominator). An exact per-source answer costs that much by nature: the join lists of
//! those walks themselves grow superlinearly.
//!
//! # What
//!
//! A walk that has taken [`DEFAULT_WALK_BUDGET`] steps (blocks visited plus edges jumped
//! along) stops, and its pending blocks join a region `Z` shared by every walk of one
//! analysis: `Z` is closed under forward edges, and every block of `Z` that merges two
//! forward edges is a join — two labels can meet nowhere else. So are the headers of the
//! loops around the walk's source (a label may come back over a latch) and, for walks that
//! renew labels at loop exits, the exit blocks of those loops. That is a superset of what
//! the rest of the walk would have found: sound, less precise. `Z` only grows and each
//! block enters it once, so summaries cost O(blocks + edges) over a whole analysis and
//! the analysis is linear: at most `budget · sources + O(blocks + edges)` steps.
//!
//! A join made by a summary lists only the source whose walk added it, so the gated-φ
//! rule trusts there only values computed once per call ([`super::ShapeInfo`]).
//!
//! # What it costs
//!
//! No kernel of the corpus (`kernels/`, all 24 checked with `lanes analyze`) and no
//! function of the chained benchmark family reaches the budget: their joins are exact. On the monolithic 96k-instruction function 947 walks are
//! summarized: 2.2% more join-divergent blocks and 0.1% more varying values than the exact
//! walks, for 1.87 instead of 7.56 steps per instruction, and 1.97 at 963k instructions
//! (`bench/analysis_scaling` prints both). `ShapeAnalysis::with_walk_budget(None)` and `lanes analyze --exact-divergence`
//! run every walk to its end.

use std::collections::HashSet;

use cranelift_entity::EntityRef;

use lanes_ir::Block;

use super::divergence::DivergenceCtx;
use crate::loops::Loop;

/// Steps per walk before the rest is summarized (see the module documentation).
pub const DEFAULT_WALK_BUDGET: u64 = 64;

/// The summary region `Z` of one analysis.
#[derive(Debug, Default)]
pub struct WalkSummary {
    /// Is the block in `Z`?
    in_region: Vec<bool>,
    /// Loops whose headers and exit blocks a summary has made joins.
    loops_marked: HashSet<Loop>,
    stack: Vec<Block>,
    /// Joins made by summaries since the caller last took them.
    new_joins: Vec<Block>,
    /// Walks cut short so far.
    walks: u64,
}

impl WalkSummary {
    /// Walks summarized so far.
    pub fn walks(&self) -> u64 {
        self.walks
    }

    /// Joins made by summaries since the last call.
    pub fn take_joins(&mut self) -> Vec<Block> {
        core::mem::take(&mut self.new_joins)
    }

    /// Summarizes the rest of a walk cut short with `pending` blocks, for a source inside
    /// the loops `around` (innermost first) whose walk renews labels at their exits if
    /// `relabel`. Returns the joins (blocks of `Z` added now that merge two forward
    /// edges, plus loop headers and exits as described above; blocks already in `Z` were
    /// summarized by an earlier walk with the same joins) and the work done.
    pub(super) fn extend(
        &mut self,
        ctx: &DivergenceCtx,
        pending: &[Block],
        around: &[Loop],
        relabel: bool,
    ) -> (Vec<Block>, u64) {
        let slots = ctx.cfg.num_block_slots();
        self.walks += 1;
        if self.in_region.len() < slots {
            self.in_region.resize(slots, false);
        }
        let mut joins = Vec::new();
        for &l in around {
            if self.loops_marked.insert(l) {
                joins.push(ctx.loops.header(l));
                if relabel {
                    joins.extend(ctx.loops.exit_blocks(l).iter().copied());
                }
            }
        }
        let mut work = 0u64;
        for &y in pending {
            if !self.in_region[y.index()] {
                self.in_region[y.index()] = true;
                self.stack.push(y);
            }
        }
        let mut preds: Vec<Block> = Vec::new();
        while let Some(x) = self.stack.pop() {
            preds.clear();
            preds.extend(
                ctx.cfg
                    .preds(x)
                    .iter()
                    .copied()
                    .filter(|&q| ctx.cfg.is_reachable(q) && !ctx.loops.is_back_edge(q, x)),
            );
            preds.sort_unstable();
            preds.dedup();
            work += 1 + preds.len() as u64;
            if preds.len() >= 2 {
                joins.push(x);
            }
            for &y in ctx.cfg.succs(x) {
                work += 1;
                if !ctx.loops.is_back_edge(x, y) && !self.in_region[y.index()] {
                    self.in_region[y.index()] = true;
                    self.stack.push(y);
                }
            }
        }
        self.new_joins.extend(joins.iter().copied());
        (joins, work)
    }
}
