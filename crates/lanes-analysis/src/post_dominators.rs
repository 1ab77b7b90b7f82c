//! The post-dominator tree, rooted at a virtual exit.
//!
//! PLDI'18 §2.1: `a` *post-dominates* `b`, `a ≥PD b`, iff every complete path from `b`
//! (a path ending in a block without successors) contains `a`; PACT'11 §III: "every path
//! from `l` to the exit of the program goes across `l_p`", and the *immediate*
//! post-dominator is where divergent SIMD threads reconverge. Post-dominance is dominance
//! in the reversed CFG, so this tree reuses the engine of `lanes_ir::graph` on the
//! reversed graph, rooted at a *virtual exit* `X` that is not a block.
//!
//! # The virtual exit and infinite loops
//!
//! `X` is the successor of every exit block (`ret`, `unreachable`, no terminator). PLDI'18
//! assumes every block has a complete path; real functions may contain infinite loops,
//! whose blocks have none, and then the definition says every block post-dominates them
//! (vacuously), which is not a tree. The rule used here, after LLVM's treatment of
//! reverse-unreachable code, adds the fewest edges that give every block a path to `X`:
//!
//! > Let `R` be the blocks that reach an exit block. The blocks outside `R` induce a
//! > subgraph closed under successors; each of its *terminal* strongly connected
//! > components (no edge leaves it) is a cycle without exits. For each one, its
//! > *representative* — the block of the component that comes first in the CFG's reverse
//! > postorder, or, if none is reachable from the entry, first in layout order — gets an
//! > extra edge to `X`.
//!
//! Every block outside `R` reaches some terminal component, hence `X`; blocks in `R` are
//! untouched, so for functions without infinite loops the tree is exactly the definition's.
//! For a reducible infinite loop the representative is its header: the header then
//! post-dominates the loop body, so a divergent branch inside reconverges at the header.
//! [`PostDominatorTree::virtual_exit_preds`] lists every block with an edge to `X`, and
//! post-dominance is the definition applied to the CFG with those extra edges.
//!
//! Every block of the layout is in the tree, including blocks unreachable from the entry
//! (post-dominance is about paths *from* a block).

use cranelift_entity::{EntityRef, SecondaryMap};
use lanes_ir::{Block, Function};

use crate::cfg::ControlFlowGraph;
use lanes_ir::graph::strongly_connected_components;
use lanes_ir::graph::{Adjacency, DomTreeCore, NONE};

/// Immediate post-dominators over the CFG augmented with a virtual exit.
#[derive(Clone, Debug, Default)]
pub struct PostDominatorTree {
    core: DomTreeCore,
    /// Node index of the virtual exit (one past the last block slot).
    exit: u32,
    /// Representatives of infinite loops connected to the virtual exit, in layout order.
    loop_roots: Vec<Block>,
    /// All blocks with an edge to the virtual exit, in layout order.
    exit_preds: Vec<Block>,
    valid: bool,
}

/// The ordering key of the representative rule: reachable blocks by RPO number, then
/// unreachable blocks by layout position.
fn representative_key(
    cfg: &ControlFlowGraph,
    layout_pos: &SecondaryMap<Block, u32>,
    b: Block,
) -> (u32, u32) {
    match cfg.rpo_number(b) {
        Some(n) => (0, n),
        None => (1, layout_pos[b]),
    }
}

impl PostDominatorTree {
    /// An empty, invalid analysis.
    pub fn new() -> Self {
        Self::default()
    }

    /// Computes the post-dominator tree of `func` from its valid `cfg`.
    pub fn with_function(func: &Function, cfg: &ControlFlowGraph) -> Self {
        let mut tree = Self::new();
        tree.compute(func, cfg);
        tree
    }

    /// Recomputes the tree. `cfg` must be valid and computed for `func`.
    pub fn compute(&mut self, func: &Function, cfg: &ControlFlowGraph) {
        debug_assert!(cfg.is_valid(), "the post-dominator tree needs a valid CFG");
        self.clear();
        let n = cfg.num_block_slots().max(func.dfg.num_blocks());
        self.exit = n as u32;
        self.loop_roots = infinite_loop_representatives(cfg, n);
        let mut to_exit: SecondaryMap<Block, bool> = SecondaryMap::new();
        for &b in cfg.exit_blocks().iter().chain(&self.loop_roots) {
            to_exit[b] = true;
        }
        self.exit_preds = cfg
            .blocks()
            .iter()
            .copied()
            .filter(|&b| to_exit[b])
            .collect();

        // The reversed graph: successors are CFG predecessors, plus X → exit preds.
        let mut succs = Adjacency::new();
        let mut preds = Adjacency::new();
        for i in 0..n as u32 {
            let b = Block::from_u32(i);
            succs.push_node(cfg.preds(b).iter().map(|p| p.as_u32()));
            let x = to_exit[b].then_some(self.exit);
            preds.push_node(cfg.succs(b).iter().map(|s| s.as_u32()).chain(x));
        }
        succs.push_node(self.exit_preds.iter().map(|b| b.as_u32()));
        preds.push_node(None);
        self.core = DomTreeCore::compute(self.exit, &succs, &preds);
        self.valid = true;
    }

