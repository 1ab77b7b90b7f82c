//! The edges by which a parallel loop is left from its body (`break`, `return`), which
//! [`super::early_exit`] turns into exit codes of the vector step.

use cranelift_entity::EntitySet;
use lanes_analysis::{ControlFlowGraph, Loop, LoopForest};
use lanes_ir::{Block, Value};

/// An edge leaving the loop from the body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExitEdge {
    pub from: Block,
    pub to: Block,
    /// The `LiveOut::Last` values available when the edge is taken (their definitions
    /// dominate `from`): the body stores them to their slots before it returns.
    pub live: Vec<Value>,
}

/// Every edge from a block of loop `l` to a block outside it that is not a trap, in
/// layout order of the loop's blocks and then successor order, without repeats.
pub(super) fn exit_edges(
    cfg: &ControlFlowGraph,
    loops: &LoopForest,
    l: Loop,
    in_loop: &EntitySet<Block>,
    traps: &[Block],
) -> Vec<(Block, Block)> {
    let mut out = Vec::new();
    for &b in loops.exiting_blocks(l) {
        for &s in cfg.succs(b) {
            if !in_loop.contains(s) && !traps.contains(&s) && !out.contains(&(b, s)) {
                out.push((b, s));
            }
        }
    }
    out
}
