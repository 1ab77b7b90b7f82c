//! Code that runs per lane or once for all active lanes, as explicit control flow in the
//! widened function.
//!
//! - [`Widener::per_lane`]: calls and atomics run once per active lane, in lane order (the
//!   order in which the scalar function would run the instances one after the other):
//!   for each lane, `brif extract(mask, k)` into a block that extracts the lane's operands,
//!   performs the operation and inserts its result into the result vector;
//! - [`Widener::once_if_any`]: an access to a uniform address under a varying mask runs
//!   once, if `any(mask)`; in a masked variant, an access under exactly the entry mask
//!   runs unguarded after one all-off test at the function's entry
//!   ([`return_early_when_no_lane_is_active`]).

use lanes_ir::{
    BinaryOp, Block, CastOp, FuncBuilder, FuncCursor, FuncId, Function, InstData, IntFlags,
    Intrinsic, Module, Param, Type, UnaryOp, Value, ValueDef, WorkItemQuery,
};

use lanes_analysis::CallGraph;

use super::{vec_of, Widener};

/// The blocks of code that runs only if a condition holds: `from` branches on it to `body`
/// or around it to `join`, where `body` also goes.
struct Guard {
    from: Block,
    body: Block,
    join: Block,
}
use crate::cfg_edit::return_zero_unless;
use crate::WfvError;

