//! The SIMT driver: W lanes in lock-step, the μ-SIMD semantics of PACT'11 §II.
//!
//! All lanes share one program counter; each executes the current block's instructions
//! with its own values (through the shared evaluator [`lanes_interp::eval::eval_inst`], with
//! [`EvalCtx::lane`] set so memory accesses are traced per lane) and its own work-item
//! ids. Inactive lanes never execute anything. Divergent branches are handled with a
//! *synchronization stack* of entries `(pc, active lanes, reconvergence block)` in the
//! style of PACT'11's `(l_id, Θ_done, l_next, Θ_todo)` nodes and of GPU PDOM stacks:
//!
//! - at a branch where the active lanes go to one target, the top entry moves there;
//! - at a *divergent* branch in block `b` with immediate post-dominator `p`, the top entry
//!   becomes the reconvergence entry `(p, all lanes)` and one entry per target group is
//!   pushed, with `p` as reconvergence block (lanes whose target is `p` wait there);
//!   if the top entry already reconverges at `p`, it is replaced by the groups;
//! - an entry that reaches its reconvergence block is popped: its lanes wait in the entry
//!   below, which resumes once all groups above it have arrived;
//! - a lane that returns leaves every entry; a lane that faults is reported in
//!   [`SimtOutcome::lanes`] and also leaves, so a fault is never fatal to the others.
//!
//! φ-nodes are evaluated in parallel on entry, per lane, from the block that lane came
//! from. Calls to defined functions run the callee for each active lane in turn with the
//! scalar driver (same memory, the lane's work-item context). `lane_extract` and
//! `lane_broadcast` read the other lanes' values (module `cross_lane`); a scalar
//! `lane_id`/`num_lanes` answers the thread index and W. An `alloca` makes one
//! allocation for the active lanes with lane `l`'s slice at `l` slices, as widened code
//! lays it out (so its addresses are strided, as shape analysis says).
//!
//! The run is *profiled* ([`SimtProfile`]): per branch, how often it executed and how
//! often its active lanes went different ways; which values differed between the active
//! lanes at their definition, and at which uses operands differed; and the SIMD
//! utilization (active lanes per executed block / W). These are the dynamic facts the
//! static divergence analysis must cover (its soundness test) and that `lanes analyze
//! --profile` compares it with (its precision, PACT'11 §V).

pub mod affine;
mod cross_lane;
pub mod inputs;
pub mod precision;
mod predictor;
mod profile;

use std::collections::BTreeMap;

use lanes_analysis::{AnalysisSet, FunctionAnalyses, PostDominatorTree};
use lanes_ir::{Block, EntityRef, FuncId, Function, Inst, InstData, Module, Value};

pub use profile::{BranchStats, SimtProfile};

use lanes_interp::context::ExecContext;
use lanes_interp::error::{ErrorKind, InterpError, Location};
use lanes_interp::eval::{eval_inst, Effect, EvalCtx, Operands};
use lanes_interp::interp::Interpreter;
use lanes_interp::memory::Memory;
use lanes_interp::value::RtValue;

/// The widest SIMT group (lanes are a `u64` bit mask).
pub const MAX_WIDTH: usize = 64;

/// How one lane ended.
#[derive(Clone, Debug, PartialEq)]
pub enum LaneOutcome {
    Returned(Option<RtValue>),
    Faulted(InterpError),
}

/// The result of a SIMT run: per-lane outcomes and the profile.
#[derive(Clone, Debug, PartialEq)]
pub struct SimtOutcome {
    pub lanes: Vec<LaneOutcome>,
    pub profile: SimtProfile,
}

/// One lane's inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct LaneInput {
    pub args: Vec<RtValue>,
    pub exec: ExecContext,
}

/// Why a SIMT run could not start.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SimtError {
    #[error("a SIMT group has 1 to {MAX_WIDTH} lanes, not {0}")]
    Width(usize),
    #[error("{0} has no body")]
    NoBody(FuncId),
    #[error("{0}")]
    Setup(Box<InterpError>),
}

