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
//!   propagation in reverse postorder from `b` up to its immediate post-dominator `p` (the
//!   influence region `IR(b)` of PACT'11 §III): each successor starts its own label, a block
//!   whose predecessors bring two different labels is a join and starts its own. Back edges
//!   to a header of a loop around `b` make the header a join when they bring different
//!   labels. Once a single path remains, no two labels can meet again (except at such
//!   headers, which are checked) and the propagation stops, so `IR(b)` is never
//!   materialized. `p` is always a join: it is where the μ-SIMD machine of PACT'11 §II
//!   reconverges.
//! - **Divergent loops and temporal divergence** (CC'12 Definition 1 case 3; PACT'11
//!   Algorithm 7 step 1.b): a loop around `b` whose lanes can leave it at different times —
//!   `p` lies outside it, or `b` has no post-dominator, or `p` post-dominates one of its
//!   exit blocks (paths from `b` leave the loop and come back to `p` around an enclosing
//!   loop) — is *divergent*. Its exit blocks are joins (lanes arrive from different
//!   iterations), blocks where two of its exits meet are joins ([`DivergenceCtx::
//!   loop_exit_joins`], once per loop), exit edges are divergent or taken by all lanes
//!   together, and every value defined in it is varying where used outside it.
//! - **Reconvergence inside a loop**: if `p` lies in a loop around `b` and lanes may run
//!   another iteration of that loop before reaching `p` (a divergent `continue`; `p` the
//!   loop header), lanes meet at `p` with values computed in different iterations; every
//!   value defined in such a loop is then varying at every use
//!   ([`BranchEffects::rerun_loops`]). The test is a sufficient condition on dominance
//!   ([`reconverges_within`]).
//! - **Irreducible regions** are handled conservatively, never rejected: if `IR(b) ∪ {p}`
//!   touches one, every block of it with two predecessors is a join and every value defined
//!   inside is varying at every use.
//!
//! The propagation engine itself is [`super::propagate`].

use std::cell::RefCell;
use std::collections::HashSet;

use lanes_ir::{Block, Function, Value, ValueDef};

use crate::cfg::ControlFlowGraph;
use crate::dominators::DominatorTree;
use crate::loops::{Loop, LoopForest};
use crate::post_dominators::PostDominatorTree;

use super::scratch::PropagationScratch;

/// Where uses of a value see it as varying.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TaintRegion {
    /// Uses in blocks outside the loop (φ uses: the φ's block).
    OutsideLoop(Loop),
    /// Every use.
    Everywhere,
}

impl TaintRegion {
    /// Is a use in `block` (for a φ: the φ's block) inside?
    pub fn contains(&self, loops: &LoopForest, block: Block) -> bool {
        match self {
            TaintRegion::OutsideLoop(l) => !loops.contains(*l, block),
            TaintRegion::Everywhere => true,
        }
    }
}

/// The effects of one divergent branch.
#[derive(Clone, Debug, Default)]
pub struct BranchEffects {
    /// The branch's reconvergence point (`None`: the virtual exit).
    pub ipdom: Option<Block>,
    /// `IR(b)`, sorted; empty when not computed (`region_known` false: the branch has
    /// no post-dominator in a reducible function, and its region is everything reachable).
    pub region: Vec<Block>,
    pub region_known: bool,
    /// Join-divergent blocks (with the branch as their cause).
    pub joins: Vec<Block>,
    /// Loops around the branch that became divergent.
    pub divergent_loops: Vec<Loop>,
    /// Loops around the branch containing its reconvergence point in which lanes may run
    /// another iteration before reconverging: lanes meet there with values from different
    /// iterations, so every value defined in such a loop is varying at every use.
    pub rerun_loops: Vec<Loop>,
    /// Loops around the branch in which some path from it reaches a latch before `p`
    /// (lanes may run another iteration before reconverging); `None`: not computed, so
    /// [`BranchEffects::may_rerun`] uses a dominance test instead.
    pub rerun_within: Option<Vec<Loop>>,
    /// Values and the regions where their uses are varying.
    pub taints: Vec<(Value, TaintRegion)>,
    /// The branch touches an irreducible region (conservative treatment).
    pub irreducible: bool,
}

/// The CFG analyses divergence needs.
pub struct DivergenceCtx<'a> {
    /// Blocks visited by label propagation so far (a machine-independent work measure).
    pub steps: core::cell::Cell<u64>,
    pub func: &'a Function,
    pub cfg: &'a ControlFlowGraph,
    pub domtree: &'a DominatorTree,
    pub pdt: &'a PostDominatorTree,
    pub loops: &'a LoopForest,
    /// Dense per-block state of the label propagation, shared by the runs of one analysis.
    pub scratch: &'a RefCell<PropagationScratch>,
}

