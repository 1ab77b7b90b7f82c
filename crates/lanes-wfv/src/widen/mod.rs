//! Widening: the linearized scalar function becomes a function of `W` lanes (PLDI'18
//! §2.2 stage 4, CC'12 §3.3).
//!
//! Every instance runs in one lane. After linearization the only branches left are
//! uniform, so the CFG is kept as is and each instruction is mapped on its own:
//!
//! - values that stay uniform (module `shapes`) stay scalar and are broadcast (once, right
//!   after their definition; module `values`) where a vector needs them; no instruction
//!   keeps integer flags, and extensions strided by no-wrap facts are built from their
//!   leaves (module `extend`);
//! - other values become `<W x T>`; lane-wise operations (arithmetic, compares, casts,
//!   selects, φs, math intrinsics, `ptradd`) are the same instruction on vectors, and
//!   blends (`select` on an `i1` predicate) become lane-wise selects on the `<W x i1>`
//!   masks of the [`Predication`](crate::Predication) table;
//! - `global_id 0`/`local_id 0` become the scalar query plus `lane_id`; `alloca` becomes a
//!   `W` times larger allocation sliced per lane (module `lane_private`);
//! - memory (module `memory`): contiguous addresses give vector loads and stores, masked where
//!   the block mask is not all-true; strided accesses that together fill their stride
//!   give one wide access and shuffles (module `interleave`); other varying addresses give
//!   gathers and scatters; a
//!   uniform address under a varying mask is loaded once if any lane is active, and a
//!   varying value stored to a uniform address is a scatter in which the highest active
//!   lane wins, as if the lanes had run one after the other;
//! - a call of a function the module defines, with arguments that differ between lanes,
//!   calls the callee's vector variant for those argument shapes, masked under a varying
//!   mask (module `callees`); other calls and atomics run once per active lane (module
//!   `lanes`), in lane order;
//! - mask queries reduce over the active lanes only; `lane_extract`/`lane_broadcast` read
//!   elements of their operand's vector (module `cross_lane`).
//!
//! A branch that linearization kept was proven uniform before linearization; if blends
//! make its condition look varying afterwards, the first active lane's condition is used
//! (`extract(c, cttz(ballot(mask)))`).
//!
//! Not handled yet (reported as [`WfvError::Unsupported`]): vector values in the scalar
//! function, barriers, and calls run once per lane (see above) of functions that read
//! other lanes (they would see only their own) or that query their work item through
//! another call.

mod branches;
mod callees;
mod consecutive_at_run_time;
mod cross_lane;
mod extend;
mod interleave;
mod lane0;
mod lane_private;
mod lanes;
mod memory;
mod notes;
mod plan;
mod runs_at_run_time;
mod shapes;
mod speculation;
mod unmasked;
mod values;

use std::collections::HashMap;

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{EntityRef, EntitySet, SecondaryMap};

use lanes_analysis::shapes::ArgShapes;
use lanes_analysis::CallGraph;
use lanes_ir::{
    Block, CastOp, FuncCursor, FuncId, Function, Inst, InstData, Intrinsic, IntrinsicClass, Module,
    Type, Value, WorkItemQuery,
};

pub use notes::{WidenNote, WidenNoteKind, WidenReport};

use plan::Plan;

use crate::{Prepared, WfvError};

/// Widens `prepared`, the linearized form of one of `module`'s functions, to `width` lanes.
/// Parameters whose shape is not uniform become vectors; the result is always a vector.
/// Calls of functions that query their work item are not supported here; see
/// [`widen_into`].
pub fn widen(
    module: &Module,
    prepared: &Prepared,
    args: &ArgShapes,
    width: u16,
) -> Result<Function, WfvError> {
    check_width(width)?;
    let plan = Plan::new(module, prepared, args, width)?;
    Ok(widen_with(module, prepared, width, &HashMap::new(), plan)?.0)
}

/// Refuses widths outside `1..=MAX_WIDTH`, naming the limit.
pub(crate) fn check_width(width: u16) -> Result<(), WfvError> {
    if (1..=crate::MAX_WIDTH).contains(&width) {
        Ok(())
    } else {
        Err(WfvError::Unsupported(format!(
            "{width} lanes: widening makes 1 to {} lanes",
            crate::MAX_WIDTH
        )))
    }
}