/// An entry of the synchronization stack.
#[derive(Clone, Debug)]
struct Entry {
    pc: Block,
    mask: u64,
    rpc: Option<Block>,
}

/// The SIMT interpreter of one module.
pub struct Simt<'m> {
    module: &'m Module,
    fuel: u64,
    claims: BTreeMap<Value, affine::Claim>,
}

fn lanes_of(mask: u64) -> impl Iterator<Item = usize> {
    (0..MAX_WIDTH).filter(move |&i| mask >> i & 1 == 1)
}

/// Do the active lanes hold different values of `v`?
fn differs(vals: &[Vec<Option<RtValue>>], mask: u64, v: Value) -> bool {
    let mut first: Option<&RtValue> = None;
    for l in lanes_of(mask) {
        if let Some(x) = vals[l].operand(v) {
            match first {
                None => first = Some(x),
                Some(f) if f != x => return true,
                _ => {}
            }
        }
    }
    false
}

impl<'m> Simt<'m> {
    pub fn new(module: &'m Module) -> Self {
        Simt {
            module,
            fuel: lanes_interp::DEFAULT_FUEL,
            claims: BTreeMap::new(),
        }
    }

    /// Sets the budget of executed instructions (group steps plus callee instructions).
    pub fn fuel(mut self, n: u64) -> Self {
        self.fuel = n;
        self
    }

    /// Shape claims about values of the entry function, checked at every execution of
    /// their definitions (refutations go to [`SimtProfile::refuted_claims`]).
    pub fn claims(mut self, claims: BTreeMap<Value, affine::Claim>) -> Self {
        self.claims = claims;
        self
    }

    /// Runs `func` with one lane per element of `lanes`, all sharing `mem`.
    pub fn run(
        &self,
        func_id: FuncId,
        lanes: &[LaneInput],
        mem: &mut Memory,
    ) -> Result<SimtOutcome, SimtError> {
        let w = lanes.len();
        if w == 0 || w > MAX_WIDTH {
            return Err(SimtError::Width(w));
        }
        let func = self
            .module
            .function(func_id)
            .ok_or(SimtError::NoBody(func_id))?;
        mem.init_globals(self.module)
            .map_err(|e| SimtError::Setup(Box::new(InterpError::bare(e.into()))))?;
        let analyses = FunctionAnalyses::with_function(func, AnalysisSet::POST_DOMTREE);
        let mut run = Run {
            simt: self,
            func,
            pdt: analyses.post_domtree(),
            lanes,
            vals: vec![vec![None; func.dfg.num_values()]; w],
            prev: vec![None; w],
            allocas: vec![Vec::new(); w],
            outcome: vec![None; w],
            profile: SimtProfile {
                width: w,
                ..SimtProfile::default()
            },
            predictors: BTreeMap::new(),
            used_fuel: 0,
        };
        for (l, input) in lanes.iter().enumerate() {
            for (p, a) in func.params.iter().zip(&input.args) {
                if let Some(slot) = run.vals[l].get_mut(p.value.index()) {
                    *slot = Some(a.clone());
                }
            }
            if input.args.len() != func.params.len() {
                run.outcome[l] = Some(LaneOutcome::Faulted(InterpError::bare(
                    ErrorKind::BadArgument(format!(
                        "lane {l}: {} arguments for {} parameters",
                        input.args.len(),
                        func.params.len()
                    )),
                )));
            }
        }
        run.execute(mem);
        for slots in &run.allocas {
            slots.iter().for_each(|&p| mem.free_stack(p));
        }
        let lanes_out = run
            .outcome
            .into_iter()
            .map(|o| {
                o.unwrap_or_else(|| {
                    LaneOutcome::Faulted(InterpError::bare(simt_malformed("lane never finished")))
                })
            })
            .collect();
        Ok(SimtOutcome {
            lanes: lanes_out,
            profile: run.profile,
        })
    }
}

