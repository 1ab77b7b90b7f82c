//! What a SIMT run observed ([`SimtProfile`]): per branch, how often it ran, diverged and
//! sent no lane to a side; the values and uses that differed between lanes; the SIMD
//! utilization. The driver in the crate root fills it in; `lanes analyze --profile`
//! compares it with the static analysis, and the vectorizer takes its branch counts
//! ([`lanes_ir::BranchProfile`]) to decide empty-mask skips.

use std::collections::{BTreeMap, BTreeSet};

use lanes_ir::{Block, Function, Inst, InstData, Module, Value};

/// Per-branch counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BranchStats {
    /// Times the branch executed (once per group of active lanes).
    pub executions: u64,
    /// Times its active lanes went to more than one target.
    pub diverged: u64,
    /// For a `brif` with two targets: times no active lane went to its `then` target,
    /// and to its `else` target (a vector wave would find that side's mask empty).
    pub none_to_then: u64,
    pub none_to_else: u64,
    /// Times a branch predictor that had seen the earlier answers (module `predictor`)
    /// guessed wrong whether no lane would go to the `then` target, and to the `else`
    /// target: the mispredictions of a test that skipped that side.
    pub mispredicted_then: u64,
    pub mispredicted_else: u64,
}

/// What a SIMT run observed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SimtProfile {
    pub width: usize,
    /// Branch blocks of the entry function and their counters.
    pub branches: BTreeMap<Block, BranchStats>,
    /// Values whose definition gave different results in different active lanes.
    pub divergent_values: BTreeSet<Value>,
    /// `(instruction, operand)` pairs where the active lanes read different values.
    pub divergent_uses: BTreeSet<(Inst, Value)>,
    /// Blocks executed (once per group of active lanes) and the sum of their active lanes.
    pub block_executions: u64,
    pub active_lane_sum: u64,
    /// Instructions executed (once per group of active lanes).
    pub steps: u64,
    /// Values whose claimed shape ([`crate::Simt::claims`]) some execution refuted.
    pub refuted_claims: BTreeSet<Value>,
}

impl SimtProfile {
    /// Average active lanes per executed block divided by W (1.0 without divergence).
    pub fn utilization(&self) -> f64 {
        if self.block_executions == 0 || self.width == 0 {
            return 1.0;
        }
        self.active_lane_sum as f64 / (self.block_executions as f64 * self.width as f64)
    }

    /// The counts of the two-way branches of `func`, the entry function run (a function
    /// of `module`), as the vectorizer reads them ([`lanes_ir::BranchProfile`]).
    pub fn branch_profile(&self, module: &Module, func: &Function) -> lanes_ir::BranchProfile {
        lanes_ir::BranchProfile {
            width: self.width as u32,
            fingerprint: lanes_ir::branch_profile::fingerprint(module, func),
            branches: self
                .branches
                .iter()
                .filter_map(|(&b, s)| {
                    let last = func.layout.last_inst(b)?;
                    let counts = lanes_ir::BranchCounts {
                        executions: s.executions,
                        none_to_then: s.none_to_then,
                        none_to_else: s.none_to_else,
                        mispredicted_then: s.mispredicted_then,
                        mispredicted_else: s.mispredicted_else,
                    };
                    matches!(func.dfg.inst(last), InstData::Brif { .. }).then_some((last, counts))
                })
                .collect(),
        }
    }

    /// Adds the branch counts of `other`, a run of the same function at the same width.
    pub fn add_branch_counts(&mut self, other: &SimtProfile) {
        for (&b, s) in &other.branches {
            let mine = self.branches.entry(b).or_default();
            mine.executions += s.executions;
            mine.diverged += s.diverged;
            mine.none_to_then += s.none_to_then;
            mine.none_to_else += s.none_to_else;
            mine.mispredicted_then += s.mispredicted_then;
            mine.mispredicted_else += s.mispredicted_else;
        }
    }

    /// Branches that diverged at least once.
    pub fn diverged_branches(&self) -> impl Iterator<Item = Block> + '_ {
        self.branches
            .iter()
            .filter(|(_, s)| s.diverged > 0)
            .map(|(&b, _)| b)
    }
}
