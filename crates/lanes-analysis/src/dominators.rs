//! The dominator tree.
//!
//! PLDI'18 §2.1: block `a` *dominates* `b`, `a ≥D b`, iff every path from the entry to `b`
//! contains `a`. Dominance is reflexive; the immediate dominator `idom(b)` of a reachable
//! `b ≠ entry` is its unique closest strict dominator, and the idom relation is a tree
//! rooted at the entry. Partial linearization needs it for its dominance-compact block
//! index (§3.1), the loop forest for back edges, and the verifier for SSA.
//!
//! Blocks unreachable from the entry have no path from the entry, so the definition makes
//! them dominated by everything, vacuously. That is useless to clients and not what any
//! transformation wants to rely on, so this tree leaves them out: they have no immediate
//! dominator and no depth, they dominate nothing and nothing dominates them, not even
//! themselves ([`DominatorTree::is_reachable`] tells them apart).
//!
//! The tree is computed by the shared engine of `lanes_ir::graph` (Semi-NCA) over the
//! successors and predecessors of the [`ControlFlowGraph`], which it depends on explicitly,
//! as Cranelift's `DominatorTree::compute(func, cfg)` does. Queries are O(1) interval tests
//! on a depth-first numbering of the tree.

use lanes_ir::{Block, Function};

use crate::cfg::ControlFlowGraph;
use lanes_ir::graph::{Adjacency, DomTreeCore, NONE};

/// Immediate dominators, tree structure and O(1) dominance queries.
#[derive(Clone, Debug, Default)]
pub struct DominatorTree {
    core: DomTreeCore,
    entry: Option<Block>,
    valid: bool,
}

fn block(node: u32) -> Block {
    Block::from_u32(node)
}

impl DominatorTree {
    /// An empty, invalid analysis.
    pub fn new() -> Self {
        Self::default()
    }

    /// Computes the dominator tree of `func` from its valid `cfg`.
    pub fn with_function(func: &Function, cfg: &ControlFlowGraph) -> Self {
        let mut tree = Self::new();
        tree.compute(func, cfg);
        tree
    }

    /// Recomputes the tree. `cfg` must be valid and computed for `func`.
    pub fn compute(&mut self, func: &Function, cfg: &ControlFlowGraph) {
        debug_assert!(cfg.is_valid(), "the dominator tree needs a valid CFG");
        self.clear();
        let n = cfg.num_block_slots().max(func.dfg.num_blocks());
        let Some(entry) = cfg.entry() else {
            self.valid = true;
            return;
        };
        let mut succs = Adjacency::new();
        let mut preds = Adjacency::new();
        for i in 0..n as u32 {
            let b = block(i);
            succs.push_node(cfg.succs(b).iter().map(|s| s.as_u32()));
            preds.push_node(cfg.preds(b).iter().map(|p| p.as_u32()));
        }
        self.core = DomTreeCore::compute(entry.as_u32(), &succs, &preds);
        self.entry = Some(entry);
        self.valid = true;
    }

    /// Forgets everything; the analysis becomes invalid.
    pub fn clear(&mut self) {
        self.core = DomTreeCore::default();
        self.entry = None;
        self.valid = false;
    }

    /// Has [`compute`](Self::compute) run since the last [`clear`](Self::clear)?
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// The root of the tree.
    pub fn entry(&self) -> Option<Block> {
        self.entry
    }

    /// Is `b` reachable from the entry, i.e. in the tree?
    pub fn is_reachable(&self, b: Block) -> bool {
        self.core.contains(b.as_u32())
    }

    /// The immediate dominator of `b`; `None` for the entry and for unreachable blocks.
    pub fn idom(&self, b: Block) -> Option<Block> {
        let d = self.core.idom(b.as_u32());
        (d != NONE).then(|| block(d))
    }