/// Like [`widen`], but defines the widened function in `module` (returning its id), and
/// with it the vector variant of every function it calls with arguments that differ
/// between lanes (module `callees`). Calls that still run once per lane (recursion,
/// functions only declared, indirect calls) are dropped from the report here; see
/// [`widen_into_noting`].
pub fn widen_into(
    module: &mut Module,
    prepared: &Prepared,
    args: &ArgShapes,
    width: u16,
) -> Result<FuncId, WfvError> {
    widen_into_noting(module, prepared, args, width, &mut WidenReport::default())
}

/// [`widen_into`], adding to `report` the remarks of widening (gathers, scatters, code run
/// once per active lane, each with its source line and reason; module `notes`) and the
/// Table 1 statistics ([`crate::stats`]), for the function and the callees vectorized
/// with it. A function called per lane that queries
/// `global_id 0` or `local_id 0` gets a copy taking the lane's ids as two extra `i64` parameters, so that each lane's call
/// sees its own work item.
pub fn widen_into_noting(
    module: &mut Module,
    prepared: &Prepared,
    args: &ArgShapes,
    width: u16,
    report: &mut WidenReport,
) -> Result<FuncId, WfvError> {
    check_width(width)?;
    let mut plan = Plan::new(module, prepared, args, width)?;
    let facts = (&plan.info, &plan.uni, &plan.graph);
    plan.calls = callees::vectorize_callees(module, prepared, facts, width, report);
    let stats = crate::stats::VariantStats {
        function: prepared.func.name.clone(),
        width,
        branches: prepared.stats.clone(),
        loops: prepared.loops,
        boscc: prepared.boscc,
        fused: prepared.fused,
        memory: crate::stats::memory_stats(&prepared.func, &prepared.predication, &plan.info),
    };
    let mut special: HashMap<FuncId, FuncId> = HashMap::new();
    let calls = &plan.graph;
    for i in prepared.func.dfg.insts() {
        let InstData::Call { func, .. } = prepared.func.dfg.inst(i) else {
            continue;
        };
        if plan.calls.variants.contains_key(&i) {
            continue;
        }
        if special.contains_key(func) || !lanes::asks_work_item(module, *func) {
            continue;
        }
        let deeper = calls
            .reachable_callees(*func)
            .into_iter()
            .any(|g| lanes::asks_work_item(module, g));
        if deeper {
            return Err(WfvError::Unsupported(format!(
                "@{} calls a function that queries its work item",
                module.funcs[*func].name()
            )));
        }
        let Some(callee) = module.function(*func) else {
            continue;
        };
        let copy = lanes::with_item_params(callee);
        let cid = module.define(copy);
        special.insert(*func, cid);
    }
    let (f, new_notes) = widen_with(module, prepared, width, &special, plan)?;
    for n in new_notes {
        if !report.notes.contains(&n) {
            report.notes.push(n);
        }
    }
    report.variants.push(stats);
    Ok(module.define(f))
}

