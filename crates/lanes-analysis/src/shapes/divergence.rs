//! Control divergence: what a divergent branch does to the code after it.
//!
//! A branch whose condition is not uniform is *divergent*: lanes may go different ways.
//! This module computes, for one divergent branch in block `b`, the effects that the
//! fixpoint driver ([`super::ShapeAnalysis`]) turns into shapes:
//!
//! - **Join divergence** (CC'12 Definition 1 cases 1–2; PLDI'18 §2.3 "sync dependence";
//!   PACT'11 §III Theorem 3.3 and the gated φ of Algorithm 7 step 1.a): a block reached
//!   from `b` along two *disjoint* paths that start with different successors of `b`
//!   receives lanes that took different decisions; its φs are varying. Found by label
//!   propagation in reverse postorder over the influence region `IR(b)` (PACT'11 §III) and
//!   `b`'s immediate post-dominator `p`: each successor starts its own label, a block whose
//!   predecessors bring two different labels is a join and starts its own. Back edges to a
//!   header of a loop around `b` make the header a join when they bring different labels.
//!   `p` is always a join: it is where the μ-SIMD machine of PACT'11 §II reconverges.
//! - **Divergent loops and temporal divergence** (CC'12 Definition 1 case 3; PACT'11
//!   Algorithm 7 step 1.b): a loop around `b` whose lanes can leave it at different times —
//!   `IR(b) ∪ {p}` leaves the loop, or `b` has no post-dominator — is *divergent*. Its exit
//!   blocks are joins (lanes arrive from different iterations), exit edges are divergent or
//!   taken by all lanes together, and every value defined in it is varying where used
//!   outside it.
//! - **Reconvergence taint**: the μ-SIMD machine reconverges at `p`, so lanes that ran
//!   different parts of `IR(b)` meet there. A value defined in `IR(b)` and live into `p`
//!   may differ between lanes at every use reachable from `p` before its definition runs
//!   again. For a loop with a divergent exit this is the loop rule again, restricted to the
//!   code after `p`; it also covers reconvergence at the header of an enclosing loop.
//! - **Irreducible regions** are handled conservatively, never rejected: if `IR(b) ∪ {p}`
//!   touches one, every block of it with two predecessors is a join and every value defined
//!   inside is varying at every use.

use std::collections::{BinaryHeap, HashMap};

use cranelift_entity::{EntityRef, SecondaryMap};
use lanes_ir::{Block, Function, Value, ValueDef};

use crate::cfg::ControlFlowGraph;
use crate::dominators::DominatorTree;
use crate::liveness::Liveness;
use crate::loops::{Loop, LoopForest};
use crate::post_dominators::PostDominatorTree;

/// Where uses of a value see it as varying.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TaintRegion {
    /// Uses in blocks outside the loop (φ uses: the φ's block).
    OutsideLoop(Loop),
    /// Uses at blocks reachable from `from` without passing `stop` (φ uses: at the end of
    /// the incoming predecessor). The blocks are precomputed, sorted.
    Reach {
        from: Block,
        stop: Block,
        blocks: Vec<Block>,
    },
    /// Every use.
    Everywhere,
}

impl TaintRegion {
    /// Is a use in `block` (or, for a φ, on the edge from `pred` into `block`) inside?
    pub fn contains(&self, loops: &LoopForest, block: Block, pred: Option<Block>) -> bool {
        match self {
            TaintRegion::OutsideLoop(l) => !loops.contains(*l, block),
            TaintRegion::Reach { blocks, .. } => {
                blocks.binary_search(&pred.unwrap_or(block)).is_ok()
            }
            TaintRegion::Everywhere => true,
        }
    }
}

/// The effects of one divergent branch.
#[derive(Clone, Debug, Default)]
pub struct BranchEffects {
    /// The branch's reconvergence point (`None`: the virtual exit).
    pub ipdom: Option<Block>,
    /// `IR(b)`, sorted.
    pub region: Vec<Block>,
    /// Join-divergent blocks (with the branch as their cause).
    pub joins: Vec<Block>,
    /// Loops around the branch that became divergent.
    pub divergent_loops: Vec<Loop>,
    /// Values and the regions where their uses are varying.
    pub taints: Vec<(Value, TaintRegion)>,
    /// The branch touches an irreducible region (conservative treatment).
    pub irreducible: bool,
}

