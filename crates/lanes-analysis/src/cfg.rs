//! The control-flow graph of a function: successors, predecessors, reachability and
//! reverse postorder.
//!
//! PLDI'18 §2.1 defines a CFG as `G = (V, E, entry)` with edges `(b, i, s)`: `s` is the
//! `i`-th successor of the terminator of `b`, and writes `b → s` for `∃i. (b, i, s) ∈ E`.
//! This analysis keeps both views: [`ControlFlowGraph::branch_targets`] is the indexed list
//! (a `brif` or `switch` with equal targets keeps its duplicate edges apart), while
//! [`ControlFlowGraph::succs`], [`ControlFlowGraph::preds`] and
//! [`ControlFlowGraph::edges`] are the deduplicated relation `b → s` that the dominance,
//! control-dependence and loop analyses are defined on.
//!
//! Only blocks in the layout are vertices; a branch to a block outside the layout (which
//! the verifier rejects) contributes no edge. A block without a terminator has no
//! successors, like `ret` and `unreachable`: such blocks are the *exits* whose complete
//! paths end there (PLDI'18 §2.1), the blocks the post-dominator tree hangs below its
//! virtual exit.
//!
//! The reverse postorder is that of a depth-first search from the entry that visits the
//! successors of a block in *reverse* branch order, so that of two independent successors
//! the first in branch order comes first in RPO (a diamond `b0 → b1, b2 → b3` gives
//! `b0 b1 b2 b3`). It lists exactly the blocks reachable from the entry; every block comes
//! after its dominators. Following Cranelift's `flowgraph.rs`, the analysis is a plain data
//! structure with `compute`, `clear` and `is_valid`; all traversals use explicit stacks.

use core::fmt;

use cranelift_entity::SecondaryMap;
use lanes_ir::graph::{depth_first, Adjacency};
use lanes_ir::{Block, Function};

/// Marks a block without an RPO number (not reachable from the entry).
const NO_NUMBER: u32 = u32::MAX;

/// A CFG edge `from → to` of the deduplicated relation (PLDI'18 §2.1 `b → s`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CfgEdge {
    pub from: Block,
    pub to: Block,
}

impl CfgEdge {
    pub fn new(from: Block, to: Block) -> Self {
        CfgEdge { from, to }
    }
}

impl fmt::Display for CfgEdge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}->{}", self.from, self.to)
    }
}

/// Predecessors, successors, reachability and block orders of one function.
#[derive(Clone, Debug, Default)]
pub struct ControlFlowGraph {
    entry: Option<Block>,
    /// Blocks in layout order.
    blocks: Vec<Block>,
    in_layout: SecondaryMap<Block, bool>,
    /// Branch targets in branch order, duplicates kept, layout blocks only.
    targets: SecondaryMap<Block, Vec<Block>>,
    succs: SecondaryMap<Block, Vec<Block>>,
    preds: SecondaryMap<Block, Vec<Block>>,
    exits: Vec<Block>,
    postorder: Vec<Block>,
    rpo: Vec<Block>,
    rpo_number: SecondaryMap<Block, u32>,
    num_edges: usize,
    num_block_slots: usize,
    valid: bool,
}

impl ControlFlowGraph {
    /// An empty, invalid analysis.
    pub fn new() -> Self {
        Self::default()
    }

    /// Computes the CFG of `func`.
    pub fn with_function(func: &Function) -> Self {
        let mut cfg = Self::new();
        cfg.compute(func);
        cfg
    }