fn widen_with(
    module: &Module,
    prepared: &Prepared,
    width: u16,
    special: &HashMap<FuncId, FuncId>,
    plan: Plan,
) -> Result<(Function, Vec<WidenNote>), WfvError> {
    let old = &prepared.func;
    let Plan {
        info,
        uni,
        calls: call_plan,
        graph: calls,
    } = plan;
    // Strided parameters of a variant with linear parameters arrive as lane 0's value.
    let linear: Vec<Option<i64>> = old
        .params
        .iter()
        .map(|p| {
            let stride = info.shape(p.value).stride().filter(|&n| n != 0);
            stride.filter(|_| prepared.linear_params && !uni[p.value])
        })
        .collect();
    let param_tys: Vec<Type> = old
        .params
        .iter()
        .zip(&linear)
        .map(|(p, lin)| {
            let t = old.dfg.value_type(p.value);
            if uni[p.value] || lin.is_some() {
                t
            } else {
                vec_of(t, width)
            }
        })
        .collect();
    let ret = old.ret.map(|t| vec_of(t, width));
    let mut new = Function::new(format!("{}_w{width}", old.name), &param_tys, ret);
    new.attrs = old.attrs;
    let mut block_map = SecondaryMap::new();
    for b in old.layout.blocks() {
        block_map[b] = new.append_new_block().into();
    }
    let Some(entry) = new.entry_block() else {
        return Err(WfvError::NoBody(old.name.clone()));
    };
    let mut guarded = EntitySet::new();
    guarded.extend(prepared.predication.guarded.iter().map(|&(i, _)| i));
    let groups = interleave::find_groups(old, &info, &uni, &guarded);
    let mut w = Widener {
        module,
        special,
        callees: call_plan.variants,
        per_lane_why: call_plan.per_lane_why,
        notes: Vec::new(),
        current: None,
        groups,
        group_values: HashMap::new(),
        calls,
        old,
        new,
        width,
        uni,
        info,
        prepared,
        entry_active: None,
        unmasked: None,
        guarded: EntitySet::new(),
        map: SecondaryMap::new(),
        bcast: SecondaryMap::new(),
        lane_ids: HashMap::new(),
        lane0_exact: SecondaryMap::new(),
        lane0_here: HashMap::new(),
        block_map,
        exit_map: SecondaryMap::new(),
        entry,
        cur: entry,
        phis: Vec::new(),
    };
    w.guarded
        .extend(prepared.predication.guarded.iter().map(|&(i, _)| i));
    for ((p, q), lin) in old.params.iter().zip(w.new.params.clone()).zip(linear) {
        w.map[p.value] = match lin {
            None => q.value,
            Some(stride) => {
                w.lane0_exact[p.value] = q.value.into();
                w.linear_vector(q.value, stride)
            }
        }
        .into();
    }
    w.entry_active = prepared.entry_mask.and_then(|a| w.map[a].expand());
    // The shape analysis' CFG is `old`'s: reuse its order rather than recompute it.
    let rpo = w.info.cfg().rpo().to_vec();
    for &b in &rpo {
        w.cur = w.new_block_of(b);
        for &inst in old.layout.block_insts(b) {
            let first = w.new.dfg.num_insts();
            w.inst(b, inst)?;
            w.unmasked_region_stays_in(b, inst)?;
            // The vector code of an instruction keeps its source line (remarks, and
            // faults the interpreter reports in vector code).
            let line = old.source_lines.get(inst).copied().unwrap_or(0);
            if line > 0 {
                for k in first..w.new.dfg.num_insts() {
                    w.new.source_lines[Inst::new(k)] = line;
                }
            }
        }
        w.exit_map[b] = w.cur.into();
    }
    w.fill_phis();
    crate::ssa_repair::remove_dead_code(&mut w.new, &[]);
    // Blocks the entry cannot reach have no code; drop them.
    for b in old.layout.blocks() {
        if !w.info.cfg().is_reachable(b) {
            let nb = w.new_block_of(b);
            FuncCursor::new(&mut w.new).remove_block(nb);
        }
    }
    if let Some(active) = w.entry_active {
        lanes::return_early_when_no_lane_is_active(&mut w.new, active)?;
    }
    crate::nonempty_masks::fold_any_of_nonempty_masks(&mut w.new);
    Ok((w.new, w.notes))
}

fn vec_of(t: Type, width: u16) -> Type {
    Type::vector(width, t.elem())
}

