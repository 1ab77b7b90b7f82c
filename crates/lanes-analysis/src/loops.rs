//! The loop forest: natural loops and irreducible regions.
//!
//! An edge `t → h` is a *back edge* iff `h` dominates `t`; the *natural loop* of a back
//! edge is `h` together with every block that reaches `t` without passing `h` (Aho et al.);
//! natural loops with the same header are merged, so there is one loop per header. PLDI'18
//! §2.1 and §5 work on such loops (its unique latch is the merged back edges' source after
//! normalization) and require *reducible* control flow, "the absence of multi-entry loops".
//! Two natural loops are either disjoint or nested, so they form a forest; every block has
//! an innermost loop (or none) and a nesting depth.
//!
//! For each loop the analysis records its header, its *latches* (sources of back edges to
//! the header), its blocks, its *exiting blocks* (blocks of the loop with a successor
//! outside it) and its *exit blocks* (those outside successors), its parent and children,
//! and its depth (outermost loops have depth 1). It is computed like Cranelift's
//! `loop_analysis.rs`: headers in decreasing RPO (inner loops first), each loop found by a
//! backward walk from its latches that jumps over already discovered inner loops, with an
//! explicit stack.
//!
//! # Irreducible regions
//!
//! A CFG is reducible iff removing its back edges leaves it acyclic (Hecht & Ullman). The
//! cycles that survive are entered at more than one block: this analysis reports each
//! non-trivial strongly connected component of the reachable CFG *without its back edges*
//! as an [`IrreducibleRegion`], with its *entries* (its blocks with a predecessor outside
//! it; always at least two) and the innermost natural loop containing all its blocks. No
//! block of a region dominates the whole region. Such cycles are not loops of the forest:
//! their blocks keep whatever natural loops they are in (a header with a self-loop inside
//! an irreducible cycle is a one-block natural loop), and blocks on no natural loop have
//! depth 0. Blocks unreachable from the entry are in no loop and no region.

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{entity_impl, PrimaryMap, SecondaryMap};
use lanes_ir::Block;

use crate::cfg::ControlFlowGraph;
use crate::dom_engine::Adjacency;
use crate::dominators::DominatorTree;
use crate::scc::strongly_connected_components;

/// A natural loop of the forest.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loop(u32);
entity_impl!(Loop, "loop");

/// One natural loop (all back edges to one header merged).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopData {
    pub header: Block,
    pub parent: Option<Loop>,
    /// Directly nested loops, in order of their headers' RPO.
    pub children: Vec<Loop>,
    /// Sources of back edges to the header, in RPO.
    pub latches: Vec<Block>,
    /// All blocks, nested loops' included, in RPO (the header first).
    pub blocks: Vec<Block>,
    /// Blocks of the loop with a successor outside it, in RPO.
    pub exiting: Vec<Block>,
    /// Blocks outside the loop with a predecessor inside it, in order of first discovery
    /// from the exiting blocks.
    pub exits: Vec<Block>,
    /// 1 for outermost loops.
    pub depth: u32,
}

/// A strongly connected component of the reachable CFG minus its back edges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IrreducibleRegion {
    /// Blocks of the region with a predecessor outside it, in RPO.
    pub entries: Vec<Block>,
    /// All blocks of the region, in RPO.
    pub blocks: Vec<Block>,
    /// The innermost natural loop containing every block of the region.
    pub parent: Option<Loop>,
}

/// Natural loops, their nesting, and irreducible regions.
#[derive(Clone, Debug, Default)]
pub struct LoopForest {
    loops: PrimaryMap<Loop, LoopData>,
    innermost: SecondaryMap<Block, PackedOption<Loop>>,
    header_of: SecondaryMap<Block, PackedOption<Loop>>,
    regions: Vec<IrreducibleRegion>,
    valid: bool,
}

impl LoopForest {
    /// An empty, invalid analysis.
    pub fn new() -> Self {
        Self::default()
    }

    /// Computes the loop forest from a valid CFG and its dominator tree.
    pub fn with_cfg(cfg: &ControlFlowGraph, domtree: &DominatorTree) -> Self {
        let mut forest = Self::new();
        forest.compute(cfg, domtree);
        forest
    }

