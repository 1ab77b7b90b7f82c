//! Control dependence and post-dominance frontiers.
//!
//! PLDI'18 §2.1 (after Ferrante et al. and Cytron et al. [9, 12]): a block `k` is *control
//! dependent* on an edge `a → b` iff `k ≥PD b` and `k ≱PD a`; `cdep(k)` is the set of those
//! edges. The block predicate of `k` is the disjunction of the predicates of the edges in
//! `cdep(k)` (§2.4), and `k` is uniform iff all of them are. The definition is used
//! exactly: post-dominance is reflexive, so a block is never control dependent on its own
//! out-edges — in particular a loop header `h` with `h ≥PD b` for an edge `h → b` is not
//! in `cdep` of that edge (Ferrante's formulation with *strict* post-dominance would make
//! it so).
//!
//! The *post-dominance frontier* (the reverse-graph dominance frontier of Cytron et al.)
//! is `PDF(k) = { a | k ≥PD s for some successor s of a, and not k >PD a }` with *strict*
//! post-dominance, so here `k ∈ PDF(k)` when `k` post-dominates one of its own successors
//! (a loop header on its back edge). Apart from that self-membership, `PDF(k)` is the set
//! of sources of `cdep(k)`. SuperVectorization's predicated SSA builds control predicates
//! from it.
//!
//! Both are computed in one pass over the edges with the post-dominator tree: for `a → b`,
//! the blocks `k ≥PD b` are the tree ancestors of `b` (with the virtual exit), those `≥PD
//! a` the ancestors of `a`, and `ipdom(a) ≥PD b`; so `cdep` gains `a → b` for the blocks
//! on the tree path from `b` up to the first block that post-dominates `a` (that is `a`
//! itself or `ipdom(a)`), excluded, and `PDF` gains `a` for the blocks from `b` up to
//! `ipdom(a)`, excluded. The cost is the size of the output. Edges and dependence
//! relations include blocks unreachable from the entry; the post-dominator tree covers
//! them (PLDI'18 assumes there are none).

use cranelift_entity::SecondaryMap;
use lanes_ir::Block;

use crate::cfg::{CfgEdge, ControlFlowGraph};
use crate::post_dominators::PostDominatorTree;

/// `cdep`, its source blocks, the inverse relation, and post-dominance frontiers.
#[derive(Clone, Debug, Default)]
pub struct ControlDependence {
    cdep: SecondaryMap<Block, Vec<CfgEdge>>,
    cdep_blocks: SecondaryMap<Block, Vec<Block>>,
    dependents: SecondaryMap<Block, Vec<Block>>,
    pdf: SecondaryMap<Block, Vec<Block>>,
    valid: bool,
}

/// Appends `x` unless it is already the last element (callers add runs of equal items).
fn push_once<T: PartialEq + Copy>(list: &mut Vec<T>, x: T) {
    if list.last() != Some(&x) {
        list.push(x);
    }
}

impl ControlDependence {
    /// An empty, invalid analysis.
    pub fn new() -> Self {
        Self::default()
    }

    /// Computes control dependence from a valid CFG and its post-dominator tree.
    pub fn with_cfg(cfg: &ControlFlowGraph, pdt: &PostDominatorTree) -> Self {
        let mut cd = Self::new();
        cd.compute(cfg, pdt);
        cd
    }

    /// Recomputes everything. `pdt` must be valid and computed from `cfg`.
    pub fn compute(&mut self, cfg: &ControlFlowGraph, pdt: &PostDominatorTree) {
        debug_assert!(cfg.is_valid() && pdt.is_valid());
        self.clear();
        for edge in cfg.edges() {
            let CfgEdge { from: a, to: b } = edge;
            let stop = pdt.ipdom(a);
            let mut k = Some(b);
            while let Some(block) = k {
                if Some(block) == stop {
                    break;
                }
                push_once(&mut self.pdf[block], a);
                if block != a {
                    self.cdep[block].push(edge);
                    push_once(&mut self.cdep_blocks[block], a);
                    push_once(&mut self.dependents[a], block);
                }
                k = pdt.ipdom(block);
            }
        }
        for list in self.dependents.values_mut() {
            list.sort();
            list.dedup();
        }
        self.valid = true;
    }

    /// Forgets everything; the analysis becomes invalid.
    pub fn clear(&mut self) {
        self.cdep.clear();
        self.cdep_blocks.clear();
        self.dependents.clear();
        self.pdf.clear();
        self.valid = false;
    }

    /// Has [`compute`](Self::compute) run since the last [`clear`](Self::clear)?
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// `cdep(k)`: the edges `k` is control dependent on, sources in layout order, targets
    /// in branch order.
    pub fn cdep(&self, k: Block) -> &[CfgEdge] {
        &self.cdep[k]
    }

    /// The distinct sources of `cdep(k)`: the blocks whose branches decide whether `k`
    /// runs, in layout order.
    pub fn cdep_blocks(&self, k: Block) -> &[Block] {
        &self.cdep_blocks[k]
    }

    /// Is `k` control dependent on the edge `edge`?
    pub fn is_control_dependent(&self, k: Block, edge: CfgEdge) -> bool {
        self.cdep[k].contains(&edge)
    }

    /// The blocks control dependent on some out-edge of `a` (the blocks a divergent branch
    /// in `a` makes divergent), sorted by block index.
    pub fn dependents(&self, a: Block) -> &[Block] {
        &self.dependents[a]
    }

    /// The post-dominance frontier `PDF(k)`, in layout order.
    pub fn post_dominance_frontier(&self, k: Block) -> &[Block] {
        &self.pdf[k]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanes_ir::{FuncBuilder, Function, Type};

    /// A while loop: block0 → block1 (header: brif block2, block3); block2 → block1;
    /// block3: ret.
    #[test]
    fn while_loop_header_is_not_dependent_on_itself() {
        let mut func = Function::new("w", &[Type::I1], None);
        let c = func.params[0].value;
        let mut fb = FuncBuilder::new(&mut func);
        let bl: Vec<Block> = (0..4).map(|_| fb.create_block()).collect();
        fb.switch_to_block(bl[0]);
        fb.jump(bl[1]);
        fb.switch_to_block(bl[1]);
        fb.brif(c, bl[2], bl[3]);
        fb.switch_to_block(bl[2]);
        fb.jump(bl[1]);
        fb.switch_to_block(bl[3]);
        fb.ret(None);
        let cfg = ControlFlowGraph::with_function(&func);
        let pdt = PostDominatorTree::with_function(&func, &cfg);
        let cd = ControlDependence::with_cfg(&cfg, &pdt);
        let b = Block::from_u32;
        assert_eq!(cd.cdep(b(2)), &[CfgEdge::new(b(1), b(2))]);
        assert!(
            cd.cdep(b(1)).is_empty(),
            "header ≥PD header excludes its own edge"
        );
        assert!(cd.cdep(b(0)).is_empty() && cd.cdep(b(3)).is_empty());
        assert_eq!(cd.cdep_blocks(b(2)), &[b(1)]);
        assert_eq!(cd.post_dominance_frontier(b(1)), &[b(1)]);
        assert_eq!(cd.post_dominance_frontier(b(2)), &[b(1)]);
        assert!(cd.post_dominance_frontier(b(3)).is_empty());
        assert_eq!(cd.dependents(b(1)), &[b(2)]);
        assert!(cd.is_control_dependent(b(2), CfgEdge::new(b(1), b(2))));
    }
}