    /// Recomputes everything for `func`.
    pub fn compute(&mut self, func: &Function) {
        self.clear();
        self.num_block_slots = func.dfg.num_blocks();
        self.rpo_number = SecondaryMap::with_default(NO_NUMBER);
        self.entry = func.entry_block();
        self.blocks.extend(func.layout.blocks());
        for &block in &self.blocks {
            self.in_layout[block] = true;
        }
        for &block in &self.blocks {
            let targets: Vec<Block> = func
                .successors(block)
                .into_iter()
                .filter(|&t| func.dfg.is_valid_block(t) && func.layout.is_block_inserted(t))
                .collect();
            let mut succs: Vec<Block> = Vec::with_capacity(targets.len());
            for &t in &targets {
                if !succs.contains(&t) {
                    succs.push(t);
                }
            }
            for &s in &succs {
                self.preds[s].push(block);
            }
            if succs.is_empty() {
                self.exits.push(block);
            }
            self.num_edges += succs.len();
            self.targets[block] = targets;
            self.succs[block] = succs;
        }
        self.compute_orders();
        self.valid = true;
    }

    /// The depth-first search of the shared engine ([`lanes_ir::graph::depth_first`]) over
    /// the layout blocks: successors are taken from the back so that the RPO lists the
    /// first successor first.
    fn compute_orders(&mut self) {
        let Some(entry) = self.entry else { return };
        let mut node: SecondaryMap<Block, u32> = SecondaryMap::with_default(u32::MAX);
        for (i, &b) in self.blocks.iter().enumerate() {
            node[b] = i as u32;
        }
        let mut succs = Adjacency::new();
        for &b in &self.blocks {
            succs.push_node(self.succs[b].iter().map(|&s| node[s]));
        }
        let dfs = depth_first(node[entry], &succs);
        self.postorder
            .extend(dfs.postorder.iter().map(|&k| self.blocks[k as usize]));
        self.rpo.extend(self.postorder.iter().rev().copied());
        for (i, &block) in self.rpo.iter().enumerate() {
            self.rpo_number[block] = i as u32;
        }
    }

    /// Forgets everything; the analysis becomes invalid.
    pub fn clear(&mut self) {
        self.entry = None;
        self.blocks.clear();
        self.in_layout.clear();
        self.targets.clear();
        self.succs.clear();
        self.preds.clear();
        self.exits.clear();
        self.postorder.clear();
        self.rpo.clear();
        self.rpo_number.clear();
        self.num_edges = 0;
        self.num_block_slots = 0;
        self.valid = false;
    }

    /// Has [`compute`](Self::compute) run since the last [`clear`](Self::clear)?
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// The entry block, if the function has blocks.
    pub fn entry(&self) -> Option<Block> {
        self.entry
    }

    /// All blocks of the layout, in layout order.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// Number of blocks in the layout.
    pub fn num_blocks(&self) -> usize {
        self.blocks.len()
    }

    /// One more than the largest block index of the function (`dfg.num_blocks()`), the size
    /// of dense per-block tables.
    pub fn num_block_slots(&self) -> usize {
        self.num_block_slots
    }

    /// Is `block` a vertex of the graph (in the layout)?
    pub fn contains(&self, block: Block) -> bool {
        self.in_layout[block]
    }

    /// The branch targets of `block` in branch order, duplicates kept: the `i`-th entry is
    /// the `i`-th successor of PLDI'18's edge triples `(block, i, s)`.
    pub fn branch_targets(&self, block: Block) -> &[Block] {
        &self.targets[block]
    }

    /// Distinct successors in branch order of first occurrence.
    pub fn succs(&self, block: Block) -> &[Block] {
        &self.succs[block]
    }

    /// Distinct predecessors in layout order.
    pub fn preds(&self, block: Block) -> &[Block] {
        &self.preds[block]
    }

    /// Is there an edge `from → to`?
    pub fn has_edge(&self, from: Block, to: Block) -> bool {
        self.succs[from].contains(&to)
    }

