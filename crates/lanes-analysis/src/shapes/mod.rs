//! Vector shape and divergence analysis (PLDI'18 §2.3–2.4; CC'12 §3.1–3.2; PACT'11 §III).
//!
//! Given how a function's arguments vary across the SIMD lanes that run it together
//! (uniform, contiguous, strided, varying — from `--shapes`, from the parameters' IR
//! attributes, or by default), the analysis computes
//!
//! - the [`VShape`] of every SSA value ([`lattice`], [`mod@transfer`]; strides through
//!   `sext`/`zext` of arithmetic that cannot wrap: [`no_wrap`]);
//! - which branches are *divergent* (their condition is not uniform);
//! - which blocks are *join-divergent* and which loops are *divergent*, and where values
//!   are temporally divergent ([`divergence`]).
//!
//! # The fixpoint and its monotonicity contract
//!
//! As in rustc's dataflow framework, the analysis is a least fixpoint of monotone
//! functions over a lattice of finite height, computed by a worklist:
//!
//! - the state is one [`VShape`] per value, plus monotone sets (divergent branches,
//!   join-divergent blocks with their causing branches, divergent loops, taints);
//! - every value starts at `undef` (bottom); parameters start at their argument shape;
//! - processing an instruction computes its transfer function from the current state and
//!   *joins* the result into the value's shape (`new = old ⊔ f(state)`), so shapes only
//!   go up even where a rule is not monotone in alignment; a changed value re-queues its
//!   users;
//! - a branch whose condition becomes non-uniform is marked divergent once, and its
//!   effects (new joins, divergent loops, taints) re-queue the φs of the new join blocks
//!   and the users of tainted values. These sets only grow;
//! - φ-nodes join their incoming shapes (from reachable predecessors, temporal taint
//!   applied at the edge); in a join-divergent block the result is made varying unless it is
//!   a *gated φ* whose incoming values are one value (or equal constants) defined before
//!   every causing branch (PACT'11 Algorithm 7).
//!
//! Every value's shape can rise at most a bounded number of times (see [`lattice`]), each
//! branch becomes divergent once, so the worklist empties after O(height · uses) steps:
//! linear in the function's size for a fixed lattice height (`bench/analysis_scaling`).
//!
//! Calls to defined functions are summarized by analyzing the callee with the call's
//! argument shapes; a callee that writes memory, is recursive, or has a divergent branch
//! gives a varying result.

pub mod divergence;
pub mod lattice;
pub mod no_wrap;
pub mod propagate;
pub mod report;
pub mod scratch;
pub mod summary;
pub mod svg;
pub mod transfer;

use std::cell::{OnceCell, RefCell};
use std::collections::{HashMap, VecDeque};

use cranelift_entity::SecondaryMap;
use lanes_ir::{Block, FuncId, Function, Inst, InstData, Module, Shape, Value};

pub use divergence::{BranchEffects, TaintRegion};
pub use lattice::{parse_shape, parse_shape_list, ShapeSyntaxError, VShape};

use crate::call_graph::CallGraph;
use crate::cfg::ControlFlowGraph;
use crate::dominators::DominatorTree;
use crate::function_analyses::{AnalysisSet, FunctionAnalyses};
use crate::loops::{Loop, LoopForest};
use crate::post_dominators::PostDominatorTree;
use divergence::{def_block, DivergenceCtx};
use no_wrap::ExtForm;
use propagate::DEFAULT_WALK_BUDGET;
use scratch::PropagationScratch;
use transfer::{transfer, Env};

/// Why the analysis could not run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    #[error("@{func} has {params} parameters but {given} argument shapes were given")]
    Arity {
        func: String,
        params: usize,
        given: usize,
    },
    #[error("@{0} has no body")]
    NoBody(String),
}

/// The shape of every argument: `None` takes the parameter's IR attribute, else uniform
/// for kernels and varying for other functions.
pub type ArgShapes = [Option<(Shape, u32)>];