/// The block defining `v` (`None` for parameters, which precede every block).
pub fn def_block(func: &Function, v: Value) -> Option<Block> {
    match func.dfg.value_def(v) {
        ValueDef::Param(_) => None,
        ValueDef::Result(inst) => func.layout.inst_block(inst),
    }
}

impl BranchEffects {
    /// May block `d` run again after the branch in `b` before lanes reconverge (is it in
    /// `IR(b)`, `b` itself only if re-entered)? Conservative when the region is not known:
    /// only blocks strictly dominating `b` outside every loop around `b` are excluded.
    pub fn may_rerun(
        &self,
        d: Block,
        b: Block,
        domtree: &DominatorTree,
        loops: &LoopForest,
        cfg: &ControlFlowGraph,
    ) -> bool {
        if self.region_known {
            let inside = self.region.binary_search(&d).is_ok();
            return inside
                && (d != b
                    || self
                        .region
                        .iter()
                        .any(|&x| cfg.succs(x).contains(&b) && Some(b) != self.ipdom));
        }
        if !domtree.dominates(d, b) {
            // `d` after `b` (or beside it) and before the reconvergence point.
            return true;
        }
        // `d` dominates `b`: it runs again only around a loop containing both, unless the
        // reconvergence point `p` lies on every way from `b` to that loop's latches: `p` in
        // the loop, dominating every latch, not dominating `b` (then a path from `b` to a
        // latch avoiding `p` would extend a path from the entry to `b` avoiding `p`).
        if let Some(within) = &self.rerun_within {
            return within.iter().any(|&x| loops.contains(x, d));
        }
        let mut l = loops.innermost_loop(b);
        while let Some(x) = l {
            if loops.contains(x, d) && !reconverges_within(x, b, self.ipdom, domtree, loops) {
                return true;
            }
            l = loops.parent(x);
        }
        false
    }
}

/// Blocks a [`DivergenceCtx`] search for a latch may visit per branch and loop.
pub const RERUN_SEARCH_BUDGET: usize = 64;