    /// Forgets everything; the analysis becomes invalid.
    pub fn clear(&mut self) {
        self.core = DomTreeCore::default();
        self.exit = 0;
        self.loop_roots.clear();
        self.exit_preds.clear();
        self.valid = false;
    }

    /// Has [`compute`](Self::compute) run since the last [`clear`](Self::clear)?
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// Is `b` in the tree (a block of the layout)?
    pub fn contains(&self, b: Block) -> bool {
        b.as_u32() < self.exit && self.core.contains(b.as_u32())
    }

    /// The immediate post-dominator of `b`; `None` if it is the virtual exit (or `b` is
    /// not in the layout).
    pub fn ipdom(&self, b: Block) -> Option<Block> {
        if !self.contains(b) {
            return None;
        }
        let d = self.core.idom(b.as_u32());
        (d != NONE && d != self.exit).then(|| Block::from_u32(d))
    }

    /// Does `a` post-dominate `b` (`a ≥PD b`, reflexive)? False unless both are blocks of
    /// the layout.
    pub fn post_dominates(&self, a: Block, b: Block) -> bool {
        self.contains(a) && self.contains(b) && self.core.dominates(a.as_u32(), b.as_u32())
    }

    /// Does `a` strictly post-dominate `b`?
    pub fn strictly_post_dominates(&self, a: Block, b: Block) -> bool {
        a != b && self.post_dominates(a, b)
    }

    /// Depth in the tree: the virtual exit has depth 0, its children depth 1. `None` for
    /// blocks outside the layout.
    pub fn depth(&self, b: Block) -> Option<u32> {
        self.contains(b).then(|| self.core.depth(b.as_u32()))
    }

    /// The blocks whose immediate post-dominator is `b`, in reverse postorder of the
    /// reversed graph.
    pub fn children(&self, b: Block) -> impl Iterator<Item = Block> + '_ {
        let kids: &[u32] = if self.contains(b) {
            self.core.children(b.as_u32())
        } else {
            &[]
        };
        kids.iter().map(|&c| Block::from_u32(c))
    }

    /// The blocks whose immediate post-dominator is the virtual exit.
    pub fn roots(&self) -> impl Iterator<Item = Block> + '_ {
        let kids: &[u32] = if self.valid {
            self.core.children(self.exit)
        } else {
            &[]
        };
        kids.iter().map(|&c| Block::from_u32(c))
    }

    /// Every tree edge `(ipdom, block)` whose parent is a block (edges from the virtual
    /// exit are [`roots`](Self::roots)).
    pub fn ipdom_edges(&self) -> impl Iterator<Item = (Block, Block)> + '_ {
        self.core
            .rpo()
            .iter()
            .filter(move |&&v| v != self.exit)
            .filter_map(move |&v| {
                self.ipdom(Block::from_u32(v))
                    .map(|d| (d, Block::from_u32(v)))
            })
    }

    /// The strict post-dominators of `b` that are blocks, from `ipdom(b)` upwards.
    pub fn post_dominators(&self, b: Block) -> impl Iterator<Item = Block> + '_ {
        core::iter::successors(self.ipdom(b), move |&d| self.ipdom(d))
    }

    /// The nearest common post-dominator of `a` and `b`: `Some(block)`, or `None` when it
    /// is the virtual exit or a block is outside the layout.
    pub fn common_post_dominator(&self, a: Block, b: Block) -> Option<Block> {
        if !self.contains(a) || !self.contains(b) {
            return None;
        }
        let c = self.core.common_dominator(a.as_u32(), b.as_u32());
        (c != self.exit).then(|| Block::from_u32(c))
    }

    /// Representatives of infinite loops (exit-free terminal components) that were given
    /// an edge to the virtual exit, in layout order.
    pub fn infinite_loop_roots(&self) -> &[Block] {
        &self.loop_roots
    }

    /// Every block with an edge to the virtual exit: the exit blocks and the infinite-loop
    /// representatives, in layout order.
    pub fn virtual_exit_preds(&self) -> &[Block] {
        &self.exit_preds
    }

    /// The influence region of the branch in `b` (PACT'11 §III): the blocks on paths from
    /// `b` to its immediate post-dominator `l_p` that meet `l_p` only at their end, without
    /// `l_p` itself — the code a divergent branch at `b` runs before reconverging. With the
    /// virtual exit as `l_p`, every block reachable from `b`. Sorted by block index.
    pub fn influence_region(&self, cfg: &ControlFlowGraph, b: Block) -> Vec<Block> {
        if !self.contains(b) {
            return Vec::new();
        }
        let stop = self.ipdom(b);
        let mut seen: SecondaryMap<Block, bool> = SecondaryMap::new();
        let mut stack = vec![b];
        seen[b] = true;
        let mut out = Vec::new();
        while let Some(x) = stack.pop() {
            out.push(x);
            for &s in cfg.succs(x) {
                if Some(s) != stop && !seen[s] {
                    seen[s] = true;
                    stack.push(s);
                }
            }
        }
        out.sort();
        out
    }
}