    /// Recomputes everything. `domtree` must be valid and computed from `cfg`.
    pub fn compute(&mut self, cfg: &ControlFlowGraph, domtree: &DominatorTree) {
        debug_assert!(cfg.is_valid() && domtree.is_valid());
        self.clear();
        // Headers in RPO, so that loop numbers list outer loops before inner ones.
        for &h in cfg.rpo() {
            let latches: Vec<Block> = cfg
                .preds(h)
                .iter()
                .copied()
                .filter(|&t| domtree.dominates(h, t))
                .collect();
            if !latches.is_empty() {
                let l = self.loops.push(LoopData {
                    header: h,
                    parent: None,
                    children: Vec::new(),
                    latches,
                    blocks: Vec::new(),
                    exiting: Vec::new(),
                    exits: Vec::new(),
                    depth: 0,
                });
                self.header_of[h] = l.into();
            }
        }
        let headers: Vec<Loop> = self.loops.keys().rev().collect();
        for l in headers {
            self.discover_body(cfg, l);
        }
        self.finish_loops(cfg);
        self.find_irreducible_regions(cfg, domtree);
        self.valid = true;
    }

    /// Finds the blocks of loop `l`, whose inner loops are already discovered: a backward
    /// walk from the latches that stops at the header, and on meeting a block of an inner
    /// loop continues from the header of that loop's outermost discovered ancestor, which
    /// becomes a child of `l`.
    fn discover_body(&mut self, cfg: &ControlFlowGraph, l: Loop) {
        let header = self.loops[l].header;
        self.innermost[header] = l.into();
        let mut stack: Vec<Block> = self.loops[l].latches.clone();
        while let Some(b) = stack.pop() {
            if b == header || !cfg.is_reachable(b) {
                continue;
            }
            match self.innermost[b].expand() {
                None => {
                    self.innermost[b] = l.into();
                    stack.extend_from_slice(cfg.preds(b));
                }
                Some(inner) => {
                    let mut outer = inner;
                    while let Some(p) = self.loops[outer].parent {
                        outer = p;
                    }
                    if outer == l {
                        continue;
                    }
                    self.loops[outer].parent = Some(l);
                    stack.extend_from_slice(cfg.preds(self.loops[outer].header));
                }
            }
        }
    }

    /// Children, depths, block lists, exiting and exit blocks.
    fn finish_loops(&mut self, cfg: &ControlFlowGraph) {
        let keys: Vec<Loop> = self.loops.keys().collect();
        for &l in &keys {
            self.loops[l].depth = match self.loops[l].parent {
                Some(p) => self.loops[p].depth + 1,
                None => 1,
            };
            if let Some(p) = self.loops[l].parent {
                self.loops[p].children.push(l);
            }
        }
        // Each block belongs to its innermost loop and all that loop's ancestors.
        for &b in cfg.rpo() {
            let mut l = self.innermost[b].expand();
            while let Some(x) = l {
                self.loops[x].blocks.push(b);
                l = self.loops[x].parent;
            }
        }
        let mut exit_seen: SecondaryMap<Block, PackedOption<Loop>> = SecondaryMap::new();
        for &l in &keys {
            let mut exiting = Vec::new();
            let mut exits = Vec::new();
            for &b in &self.loops[l].blocks {
                let mut leaves = false;
                for &s in cfg.succs(b) {
                    if !self.contains(l, s) {
                        leaves = true;
                        if exit_seen[s].expand() != Some(l) {
                            exit_seen[s] = l.into();
                            exits.push(s);
                        }
                    }
                }
                if leaves {
                    exiting.push(b);
                }
            }
            let data = &mut self.loops[l];
            data.exiting = exiting;
            data.exits = exits;
            let rpo_of = |b: Block| cfg.rpo_number(b);
            data.latches.sort_by_key(|&b| rpo_of(b));
        }
    }

    /// SCCs of the reachable CFG without back edges; see the module doc.
    fn find_irreducible_regions(&mut self, cfg: &ControlFlowGraph, domtree: &DominatorTree) {
        let n = cfg.num_block_slots();
        let mut forward = Adjacency::new();
        for i in 0..n as u32 {
            let b = Block::from_u32(i);
            forward.push_node(
                cfg.succs(b)
                    .iter()
                    .filter(|&&s| !domtree.dominates(s, b))
                    .map(|s| s.as_u32()),
            );
        }
        let components =
            strongly_connected_components(&forward, |v| cfg.is_reachable(Block::from_u32(v)));
        let mut regions = Vec::new();
        for comp in components.into_iter().filter(|c| c.len() > 1) {
            let mut blocks: Vec<Block> = comp.iter().map(|&v| Block::from_u32(v)).collect();
            blocks.sort_by_key(|&b| cfg.rpo_number(b));
            let mut member: SecondaryMap<Block, bool> = SecondaryMap::new();
            for &b in &blocks {
                member[b] = true;
            }
            let entries: Vec<Block> = blocks
                .iter()
                .copied()
                .filter(|&b| {
                    Some(b) == cfg.entry()
                        || cfg
                            .preds(b)
                            .iter()
                            .any(|&p| cfg.is_reachable(p) && !member[p])
                })
                .collect();
            let parent = blocks
                .iter()
                .map(|&b| self.innermost_loop(b))
                .reduce(|x, y| self.common_loop(x, y))
                .flatten();
            regions.push(IrreducibleRegion {
                entries,
                blocks,
                parent,
            });
        }
        regions.sort_by_key(|r| cfg.rpo_number(r.blocks[0]));
        self.regions = regions;
    }