    /// Does `a` dominate `b` (`a ≥D b`, reflexive)? False if either is unreachable.
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        self.core.dominates(a.as_u32(), b.as_u32())
    }

    /// Does `a` strictly dominate `b` (`a ≥D b` and `a ≠ b`)?
    pub fn strictly_dominates(&self, a: Block, b: Block) -> bool {
        a != b && self.dominates(a, b)
    }

    /// Depth in the tree (the entry has depth 0), or `None` for unreachable blocks.
    pub fn depth(&self, b: Block) -> Option<u32> {
        self.is_reachable(b).then(|| self.core.depth(b.as_u32()))
    }

    /// The blocks immediately dominated by `b`, in reverse postorder.
    pub fn children(&self, b: Block) -> impl Iterator<Item = Block> + '_ {
        let kids: &[u32] = if self.is_reachable(b) {
            self.core.children(b.as_u32())
        } else {
            &[]
        };
        kids.iter().map(|&c| block(c))
    }

    /// Every tree edge `(idom, block)`, blocks in reverse postorder.
    pub fn idom_edges(&self) -> impl Iterator<Item = (Block, Block)> + '_ {
        self.core
            .rpo()
            .iter()
            .filter_map(move |&v| self.idom(block(v)).map(|d| (d, block(v))))
    }

    /// Reachable blocks in a preorder of the tree (every block after its dominators;
    /// siblings in reverse postorder).
    pub fn preorder(&self) -> Vec<Block> {
        let mut out = Vec::new();
        let Some(entry) = self.entry else { return out };
        let mut stack = vec![entry];
        while let Some(b) = stack.pop() {
            out.push(b);
            stack.extend(
                self.core
                    .children(b.as_u32())
                    .iter()
                    .rev()
                    .map(|&c| block(c)),
            );
        }
        out
    }

    /// The position of reachable `b` in [`preorder`](Self::preorder).
    pub fn preorder_number(&self, b: Block) -> Option<u32> {
        self.is_reachable(b)
            .then(|| self.core.preorder_number(b.as_u32()))
    }

    /// The strict dominators of `b` from `idom(b)` up to the entry.
    pub fn dominators(&self, b: Block) -> impl Iterator<Item = Block> + '_ {
        core::iter::successors(self.idom(b), move |&d| self.idom(d))
    }

    /// The nearest block dominating both `a` and `b`, if both are reachable.
    pub fn common_dominator(&self, a: Block, b: Block) -> Option<Block> {
        (self.is_reachable(a) && self.is_reachable(b))
            .then(|| block(self.core.common_dominator(a.as_u32(), b.as_u32())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanes_ir::{FuncBuilder, Type};

    /// block0 → block1; block1 → block2, block3; block2 → block1 (loop);
    /// block3: ret; block4 → block2 (unreachable).
    fn looped() -> Function {
        let mut func = Function::new("l", &[Type::I1], None);
        let c = func.params[0].value;
        let mut b = FuncBuilder::new(&mut func);
        let bl: Vec<Block> = (0..5).map(|_| b.create_block()).collect();
        b.switch_to_block(bl[0]);
        b.jump(bl[1]);
        b.switch_to_block(bl[1]);
        b.brif(c, bl[2], bl[3]);
        b.switch_to_block(bl[2]);
        b.jump(bl[1]);
        b.switch_to_block(bl[3]);
        b.ret(None);
        b.switch_to_block(bl[4]);
        b.jump(bl[2]);
        func
    }

    #[test]
    fn loop_with_unreachable_block() {
        let func = looped();
        let cfg = ControlFlowGraph::with_function(&func);
        let dt = DominatorTree::with_function(&func, &cfg);
        let b = Block::from_u32;
        assert_eq!(dt.idom(b(0)), None);
        assert_eq!(dt.idom(b(1)), Some(b(0)));
        assert_eq!(dt.idom(b(2)), Some(b(1)));
        assert_eq!(dt.idom(b(3)), Some(b(1)));
        assert_eq!(dt.idom(b(4)), None);
        assert!(dt.dominates(b(1), b(2)) && dt.dominates(b(2), b(2)));
        assert!(!dt.dominates(b(2), b(3)) && !dt.strictly_dominates(b(1), b(1)));
        assert!(!dt.dominates(b(4), b(4)) && !dt.dominates(b(0), b(4)));
        assert_eq!(dt.depth(b(3)), Some(2));
        assert_eq!(dt.depth(b(4)), None);
        assert_eq!(dt.children(b(1)).collect::<Vec<_>>(), vec![b(2), b(3)]);
        assert_eq!(dt.preorder(), vec![b(0), b(1), b(2), b(3)]);
        assert_eq!(dt.dominators(b(2)).collect::<Vec<_>>(), vec![b(1), b(0)]);
        assert_eq!(dt.common_dominator(b(2), b(3)), Some(b(1)));
        assert_eq!(dt.idom_edges().count(), 3);
    }
}
