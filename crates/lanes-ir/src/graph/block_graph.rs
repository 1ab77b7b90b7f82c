//! A function's control-flow graph as a dense graph view for the engine.
//!
//! Node `i` is the `i`-th block of the layout; the edges are the deduplicated relation
//! `b → s` of PLDI'18 §2.1 (a `brif` with equal targets is one edge), restricted to blocks
//! in the layout, successors in branch order. Blocks without a terminator have no
//! successors. `lanes-analysis`'s `ControlFlowGraph` keeps the richer, entity-keyed view;
//! this one is what the verifier and the LLVM bridge need to ask for orders and dominance
//! without depending on the analyses.

use cranelift_entity::SecondaryMap;

use super::{depth_first, Adjacency, DomTreeCore, NONE};
use crate::entities::Block;
use crate::function::Function;

/// The blocks of a function in layout order with their successor and predecessor lists.
#[derive(Clone, Debug, Default)]
pub struct BlockGraph {
    blocks: Vec<Block>,
    node: SecondaryMap<Block, u32>,
    succs: Adjacency,
    preds: Adjacency,
}

impl BlockGraph {
    /// The graph of `func`'s layout.
    pub fn new(func: &Function) -> Self {
        let blocks: Vec<Block> = func.layout.blocks().collect();
        let mut node = SecondaryMap::with_default(NONE);
        for (i, &b) in blocks.iter().enumerate() {
            node[b] = i as u32;
        }
        let mut succs = Adjacency::new();
        let mut list: Vec<u32> = Vec::new();
        for &b in &blocks {
            list.clear();
            for t in func.successors(b) {
                let k = node.get(t).copied().unwrap_or(NONE);
                if k != NONE && !list.contains(&k) {
                    list.push(k);
                }
            }
            succs.push_node(list.iter().copied());
        }
        let preds = succs.reversed();
        BlockGraph {
            blocks,
            node,
            succs,
            preds,
        }
    }

    /// The block of node `n`.
    pub fn block(&self, n: u32) -> Block {
        self.blocks[n as usize]
    }

    /// The node of `block`, `None` if it is not in the layout.
    pub fn node(&self, block: Block) -> Option<u32> {
        self.node.get(block).copied().filter(|&k| k != NONE)
    }

    /// Successor lists, in branch order.
    pub fn succs(&self) -> &Adjacency {
        &self.succs
    }

    /// Predecessor lists, in layout order.
    pub fn preds(&self) -> &Adjacency {
        &self.preds
    }

    /// The blocks reachable from the entry (the first layout block) in reverse postorder
    /// (see [`depth_first`]).
    pub fn reverse_postorder(&self) -> Vec<Block> {
        if self.blocks.is_empty() {
            return Vec::new();
        }
        depth_first(0, &self.succs)
            .reverse_postorder()
            .into_iter()
            .map(|n| self.block(n))
            .collect()
    }

    /// The dominator tree from the entry, over nodes.
    pub fn dominator_tree(&self) -> DomTreeCore {
        if self.blocks.is_empty() {
            return DomTreeCore::default();
        }
        DomTreeCore::compute(0, &self.succs, &self.preds)
    }
}