/// The results of the shape and divergence analysis of one function.
#[derive(Clone, Debug)]
pub struct ShapeInfo {
    /// The CFG analyses the shapes were computed on (CFG, both dominator trees, loops, and
    /// whatever else the bundle held when it was handed in).
    analyses: FunctionAnalyses,
    shapes: SecondaryMap<Value, VShape>,
    divergent_branch: SecondaryMap<Block, bool>,
    /// Branch blocks that made each block join-divergent.
    join_causes: SecondaryMap<Block, Vec<Block>>,
    divergent_loops: Vec<Loop>,
    is_divergent_loop: SecondaryMap<Loop, bool>,
    propagation_steps: u64,
    /// Walks of the label propagation cut short and summarized ([`propagate::WalkSummary`]).
    summarized_walks: u64,
    /// Joins made by a summary: their φs are gated only by values computed once per call.
    summary_join: SecondaryMap<Block, bool>,
    /// Loops whose values are varying everywhere (see [`BranchEffects::rerun_loops`]).
    is_rerun_loop: SecondaryMap<Loop, bool>,
    /// Loops with an exit edge of a divergent branch, per exit edge.
    taints: SecondaryMap<Value, Vec<usize>>,
    regions: Vec<TaintRegion>,
    effects: HashMap<Block, BranchEffects>,
    /// Values uniform or strided at their definition but varying at some use.
    temporal: SecondaryMap<Value, bool>,
    /// The parameters' shapes were declared (analysis of a function), not taken from a
    /// call site (summary of a callee); see [`no_wrap`].
    declared_params: bool,
    /// φ and select operands that stand for "any value" ([`ShapeAnalysis::set_dont_care`]).
    dont_care: Vec<Value>,
}

/// Analyzes defined functions of a module.
pub struct ShapeAnalysis<'m> {
    module: &'m Module,
    walk_budget: Option<u64>,
    summaries: RefCell<HashMap<(FuncId, Vec<VShape>), VShape>>,
    /// The module's call graph, built at the first call summary: a recursive callee's
    /// summary would be a fixpoint over its cycle, so it is varying instead.
    calls: OnceCell<CallGraph>,
    /// φ operands of the analysed function that stand for "any value".
    dont_care: RefCell<Vec<Value>>,
    /// The number of lanes, when the analysis is for one width: `num_lanes` is then that
    /// constant (an element-major private array's `x · num_lanes` offsets have strides).
    num_lanes: Option<u16>,
}

impl<'m> ShapeAnalysis<'m> {
    pub fn new(module: &'m Module) -> Self {
        ShapeAnalysis {
            module,
            walk_budget: Some(DEFAULT_WALK_BUDGET),
            summaries: RefCell::new(HashMap::new()),
            calls: OnceCell::new(),
            dont_care: RefCell::new(Vec::new()),
            num_lanes: None,
        }
    }

    /// The analysis for code that runs at `width` lanes: `num_lanes` is the constant
    /// `width`, so that an offset scaled by it keeps a stride (a contiguous index into an
    /// element-major private array is strided by `width + 1` elements).
    pub fn with_num_lanes(mut self, width: u16) -> Self {
        self.num_lanes = Some(width);
        self
    }

    /// The constant value of `v` in `func`: an `iconst`, or `num_lanes` at a known width.
    pub(super) fn constant_in(&self, func: &Function, v: Value) -> Option<i64> {
        constant_of(func, v).or_else(|| {
            let width = self.num_lanes?;
            let i = func.dfg.def_inst(v)?;
            matches!(
                func.dfg.inst(i),
                InstData::Intrinsic {
                    id: lanes_ir::Intrinsic::NumLanes,
                    ..
                }
            )
            .then_some(i64::from(width))
        })
    }

    /// Values of the function analysed by [`Self::analyze_in`] (not of callees) that only
    /// stand for "any value": what PLDI'18 §5's divergent loop transform passes back to
    /// the header for the instances that left the loop, which are dead there. A φ ignores
    /// such incoming values, so that a counter the live instances share stays uniform
    /// although the pure latch joins divergent paths: its exit test stays a uniform branch
    /// that linearization keeps (the Mandelbrot loop's `k == limit`, Fig. 9's kill exit).
    /// Likewise a `select c, v, d` whose `d` is such a value has `v`'s shape: the guards
    /// linearization puts on division operands select a harmless constant only for the
    /// block's inactive instances.
    pub fn set_dont_care(&self, values: &[Value]) {
        *self.dont_care.borrow_mut() = values.to_vec();
    }

