//! The analyses of one function as one bundle, computed once and kept while valid.
//!
//! Cranelift's `Context` holds a function with its CFG, dominator tree and loop analysis,
//! computes each on demand and drops what a pass invalidates. The vectorizer needs the
//! same discipline: normalization, the divergent loop transform (PLDI'18 §5), partial
//! linearization (§3) and widening each read the CFG, the dominator trees and the loops,
//! and the shape analysis (§2.3) is built on them. Recomputing them at each use costs a
//! pass over the function every time; keeping them across an edit that changed the CFG
//! is a miscompile waiting to happen. The bundle makes both explicit:
//!
//! - [`FunctionAnalyses::compute`] computes the analyses asked for that are not valid,
//!   their dependencies first, and leaves valid ones alone;
//! - a transform says what it *preserves* as an [`AnalysisSet`], and
//!   [`FunctionAnalyses::keep`] drops everything else, together with everything computed
//!   from something dropped (a dominator tree never outlives its CFG);
//! - the getters panic, naming the missing analysis, when asked for one that is not
//!   valid: a stale answer is never returned.
//!
//! The dependencies are those of the crate docs:
//!
//! ```text
//! CFG ──► DOMTREE ─────► LOOPS
//!  │  └─► POST_DOMTREE ─► CONTROL_DEPENDENCE
//!  └────► LIVENESS
//! ```
//!
//! The shape and divergence analysis sits on top: [`crate::shapes::ShapeAnalysis::analyze_in`]
//! takes a bundle, computes the structural analyses it needs in it (CFG, both dominator
//! trees, loops) and returns a [`crate::shapes::ShapeInfo`] that owns the bundle, from
//! which [`crate::shapes::ShapeInfo::into_analyses`] gives it back for the next pass.

use lanes_ir::Function;

use crate::{
    ControlDependence, ControlFlowGraph, DominatorTree, Liveness, LoopForest, PostDominatorTree,
};

/// A set of the analyses of [`FunctionAnalyses`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AnalysisSet(u8);

impl AnalysisSet {
    pub const NONE: AnalysisSet = AnalysisSet(0);
    pub const CFG: AnalysisSet = AnalysisSet(1);
    pub const DOMTREE: AnalysisSet = AnalysisSet(1 << 1);
    pub const POST_DOMTREE: AnalysisSet = AnalysisSet(1 << 2);
    pub const LOOPS: AnalysisSet = AnalysisSet(1 << 3);
    pub const CONTROL_DEPENDENCE: AnalysisSet = AnalysisSet(1 << 4);
    pub const LIVENESS: AnalysisSet = AnalysisSet(1 << 5);
    /// Every analysis of the bundle.
    pub const ALL: AnalysisSet = AnalysisSet((1 << 6) - 1);
    /// What an edit keeps that changes no branch, adds or removes no block and moves no
    /// instruction between blocks, but may add or remove values: everything but liveness.
    pub const CONTROL_FLOW: AnalysisSet = AnalysisSet(Self::ALL.0 & !Self::LIVENESS.0);
    /// What the shape analysis is computed from.
    pub const FOR_SHAPES: AnalysisSet =
        AnalysisSet(Self::CFG.0 | Self::DOMTREE.0 | Self::POST_DOMTREE.0 | Self::LOOPS.0);

    pub const fn union(self, other: AnalysisSet) -> AnalysisSet {
        AnalysisSet(self.0 | other.0)
    }

    pub const fn contains(self, other: AnalysisSet) -> bool {
        self.0 & other.0 == other.0
    }

    /// The analyses each member is computed from, directly.
    const fn direct_dependencies(self) -> AnalysisSet {
        let mut deps = 0;
        if self.0 & (Self::DOMTREE.0 | Self::POST_DOMTREE.0 | Self::LIVENESS.0) != 0 {
            deps |= Self::CFG.0;
        }
        if self.0 & Self::LOOPS.0 != 0 {
            deps |= Self::CFG.0 | Self::DOMTREE.0;
        }
        if self.0 & Self::CONTROL_DEPENDENCE.0 != 0 {
            deps |= Self::CFG.0 | Self::POST_DOMTREE.0;
        }
        AnalysisSet(deps)
    }