    /// The innermost loop containing both loops (or `None`).
    fn common_loop(&self, a: Option<Loop>, b: Option<Loop>) -> Option<Loop> {
        let (mut a, mut b) = (a?, b?);
        while self.depth(a) > self.depth(b) {
            a = self.loops[a].parent?;
        }
        while self.depth(b) > self.depth(a) {
            b = self.loops[b].parent?;
        }
        while a != b {
            a = self.loops[a].parent?;
            b = self.loops[b].parent?;
        }
        Some(a)
    }

    /// Forgets everything; the analysis becomes invalid.
    pub fn clear(&mut self) {
        self.loops.clear();
        self.innermost.clear();
        self.header_of.clear();
        self.regions.clear();
        self.valid = false;
    }

    /// Has [`compute`](Self::compute) run since the last [`clear`](Self::clear)?
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// All loops, outer loops before the loops they contain (by header RPO).
    pub fn loops(&self) -> impl Iterator<Item = Loop> + '_ {
        self.loops.keys()
    }

    /// Number of loops.
    pub fn num_loops(&self) -> usize {
        self.loops.len()
    }

    /// Everything about loop `l`.
    pub fn data(&self, l: Loop) -> &LoopData {
        &self.loops[l]
    }

    /// Loops that are not nested in another.
    pub fn top_level_loops(&self) -> impl Iterator<Item = Loop> + '_ {
        self.loops
            .iter()
            .filter(|(_, d)| d.parent.is_none())
            .map(|(l, _)| l)
    }

    pub fn header(&self, l: Loop) -> Block {
        self.loops[l].header
    }

    pub fn parent(&self, l: Loop) -> Option<Loop> {
        self.loops[l].parent
    }

    pub fn children(&self, l: Loop) -> &[Loop] {
        &self.loops[l].children
    }

    pub fn latches(&self, l: Loop) -> &[Block] {
        &self.loops[l].latches
    }

    pub fn blocks(&self, l: Loop) -> &[Block] {
        &self.loops[l].blocks
    }

    pub fn exiting_blocks(&self, l: Loop) -> &[Block] {
        &self.loops[l].exiting
    }

    pub fn exit_blocks(&self, l: Loop) -> &[Block] {
        &self.loops[l].exits
    }

    /// Nesting depth of the loop (1 for outermost loops).
    pub fn depth(&self, l: Loop) -> u32 {
        self.loops[l].depth
    }

    /// The innermost loop containing `b`.
    pub fn innermost_loop(&self, b: Block) -> Option<Loop> {
        self.innermost[b].expand()
    }

    /// Number of loops containing `b` (0 outside every loop).
    pub fn loop_depth(&self, b: Block) -> u32 {
        self.innermost_loop(b).map_or(0, |l| self.depth(l))
    }

    /// The loop headed by `b`, if `b` is a loop header.
    pub fn loop_of_header(&self, b: Block) -> Option<Loop> {
        self.header_of[b].expand()
    }

    /// Is `b` a block of loop `l` (or of a loop nested in it)?
    pub fn contains(&self, l: Loop, b: Block) -> bool {
        let depth = self.depth(l);
        let mut x = self.innermost_loop(b);
        while let Some(inner) = x {
            if self.depth(inner) <= depth {
                return inner == l;
            }
            x = self.loops[inner].parent;
        }
        false
    }

    /// Is `from → to` a back edge (`to` is a loop header dominating `from`)?
    pub fn is_back_edge(&self, from: Block, to: Block) -> bool {
        self.loop_of_header(to)
            .is_some_and(|l| self.loops[l].latches.contains(&from))
    }

    /// The irreducible regions, in RPO of their first block.
    pub fn irreducible_regions(&self) -> &[IrreducibleRegion] {
        &self.regions
    }

    /// Is the reachable CFG reducible (no irreducible region)?
    pub fn is_reducible(&self) -> bool {
        self.regions.is_empty()
    }
}