    /// Steps one label-propagation walk may take before the rest of it is summarized
    /// (`None`: exact walks, whose total cost can grow faster than the function; see
    /// [`propagate`]). The default is [`DEFAULT_WALK_BUDGET`].
    pub fn with_walk_budget(mut self, budget: Option<u64>) -> Self {
        self.walk_budget = budget;
        self
    }

    /// Analyzes defined function `id` with argument shapes `args` (empty: all from
    /// attributes).
    pub fn analyze(&self, id: FuncId, args: &ArgShapes) -> Result<ShapeInfo, ShapeError> {
        let func = self
            .module
            .function(id)
            .ok_or_else(|| ShapeError::NoBody(self.module.funcs[id].name().to_string()))?;
        self.analyze_body(func, args)
    }

    /// Analyzes `func`, a body of one of the module's functions that need not be the one
    /// in the module (a transform's work in progress), with argument shapes `args`. Calls
    /// are summarized from the module's callees, so the module is never copied to analyze
    /// an edited function; a transform re-runs only this, on its own copy.
    pub fn analyze_body(&self, func: &Function, args: &ArgShapes) -> Result<ShapeInfo, ShapeError> {
        self.analyze_in(func, args, FunctionAnalyses::new())
    }

    /// [`Self::analyze_body`] on the CFG analyses of `analyses`, which must describe
    /// `func` where they are valid: what they lack is computed in them, and the result
    /// owns them ([`ShapeInfo::into_analyses`] hands them on to the next pass).
    pub fn analyze_in(
        &self,
        func: &Function,
        args: &ArgShapes,
        analyses: FunctionAnalyses,
    ) -> Result<ShapeInfo, ShapeError> {
        if !args.is_empty() && args.len() != func.params.len() {
            return Err(ShapeError::Arity {
                func: func.name.clone(),
                params: func.params.len(),
                given: args.len(),
            });
        }
        let seeds: Vec<VShape> = func
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let user = args.get(i).copied().flatten();
                match user.or(p.attrs.shape.map(|s| (s, p.attrs.align))) {
                    Some((s, a)) => VShape::from_param(s, a),
                    None if func.attrs.kernel => VShape::uniform(p.attrs.align),
                    None => VShape::varying(p.attrs.align),
                }
            })
            .collect();
        let info = self.run(func, &seeds, true, analyses);
        Ok(info)
    }

    /// The result shape of a call of `callee` with argument shapes `args`.
    fn summary(&self, callee: FuncId, args: &[VShape]) -> VShape {
        let key = (callee, args.to_vec());
        if let Some(&s) = self.summaries.borrow().get(&key) {
            return s;
        }
        let Some(func) = self.module.function(callee) else {
            return VShape::VARYING;
        };
        let calls = self
            .calls
            .get_or_init(|| CallGraph::with_module(self.module));
        if calls.is_recursive(callee) || writes_memory(func) {
            return VShape::VARYING;
        }
        let info = self.run(func, args, false, FunctionAnalyses::new());
        let mut ret = VShape::Undef;
        for &b in info.analyses.cfg().blocks() {
            if let Some(t) = func.terminator(b) {
                if let InstData::Return { value: Some(v) } = func.dfg.inst(t) {
                    ret = ret.join(info.use_shape(func, *v, t));
                }
            }
        }
        let any_divergent = info
            .analyses
            .cfg()
            .blocks()
            .iter()
            .any(|&b| info.divergent_branch[b]);
        let result = if any_divergent || ret.is_undef() {
            ret.to_varying().join(VShape::VARYING)
        } else {
            ret
        };
        self.summaries.borrow_mut().insert(key, result);
        result
    }

    fn run(
        &self,
        func: &Function,
        seeds: &[VShape],
        declared_params: bool,
        mut analyses: FunctionAnalyses,
    ) -> ShapeInfo {
        analyses.compute(func, AnalysisSet::FOR_SHAPES);
        let mut info = ShapeInfo {
            shapes: SecondaryMap::with_default(VShape::Undef),
            divergent_branch: SecondaryMap::new(),
            join_causes: SecondaryMap::new(),
            divergent_loops: Vec::new(),
            is_divergent_loop: SecondaryMap::new(),
            propagation_steps: 0,
            summarized_walks: 0,
            summary_join: SecondaryMap::new(),
            is_rerun_loop: SecondaryMap::new(),
            taints: SecondaryMap::new(),
            regions: Vec::new(),
            effects: HashMap::new(),
            temporal: SecondaryMap::new(),
            declared_params,
            dont_care: if declared_params {
                self.dont_care.borrow().clone()
            } else {
                Vec::new()
            },
            analyses,
        };
        for (p, &s) in func.params.iter().zip(seeds) {
            info.shapes[p.value] = s;
        }
        // Users of each value.
        let mut users: SecondaryMap<Value, Vec<Inst>> = SecondaryMap::new();
        let mut queue: VecDeque<Inst> = VecDeque::new();
        let mut queued: SecondaryMap<Inst, bool> = SecondaryMap::new();
        for &b in info.analyses.cfg().rpo() {
            for &inst in func.layout.block_insts(b) {
                func.dfg.inst(inst).for_each_arg(|v| users[v].push(inst));
                queue.push_back(inst);
                queued[inst] = true;
            }
        }
        let scratch = RefCell::new(PropagationScratch::with_walk_budget(self.walk_budget));
        while let Some(inst) = queue.pop_front() {
            queued[inst] = false;
            let mut requeue: Vec<Inst> = Vec::new();
            self.step(func, &mut info, inst, &users, &scratch, &mut requeue);
            for i in requeue {
                if !queued[i] {
                    queued[i] = true;
                    queue.push_back(i);
                }
            }
        }
        info.summarized_walks = scratch.borrow().summarized_walks();
        let mut temporal = Vec::new();
        for &b in info.analyses.cfg().rpo() {
            for &inst in func.layout.block_insts(b) {
                func.dfg.inst(inst).for_each_arg(|v| {
                    if info.use_shape(func, v, inst) != info.shape(v) {
                        temporal.push(v);
                    }
                });
            }
        }
        for v in temporal {
            info.temporal[v] = true;
        }
        info
    }

    /// Processes one instruction; pushes instructions to revisit onto `requeue`.
    fn step(
        &self,
        func: &Function,
        info: &mut ShapeInfo,
        inst: Inst,
        users: &SecondaryMap<Value, Vec<Inst>>,
        scratch: &RefCell<PropagationScratch>,
        requeue: &mut Vec<Inst>,
    ) {
        let Some(block) = func.layout.inst_block(inst) else {
            return;
        };
        let data = func.dfg.inst(inst);
        match data {
            InstData::Brif { cond: c, .. } | InstData::Switch { arg: c, .. } => {
                if info.divergent_branch[block] || !info.use_shape(func, *c, inst).is_divergent() {
                    return;
                }
                info.divergent_branch[block] = true;
                let ctx = DivergenceCtx {
                    steps: core::cell::Cell::new(0),
                    func,
                    cfg: info.analyses.cfg(),
                    domtree: info.analyses.domtree(),
                    pdt: info.analyses.post_domtree(),
                    loops: info.analyses.loops(),
                    scratch,
                };
                let fx = ctx.branch_effects(block);
                for &j in &fx.joins {
                    // Every cause `block` pushes comes from this one step (a branch turns
                    // divergent once), so the last entry tells whether it is listed: a
                    // scan of the list made popular joins cost their number of causes.
                    if info.join_causes[j].last() != Some(&block) {
                        info.join_causes[j].push(block);
                    }
                    requeue.extend(
                        func.layout
                            .block_insts(j)
                            .iter()
                            .copied()
                            .filter(|&i| func.dfg.inst(i).is_phi()),
                    );
                }
                let mut taints = fx.taints.clone();
                for &l in &fx.divergent_loops {
                    if info.is_divergent_loop[l] {
                        continue;
                    }
                    info.is_divergent_loop[l] = true;
                    info.divergent_loops.push(l);
                    for j in ctx.loop_exit_joins(l) {
                        if info.join_causes[j].last() != Some(&block) {
                            info.join_causes[j].push(block);
                        }
                        requeue.extend(
                            func.layout
                                .block_insts(j)
                                .iter()
                                .copied()
                                .filter(|&i| func.dfg.inst(i).is_phi()),
                        );
                    }
                    for &lb in info.analyses.loops().blocks(l) {
                        for &i in func.layout.block_insts(lb) {
                            if let Some(v) = func.dfg.inst_result(i) {
                                taints.push((v, TaintRegion::OutsideLoop(l)));
                            }
                        }
                    }
                }
                for &l in &fx.rerun_loops {
                    if info.is_rerun_loop[l] {
                        continue;
                    }
                    info.is_rerun_loop[l] = true;
                    for &lb in info.analyses.loops().blocks(l) {
                        for &i in func.layout.block_insts(lb) {
                            if let Some(v) = func.dfg.inst_result(i) {
                                taints.push((v, TaintRegion::Everywhere));
                            }
                        }
                    }
                }
                for (v, region) in taints {
                    let idx = info.regions.len();
                    info.regions.push(region);
                    info.taints[v].push(idx);
                    requeue.extend(users[v].iter().copied());
                }
                info.propagation_steps += ctx.steps.get();
                for j in scratch.borrow_mut().take_summary_joins() {
                    info.summary_join[j] = true;
                }
                info.effects.insert(block, fx);
            }
            _ => {
                let Some(result) = func.dfg.inst_result(inst) else {
                    return;
                };
                let new = if data.is_phi() {
                    info.phi_shape(func, inst, block)
                } else if let Some(kept) = info.guarded_operand(data) {
                    info.shape_in(kept, block)
                } else {
                    let env = Env {
                        analysis: self,
                        func,
                        info,
                        inst,
                    };
                    transfer(self.module, data, Some(func.dfg.value_type(result)), &env)
                        .unwrap_or(VShape::Undef)
                };
                let old = info.shapes[result];
                let joined = old.join(new);
                if joined != old {
                    info.shapes[result] = joined;
                    requeue.extend(users[result].iter().copied());
                }
            }
        }
    }
}