/// The CFG analyses divergence needs.
pub struct DivergenceCtx<'a> {
    pub func: &'a Function,
    pub cfg: &'a ControlFlowGraph,
    pub domtree: &'a DominatorTree,
    pub pdt: &'a PostDominatorTree,
    pub loops: &'a LoopForest,
    pub liveness: &'a Liveness,
}

/// The block defining `v` (`None` for parameters, which precede every block).
pub fn def_block(func: &Function, v: Value) -> Option<Block> {
    match func.dfg.value_def(v) {
        ValueDef::Param(_) => None,
        ValueDef::Result(inst) => func.layout.inst_block(inst),
    }
}

impl DivergenceCtx<'_> {
    /// Loops containing `b`, innermost first.
    fn loops_around(&self, b: Block) -> Vec<Loop> {
        let mut out = Vec::new();
        let mut l = self.loops.innermost_loop(b);
        while let Some(x) = l {
            out.push(x);
            l = self.loops.parent(x);
        }
        out
    }

    /// Does `blocks` (sorted) meet an irreducible region, or is `b` in one?
    fn touches_irreducible(&self, blocks: &[Block]) -> bool {
        self.loops
            .irreducible_regions()
            .iter()
            .any(|r| r.blocks.iter().any(|x| blocks.binary_search(x).is_ok()))
    }

    /// Computes the effects of a divergent branch at the end of `b`.
    pub fn branch_effects(&self, b: Block) -> BranchEffects {
        let ipdom = self.pdt.ipdom(b);
        let region = self.pdt.influence_region(self.cfg, b);
        let mut scope = region.clone();
        if let Some(p) = ipdom {
            if let Err(pos) = scope.binary_search(&p) {
                scope.insert(pos, p);
            }
        }
        // Is `b` reached again from its successors before `p` (a cycle through `b`)?
        let b_reentered = region
            .iter()
            .any(|&x| self.cfg.succs(x).contains(&b) && Some(b) != ipdom);
        let mut fx = BranchEffects {
            ipdom,
            region: region.clone(),
            ..BranchEffects::default()
        };
        // Values defined inside IR(b) (b itself only if it is re-entered).
        let defined_inside =
            |blk: Block| region.binary_search(&blk).is_ok() && (blk != b || b_reentered);

        if self.touches_irreducible(&scope) {
            fx.irreducible = true;
            for &x in &scope {
                if self.cfg.preds(x).len() >= 2 || Some(x) == ipdom {
                    fx.joins.push(x);
                }
            }
            for &x in &scope {
                if !defined_inside(x) {
                    continue;
                }
                for &inst in self.func.layout.block_insts(x) {
                    if let Some(v) = self.func.dfg.inst_result(inst) {
                        fx.taints.push((v, TaintRegion::Everywhere));
                    }
                }
            }
            fx.divergent_loops = self.loops_around(b);
            return fx;
        }

        // Divergent loops: lanes may leave them at different times.
        let around = self.loops_around(b);
        for &l in &around {
            let leaves = ipdom.is_none() || scope.iter().any(|&x| !self.loops.contains(l, x));
            if leaves {
                fx.divergent_loops.push(l);
            }
        }
        self.propagate_labels(b, ipdom, &scope, &around, &mut fx);
        if let Some(p) = ipdom {
            if !fx.joins.contains(&p) {
                fx.joins.push(p);
            }
            // Reconvergence taint: values of IR(b) live into p.
            for &v in self.liveness.live_in(p) {
                let Some(d) = def_block(self.func, v) else {
                    continue;
                };
                if d == p || !defined_inside(d) {
                    continue;
                }
                let blocks = self.reach_without(p, d);
                fx.taints.push((
                    v,
                    TaintRegion::Reach {
                        from: p,
                        stop: d,
                        blocks,
                    },
                ));
            }
        }
        fx
    }

    /// Blocks reachable from `from` (included) without entering `stop`, sorted.
    fn reach_without(&self, from: Block, stop: Block) -> Vec<Block> {
        let mut seen: SecondaryMap<Block, bool> = SecondaryMap::new();
        let mut stack = vec![from];
        seen[from] = true;
        let mut out = Vec::new();
        while let Some(x) = stack.pop() {
            out.push(x);
            for &s in self.cfg.succs(x) {
                if s != stop && !seen[s] {
                    seen[s] = true;
                    stack.push(s);
                }
            }
        }
        out.sort();
        out
    }

    /// CC'12/LLVM-style label propagation over `scope` (sorted) in reverse postorder.
    fn propagate_labels(
        &self,
        b: Block,
        ipdom: Option<Block>,
        scope: &[Block],
        around: &[Loop],
        fx: &mut BranchEffects,
    ) {
        let in_scope = |x: Block| scope.binary_search(&x).is_ok();
        let rpo = |x: Block| self.cfg.rpo_number(x).unwrap_or(u32::MAX);
        let mut labels: HashMap<Block, Block> = HashMap::new();
        let mut header_labels: HashMap<Block, Vec<Block>> = HashMap::new();
        let mut heap: BinaryHeap<core::cmp::Reverse<(u32, u32)>> = BinaryHeap::new();
        let mut joins: Vec<Block> = Vec::new();
        let divergent = &fx.divergent_loops;
        // Does the edge x → y leave a divergent loop around b?
        let leaves_divergent = |x: Block, y: Block| {
            divergent
                .iter()
                .any(|&l| self.loops.contains(l, x) && !self.loops.contains(l, y))
        };

        let mut send = |x: Block,
                        y: Block,
                        label: Block,
                        labels: &mut HashMap<Block, Block>,
                        heap: &mut BinaryHeap<core::cmp::Reverse<(u32, u32)>>,
                        joins: &mut Vec<Block>| {
            if !in_scope(y) {
                return;
            }
            if self.loops.is_back_edge(x, y) {
                if around.iter().any(|&l| self.loops.header(l) == y) {
                    let hl = header_labels.entry(y).or_default();
                    if !hl.contains(&label) {
                        hl.push(label);
                    }
                    if hl.len() >= 2 && !joins.contains(&y) {
                        joins.push(y);
                    }
                }
                return;
            }
            let label = if leaves_divergent(x, y) {
                if !joins.contains(&y) {
                    joins.push(y);
                }
                y
            } else {
                label
            };
            match labels.get(&y).copied() {
                None => {
                    labels.insert(y, label);
                    heap.push(core::cmp::Reverse((rpo(y), y.as_u32())));
                }
                Some(l) if l != label && l != y => {
                    labels.insert(y, y);
                    if !joins.contains(&y) {
                        joins.push(y);
                    }
                }
                Some(_) => {}
            }
        };

        let mut succs: Vec<Block> = self.cfg.succs(b).to_vec();
        succs.dedup();
        succs.sort();
        succs.dedup();
        for &s in &succs {
            send(b, s, s, &mut labels, &mut heap, &mut joins);
        }
        while let Some(core::cmp::Reverse((_, x))) = heap.pop() {
            let x = Block::new(x as usize);
            if Some(x) == ipdom || x == b {
                continue;
            }
            let Some(&label) = labels.get(&x) else {
                continue;
            };
            for &y in self.cfg.succs(x) {
                send(x, y, label, &mut labels, &mut heap, &mut joins);
            }
        }
        // Exits of divergent loops are joins: lanes arrive there from different iterations.
        for &l in &fx.divergent_loops {
            for &e in self.loops.exit_blocks(l) {
                if in_scope(e) && !joins.contains(&e) {
                    joins.push(e);
                }
            }
        }
        fx.joins.extend(joins);
    }
}