    /// The set and everything its members are computed from.
    pub const fn with_dependencies(self) -> AnalysisSet {
        // Two rounds reach the bottom of the dependency graph (depth two).
        let once = self.union(self.direct_dependencies());
        once.union(once.direct_dependencies())
    }

    /// The members whose dependencies are all in the set.
    const fn closed(self) -> AnalysisSet {
        let mut kept = self.0;
        let mut bit = 1;
        while bit <= Self::ALL.0 {
            let member = AnalysisSet(bit);
            if kept & bit != 0 && member.direct_dependencies().0 & !kept != 0 {
                kept &= !bit;
            }
            bit <<= 1;
        }
        AnalysisSet(kept)
    }
}

impl std::ops::BitOr for AnalysisSet {
    type Output = AnalysisSet;
    fn bitor(self, other: AnalysisSet) -> AnalysisSet {
        self.union(other)
    }
}

/// What a transform changed in a function, which says what it preserved: a transform
/// returns it, and its caller passes [`Edits::preserved`] to [`FunctionAnalyses::keep`]
/// (and re-runs the shape analysis unless nothing changed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Edits {
    /// The function is as it was: every analysis, shapes included, still holds.
    #[default]
    Nothing,
    /// Instructions or values were added or removed, but no block or branch edge: the
    /// control-flow analyses hold ([`AnalysisSet::CONTROL_FLOW`]), liveness and shapes
    /// do not.
    Values,
    /// Blocks or edges changed: nothing holds.
    ControlFlow,
}

impl Edits {
    /// The analyses that still hold after these edits.
    pub fn preserved(self) -> AnalysisSet {
        match self {
            Edits::Nothing => AnalysisSet::ALL,
            Edits::Values => AnalysisSet::CONTROL_FLOW,
            Edits::ControlFlow => AnalysisSet::NONE,
        }
    }

    /// Both edits, one after the other.
    pub fn then(self, other: Edits) -> Edits {
        self.max(other)
    }

    /// `Values` if `changed`, else `Nothing`.
    pub fn values_if(changed: bool) -> Edits {
        if changed {
            Edits::Values
        } else {
            Edits::Nothing
        }
    }

    /// `ControlFlow` if `changed`, else `Nothing`.
    pub fn control_flow_if(changed: bool) -> Edits {
        if changed {
            Edits::ControlFlow
        } else {
            Edits::Nothing
        }
    }
}

/// The CFG analyses of one function, each computed at most once while it stays valid.
#[derive(Clone, Debug, Default)]
pub struct FunctionAnalyses {
    cfg: ControlFlowGraph,
    domtree: DominatorTree,
    post_domtree: PostDominatorTree,
    loops: LoopForest,
    control_dependence: ControlDependence,
    liveness: Liveness,
}

impl FunctionAnalyses {
    /// An empty bundle: nothing valid.
    pub fn new() -> Self {
        Self::default()
    }

    /// A bundle with `wanted` (and their dependencies) computed for `func`.
    pub fn with_function(func: &Function, wanted: AnalysisSet) -> Self {
        let mut analyses = Self::new();
        analyses.compute(func, wanted);
        analyses
    }

    /// Computes for `func` each analysis of `wanted` that is not valid, and the
    /// dependencies it needs, in dependency order; valid ones are kept as they are. The
    /// caller promises that valid analyses describe `func` (what [`Self::keep`] is for).
    pub fn compute(&mut self, func: &Function, wanted: AnalysisSet) {
        let missing = AnalysisSet(wanted.with_dependencies().0 & !self.valid().0);
        if missing.contains(AnalysisSet::CFG) {
            self.cfg.compute(func);
        }
        if missing.contains(AnalysisSet::DOMTREE) {
            self.domtree.compute(func, &self.cfg);
        }
        if missing.contains(AnalysisSet::POST_DOMTREE) {
            self.post_domtree.compute(func, &self.cfg);
        }
        if missing.contains(AnalysisSet::LOOPS) {
            self.loops.compute(&self.cfg, &self.domtree);
        }
        if missing.contains(AnalysisSet::CONTROL_DEPENDENCE) {
            self.control_dependence
                .compute(&self.cfg, &self.post_domtree);
        }
        if missing.contains(AnalysisSet::LIVENESS) {
            self.liveness.compute(func, &self.cfg);
        }
    }

