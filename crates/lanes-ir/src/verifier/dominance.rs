//! Block dominance for the verifier's SSA check, from the shared engine
//! ([`crate::graph`]): "does `a` dominate `b`" in constant time from the pre- and postorder
//! numbers of the dominator tree (a walk up the tree per use would make the check
//! quadratic on long chains of blocks).

use crate::entities::Block;
use crate::function::Function;
use crate::graph::{BlockGraph, DomTreeCore};

pub(super) struct BlockDominance {
    graph: BlockGraph,
    tree: DomTreeCore,
}

impl BlockDominance {
    pub(super) fn compute(func: &Function) -> Self {
        let graph = BlockGraph::new(func);
        let tree = graph.dominator_tree();
        BlockDominance { graph, tree }
    }

    /// Is `b` in the layout and reachable from the entry?
    pub(super) fn is_reachable(&self, b: Block) -> bool {
        self.graph.node(b).is_some_and(|n| self.tree.contains(n))
    }

    /// Does `a` dominate `b` (reflexive)? False unless both are reachable.
    pub(super) fn dominates(&self, a: Block, b: Block) -> bool {
        match (self.graph.node(a), self.graph.node(b)) {
            (Some(a), Some(b)) => self.tree.dominates(a, b),
            _ => false,
        }
    }
}
