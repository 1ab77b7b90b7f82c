//! The property the reconverging transform establishes (Definition 1 of the
//! reconverging-CFG paper): every divergent branch has exactly two successors, and one of
//! them — the *primary* successor — post-dominates it, so the threads that leave the wave
//! along the other edge can rejoin it there. Post-dominance is taken with one virtual
//! exit after every block without successors.

use lanes_analysis::{ControlFlowGraph, PostDominatorTree};
use lanes_ir::{Block, Function};

use super::open_tree::succs_of;

/// A divergent branch without a primary successor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub block: Block,
    pub successors: Vec<Block>,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let succs: Vec<String> = self.successors.iter().map(|b| b.to_string()).collect();
        write!(
            f,
            "the divergent branch of {} goes to {}, none of which post-dominates it",
            self.block,
            succs.join(", ")
        )
    }
}

/// The divergent branches of `func` (`divergent(b)`: the branch ending `b` is divergent)
/// that have no primary successor; empty if `func` is reconverging.
pub fn violations(func: &Function, divergent: &dyn Fn(Block) -> bool) -> Vec<Violation> {
    let cfg = ControlFlowGraph::with_function(func);
    let pdt = PostDominatorTree::with_function(func, &cfg);
    let mut out = Vec::new();
    for b in func.layout.blocks() {
        let succs = succs_of(func, b);
        if succs.len() < 2 || !divergent(b) || !pdt.contains(b) {
            continue;
        }
        let primary = succs.len() == 2
            && succs
                .iter()
                .any(|&s| pdt.contains(s) && pdt.post_dominates(s, b));
        if !primary {
            out.push(Violation {
                block: b,
                successors: succs,
            });
        }
    }
    out
}