/// Does every path from `b` to a latch of `l` pass `p`? (Sufficient test, see
/// [`BranchEffects::may_rerun`].)
pub fn reconverges_within(
    l: Loop,
    b: Block,
    p: Option<Block>,
    domtree: &DominatorTree,
    loops: &LoopForest,
) -> bool {
    p.is_some_and(|p| {
        loops.contains(l, p)
            && !domtree.dominates(p, b)
            && loops.latches(l).iter().all(|&t| domtree.dominates(p, t))
    })
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
        if self.loops.is_reducible() {
            return self.reducible_effects(b);
        }
        let ipdom = self.pdt.ipdom(b);
        let region = self.pdt.influence_region(self.cfg, b);
        let mut scope = region.clone();
        if let Some(p) = ipdom {
            if let Err(pos) = scope.binary_search(&p) {
                scope.insert(pos, p);
            }
        }
        let mut fx = BranchEffects {
            ipdom,
            region: region.clone(),
            region_known: true,
            ..BranchEffects::default()
        };
        fx.divergent_loops = self.loops_around(b);
        if !self.touches_irreducible(&scope) {
            // A reducible part of an irreducible function: as for reducible functions.
            let mut r = self.reducible_effects(b);
            r.region = region;
            r.region_known = true;
            return r;
        }
        // Conservative treatment: every block of the region with two predecessors is a
        // join, every value defined in it is varying at every use.
        fx.irreducible = true;
        for &x in &scope {
            if self.cfg.preds(x).len() >= 2 || Some(x) == ipdom {
                fx.joins.push(x);
            }
        }
        let b_reentered = region.iter().any(|&x| self.cfg.succs(x).contains(&b));
        for &x in &region {
            if x == b && !b_reentered {
                continue;
            }
            for &inst in self.func.layout.block_insts(x) {
                if let Some(v) = self.func.dfg.inst_result(inst) {
                    fx.taints.push((v, TaintRegion::Everywhere));
                }
            }
        }
        fx
    }

    /// The effects of a divergent branch outside irreducible regions, without computing
    /// `IR(b)` (whose total size over all branches can grow quadratically):
    ///
    /// - a loop around `b` is divergent if `p` lies outside it (or `b` has no
    ///   post-dominator), or if `p` post-dominates one of its exit blocks — the paths from
    ///   `b` then may leave the loop and come back to `p` through an enclosing loop;
    /// - joins come from label propagation, stopping at `p`, at the exits of divergent
    ///   loops and as soon as one path remains;
    /// - a value live into `p` whose definition may run again after `b`
    ///   ([`BranchEffects::may_rerun`]) is varying at the uses it reaches from `p`.
    fn reducible_effects(&self, b: Block) -> BranchEffects {
        let ipdom = self.pdt.ipdom(b);
        let mut fx = BranchEffects {
            ipdom,
            ..BranchEffects::default()
        };
        let around = self.loops_around(b);
        for &l in &around {
            let divergent = match ipdom {
                None => true,
                Some(p) => {
                    !self.loops.contains(l, p)
                        || self
                            .loops
                            .exit_blocks(l)
                            .iter()
                            .any(|&e| self.pdt.post_dominates(p, e))
                }
            };
            if divergent {
                fx.divergent_loops.push(l);
            }
        }
        fx.rerun_within = Some(
            around
                .iter()
                .copied()
                .filter(|&l| !self.reconverges_before_latch(l, b, ipdom))
                .collect(),
        );
        self.propagate_labels(b, ipdom, None, &around, &mut fx);
        if let Some(p) = ipdom {
            if !fx.joins.contains(&p) {
                fx.joins.push(p);
            }
            // Only loops around `b` containing `p` in which lanes may run another iteration
            // before `p` can hand `p` values from different iterations.
            let within = fx.rerun_within.clone().unwrap_or_default();
            fx.rerun_loops = within
                .into_iter()
                .filter(|&l| self.loops.contains(l, p))
                .collect();
        }
        fx
    }

    /// Does every path from `b` to a latch of `l` pass `p`? First the dominance test of
    /// [`reconverges_within`]; failing that, a forward search from `b` that avoids `p` and
    /// the loop's back edges, looking for a latch, bounded to [`RERUN_SEARCH_BUDGET`]
    /// blocks (beyond it the answer is a conservative no), so the cost per branch stays
    /// constant.
    fn reconverges_before_latch(&self, l: Loop, b: Block, p: Option<Block>) -> bool {
        let Some(p) = p else {
            return false;
        };
        if !self.loops.contains(l, p) {
            return false;
        }
        if reconverges_within(l, b, Some(p), self.domtree, self.loops) {
            return true;
        }
        let latches = self.loops.latches(l);
        let mut seen: HashSet<Block> = HashSet::from([b]);
        let mut stack = vec![b];
        while let Some(x) = stack.pop() {
            // A latch reached before `p` starts another iteration, unless its back edge
            // leads to `p` itself (reconvergence at the header, same iteration count).
            if latches.contains(&x) && self.loops.header(l) != p {
                return false;
            }
            for &s in self.cfg.succs(x) {
                if s == p || !self.loops.contains(l, s) || self.loops.is_back_edge(x, s) {
                    // Leaving the loop without `p` is the nested case: conservative.
                    if s != p && !self.loops.contains(l, s) {
                        return false;
                    }
                    continue;
                }
                if seen.insert(s) {
                    if seen.len() > RERUN_SEARCH_BUDGET {
                        return false;
                    }
                    stack.push(s);
                }
            }
        }
        true
    }

    /// Joins of the exits of a divergent loop `l` (CC'12 Definition 1 case 3 continued):
    /// every exit block starts its own label (lanes arrive there at different times), and
    /// blocks where two of them meet after the loop are joins. Independent of the branch
    /// that made `l` divergent, so computed once per loop.
    pub fn loop_exit_joins(&self, l: Loop) -> Vec<Block> {
        let mut seeds = Vec::new();
        for &x in self.loops.exiting_blocks(l) {
            for &e in self.cfg.succs(x) {
                if !self.loops.contains(l, e) {
                    seeds.push((x, e, e));
                }
            }
        }
        let mut around = Vec::new();
        let mut p = self.loops.parent(l);
        while let Some(x) = p {
            around.push(x);
            p = self.loops.parent(x);
        }
        let mut joins = self.propagate(&seeds, None, &around, None, &[]);
        for &(_, e, _) in &seeds {
            if !joins.contains(&e) {
                joins.push(e);
            }
        }
        joins
    }

    /// CC'12/LLVM-style label propagation for the divergent branch in `b` over `scope`
    /// (sorted; `None`: every reachable block), stopping at `ipdom` and at the exits of the
    /// divergent loops around `b`, which are joins (what lies beyond them is
    /// [`Self::loop_exit_joins`]).
    fn propagate_labels(
        &self,
        b: Block,
        ipdom: Option<Block>,
        scope: Option<&[Block]>,
        around: &[Loop],
        fx: &mut BranchEffects,
    ) {
        let mut succs: Vec<Block> = self.cfg.succs(b).to_vec();
        succs.sort();
        succs.dedup();
        let seeds: Vec<(Block, Block, Block)> = succs.iter().map(|&s| (b, s, s)).collect();
        let joins = self.propagate(&seeds, scope, around, ipdom, &fx.divergent_loops);
        fx.joins.extend(joins);
        // Exits of divergent loops are joins: lanes arrive there from different iterations.
        for &l in &fx.divergent_loops {
            for &e in self.loops.exit_blocks(l) {
                let inside = scope.is_none_or(|s| s.binary_search(&e).is_ok());
                if inside && !fx.joins.contains(&e) {
                    fx.joins.push(e);
                }
            }
        }
    }
}
