//! Branch statistics in the manner of PLDI'18 Table 1.
//!
//! Table 1 counts, per kernel, the branches, how many the divergence analysis proves
//! uniform, and how many uniform branches partial linearization *lost* (folded although
//! uniform). Theorem 4.5 promises none are lost for a dominance-compact index; full
//! if-conversion loses them all. A branch is a block with at least two distinct
//! successors; a kept uniform branch is lost when all its edges were retargeted to one
//! block (Fig. 8 top).

use core::fmt;
use core::ops::AddAssign;

use lanes_ir::Block;

/// Branch counts of one linearized function (or a sum over many).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub branches: usize,
    pub uniform: usize,
    pub divergent: usize,
    /// Uniform branches whose targets all became one block.
    pub lost: usize,
    /// The blocks of the lost branches (only for one function).
    pub lost_blocks: Vec<Block>,
}

impl Stats {
    /// Uniform branches kept as branches.
    pub fn preserved(&self) -> usize {
        self.uniform - self.lost
    }
}

impl AddAssign<&Stats> for Stats {
    fn add_assign(&mut self, o: &Stats) {
        self.branches += o.branches;
        self.uniform += o.uniform;
        self.divergent += o.divergent;
        self.lost += o.lost;
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "branches {} uniform {} divergent {} preserved {} lost {}",
            self.branches,
            self.uniform,
            self.divergent,
            self.preserved(),
            self.lost
        )
    }
}