    /// The analyses that are valid.
    pub fn valid(&self) -> AnalysisSet {
        let flags = [
            (self.cfg.is_valid(), AnalysisSet::CFG),
            (self.domtree.is_valid(), AnalysisSet::DOMTREE),
            (self.post_domtree.is_valid(), AnalysisSet::POST_DOMTREE),
            (self.loops.is_valid(), AnalysisSet::LOOPS),
            (
                self.control_dependence.is_valid(),
                AnalysisSet::CONTROL_DEPENDENCE,
            ),
            (self.liveness.is_valid(), AnalysisSet::LIVENESS),
        ];
        flags
            .into_iter()
            .filter(|(valid, _)| *valid)
            .fold(AnalysisSet::NONE, |set, (_, member)| set | member)
    }

    /// Are all of `set` valid?
    pub fn is_valid(&self, set: AnalysisSet) -> bool {
        self.valid().contains(set)
    }

    /// After a transform that made `edits`: keeps what they preserve.
    pub fn keep_after(&mut self, edits: Edits) {
        self.keep(edits.preserved());
    }

    /// Drops every analysis.
    pub fn clear(&mut self) {
        self.keep(AnalysisSet::NONE);
    }

    /// After a transform that preserves `preserved`: drops every other analysis, and every
    /// analysis computed from a dropped one (keeping a loop forest whose CFG changed would
    /// answer for a graph that no longer exists).
    pub fn keep(&mut self, preserved: AnalysisSet) {
        let kept = AnalysisSet(preserved.0 & self.valid().0).closed();
        if !kept.contains(AnalysisSet::CFG) {
            self.cfg.clear();
        }
        if !kept.contains(AnalysisSet::DOMTREE) {
            self.domtree.clear();
        }
        if !kept.contains(AnalysisSet::POST_DOMTREE) {
            self.post_domtree.clear();
        }
        if !kept.contains(AnalysisSet::LOOPS) {
            self.loops.clear();
        }
        if !kept.contains(AnalysisSet::CONTROL_DEPENDENCE) {
            self.control_dependence.clear();
        }
        if !kept.contains(AnalysisSet::LIVENESS) {
            self.liveness.clear();
        }
    }

    fn expect_valid(&self, member: AnalysisSet, name: &str) {
        assert!(
            self.is_valid(member),
            "the {name} was asked for but is not valid: compute it first \
             (FunctionAnalyses::compute), and after a transform keep only what it preserves"
        );
    }

    pub fn cfg(&self) -> &ControlFlowGraph {
        self.expect_valid(AnalysisSet::CFG, "CFG");
        &self.cfg
    }

    pub fn domtree(&self) -> &DominatorTree {
        self.expect_valid(AnalysisSet::DOMTREE, "dominator tree");
        &self.domtree
    }

    pub fn post_domtree(&self) -> &PostDominatorTree {
        self.expect_valid(AnalysisSet::POST_DOMTREE, "post-dominator tree");
        &self.post_domtree
    }

    pub fn loops(&self) -> &LoopForest {
        self.expect_valid(AnalysisSet::LOOPS, "loop forest");
        &self.loops
    }

    pub fn control_dependence(&self) -> &ControlDependence {
        self.expect_valid(AnalysisSet::CONTROL_DEPENDENCE, "control dependence");
        &self.control_dependence
    }