/// Does `func` store, make a volatile or atomic access, fence, call, or allocate (so that
/// running it lane by lane is observable)?
fn writes_memory(func: &Function) -> bool {
    func.layout.blocks().any(|b| {
        func.layout.block_insts(b).iter().any(|&i| {
            let data = func.dfg.inst(i);
            data.has_side_effects() || matches!(data, InstData::Alloca { .. })
        })
    })
}

/// The immediate of `v` if it is defined by `iconst`.
pub fn constant_of(func: &Function, v: Value) -> Option<i64> {
    match func.dfg.value_def(v) {
        lanes_ir::ValueDef::Result(i) => match func.dfg.inst(i) {
            InstData::Iconst { imm } => Some(*imm),
            _ => None,
        },
        _ => None,
    }
}

impl ShapeInfo {
    /// The CFG of the analysed function.
    pub fn cfg(&self) -> &ControlFlowGraph {
        self.analyses.cfg()
    }

    pub fn domtree(&self) -> &DominatorTree {
        self.analyses.domtree()
    }

    pub fn pdt(&self) -> &PostDominatorTree {
        self.analyses.post_domtree()
    }

    pub fn loops(&self) -> &LoopForest {
        self.analyses.loops()
    }

    /// The CFG analyses the shapes were computed on.
    pub fn analyses(&self) -> &FunctionAnalyses {
        &self.analyses
    }