pub(crate) struct Widener<'a> {
    module: &'a Module,
    /// Callees that query their work item → their copies taking the ids as parameters.
    special: &'a HashMap<FuncId, FuncId>,
    /// Calls that call a vector variant of their callee instead (module `callees`).
    callees: HashMap<Inst, callees::CalleeVariant>,
    /// Why each other call of a function runs once per lane (module `callees`).
    per_lane_why: HashMap<Inst, String>,
    /// The remarks made so far (module `notes`).
    notes: Vec<WidenNote>,
    /// The old instruction being widened.
    current: Option<Inst>,
    /// Interleaved access groups (module `interleave`) and the values of load members
    /// already read.
    groups: interleave::Groups,
    group_values: HashMap<Inst, Value>,
    /// The module's call graph, for what a callee may do (work-item queries, lane reads).
    calls: CallGraph,
    old: &'a Function,
    new: Function,
    width: u16,
    /// Old values that stay scalar ([`shapes::uniform_values`]).
    uni: SecondaryMap<Value, bool>,
    info: lanes_analysis::shapes::ShapeInfo,
    prepared: &'a Prepared,
    /// The widened entry mask of a masked variant ([`Prepared::entry_mask`]).
    entry_active: Option<Value>,
    /// Between an `unmasked_begin` (this instruction) and its `unmasked_end`: masks are
    /// the entry mask (module `unmasked`).
    unmasked: Option<Inst>,
    /// The instructions `prepared.predication.guarded` lists, for constant-time lookup.
    guarded: EntitySet<Inst>,
    /// Old value → new value (scalar for uniform values, else vector).
    map: SecondaryMap<Value, PackedOption<Value>>,
    /// Broadcasts of uniform new values.
    bcast: SecondaryMap<Value, PackedOption<Value>>,
    lane_ids: HashMap<Type, Value>,
    /// Old extensions widened from their leaves → their scalar lane 0 (module `extend`).
    lane0_exact: SecondaryMap<Value, PackedOption<Value>>,
    /// (new block, old value) → its scalar lane 0 computed there (module `lane0`).
    lane0_here: HashMap<(Block, Value), Value>,
    /// Old block → the new block where its code starts.
    block_map: SecondaryMap<Block, PackedOption<Block>>,
    /// The new block holding the end of each old block (blocks split by per-lane code);
    /// none for the blocks the entry cannot reach.
    exit_map: SecondaryMap<Block, PackedOption<Block>>,
    /// The entry block of the new function.
    entry: Block,
    /// The block being filled.
    cur: Block,
    /// φs to fill once every block is done: (old φ, new φ instruction).
    phis: Vec<(Inst, Inst)>,
}

