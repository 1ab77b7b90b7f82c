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
//! explicit stack; a path-compressed union-find finds an inner loop's outermost discovered
//! ancestor. Space stays linear however deep the nest: the blocks of all loops live in one
//! array ordered by a preorder of the loop tree, where every loop's blocks are a slice,
//! and "is `b` in loop `l`" is an O(1) interval test on that preorder.
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
use crate::dominators::DominatorTree;
use lanes_ir::graph::strongly_connected_components;
use lanes_ir::graph::Adjacency;

/// The representative of `l` in the union-find forest `up` (the root), compressing the
/// path behind it.
fn find_outermost(up: &mut SecondaryMap<Loop, PackedOption<Loop>>, l: Loop) -> Loop {
    let mut root = l;
    while let Some(p) = up[root].expand() {
        root = p;
    }
    let mut x = l;
    while let Some(p) = up[x].expand() {
        if p != root {
            up[x] = root.into();
        }
        x = p;
    }
    root
}

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
    /// Position of each loop in a preorder of the loop tree, and its subtree size: the
    /// loops nested in `l` are those numbered `pre[l]..pre[l] + size[l]`.
    pre: SecondaryMap<Loop, u32>,
    size: SecondaryMap<Loop, u32>,
    /// Reachable loop blocks grouped by the preorder number of their innermost loop, in
    /// RPO within a group; `group_start[i]` is where group `i` begins. The blocks of loop
    /// `l` are the groups of its subtree, a contiguous slice: linear space for any nesting.
    block_order: Vec<Block>,
    group_start: Vec<u32>,
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
                    exiting: Vec::new(),
                    exits: Vec::new(),
                    depth: 0,
                });
                self.header_of[h] = l.into();
            }
        }
        let headers: Vec<Loop> = self.loops.keys().rev().collect();
        let mut outermost: SecondaryMap<Loop, PackedOption<Loop>> = SecondaryMap::new();
        for l in headers {
            self.discover_body(cfg, l, &mut outermost);
        }
        self.finish_loops(cfg);
        self.find_irreducible_regions(cfg, domtree);
        self.valid = true;
    }

    /// Finds the blocks of loop `l`, whose inner loops are already discovered: a backward
    /// walk from the latches that stops at the header, and on meeting a block of an inner
    /// loop continues from the header of that loop's outermost discovered ancestor, which
    /// becomes a child of `l`. `outermost` is a union-find forest over loops (a loop's
    /// representative is its outermost discovered ancestor), path-compressed so that deep
    /// nests stay near-linear.
    fn discover_body(
        &mut self,
        cfg: &ControlFlowGraph,
        l: Loop,
        outermost: &mut SecondaryMap<Loop, PackedOption<Loop>>,
    ) {
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
                    let outer = find_outermost(outermost, inner);
                    if outer == l {
                        continue;
                    }
                    self.loops[outer].parent = Some(l);
                    outermost[outer] = l.into();
                    stack.extend_from_slice(cfg.preds(self.loops[outer].header));
                }
            }
        }
    }

    /// Children, depths, the loop-tree preorder, block slices, exiting and exit blocks.
    fn finish_loops(&mut self, cfg: &ControlFlowGraph) {
        // A parent's header dominates its children's, so parents have smaller numbers.
        let keys: Vec<Loop> = self.loops.keys().collect();
        for &l in &keys {
            self.loops[l].depth = match self.loops[l].parent {
                Some(p) => self.loops[p].depth + 1,
                None => 1,
            };
            if let Some(p) = self.loops[l].parent {
                self.loops[p].children.push(l);
            }
            let rpo_of = |b: &Block| cfg.rpo_number(*b);
            self.loops[l].latches.sort_by_key(rpo_of);
        }
        let mut preorder: Vec<Loop> = Vec::with_capacity(keys.len());
        let mut stack: Vec<Loop> = self.top_level_loops().collect();
        stack.reverse();
        while let Some(l) = stack.pop() {
            self.pre[l] = preorder.len() as u32;
            preorder.push(l);
            stack.extend(self.loops[l].children.iter().rev());
        }
        for &l in preorder.iter().rev() {
            let kids: u32 = self.loops[l].children.iter().map(|&c| self.size[c]).sum();
            self.size[l] = 1 + kids;
        }
        // Counting sort of the loop blocks by their innermost loop's preorder number.
        let mut start = vec![0u32; preorder.len() + 1];
        for &b in cfg.rpo() {
            if let Some(l) = self.innermost[b].expand() {
                start[self.pre[l] as usize + 1] += 1;
            }
        }
        for i in 0..preorder.len() {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        self.block_order = vec![Block::from_u32(0); start[preorder.len()] as usize];
        for &b in cfg.rpo() {
            if let Some(l) = self.innermost[b].expand() {
                let slot = &mut fill[self.pre[l] as usize];
                self.block_order[*slot as usize] = b;
                *slot += 1;
            }
        }
        self.group_start = start;
        // An edge leaving loops adds its source and target to every loop it leaves: the
        // innermost loop of the source and its ancestors up to one containing the target.
        let mut exits_raw: SecondaryMap<Loop, Vec<Block>> = SecondaryMap::new();
        for &b in cfg.rpo() {
            for &s in cfg.succs(b) {
                let mut x = self.innermost[b].expand();
                while let Some(l) = x {
                    if self.contains(l, s) {
                        break;
                    }
                    if self.loops[l].exiting.last() != Some(&b) {
                        self.loops[l].exiting.push(b);
                    }
                    exits_raw[l].push(s);
                    x = self.loops[l].parent;
                }
            }
        }
        let mut seen: SecondaryMap<Block, PackedOption<Loop>> = SecondaryMap::new();
        for &l in &keys {
            for &s in &exits_raw[l] {
                if seen[s].expand() != Some(l) {
                    seen[s] = l.into();
                    self.loops[l].exits.push(s);
                }
            }
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
        let mut member: SecondaryMap<Block, u32> = SecondaryMap::new();
        for comp in components.into_iter().filter(|c| c.len() > 1) {
            let mut blocks: Vec<Block> = comp.iter().map(|&v| Block::from_u32(v)).collect();
            blocks.sort_by_key(|&b| cfg.rpo_number(b));
            let id = regions.len() as u32 + 1;
            for &b in &blocks {
                member[b] = id;
            }
            let entries: Vec<Block> = blocks
                .iter()
                .copied()
                .filter(|&b| {
                    Some(b) == cfg.entry()
                        || cfg
                            .preds(b)
                            .iter()
                            .any(|&p| cfg.is_reachable(p) && member[p] != id)
                })
                .collect();
            let parent = self.innermost_loop_containing(&blocks);
            regions.push(IrreducibleRegion {
                entries,
                blocks,
                parent,
            });
        }
        regions.sort_by_key(|r| cfg.rpo_number(r.blocks[0]));
        self.regions = regions;
    }

    /// The innermost loop containing every block of `blocks` (not empty): climb from the
    /// first block's innermost loop until the loop contains the others, which is monotone,
    /// so the cost is the nesting depth plus the number of blocks.
    fn innermost_loop_containing(&self, blocks: &[Block]) -> Option<Loop> {
        let mut current = self.innermost_loop(*blocks.first()?);
        for &b in blocks {
            while let Some(l) = current {
                if self.contains(l, b) {
                    break;
                }
                current = self.loops[l].parent;
            }
        }
        current
    }

    /// Forgets everything; the analysis becomes invalid.
    pub fn clear(&mut self) {
        self.loops.clear();
        self.innermost.clear();
        self.header_of.clear();
        self.pre.clear();
        self.size.clear();
        self.block_order.clear();
        self.group_start.clear();
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

    /// All blocks of `l`, nested loops' included: first the blocks whose innermost loop
    /// is `l`, in RPO (the header first), then the blocks of each child loop in the same
    /// arrangement, children in order. Each nested loop's blocks are a contiguous part.
    pub fn blocks(&self, l: Loop) -> &[Block] {
        let p = self.pre[l] as usize;
        let end = p + self.size[l] as usize;
        &self.block_order[self.group_start[p] as usize..self.group_start[end] as usize]
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

    /// Is `b` a block of loop `l` (or of a loop nested in it)? O(1).
    pub fn contains(&self, l: Loop, b: Block) -> bool {
        self.is_nested_in(self.innermost_loop(b), l)
    }

    /// Is loop `inner` (if any) `outer` itself or nested in it? O(1).
    pub fn is_nested_in(&self, inner: Option<Loop>, outer: Loop) -> bool {
        inner.is_some_and(|i| {
            let (p, q) = (self.pre[i], self.pre[outer]);
            q <= p && p < q + self.size[outer]
        })
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