/// The representatives of the exit-free terminal SCCs of `cfg` (see the module doc), in
/// layout order. `n` is the number of block slots.
fn infinite_loop_representatives(cfg: &ControlFlowGraph, n: usize) -> Vec<Block> {
    // R: blocks reaching an exit, by a backward search from the exits.
    let mut reaches_exit = vec![false; n];
    let mut stack: Vec<Block> = cfg.exit_blocks().to_vec();
    for &b in &stack {
        reaches_exit[b.index()] = true;
    }
    while let Some(b) = stack.pop() {
        for &p in cfg.preds(b) {
            if !reaches_exit[p.index()] {
                reaches_exit[p.index()] = true;
                stack.push(p);
            }
        }
    }
    if cfg.blocks().iter().all(|b| reaches_exit[b.index()]) {
        return Vec::new();
    }
    let mut layout_pos: SecondaryMap<Block, u32> = SecondaryMap::new();
    for (i, &b) in cfg.blocks().iter().enumerate() {
        layout_pos[b] = i as u32;
    }
    let mut succs = Adjacency::new();
    for i in 0..n as u32 {
        succs.push_node(cfg.succs(Block::from_u32(i)).iter().map(|s| s.as_u32()));
    }
    let doomed = |v: u32| cfg.contains(Block::from_u32(v)) && !reaches_exit[v as usize];
    let components = strongly_connected_components(&succs, doomed);
    let mut comp_of = vec![NONE; n];
    for (i, comp) in components.iter().enumerate() {
        for &v in comp {
            comp_of[v as usize] = i as u32;
        }
    }
    let mut roots = Vec::new();
    for (i, comp) in components.iter().enumerate() {
        let terminal = comp.iter().all(|&v| {
            succs
                .get(v)
                .iter()
                .all(|&s| comp_of[s as usize] == i as u32)
        });
        if terminal {
            let rep = comp
                .iter()
                .map(|&v| Block::from_u32(v))
                .min_by_key(|&b| representative_key(cfg, &layout_pos, b))
                .expect("components are not empty");
            roots.push(rep);
        }
    }
    roots.sort_by_key(|&b| layout_pos[b]);
    roots
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanes_ir::{FuncBuilder, Type};

    /// block0: brif block1, block4; block1 (header): brif block2, block3;
    /// block2: br block1; block3: br block1; block4: ret.
    /// The loop {1,2,3} never exits.
    fn infinite_loop() -> Function {
        let mut func = Function::new("inf", &[Type::I1], None);
        let c = func.params[0].value;
        let mut b = FuncBuilder::new(&mut func);
        let bl: Vec<Block> = (0..5).map(|_| b.create_block()).collect();
        b.switch_to_block(bl[0]);
        b.brif(c, bl[1], bl[4]);
        b.switch_to_block(bl[1]);
        b.brif(c, bl[2], bl[3]);
        b.switch_to_block(bl[2]);
        b.jump(bl[1]);
        b.switch_to_block(bl[3]);
        b.jump(bl[1]);
        b.switch_to_block(bl[4]);
        b.ret(None);
        func
    }

    #[test]
    fn infinite_loop_is_rooted_at_its_header() {
        let func = infinite_loop();
        let cfg = ControlFlowGraph::with_function(&func);
        let pdt = PostDominatorTree::with_function(&func, &cfg);
        let b = Block::from_u32;
        assert_eq!(pdt.infinite_loop_roots(), &[b(1)]);
        assert_eq!(pdt.virtual_exit_preds(), &[b(1), b(4)]);
        assert_eq!(pdt.ipdom(b(0)), None);
        assert_eq!(pdt.ipdom(b(1)), None);
        assert_eq!(pdt.ipdom(b(2)), Some(b(1)));
        assert_eq!(pdt.ipdom(b(3)), Some(b(1)));
        assert_eq!(pdt.ipdom(b(4)), None);
        assert!(pdt.post_dominates(b(1), b(3)) && !pdt.post_dominates(b(1), b(0)));
        assert!(pdt.post_dominates(b(0), b(0)) && !pdt.strictly_post_dominates(b(0), b(0)));
        assert_eq!(pdt.depth(b(2)), Some(2));
        assert_eq!(pdt.common_post_dominator(b(2), b(3)), Some(b(1)));
        assert_eq!(pdt.common_post_dominator(b(2), b(4)), None);
        assert_eq!(pdt.influence_region(&cfg, b(1)), vec![b(1), b(2), b(3)]);
        assert_eq!(
            pdt.influence_region(&cfg, b(0)),
            vec![b(0), b(1), b(2), b(3), b(4)]
        );
        let mut roots: Vec<Block> = pdt.roots().collect();
        roots.sort();
        assert_eq!(roots, vec![b(0), b(1), b(4)]);
    }
}