impl Widener<'_> {
    fn inst(&mut self, b: Block, inst: Inst) -> Result<(), WfvError> {
        self.current = Some(inst);
        let data = self.old.dfg.inst(inst).clone();
        let res = self.old.dfg.inst_result(inst);
        let res_ty = res.map(|r| self.old.dfg.value_type(r));
        let uniform = res.is_none_or(|r| self.is_uniform(r));
        let out_ty = res_ty.map(|t| if uniform { t } else { vec_of(t, self.width) });
        // The type of a value the instruction produces: the verifier gives every instruction
        // that produces one a result, so a missing one is reported rather than widened.
        let typed = |t: Option<Type>| {
            t.ok_or_else(|| {
                WfvError::Internal(format!("{inst} produces a value but has no result"))
            })
        };
        let new_v: Option<Value> = match &data {
            InstData::Phi { .. } => {
                let i = self
                    .at_end()
                    .insert_inst(InstData::Phi { incoming: vec![] }, out_ty);
                self.phis.push((inst, i));
                self.new.dfg.inst_result(i)
            }
            InstData::Jump { dest } => {
                let d = self.new_block_of(*dest);
                self.emit(InstData::Jump { dest: d }, None)
            }
            d @ (InstData::Brif { .. } | InstData::Switch { .. })
                if d.branch_targets().windows(2).all(|t| t[0] == t[1]) =>
            {
                // All edges go to one block: no decision to make.
                let dest = self.new_block_of(d.branch_targets()[0]);
                self.emit(InstData::Jump { dest }, None)
            }
            InstData::Brif {
                cond,
                then_dest,
                else_dest,
            } => {
                let c = self.kept_condition(b, *cond);
                let d = InstData::Brif {
                    cond: c,
                    then_dest: self.new_block_of(*then_dest),
                    else_dest: self.new_block_of(*else_dest),
                };
                self.emit(d, None)
            }
            InstData::Switch {
                arg,
                cases,
                default,
            } => {
                let a = self.kept_condition(b, *arg);
                let d = InstData::Switch {
                    arg: a,
                    cases: cases
                        .iter()
                        .map(|&(k, t)| (k, self.new_block_of(t)))
                        .collect(),
                    default: self.new_block_of(*default),
                };
                self.emit(d, None)
            }
            InstData::Return { value } => {
                let v = value.map(|v| self.vector(v));
                self.emit(InstData::Return { value: v }, None)
            }
            InstData::Unreachable => self.emit(InstData::Unreachable, None),
            InstData::Select { args: [_, v, _] }
                if uniform && self.prepared.predication.operand_guards.contains_key(&inst) =>
            {
                let guard = self.prepared.predication.operand_guards[&inst];
                Some(self.uniform_operand_guard(guard, *v, typed(res_ty)?))
            }
            InstData::Alloca { size, align } => {
                Some(self.private_alloca(*size, *align, typed(res_ty)?, typed(out_ty)?))
            }
            InstData::WorkItem { query, dim }
                if !uniform
                    && *dim == 0
                    && matches!(query, WorkItemQuery::GlobalId | WorkItemQuery::LocalId) =>
            {
                Some(self.item_per_lane(&data, typed(res_ty)?, typed(out_ty)?))
            }
            InstData::Intrinsic { id, args } => match id.class() {
                IntrinsicClass::LaneQuery if *id == Intrinsic::LaneId => {
                    Some(self.lane_id(typed(res_ty)?))
                }
                IntrinsicClass::LaneQuery => Some(self.emit_v(
                    InstData::Iconst {
                        imm: i64::from(self.width),
                    },
                    typed(res_ty)?,
                )),
                IntrinsicClass::MaskQuery => Some(self.mask_query(b, *id, args[0], typed(res_ty)?)),
                IntrinsicClass::CrossLane(_) => Some(self.cross_lane(b, *id, args, uniform)),
                IntrinsicClass::Barrier if *id != Intrinsic::Barrier => {
                    self.enter_or_leave_unmasked(*id)?;
                    None
                }
                IntrinsicClass::Barrier => {
                    return Err(WfvError::Unsupported("barrier".into()));
                }
                IntrinsicClass::PageProbe => Some(self.page_probe(b, args[0], args[1], uniform)),
                IntrinsicClass::SpeculativeLoad => {
                    Some(self.speculative_load(b, args[0], typed(res_ty)?, uniform))
                }
                _ => self.lanewise(&data, uniform, out_ty),
            },
            // Volatile and atomic accesses are observable: once per active lane, in lane
            // order, like calls (below).
            InstData::Load { access, .. } | InstData::Store { access, .. }
                if !access.is_plain() =>
            {
                let mask = self.guard_mask(b, inst);
                self.note_per_lane(inst);
                self.per_lane(&data, res_ty, mask)
            }
            InstData::Load { ptr, align, .. } => {
                let mask = self.guard_mask(b, inst);
                match self.groups.of_member.get(&inst).copied() {
                    Some(k) => Some(self.group_load(inst, k, mask)),
                    None => Some(self.load(*ptr, *align, typed(res_ty)?, uniform, mask)),
                }
            }
            InstData::Store {
                value, ptr, align, ..
            } => {
                let mask = self.guard_mask(b, inst);
                match self.groups.of_member.get(&inst).copied() {
                    Some(k) => self.group_store(inst, k, mask),
                    None => self.store(*value, *ptr, *align, mask),
                }
                None
            }
            InstData::Call { .. } if uniform && res.is_some() => {
                // A pure call with uniform arguments: once for all lanes.
                let mut d = data.clone();
                d.for_each_arg_mut(|v| *v = self.mapped(*v));
                let ty = typed(res_ty)?;
                Some(match self.guard_mask(b, inst) {
                    None => self.emit_v(d, ty),
                    Some(m) => self.once_if_any(m, d, ty),
                })
            }
            InstData::Call { .. } if self.callees.contains_key(&inst) => {
                let v = self.callees[&inst];
                self.vector_call(b, inst, v)
            }
            InstData::Call { func, .. } if self.special.contains_key(func) => {
                let mask = self.guard_mask(b, inst);
                self.note_per_lane(inst);
                self.per_lane(&data, res_ty, mask)
            }
            InstData::Call { func, .. } if self.callee_reads_lanes(*func) => {
                return Err(WfvError::Unsupported(format!(
                    "call of @{} which reads other lanes (lane_extract, lane_broadcast)",
                    self.module.funcs[*func].name()
                )));
            }
            InstData::Call { func, .. } if self.callee_asks_work_item(*func) => {
                return Err(WfvError::Unsupported(format!(
                    "call of @{} which queries its work item",
                    self.module.funcs[*func].name()
                )));
            }
            InstData::Call { .. }
            | InstData::CallIndirect { .. }
            | InstData::Fence { .. }
            | InstData::AtomicRmw { .. }
            | InstData::AtomicCas { .. } => {
                let mask = self.guard_mask(b, inst);
                self.note_per_lane(inst);
                self.per_lane(&data, res_ty, mask)
            }
            InstData::MaskedLoad { .. }
            | InstData::MaskedStore { .. }
            | InstData::Gather { .. }
            | InstData::Scatter { .. }
            | InstData::Shuffle { .. } => {
                return Err(WfvError::Unsupported(format!(
                    "{} in the scalar function",
                    data.opcode_name()
                )));
            }
            InstData::Cast {
                op: CastOp::Sext | CastOp::Zext,
                ..
            } if !uniform => self.extension(inst, &data, out_ty),
            _ => self.lanewise(&data, uniform, out_ty),
        };
        if let (Some(r), Some(n)) = (res, new_v) {
            self.map[r] = n.into();
        }
        Ok(())
    }

    /// The same operation on scalars (uniform result) or on vectors.
    /// Integer flags are dropped, but for `inrange`: the widened code speculates
    /// ([`extend`], [`lanes_ir::flags`]).
    fn lanewise(&mut self, data: &InstData, uniform: bool, ty: Option<Type>) -> Option<Value> {
        let mut d = data.clone();
        // `zext nneg x` is `sext x` wherever the flag holds (and poison where it does
        // not, which `sext` refines): the flag is about to go, the sign extension keeps
        // what it said for the active lanes. A sign-extended index is what the export
        // turns into a 32-bit gather index (a nearest hit's `cx[hit]` after `hit >= 0`).
        if let InstData::Cast { op, flags, arg } = &mut d {
            let from_mask = self.old.dfg.value_type(*arg).elem().bits() == 1;
            if *op == CastOp::Zext && flags.nneg() && !uniform && !from_mask {
                *op = CastOp::Sext;
            }
        }
        d.clear_unspeculable_flags();
        let varying_operand = d.args().iter().any(|&v| !self.is_uniform(v));
        if uniform && varying_operand && !d.is_phi() {
            // Uniform although computed from varying operands (strides that cancel):
            // compute lane-wise, take lane 0.
            let args = d.args();
            let vecs: Vec<Value> = args.iter().map(|&v| self.vector(v)).collect();
            let mut i = 0;
            d.for_each_arg_mut(|v| {
                *v = vecs[i];
                i += 1;
            });
            let ty = ty?;
            let wide = self.emit_v(d, vec_of(ty, self.width));
            let zero = self.emit_v(InstData::Iconst { imm: 0 }, Type::I32);
            return Some(self.emit_v(
                InstData::Intrinsic {
                    id: Intrinsic::Extract,
                    args: vec![wide, zero],
                },
                ty,
            ));
        }
        if uniform {
            d.for_each_arg_mut(|v| *v = self.mapped(*v));
        } else {
            let args = d.args();
            let vecs: Vec<Value> = args.iter().map(|&v| self.vector(v)).collect();
            let mut i = 0;
            d.for_each_arg_mut(|v| {
                *v = vecs[i];
                i += 1;
            });
        }
        self.emit(d, ty)
    }

    fn fill_phis(&mut self) {
        for (old, new) in std::mem::take(&mut self.phis) {
            let InstData::Phi { incoming } = self.old.dfg.inst(old).clone() else {
                continue;
            };
            // As for the φ itself (`inst`): without a result it is uniform.
            let uniform = self
                .old
                .dfg
                .inst_result(old)
                .is_none_or(|r| self.is_uniform(r));
            let inc: Vec<(Block, Value)> = incoming
                .iter()
                .filter_map(|&(p, v)| {
                    let nb = self.exit_map[p].expand()?;
                    let nv = if uniform {
                        self.mapped(v)
                    } else {
                        self.vector(v)
                    };
                    Some((nb, nv))
                })
                .collect();
            *self.new.dfg.inst_mut(new) = InstData::Phi { incoming: inc };
        }
    }
}