    pub fn liveness(&self) -> &Liveness {
        self.expect_valid(AnalysisSet::LIVENESS, "liveness");
        &self.liveness
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanes_ir::{FuncBuilder, Type};

    /// `entry → (then | join)`, `then → join`, `join → ret`.
    fn diamond() -> Function {
        let mut func = Function::new("f", &[Type::I1], None);
        let c = func.params[0].value;
        let mut b = FuncBuilder::new(&mut func);
        let (entry, then, join) = (b.create_block(), b.create_block(), b.create_block());
        b.switch_to_block(entry);
        b.brif(c, then, join);
        b.switch_to_block(then);
        b.jump(join);
        b.switch_to_block(join);
        b.ret(None);
        func
    }

    #[test]
    fn dependencies_are_closed_both_ways() {
        assert_eq!(
            AnalysisSet::LOOPS.with_dependencies(),
            AnalysisSet::LOOPS | AnalysisSet::DOMTREE | AnalysisSet::CFG
        );
        assert_eq!(
            AnalysisSet::CONTROL_DEPENDENCE.with_dependencies(),
            AnalysisSet::CONTROL_DEPENDENCE | AnalysisSet::POST_DOMTREE | AnalysisSet::CFG
        );
        assert_eq!(AnalysisSet::ALL.with_dependencies(), AnalysisSet::ALL);
        // Keeping loops without the dominator tree they came from keeps nothing of them.
        assert_eq!(
            (AnalysisSet::CFG | AnalysisSet::LOOPS).closed(),
            AnalysisSet::CFG
        );
        assert_eq!(
            AnalysisSet::CONTROL_FLOW.closed(),
            AnalysisSet::CONTROL_FLOW
        );
    }

    #[test]
    fn compute_fills_only_what_is_asked_and_its_dependencies() {
        let func = diamond();
        let mut a = FunctionAnalyses::new();
        assert_eq!(a.valid(), AnalysisSet::NONE);
        a.compute(&func, AnalysisSet::CONTROL_DEPENDENCE);
        assert_eq!(
            a.valid(),
            AnalysisSet::CFG | AnalysisSet::POST_DOMTREE | AnalysisSet::CONTROL_DEPENDENCE
        );
        a.compute(&func, AnalysisSet::ALL);
        assert!(a.is_valid(AnalysisSet::ALL));
        let blocks: Vec<_> = func.layout.blocks().collect();
        assert_eq!(a.domtree().idom(blocks[2]), Some(blocks[0]));
        assert_eq!(a.post_domtree().ipdom(blocks[0]), Some(blocks[2]));
        assert!(a.loops().loops().next().is_none());
    }

    #[test]
    fn keep_drops_what_is_not_preserved_and_what_depends_on_it() {
        let func = diamond();
        let mut a = FunctionAnalyses::with_function(&func, AnalysisSet::ALL);
        a.keep(AnalysisSet::CONTROL_FLOW);
        assert_eq!(a.valid(), AnalysisSet::CONTROL_FLOW);
        // Preserving the loops but not the CFG preserves neither.
        a.keep(AnalysisSet::LOOPS | AnalysisSet::DOMTREE);
        assert_eq!(a.valid(), AnalysisSet::NONE);
        a.compute(&func, AnalysisSet::LIVENESS);
        a.clear();
        assert_eq!(a.valid(), AnalysisSet::NONE);
    }

    #[test]
    fn edits_say_what_they_preserve() {
        assert_eq!(Edits::Nothing.preserved(), AnalysisSet::ALL);
        assert_eq!(Edits::Values.preserved(), AnalysisSet::CONTROL_FLOW);
        assert_eq!(Edits::ControlFlow.preserved(), AnalysisSet::NONE);
        assert_eq!(Edits::Values.then(Edits::Nothing), Edits::Values);
        assert_eq!(Edits::Values.then(Edits::ControlFlow), Edits::ControlFlow);
        let func = diamond();
        let mut a = FunctionAnalyses::with_function(&func, AnalysisSet::ALL);
        a.keep_after(Edits::Values);
        assert!(!a.is_valid(AnalysisSet::LIVENESS) && a.is_valid(AnalysisSet::LOOPS));
    }

    #[test]
    #[should_panic(expected = "the loop forest was asked for but is not valid")]
    fn a_dropped_analysis_is_never_returned() {
        let func = diamond();
        let mut a = FunctionAnalyses::with_function(&func, AnalysisSet::ALL);
        a.keep(AnalysisSet::NONE);
        let _ = a.loops();
    }
}
