//! The per-block state of the label propagation ([`super::propagate`]), kept apart so that
//! the divergence context that owns it and the engine that runs on it need not import
//! each other. One scratch serves every run of one analysis, reset through the slots the
//! last run touched, so a run costs what it visits, not the function's size.

use core::cmp::Reverse;
use std::collections::BinaryHeap;

use lanes_ir::Block;

use super::summary::WalkSummary;

/// No label.
pub(super) const NONE: u32 = u32::MAX;

/// Per-block state of the label propagation, reused by every run of one analysis (of one
/// function: the subtree edges are cached).
#[derive(Debug, Default)]
pub struct PropagationScratch {
    /// The label of each reached block (a block number; [`NONE`]: not reached).
    pub(super) label: Vec<u32>,
    /// Is the block's label its own, from being a join?
    pub(super) joined: Vec<bool>,
    /// Pending blocks per label.
    pub(super) count: Vec<u32>,
    /// Is the block already reported as a join?
    pub(super) is_join: Vec<bool>,
    /// Slots written by the current run (reset by the next).
    pub(super) touched: Vec<u32>,
    pub(super) heap: BinaryHeap<Reverse<(u32, u32)>>,
    /// Per block `x`, the forward edges leaving its dominator subtree
    /// ([`DivergenceCtx::frontier`](super::divergence::DivergenceCtx::frontier)), computed once per function on first use.
    pub(super) frontier: Option<Vec<Vec<(Block, Block)>>>,
    /// Walk every block instead of jumping over dominator subtrees (for tests).
    pub(super) no_shortcuts: bool,
    /// Steps one walk may take before the rest of it is summarized (`None`: every walk
    /// runs to its end). See [`WalkSummary`].
    pub(super) walk_budget: Option<u64>,
    /// The summary region shared by the walks of one analysis.
    pub(super) summary: WalkSummary,
}

impl PropagationScratch {
    /// A scratch whose runs visit every block of the walk, without the dominator-subtree
    /// shortcut: the reference the shortcut is tested against.
    pub fn without_shortcuts() -> Self {
        PropagationScratch {
            no_shortcuts: true,
            ..PropagationScratch::default()
        }
    }

    /// A scratch whose walks are summarized after `budget` steps (`None`: exact walks).
    pub fn with_walk_budget(budget: Option<u64>) -> Self {
        PropagationScratch {
            walk_budget: budget,
            ..PropagationScratch::default()
        }
    }

    /// Joins made by summaries since the last call (every one is also in the join list of
    /// the walk that made it).
    pub fn take_summary_joins(&mut self) -> Vec<Block> {
        self.summary.take_joins()
    }

    /// How many walks were cut short and summarized.
    pub fn summarized_walks(&self) -> u64 {
        self.summary.walks()
    }

    /// Clears what the last run wrote and makes room for `slots` blocks.
    pub(super) fn prepare(&mut self, slots: usize) {
        for &t in &self.touched {
            let t = t as usize;
            self.label[t] = NONE;
            self.joined[t] = false;
            self.count[t] = 0;
            self.is_join[t] = false;
        }
        self.touched.clear();
        self.heap.clear();
        if self.label.len() < slots {
            self.label.resize(slots, NONE);
            self.joined.resize(slots, false);
            self.count.resize(slots, 0);
            self.is_join.resize(slots, false);
        }
    }
}