impl Widener<'_> {
    /// Does the callee (or a function it calls) query its work item? Run once per lane
    /// from the widened function it would see lane 0's item, so it is not supported yet.
    pub(super) fn callee_asks_work_item(&self, func: FuncId) -> bool {
        self.callee_has(func, |d| matches!(d, InstData::WorkItem { .. }))
    }

    /// Does the callee (or a function it calls) use `lane_extract` or `lane_broadcast`?
    /// Run once per lane it would read only its own lane.
    pub(super) fn callee_reads_lanes(&self, func: FuncId) -> bool {
        self.callee_has(func, |d| {
            matches!(
                d,
                InstData::Intrinsic {
                    id: Intrinsic::LaneExtract | Intrinsic::LaneBroadcast,
                    ..
                }
            )
        })
    }

    /// Does `func` or a function it may call hold an instruction satisfying `hit`? A walk
    /// over the call graph, which ends on cycles of helpers.
    fn callee_has(&self, func: FuncId, hit: impl Fn(&InstData) -> bool) -> bool {
        self.calls.reaches(func, |f| body_has(self.module, f, &hit))
    }

    /// Starts a new block after the current one; returns it (not switched to).
    pub(super) fn new_block(&mut self) -> Block {
        FuncCursor::new(&mut self.new).create_block_after(self.cur)
    }

    /// `if cond { data }`, with the result (or zero) merged in a φ; continues after it.
    fn guarded(&mut self, cond: Value, data: InstData, ty: Option<Type>) -> Option<Value> {
        let guard = self.enter_guard(cond);
        let r = self.emit(data, ty);
        self.leave_guard(&guard);
        Some(self.result_or_zero(&guard, r?, ty?))
    }

    /// `if cond { fast } else { slow }` for two instructions of result type `ty`, merged in
    /// a φ; continues after it.
    pub(super) fn either(
        &mut self,
        cond: Value,
        fast: InstData,
        slow: InstData,
        ty: Type,
    ) -> Value {
        self.either_with(cond, ty, |w| w.emit_v(fast, ty), |w| w.emit_v(slow, ty))
    }

    /// `if cond { fast } else { slow }` for two pieces of code, each emitted by its closure
    /// and giving a value of type `ty`, merged in a φ; continues after it.
    pub(super) fn either_with(
        &mut self,
        cond: Value,
        ty: Type,
        fast: impl FnOnce(&mut Self) -> Value,
        slow: impl FnOnce(&mut Self) -> Value,
    ) -> Value {
        let [fast_block, slow_block, join] = self.fork(cond);
        let incoming = vec![
            self.arm_with(fast_block, join, fast),
            self.arm_with(slow_block, join, slow),
        ];
        FuncCursor::new(&mut self.new)
            .goto_bottom(join)
            .insert_phi(ty, incoming)
    }

    /// The code `body` emits, starting in `block` and then jumping to `join`; the block it
    /// ends in and its value.
    fn arm_with(
        &mut self,
        block: Block,
        join: Block,
        body: impl FnOnce(&mut Self) -> Value,
    ) -> (Block, Value) {
        self.cur = block;
        let r = body(self);
        let end = self.cur;
        let mut b = FuncBuilder::new(&mut self.new);
        b.switch_to_block(end);
        b.jump(join);
        self.cur = join;
        (end, r)
    }

    /// `if cond { fast } else { slow }` for two instructions without result.
    pub(super) fn either_effect(&mut self, cond: Value, fast: InstData, slow: InstData) {
        let [fast_block, slow_block, join] = self.fork(cond);
        self.arm(fast_block, join, fast, None);
        self.arm(slow_block, join, slow, None);
    }

    /// Ends the current block with `brif cond` into two new blocks, `[then, else, join]`;
    /// filling continues in `join` once [`Self::arm`] has filled both.
    fn fork(&mut self, cond: Value) -> [Block; 3] {
        let from = self.cur;
        let join = self.new_block();
        let other = self.new_block();
        let then = self.new_block();
        let mut b = FuncBuilder::new(&mut self.new);
        b.switch_to_block(from);
        b.brif(cond, then, other);
        self.cur = join;
        [then, other, join]
    }

    /// `data` alone in `block`, which then jumps to `join`; its result.
    fn arm(
        &mut self,
        block: Block,
        join: Block,
        data: InstData,
        ty: Option<Type>,
    ) -> Option<Value> {
        self.cur = block;
        let r = self.emit(data, ty);
        let mut b = FuncBuilder::new(&mut self.new);
        b.switch_to_block(block);
        b.jump(join);
        self.cur = join;
        r
    }

    /// Ends the current block with `brif cond` into a new block, the guarded code, which
    /// the cursor fills next; and makes the block after it.
    fn enter_guard(&mut self, cond: Value) -> Guard {
        let from = self.cur;
        let body = self.new_block();
        self.cur = body;
        let join = self.new_block();
        let mut b = FuncBuilder::new(&mut self.new);
        b.switch_to_block(from);
        b.brif(cond, body, join);
        self.cur = body;
        Guard { from, body, join }
    }

    /// Ends the guarded code; filling continues after it.
    fn leave_guard(&mut self, guard: &Guard) {
        let mut b = FuncBuilder::new(&mut self.new);
        b.switch_to_block(guard.body);
        b.jump(guard.join);
        self.cur = guard.join;
    }

    /// `r` (of type `ty`) computed by the guarded code, or zero if it did not run.
    fn result_or_zero(&mut self, guard: &Guard, r: Value, ty: Type) -> Value {
        let mut cur = FuncCursor::new(&mut self.new);
        // The zero lives in `from`, before its branch.
        let zero = if ty.is_float() {
            InstData::Fconst { bits: 0 }
        } else {
            InstData::Iconst { imm: 0 }
        };
        let z = cur
            .goto_before_terminator(guard.from)
            .insert_value(zero, ty);
        let incoming = vec![(guard.from, z), (guard.body, r)];
        cur.goto_bottom(guard.join).insert_phi(ty, incoming)
    }

    fn any(&mut self, mask: Value) -> Value {
        self.emit_v(
            InstData::Intrinsic {
                id: Intrinsic::Any,
                args: vec![mask],
            },
            Type::I1,
        )
    }

    /// Is `mask` the entry mask of a masked variant (directly or through copies)?
    fn is_entry_mask(&self, mut mask: Value) -> bool {
        loop {
            if Some(mask) == self.entry_active {
                return true;
            }
            match self.new.dfg.value_def(mask) {
                ValueDef::Result(i) => match self.new.dfg.inst(i) {
                    InstData::Unary {
                        op: UnaryOp::Copy,
                        arg,
                        ..
                    } => mask = *arg,
                    _ => return false,
                },
                ValueDef::Param(_) => return false,
            }
        }
    }

    pub(super) fn once_if_any(&mut self, mask: Value, data: InstData, ty: Type) -> Value {
        if self.is_entry_mask(mask) {
            // Some lane is active, or the function returned at its entry.
            return self.emit_v(data, ty);
        }
        let a = self.any(mask);
        let guard = self.enter_guard(a);
        let r = self.emit_v(data, ty);
        self.leave_guard(&guard);
        self.result_or_zero(&guard, r, ty)
    }

    /// A division operand's guard `select p, v, filler` whose result is uniform: `v` itself
    /// for a dividend, and for a divisor one scalar `select(any(p), v, 1)`, so that a
    /// division that runs with no lane active cannot trap (see [`crate::guards`]).
    pub(super) fn uniform_operand_guard(
        &mut self,
        guard: crate::guards::OperandGuard,
        v: Value,
        ty: Type,
    ) -> Value {
        let v = self.mapped(v);
        let mask = self.vector(guard.pred);
        if !guard.divisor || self.is_entry_mask(mask) {
            return v;
        }
        let a = self.any(mask);
        let one = self.emit_v(InstData::Iconst { imm: 1 }, ty);
        self.emit_v(InstData::Select { args: [a, v, one] }, ty)
    }

    pub(super) fn once_if_any_effect(&mut self, mask: Value, data: InstData) {
        if self.is_entry_mask(mask) {
            self.emit(data, None);
            return;
        }
        let a = self.any(mask);
        self.guarded(a, data, None);
    }

    /// Runs `data` (a call or atomic of the old function) once per active lane.
    pub(super) fn per_lane(
        &mut self,
        data: &InstData,
        res_ty: Option<Type>,
        mask: Option<Value>,
    ) -> Option<Value> {
        let args = data.args();
        let mut acc = res_ty.map(|t| self.zero_vec(t));
        for k in 0..self.width {
            let idx = self.emit_v(InstData::Iconst { imm: i64::from(k) }, Type::I32);
            let mut lane_args = Vec::with_capacity(args.len());
            for &a in &args {
                let v = if self.is_uniform(a) {
                    self.scalar(a)
                } else {
                    let vec = self.mapped(a);
                    let t = self.old.dfg.value_type(a);
                    self.emit_v(
                        InstData::Intrinsic {
                            id: Intrinsic::Extract,
                            args: vec![vec, idx],
                        },
                        t,
                    )
                };
                lane_args.push(v);
            }
            let mut d = data.clone();
            let mut i = 0;
            d.for_each_arg_mut(|v| {
                *v = lane_args[i];
                i += 1;
            });
            if let InstData::Call { func, args } = &mut d {
                if let Some(&copy) = self.special.get(func) {
                    // The lane's own work-item ids.
                    *func = copy;
                    for q in [WorkItemQuery::GlobalId, WorkItemQuery::LocalId] {
                        let s = self.emit_v(InstData::WorkItem { query: q, dim: 0 }, Type::I64);
                        let kk = self.emit_v(InstData::Iconst { imm: i64::from(k) }, Type::I64);
                        args.push(self.emit_v(
                            InstData::Binary {
                                op: BinaryOp::Add,
                                args: [s, kk],
                                flags: IntFlags::NONE,
                            },
                            Type::I64,
                        ));
                    }
                }
            }
            let r = match mask {
                None => self.emit(d, res_ty),
                Some(m) => {
                    let bit = self.emit_v(
                        InstData::Intrinsic {
                            id: Intrinsic::Extract,
                            args: vec![m, idx],
                        },
                        Type::I1,
                    );
                    self.guarded(bit, d, res_ty)
                }
            };
            if let (Some(t), Some(a), Some(r)) = (res_ty, acc, r) {
                acc = Some(self.emit_v(
                    InstData::Intrinsic {
                        id: Intrinsic::Insert,
                        args: vec![a, r, idx],
                    },
                    vec_of(t, self.width),
                ));
            }
        }
        acc
    }
}