    /// The CFG analyses, for a transform of the analysed function to read and keep up to
    /// date ([`FunctionAnalyses::keep_after`] its edits). The shapes describe the function
    /// as it was analysed: after any edit, analyse again
    /// (`ShapeAnalysis::analyze_in(func, args, info.into_analyses())`).
    pub fn analyses_mut(&mut self) -> &mut FunctionAnalyses {
        &mut self.analyses
    }

    /// The CFG analyses, for the next pass: a transform that edits the function keeps only
    /// what it preserves ([`FunctionAnalyses::keep`]); the shapes themselves are dropped,
    /// since any edit can change them.
    pub fn into_analyses(self) -> FunctionAnalyses {
        self.analyses
    }

    /// The shape of `v` at its definition.
    pub fn shape(&self, v: Value) -> VShape {
        self.shapes.get(v).copied().unwrap_or(VShape::Undef)
    }

    /// The shape of `v` as used by `inst` (temporal divergence applied). For φ-nodes, the
    /// join over the incoming edges that carry `v`.
    pub fn use_shape(&self, func: &Function, v: Value, inst: Inst) -> VShape {
        let base = self.shape(v);
        let Some(block) = func.layout.inst_block(inst) else {
            return base;
        };
        // For a φ the use is on its incoming edges; taint regions are judged at the φ's
        // block, which lies outside a loop exactly when those edges leave it.
        self.shape_in(v, block)
    }