/// The state of one run.
struct Run<'a, 'm> {
    simt: &'a Simt<'m>,
    func: &'m Function,
    pdt: &'a PostDominatorTree,
    lanes: &'a [LaneInput],
    vals: Vec<Vec<Option<RtValue>>>,
    /// The block each lane came from (for φs).
    prev: Vec<Option<Block>>,
    allocas: Vec<Vec<u64>>,
    outcome: Vec<Option<LaneOutcome>>,
    profile: SimtProfile,
    /// Per two-way branch, the predictors of its `then` and `else` sides' emptiness.
    predictors: BTreeMap<Block, [predictor::LocalHistory; 2]>,
    used_fuel: u64,
}

impl Run<'_, '_> {
    fn location(&self, block: Block, inst: Option<Inst>) -> Location {
        Location {
            func: self.func.name.clone(),
            block: Some(block),
            inst,
            text: inst.map_or_else(String::new, |i| {
                lanes_ir::write::inst_to_string(self.simt.module, self.func, i)
            }),
        }
    }

    /// Records a fault of lane `l`, which stops.
    fn fault(&mut self, l: usize, block: Block, inst: Option<Inst>, kind: ErrorKind) {
        if self.outcome[l].is_none() {
            let location = Some(self.location(block, inst));
            self.outcome[l] = Some(LaneOutcome::Faulted(InterpError {
                kind,
                location,
                callers: Vec::new(),
            }));
        }
    }

    fn live_mask(&self) -> u64 {
        (0..self.lanes.len())
            .filter(|&l| self.outcome[l].is_none())
            .fold(0, |m, l| m | 1 << l)
    }

    fn execute(&mut self, mem: &mut Memory) {
        let Some(entry) = self.func.entry_block() else {
            for l in 0..self.lanes.len() {
                self.fault(
                    l,
                    Block::new(0),
                    None,
                    simt_malformed("function has no blocks"),
                );
            }
            return;
        };
        let mut stack = vec![Entry {
            pc: entry,
            mask: self.live_mask(),
            rpc: None,
        }];
        while let Some(top) = stack.last().cloned() {
            let mask = top.mask & self.live_mask();
            if mask == 0 {
                stack.pop();
                continue;
            }
            let targets = self.run_block(top.pc, mask, mem);
            // Lanes that finished leave every entry.
            let live = self.live_mask();
            for e in stack.iter_mut() {
                e.mask &= live;
            }
            let mut groups: Vec<(Block, u64)> = Vec::new();
            for (l, t) in targets {
                if live >> l & 1 == 0 {
                    continue;
                }
                self.prev[l] = Some(top.pc);
                match groups.iter_mut().find(|(b, _)| *b == t) {
                    Some((_, m)) => *m |= 1 << l,
                    None => groups.push((t, 1 << l)),
                }
            }
            let n = stack.len() - 1;
            match groups.len() {
                0 => {
                    stack.pop();
                }
                1 => {
                    let (t, m) = groups[0];
                    if Some(t) == stack[n].rpc {
                        stack.pop();
                    } else {
                        stack[n].pc = t;
                        stack[n].mask = m;
                    }
                }
                _ => {
                    let p = self.pdt.ipdom(top.pc).or(stack[n].rpc);
                    let rpc = stack[n].rpc;
                    if p == rpc {
                        stack.pop();
                    } else if let Some(pb) = p {
                        stack[n].pc = pb;
                    }
                    for &(t, m) in groups.iter().rev() {
                        if Some(t) != p {
                            stack.push(Entry {
                                pc: t,
                                mask: m,
                                rpc: p,
                            });
                        }
                    }
                }
            }
        }
    }

    /// Records what the active lanes of `mask` hold for the result `r` just defined.
    fn observe(&mut self, r: Value, mask: u64) {
        if differs(&self.vals, mask, r) {
            self.profile.divergent_values.insert(r);
        }
        if let Some(&claim) = self.simt.claims.get(&r) {
            let lanes: Vec<(usize, &RtValue)> = lanes_of(mask)
                .filter_map(|l| self.vals[l].operand(r).map(|v| (l, v)))
                .collect();
            if affine::refutes(claim, &lanes) {
                self.profile.refuted_claims.insert(r);
            }
        }
    }

