//! Profile counts of two-way branches, carried on a function as LLVM carries `!prof`
//! metadata: what a run of the function in waves of threads saw at each `brif`.
//!
//! The one question the vectorizer asks a profile is how often a wave reaching a
//! divergent branch finds no thread going to one of its sides. That side's mask is then
//! empty, and a test that skips the side pays for itself only if this happens often
//! enough (the reconverging-CFG paper's step-4 option, empty-mask skips). How often
//! depends on the data and on how many threads a wave has, which no static estimate
//! knows: on a kd-tree search the second child is pushed by some thread of a wave of 8
//! in 94% of the visits. The counts come from lanes' SIMT interpreter run on the
//! program's own data at the vector width (lanes-simt). Like `source_lines`, they are
//! not part of the text format. They are kept per `brif` instruction, not per block:
//! instructions keep their numbers through the passes, and a pass that splits a block
//! (moving its terminator to the new one) or retargets a branch leaves them with their
//! branch; a branch the profile does not name (a flow block's) has none.

use std::collections::BTreeMap;

use crate::write::inst_to_string;
use crate::{Function, Inst, Module};

/// What a profile saw at one `brif`: waves that ran it, waves in which no active thread
/// went to its `then` or to its `else` target, and how often a branch predictor that
/// had seen the earlier answers guessed each of these wrong (the mispredictions of a
/// test for that side's empty mask).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BranchCounts {
    pub executions: u64,
    pub none_to_then: u64,
    pub none_to_else: u64,
    pub mispredicted_then: u64,
    pub mispredicted_else: u64,
}

impl BranchCounts {
    /// The share of the waves that sent no thread to the `then` target (`then_side`) or
    /// to the `else` target; `None` if the branch never ran.
    pub fn empty_rate(&self, then_side: bool) -> Option<f64> {
        let none = if then_side {
            self.none_to_then
        } else {
            self.none_to_else
        };
        self.share(none)
    }

    /// The share of the waves in which a test for the `then` side's (`then_side`) or
    /// the `else` side's empty mask would be mispredicted; `None` if the branch never
    /// ran.
    pub fn mispredict_rate(&self, then_side: bool) -> Option<f64> {
        let wrong = if then_side {
            self.mispredicted_then
        } else {
            self.mispredicted_else
        };
        self.share(wrong)
    }

    fn share(&self, n: u64) -> Option<f64> {
        (self.executions > 0).then(|| n as f64 / self.executions as f64)
    }
}

/// The profile of one function at one wave width: counts per `brif`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BranchProfile {
    /// Threads per wave in the run that counted.
    pub width: u32,
    /// [`fingerprint`] of the function run: the counts belong to its instructions, and
    /// only a function with the same fingerprint may take them.
    pub fingerprint: u64,
    pub branches: BTreeMap<Inst, BranchCounts>,
}

impl BranchProfile {
    /// The counts of the `brif` instruction `branch`, if the profile has them.
    pub fn at(&self, branch: Inst) -> Option<&BranchCounts> {
        self.branches.get(&branch)
    }
}

/// A digest of `func`'s instructions, their numbers and their text (FNV-1a, 64 bits):
/// two imports of a function agree on it only if every instruction has the same number
/// and does the same, which is what attaching counts by instruction needs.
pub fn fingerprint(module: &Module, func: &Function) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            hash = (hash ^ u64::from(b)).wrapping_mul(PRIME);
        }
    };
    for block in func.layout.blocks() {
        eat(&(block.as_u32()).to_le_bytes());
        for &inst in func.layout.block_insts(block) {
            eat(&(inst.as_u32()).to_le_bytes());
            eat(inst_to_string(module, func, inst).as_bytes());
        }
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_rate_is_the_share_of_waves_that_sent_no_thread_to_the_side() {
        let c = BranchCounts {
            executions: 200,
            none_to_then: 50,
            none_to_else: 2,
            mispredicted_then: 10,
            mispredicted_else: 4,
        };
        assert_eq!(c.empty_rate(true), Some(0.25));
        assert_eq!(c.empty_rate(false), Some(0.01));
        assert_eq!(c.mispredict_rate(true), Some(0.05));
        assert_eq!(c.mispredict_rate(false), Some(0.02));
        assert_eq!(BranchCounts::default().empty_rate(true), None);
    }
}