    /// The shape of `v` used in `block`.
    /// `v` of a `select c, v, d` whose `d` stands for any value (see
    /// [`ShapeAnalysis::set_dont_care`]).
    fn guarded_operand(&self, data: &InstData) -> Option<Value> {
        match data {
            InstData::Select { args: [_, v, d] } if self.dont_care.contains(d) => Some(*v),
            _ => None,
        }
    }

    fn shape_in(&self, v: Value, block: Block) -> VShape {
        let base = self.shape(v);
        let tainted = self.taints.get(v).is_some_and(|ts| {
            ts.iter()
                .any(|&r| self.regions[r].contains(self.analyses.loops(), block))
        });
        if tainted {
            base.to_varying()
        } else {
            base
        }
    }

    /// The φ rule: join of incoming shapes; varying in a join-divergent block unless gated.
    fn phi_shape(&self, func: &Function, inst: Inst, block: Block) -> VShape {
        let InstData::Phi { incoming } = func.dfg.inst(inst) else {
            return VShape::Undef;
        };
        let live: Vec<(Block, Value)> = incoming
            .iter()
            .copied()
            .filter(|&(p, _)| {
                self.analyses.cfg().is_reachable(p) && self.analyses.cfg().has_edge(p, block)
            })
            .collect();
        // Instances bringing a don't-care value are dead: if all others bring one value,
        // the φ is that value for every live instance.
        let real: Vec<Value> = live
            .iter()
            .map(|&(_, v)| v)
            .filter(|v| !self.dont_care.contains(v))
            .collect();
        if let Some(&first) = real.first() {
            if real.len() < live.len() && real.iter().all(|&v| v == first) {
                return self.shape_in(first, block);
            }
        }
        let joined = live.iter().fold(VShape::Undef, |acc, &(_, v)| {
            acc.join(self.shape_in(v, block))
        });
        let causes = &self.join_causes[block];
        if causes.is_empty() || joined.is_undef() || self.gated(func, &live, causes, block) {
            joined
        } else {
            joined.to_varying()
        }
    }