/// Does calling `f` have no effect besides its result, the same for every lane given the
/// same arguments (no memory writes, atomics, barriers or work-item queries, also in
/// the functions it calls)?
pub(super) fn is_pure(module: &Module, calls: &CallGraph, f: FuncId) -> bool {
    !calls.reaches(f, |g| {
        module.function(g).is_none()
            || body_has(module, g, &|d: &InstData| {
                !matches!(d, InstData::Call { .. })
                    && (matches!(d, InstData::WorkItem { .. }) || d.has_side_effects())
            })
    })
}

/// Does the body of `f` (if defined) hold an instruction satisfying `hit`?
pub(super) fn body_has(module: &Module, f: FuncId, hit: &impl Fn(&InstData) -> bool) -> bool {
    module
        .function(f)
        .is_some_and(|body| body.dfg.insts().any(|i| hit(body.dfg.inst(i))))
}

/// Does `f` itself query its work item?
pub(super) fn asks_work_item(module: &Module, f: FuncId) -> bool {
    body_has(module, f, &|d: &InstData| {
        matches!(d, InstData::WorkItem { .. })
    })
}

/// A copy of `callee` whose `global_id 0` and `local_id 0` read two extra `i64`
/// parameters (the calling lane's ids).
pub(super) fn with_item_params(callee: &Function) -> Function {
    let mut f = callee.clone();
    f.name = format!("{}.lane_item", callee.name);
    let n = f.params.len();
    let gid = f.dfg.make_param(n, Type::I64);
    let lid = f.dfg.make_param(n + 1, Type::I64);
    for v in [gid, lid] {
        f.params.push(Param {
            value: v,
            attrs: Default::default(),
        });
    }
    if !f.abi.params.is_empty() {
        f.abi.params.resize(n + 2, Default::default());
    }
    for i in f.dfg.insts().collect::<Vec<_>>() {
        let src = match f.dfg.inst(i) {
            InstData::WorkItem {
                query: WorkItemQuery::GlobalId,
                dim: 0,
            } => gid,
            InstData::WorkItem {
                query: WorkItemQuery::LocalId,
                dim: 0,
            } => lid,
            _ => continue,
        };
        let Some(r) = f.dfg.inst_result(i) else {
            continue;
        };
        *f.dfg.inst_mut(i) = if f.dfg.value_type(r) == Type::I64 {
            InstData::Unary {
                op: lanes_ir::UnaryOp::Copy,
                arg: src,
            }
        } else {
            InstData::Cast {
                op: CastOp::Trunc,
                arg: src,
                flags: IntFlags::NONE,
            }
        };
    }
    f
}

/// Gives the widened masked variant `func` a new entry block that returns zero at once
/// when no lane of `active` (its entry mask) is set. A masked variant does nothing for an
/// inactive lane (`crate::entry_mask`), so with every lane off it does nothing at all;
/// after this test an access under exactly the entry mask runs unguarded, where each one
/// would otherwise need its own "any lane active" branch (the all-off case ISPC also
/// tests once at a function's entry).
pub(super) fn return_early_when_no_lane_is_active(
    func: &mut Function,
    active: Value,
) -> Result<(), WfvError> {
    let any = |b: &mut FuncBuilder| {
        b.value(
            InstData::Intrinsic {
                id: Intrinsic::Any,
                args: vec![active],
            },
            Type::I1,
        )
    };
    if return_zero_unless(func, any) {
        Ok(())
    } else {
        Err(WfvError::Internal(
            "the widened function has no entry".into(),
        ))
    }
}