    /// All distinct edges: sources in layout order, targets in branch order.
    pub fn edges(&self) -> impl Iterator<Item = CfgEdge> + '_ {
        self.blocks
            .iter()
            .flat_map(move |&from| self.succs[from].iter().map(move |&to| CfgEdge { from, to }))
    }

    /// Number of distinct edges.
    pub fn num_edges(&self) -> usize {
        self.num_edges
    }

    /// Blocks without successors (`ret`, `unreachable`, or no terminator), in layout order.
    pub fn exit_blocks(&self) -> &[Block] {
        &self.exits
    }

    /// Does `block` end a complete path (no successors)?
    pub fn is_exit(&self, block: Block) -> bool {
        self.in_layout[block] && self.succs[block].is_empty()
    }

    /// Blocks reachable from the entry in reverse postorder.
    pub fn rpo(&self) -> &[Block] {
        &self.rpo
    }

    /// Blocks reachable from the entry in postorder.
    pub fn postorder(&self) -> &[Block] {
        &self.postorder
    }

    /// The position of `block` in [`rpo`](Self::rpo), or `None` if it is unreachable.
    pub fn rpo_number(&self, block: Block) -> Option<u32> {
        Some(self.rpo_number[block]).filter(|&n| n != NO_NUMBER)
    }

    /// Is `block` reachable from the entry?
    pub fn is_reachable(&self, block: Block) -> bool {
        self.rpo_number[block] != NO_NUMBER
    }

    /// Layout blocks not reachable from the entry, in layout order.
    pub fn unreachable_blocks(&self) -> impl Iterator<Item = Block> + '_ {
        self.blocks
            .iter()
            .copied()
            .filter(move |&b| !self.is_reachable(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanes_ir::{FuncBuilder, Type};

    /// `block0: brif → block1, block2; block1 → block3; block2 → block3 (twice, via
    /// brif with equal targets); block3: ret; block4: br block3` (unreachable).
    fn diamond() -> Function {
        let mut func = Function::new("d", &[Type::I1], None);
        let c = func.params[0].value;
        let mut b = FuncBuilder::new(&mut func);
        let blocks: Vec<Block> = (0..5).map(|_| b.create_block()).collect();
        b.switch_to_block(blocks[0]);
        b.brif(c, blocks[1], blocks[2]);
        b.switch_to_block(blocks[1]);
        b.jump(blocks[3]);
        b.switch_to_block(blocks[2]);
        b.brif(c, blocks[3], blocks[3]);
        b.switch_to_block(blocks[3]);
        b.ret(None);
        b.switch_to_block(blocks[4]);
        b.jump(blocks[3]);
        func
    }

    #[test]
    fn diamond_edges_orders_and_exits() {
        let func = diamond();
        let cfg = ControlFlowGraph::with_function(&func);
        let b = |i| Block::from_u32(i);
        assert!(cfg.is_valid());
        assert_eq!(cfg.branch_targets(b(2)), &[b(3), b(3)]);
        assert_eq!(cfg.succs(b(2)), &[b(3)]);
        assert_eq!(cfg.preds(b(3)), &[b(1), b(2), b(4)]);
        assert_eq!(cfg.num_edges(), 5);
        assert_eq!(cfg.rpo(), &[b(0), b(1), b(2), b(3)]);
        assert_eq!(cfg.postorder(), &[b(3), b(2), b(1), b(0)]);
        assert_eq!(cfg.rpo_number(b(4)), None);
        assert_eq!(cfg.unreachable_blocks().collect::<Vec<_>>(), vec![b(4)]);
        assert_eq!(cfg.exit_blocks(), &[b(3)]);
        let edges: Vec<String> = cfg.edges().map(|e| e.to_string()).collect();
        assert_eq!(edges[0], "block0->block1");
        let mut cfg = cfg;
        cfg.clear();
        assert!(!cfg.is_valid() && cfg.rpo().is_empty() && !cfg.contains(b(0)));
    }

    #[test]
    fn empty_function_has_no_blocks() {
        let func = Function::new("e", &[], None);
        let cfg = ControlFlowGraph::with_function(&func);
        assert_eq!(cfg.entry(), None);
        assert!(cfg.rpo().is_empty());
        assert_eq!(cfg.num_blocks(), 0);
    }
}