    fn charge(&mut self, n: u64) -> bool {
        self.used_fuel = self.used_fuel.saturating_add(n);
        self.used_fuel <= self.simt.fuel
    }

    /// Executes `block` for the lanes of `mask`; returns each continuing lane's target.
    fn run_block(&mut self, block: Block, mask: u64, mem: &mut Memory) -> Vec<(usize, Block)> {
        let insts = self.func.layout.block_insts(block);
        self.profile.block_executions += 1;
        self.profile.active_lane_sum += u64::from(mask.count_ones());
        // φs, in parallel per lane.
        let nphi = insts
            .iter()
            .take_while(|&&i| self.func.dfg.inst(i).is_phi())
            .count();
        if nphi > 0 {
            for l in lanes_of(mask) {
                let mut incoming = Vec::new();
                for &inst in &insts[..nphi] {
                    let InstData::Phi { incoming: pairs } = self.func.dfg.inst(inst) else {
                        continue;
                    };
                    let from = self.prev[l];
                    let v = pairs
                        .iter()
                        .find(|(b, _)| Some(*b) == from)
                        .map(|&(_, v)| v);
                    match v.and_then(|v| self.vals[l].operand(v).cloned()) {
                        Some(x) => incoming.push((self.func.dfg.inst_result(inst), x)),
                        None => {
                            let kind = simt_malformed("φ has no defined incoming value");
                            self.fault(l, block, Some(inst), kind);
                            break;
                        }
                    }
                }
                if self.outcome[l].is_none() {
                    for (r, x) in incoming {
                        if let Some(slot) = r.and_then(|r| self.vals[l].get_mut(r.index())) {
                            *slot = Some(x);
                        }
                    }
                }
            }
            for &inst in &insts[..nphi] {
                if let Some(r) = self.func.dfg.inst_result(inst) {
                    self.observe(r, mask & self.live_mask());
                }
            }
        }
        let mut targets = Vec::new();
        for &inst in &insts[nphi..] {
            let active = mask & self.live_mask();
            if active == 0 {
                return targets;
            }
            if !self.charge(1) {
                for l in lanes_of(active) {
                    self.fault(l, block, Some(inst), ErrorKind::OutOfFuel(self.simt.fuel));
                }
                return targets;
            }
            self.profile.steps += 1;
            let data = self.func.dfg.inst(inst);
            data.for_each_arg(|v| {
                if differs(&self.vals, active, v) {
                    self.profile.divergent_uses.insert((inst, v));
                }
            });
            if let Some(results) = cross_lane::cross_lane(self.func, inst, &self.vals, active) {
                let r = self.func.dfg.inst_result(inst);
                for (l, v) in results {
                    match (v, r.and_then(|r| self.vals[l].get_mut(r.index()))) {
                        (Ok(v), Some(slot)) => *slot = Some(v),
                        (Ok(_), None) => {}
                        (Err(kind), _) => self.fault(l, block, Some(inst), kind),
                    }
                }
            } else if let InstData::Alloca { size, align } = *data {
                self.alloca_slices(block, inst, size, align, active, mem);
            } else {
                for l in lanes_of(active) {
                    self.step_lane(l, block, inst, mem, &mut targets);
                }
            }
            if let Some(r) = self.func.dfg.inst_result(inst) {
                self.observe(r, mask & self.live_mask());
            }
            if data.is_terminator() {
                if matches!(data, InstData::Brif { .. } | InstData::Switch { .. }) {
                    let stats = self.profile.branches.entry(block).or_default();
                    stats.executions += 1;
                    let first = targets.first().map(|&(_, t)| t);
                    if targets.iter().any(|&(_, t)| Some(t) != first) {
                        stats.diverged += 1;
                    }
                    if let InstData::Brif {
                        then_dest,
                        else_dest,
                        ..
                    } = *data
                    {
                        let none_to = |dest: Block| targets.iter().all(|&(_, t)| t != dest);
                        if then_dest != else_dest {
                            let (then_empty, else_empty) = (none_to(then_dest), none_to(else_dest));
                            let [then_p, else_p] = self.predictors.entry(block).or_default();
                            stats.none_to_then += u64::from(then_empty);
                            stats.none_to_else += u64::from(else_empty);
                            stats.mispredicted_then += u64::from(then_p.observe(then_empty));
                            stats.mispredicted_else += u64::from(else_p.observe(else_empty));
                        }
                    }
                }
                return targets;
            }
        }
        // A block without terminator.
        for l in lanes_of(mask & self.live_mask()) {
            let kind = simt_malformed("control reaches the end of a block without a terminator");
            self.fault(l, block, None, kind);
        }
        targets
    }