    /// PACT'11 gated φ: all incoming values are one value (or equal constants) computed
    /// before each causing branch, outside its influence region. A join made by a walk
    /// summary does not list every branch that reaches it, so there the value must be one
    /// computed once per call (a constant, a parameter, or defined outside every loop).
    fn gated(
        &self,
        func: &Function,
        live: &[(Block, Value)],
        causes: &[Block],
        block: Block,
    ) -> bool {
        let Some(&(_, first)) = live.first() else {
            return true;
        };
        let same = live.iter().all(|&(_, v)| {
            v == first || matches!((constant_of(func, v), constant_of(func, first)), (Some(a), Some(b)) if a == b)
        });
        if !same {
            return false;
        }
        let once = |v: Value| {
            constant_of(func, v).is_some()
                || def_block(func, v)
                    .is_none_or(|d| self.analyses.loops().innermost_loop(d).is_none())
        };
        if self.summary_join.get(block).copied().unwrap_or(false)
            && !live.iter().all(|&(_, v)| once(v))
        {
            return false;
        }
        live.iter().all(|&(_, v)| {
            let d = def_block(func, v);
            causes.iter().all(|&b| match d {
                None => true,
                Some(d) => {
                    self.analyses.domtree().dominates(d, b)
                        && !self.effects.get(&b).is_some_and(|fx| {
                            fx.may_rerun(
                                d,
                                b,
                                self.analyses.domtree(),
                                self.analyses.loops(),
                                self.analyses.cfg(),
                            )
                        })
                }
            })
        })
    }

    /// Is the branch at the end of `block` divergent?
    pub fn is_divergent_branch(&self, block: Block) -> bool {
        self.divergent_branch.get(block).copied().unwrap_or(false)
    }

    /// Is `block` join-divergent (reached by lanes that took different decisions)?
    pub fn is_join_divergent(&self, block: Block) -> bool {
        self.join_causes.get(block).is_some_and(|c| !c.is_empty())
    }

    /// The divergent branches (their blocks) that make `block` join-divergent.
    pub fn join_causes(&self, block: Block) -> &[Block] {
        self.join_causes.get(block).map_or(&[], |c| c.as_slice())
    }

    /// Blocks visited by the label propagation of all divergent branches and loops: the
    /// analysis's variable work, independent of the machine (the scaling benchmark prints
    /// it per instruction).
    pub fn propagation_steps(&self) -> u64 {
        self.propagation_steps
    }

    /// Label-propagation walks cut short after their step budget and summarized (a sound
    /// over-approximation of their joins; 0 when every join is exact).
    pub fn summarized_walks(&self) -> u64 {
        self.summarized_walks
    }

    /// Loops that lanes may leave at different times.
    pub fn divergent_loops(&self) -> &[Loop] {
        &self.divergent_loops
    }

    pub fn is_divergent_loop(&self, l: Loop) -> bool {
        self.is_divergent_loop.get(l).copied().unwrap_or(false)
    }

    /// Is the exit edge `from → to` of loop `l` divergent (taken by some lanes while
    /// others stay), as opposed to taken by all lanes together?
    pub fn is_divergent_exit(&self, l: Loop, from: Block) -> bool {
        self.is_divergent_loop(l)
            && (self.is_divergent_branch(from)
                || self.effects.iter().any(|(&b, fx)| {
                    self.analyses.loops().contains(l, b)
                        && from != b
                        && !self.analyses.domtree().dominates(from, b)
                        && fx.may_rerun(
                            from,
                            b,
                            self.analyses.domtree(),
                            self.analyses.loops(),
                            self.analyses.cfg(),
                        )
                }))
    }

    /// The effects of the divergent branch at the end of `block`.
    pub fn branch_effects(&self, block: Block) -> Option<&BranchEffects> {
        self.effects.get(&block)
    }

    /// The exact form of `sext`/`zext` instruction `cast` whose strided operand provably
    /// does not wrap ([`no_wrap`]): why the extension is strided, and how widening computes
    /// it without trusting lane 0's narrow value.
    pub fn extension_form(&self, func: &Function, cast: Inst) -> Option<ExtForm> {
        let at = |v: Value, user: Inst| self.use_shape(func, v, user);
        no_wrap::extension_form(func, cast, &at, self.declared_params)
    }

    /// Is `v` varying at some of its uses (but not at its definition) because of temporal
    /// divergence?
    pub fn is_temporally_divergent(&self, v: Value) -> bool {
        self.temporal.get(v).copied().unwrap_or(false)
    }
}

/// Convenience: analyzes function `id` of `module`.
pub fn analyze(module: &Module, id: FuncId, args: &ArgShapes) -> Result<ShapeInfo, ShapeError> {
    ShapeAnalysis::new(module).analyze(id, args)
}