    /// Executes `alloca` for the `active` lanes as widened code does: one allocation of a
    /// slice per lane ([`lanes_ir::alloca_slice`]), lane `l` at slice `l`, so that the
    /// addresses are as strided as shape analysis says.
    fn alloca_slices(
        &mut self,
        block: Block,
        inst: Inst,
        size: u32,
        align: u32,
        active: u64,
        mem: &mut Memory,
    ) {
        let slice = u64::from(lanes_ir::alloca_slice(size, align));
        let total = slice * self.lanes.len() as u64;
        let base = match mem.alloc_stack(total, align) {
            Ok(base) => base,
            Err(e) => {
                for l in lanes_of(active) {
                    self.fault(l, block, Some(inst), e.clone().into());
                }
                return;
            }
        };
        self.allocas[0].push(base);
        let Some(r) = self.func.dfg.inst_result(inst) else {
            return;
        };
        let elem = self.func.dfg.value_type(r).elem();
        for l in lanes_of(active) {
            let ptr = RtValue::from_bits(elem, base + slice * l as u64);
            if let Some(slot) = self.vals[l].get_mut(r.index()) {
                *slot = Some(ptr);
            }
        }
    }

    /// Executes `inst` for lane `l`.
    fn step_lane(
        &mut self,
        l: usize,
        block: Block,
        inst: Inst,
        mem: &mut Memory,
        targets: &mut Vec<(usize, Block)>,
    ) {
        let module = self.simt.module;
        let mut cx = EvalCtx {
            module,
            exec: &self.lanes[l].exec,
            mem,
            allocas: &mut self.allocas[l],
            lane: Some(l as u32),
        };
        let effect = eval_inst(&mut cx, self.func, inst, &self.vals[l]);
        let result = match effect {
            Err(kind) => return self.fault(l, block, Some(inst), kind),
            Ok(Effect::Next(r)) => r,
            Ok(Effect::Jump(t)) => {
                targets.push((l, t));
                return;
            }
            Ok(Effect::Return(v)) => {
                self.outcome[l] = Some(LaneOutcome::Returned(v));
                return;
            }
            Ok(Effect::Call { callee, args }) => {
                let budget = self.simt.fuel.saturating_sub(self.used_fuel);
                let interp = Interpreter::new(module)
                    .fuel(budget)
                    .exec_context(self.lanes[l].exec.clone());
                let (r, stats) = interp.call_with_stats(callee, &args, mem);
                self.used_fuel = self.used_fuel.saturating_add(stats.insts);
                match r {
                    Ok(v) => v,
                    Err(e) => {
                        if self.outcome[l].is_none() {
                            let mut e = e;
                            e.callers.push(self.location(block, Some(inst)));
                            self.outcome[l] = Some(LaneOutcome::Faulted(e));
                        }
                        return;
                    }
                }
            }
        };
        if let (Some(v), Some(r)) = (result, self.func.dfg.inst_result(inst)) {
            if let Some(slot) = self.vals[l].get_mut(r.index()) {
                *slot = Some(v);
            }
        }
    }
}

/// A malformed-IR error (what the interpreter reports for IR the verifier would reject).
fn simt_malformed(msg: impl Into<String>) -> ErrorKind {
    ErrorKind::Malformed(msg.into())
}
