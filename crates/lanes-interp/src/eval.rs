//! The per-instruction evaluator, independent of any control-flow driver.
//!
//! ARCHITECTURE.md plans three interpreter modes over one value and memory model: scalar,
//! vector (a vectorized function run once with W lanes as data) and SIMT lock-step
//! (μ-SIMD, PACT'11 §II: W threads sharing one program counter, reconverging at immediate
//! post-dominators). They differ only in *how control flows* — which instruction runs
//! next, for which threads — not in what an instruction computes. So [`eval_inst`]
//! computes one instruction from its operands and reports an [`Effect`] (a value, a
//! branch, a return, or a call the driver must perform), and each driver decides the rest:
//! [`crate::interp`] walks one activation stack; a SIMT driver can call `eval_inst` once
//! per active thread with that thread's operand map and [`EvalCtx::lane`] set to the
//! thread, so its memory accesses are traced per thread.
//!
//! φ-nodes are not evaluated here: their meaning is "on entry to the block", which only a
//! driver knows (see [`crate::interp`] for parallel φ evaluation). Calls to defined
//! functions are returned as [`Effect::Call`] so that drivers keep their own call stack
//! (no Rust recursion, so deep recursion in the program cannot overflow the host stack);
//! calls to declared functions are evaluated here ([`crate::externals`]).

use lanes_ir::{
    Block, EntityRef, FuncEntry, FuncId, Function, Inst, InstData, Intrinsic, Module, Value,
};

use crate::arith::{self, malformed};
use crate::cast;
use crate::context::{self, ExecContext};
use crate::error::ErrorKind;
use crate::externals;
use crate::intrinsics;
use crate::mem_ops;
use crate::memory::Memory;
use crate::value::{normalize, RtValue};

/// Where an evaluator finds operand values.
pub trait Operands {
    /// The current value of `v`, or `None` if it has not been defined.
    fn operand(&self, v: Value) -> Option<&RtValue>;
}

impl Operands for [Option<RtValue>] {
    fn operand(&self, v: Value) -> Option<&RtValue> {
        self.get(v.index())?.as_ref()
    }
}

impl Operands for Vec<Option<RtValue>> {
    fn operand(&self, v: Value) -> Option<&RtValue> {
        self.as_slice().operand(v)
    }
}

/// What an instruction may touch besides its operands.
pub struct EvalCtx<'a> {
    pub module: &'a Module,
    pub exec: &'a ExecContext,
    pub mem: &'a mut Memory,
    /// Stack slots allocated by the current activation (freed by the driver on return).
    pub allocas: &'a mut Vec<u64>,
    /// The lane (SIMT thread) under which scalar memory accesses are traced.
    pub lane: Option<u32>,
}

/// The outcome of one instruction.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Continue with the next instruction; the result, if the instruction has one.
    Next(Option<RtValue>),
    /// Transfer control to a block.
    Jump(Block),
    /// Return from the function.
    Return(Option<RtValue>),
    /// Call a defined function; the driver binds its result to the call's result value.
    Call { callee: FuncId, args: Vec<RtValue> },
}

/// Evaluates `inst` of `func`. The result's type is checked against the instruction's
/// declared result type, so that no ill-typed value enters a frame.
pub fn eval_inst(
    cx: &mut EvalCtx<'_>,
    func: &Function,
    inst: Inst,
    ops: &dyn Operands,
) -> Result<Effect, ErrorKind> {
    if !func.dfg.is_valid_inst(inst) {
        return Err(malformed(format!("no instruction {inst}")));
    }
    let declared = func
        .dfg
        .inst_result(inst)
        .filter(|&v| func.dfg.is_valid_value(v))
        .map(|v| func.dfg.value_type(v));
    if declared.is_some_and(|t| t.lane_count() == 0) {
        return Err(malformed("result type with no lanes"));
    }
    let effect = eval_inner(cx, func.dfg.inst(inst), declared, ops)?;
    if let Effect::Next(result) = &effect {
        let actual = result.as_ref().map(RtValue::ty);
        if actual != declared {
            let show =
                |t: Option<lanes_ir::Type>| t.map_or("no value".to_string(), |t| t.to_string());
            return Err(malformed(format!(
                "instruction produces {} but its result is declared {}",
                show(actual),
                show(declared)
            )));
        }
    }
    Ok(effect)
}

fn eval_inner(
    cx: &mut EvalCtx<'_>,
    data: &InstData,
    rty: Option<lanes_ir::Type>,
    ops: &dyn Operands,
) -> Result<Effect, ErrorKind> {
    let get = |v: Value| ops.operand(v).ok_or(ErrorKind::UndefinedValue(v));
    let need_ty =
        || rty.ok_or_else(|| malformed(format!("`{}` needs a result", data.opcode_name())));
    let value = |v: RtValue| Ok(Effect::Next(Some(v)));
    match data {
        InstData::Iconst { imm } => {
            let ty = need_ty()?;
            if !(ty.is_int() || ty.is_ptr()) {
                return Err(malformed(format!("iconst of type {ty}")));
            }
            value(RtValue::splat(ty, *imm as u64))
        }
        InstData::Fconst { bits } => {
            let ty = need_ty()?;
            if !ty.is_float() {
                return Err(malformed(format!("fconst of type {ty}")));
            }
            value(RtValue::splat(ty, *bits))
        }
        InstData::Unary { op, arg } => value(arith::unary(*op, get(*arg)?)?),
        InstData::Binary { op, args, .. } => {
            value(arith::binary(*op, get(args[0])?, get(args[1])?)?)
        }
        InstData::Icmp { cond, args } => value(arith::icmp(*cond, get(args[0])?, get(args[1])?)?),
        InstData::Fcmp { cond, args } => value(arith::fcmp(*cond, get(args[0])?, get(args[1])?)?),
        InstData::Select { args } => {
            value(arith::select(get(args[0])?, get(args[1])?, get(args[2])?)?)
        }
        InstData::Cast { op, arg, .. } => value(cast::cast(*op, get(*arg)?, need_ty()?)?),
        InstData::Phi { .. } => Err(malformed("φ below a non-φ instruction of its block")),
        InstData::PtrAdd { args, .. } => {
            value(mem_ops::ptradd(get(args[0])?, get(args[1])?, need_ty()?)?)
        }
        InstData::Alloca { size, align } => {
            let ty = need_ty()?;
            if !ty.is_ptr() || ty.is_vector() {
                return Err(malformed(format!("alloca of type {ty}")));
            }
            let ptr = cx.mem.alloc_stack(u64::from(*size), *align)?;
            cx.allocas.push(ptr);
            value(RtValue::from_bits(ty.elem(), ptr))
        }
        InstData::GlobalAddr { global } => {
            let ty = need_ty()?;
            let ptr = cx.mem.global_ptr(global.index());
            let ptr = ptr.ok_or_else(|| malformed(format!("{global} is not placed in memory")))?;
            if !ty.is_ptr() || ty.is_vector() {
                return Err(malformed(format!("global_addr of type {ty}")));
            }
            value(RtValue::from_bits(ty.elem(), ptr))
        }
        InstData::FuncAddr { func } => {
            if cx.module.funcs.get(*func).is_none() {
                return Err(malformed(format!("no {func}")));
            }
            let ty = need_ty()?;
            if !ty.is_ptr() || ty.is_vector() {
                return Err(malformed(format!("func_addr of type {ty}")));
            }
            value(RtValue::from_bits(
                ty.elem(),
                crate::memory::func_ptr(func.index()),
            ))
        }
        // One instance at a time: every ordering holds, and a volatile access is performed
        // exactly as written.
        InstData::Load { ptr, align, .. } => value(mem_ops::load(
            cx.mem,
            get(*ptr)?,
            need_ty()?,
            *align,
            cx.lane,
        )?),
        InstData::Store {
            value: v,
            ptr,
            align,
            ..
        } => {
            mem_ops::store(cx.mem, get(*v)?, get(*ptr)?, *align, cx.lane)?;
            Ok(Effect::Next(None))
        }
        InstData::MaskedLoad {
            ptr,
            mask,
            passthru,
            align,
        } => value(mem_ops::masked_load(
            cx.mem,
            get(*ptr)?,
            get(*mask)?,
            get(*passthru)?,
            *align,
        )?),
        InstData::MaskedStore {
            value: v,
            ptr,
            mask,
            align,
        } => {
            mem_ops::masked_store(cx.mem, get(*v)?, get(*ptr)?, get(*mask)?, *align)?;
            Ok(Effect::Next(None))
        }
        InstData::Gather {
            ptrs,
            mask,
            passthru,
            align,
        } => value(mem_ops::gather(
            cx.mem,
            get(*ptrs)?,
            get(*mask)?,
            get(*passthru)?,
            *align,
        )?),
        InstData::Scatter {
            value: v,
            ptrs,
            mask,
            align,
        } => {
            mem_ops::scatter(cx.mem, get(*v)?, get(*ptrs)?, get(*mask)?, *align)?;
            Ok(Effect::Next(None))
        }
        InstData::AtomicRmw {
            op, ptr, value: v, ..
        } => value(mem_ops::atomic_rmw(
            cx.mem,
            *op,
            get(*ptr)?,
            get(*v)?,
            cx.lane,
        )?),
        InstData::AtomicCas {
            ptr,
            expected,
            replacement,
            ..
        } => value(mem_ops::atomic_cas(
            cx.mem,
            get(*ptr)?,
            get(*expected)?,
            get(*replacement)?,
            cx.lane,
        )?),
        InstData::Call { func: callee, args } => {
            let argv = args
                .iter()
                .map(|&a| get(a).cloned())
                .collect::<Result<Vec<_>, _>>()?;
            call(cx, *callee, argv, rty)
        }
        InstData::Fence { .. } => Ok(Effect::Next(None)),
        InstData::CallIndirect {
            callee,
            args,
            variadic,
        } => {
            let target = get(*callee)?;
            let index = target
                .as_u64()
                .filter(|_| target.elem().is_ptr())
                .and_then(crate::memory::ptr_func)
                .filter(|&i| i < cx.module.funcs.len());
            let Some(index) = index else {
                return Err(ErrorKind::BadArgument(format!(
                    "call through {target}, which is not the address of a function"
                )));
            };
            let argv = args
                .iter()
                .map(|&a| get(a).cloned())
                .collect::<Result<Vec<_>, _>>()?;
            let func = FuncId::new(index);
            // Calling a function through a pointer of another type is undefined in C.
            let variadic_callee = cx.module.funcs[func].signature().variadic;
            if variadic.is_some() != variadic_callee {
                return Err(ErrorKind::BadArgument(format!(
                    "call through a pointer whose type differs from @{} (variadic or not)",
                    cx.module.funcs[func].name()
                )));
            }
            call(cx, func, argv, rty)
        }
        InstData::Intrinsic {
            id: Intrinsic::SpeculativeLoad,
            args,
        } if args.len() == 2 => value(mem_ops::speculative_load(
            cx.mem,
            get(args[0])?,
            get(args[1])?,
            need_ty()?,
        )?),
        InstData::Intrinsic { id, args } => {
            let argv = args
                .iter()
                .map(|&a| get(a))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Effect::Next(intrinsics::intrinsic(
                *id, &argv, rty, cx.exec,
            )?))
        }
        InstData::WorkItem { query, dim } => {
            value(context::work_item(cx.exec, *query, *dim, need_ty()?)?)
        }
        InstData::Shuffle { args, mask } => value(intrinsics::shuffle(
            get(args[0])?,
            get(args[1])?,
            mask,
            need_ty()?,
        )?),
        InstData::Jump { dest } => Ok(Effect::Jump(*dest)),
        InstData::Brif {
            cond,
            then_dest,
            else_dest,
        } => {
            let c = get(*cond)?;
            let c = c
                .as_bool()
                .ok_or_else(|| malformed(format!("brif on {}", c.ty())))?;
            Ok(Effect::Jump(if c { *then_dest } else { *else_dest }))
        }
        InstData::Switch {
            arg,
            cases,
            default,
        } => {
            let a = get(*arg)?;
            let bits = a.as_u64().filter(|_| a.elem().is_int());
            let bits = bits.ok_or_else(|| malformed(format!("switch on {}", a.ty())))?;
            let elem = a.elem();
            let hit = cases
                .iter()
                .find(|&&(k, _)| normalize(elem, k as u64) == bits);
            Ok(Effect::Jump(hit.map_or(*default, |&(_, b)| b)))
        }
        InstData::Return { value: v } => {
            Ok(Effect::Return(v.map(|v| get(v).cloned()).transpose()?))
        }
        InstData::Unreachable => Err(ErrorKind::Unreachable),
    }
}

/// A call: checks the arguments against the callee's signature, evaluates externals and
/// defers defined functions to the driver.
fn call(
    cx: &mut EvalCtx<'_>,
    callee: FuncId,
    args: Vec<RtValue>,
    rty: Option<lanes_ir::Type>,
) -> Result<Effect, ErrorKind> {
    let entry = cx
        .module
        .funcs
        .get(callee)
        .ok_or_else(|| malformed(format!("no {callee}")))?;
    let sig = entry.signature();
    if let Some(msg) = signature_mismatch(&sig, &args) {
        return Err(malformed(format!("call to @{}: {msg}", entry.name())));
    }
    if sig.ret != rty {
        return Err(malformed(format!(
            "call to @{}: result type differs",
            entry.name()
        )));
    }
    match entry {
        FuncEntry::Defined(_) => Ok(Effect::Call { callee, args }),
        FuncEntry::Declared(d) if crate::stdio::is_stdio(&d.name) => Ok(Effect::Next(
            crate::stdio::call_stdio(cx.mem, &d.name, &args, d.sig.ret)?,
        )),
        FuncEntry::Declared(d) => Ok(Effect::Next(externals::call_external(
            &d.name, &d.sig, &args,
        )?)),
    }
}

/// Why `args` do not fit `sig`, if they do not.
pub fn signature_mismatch(sig: &lanes_ir::Signature, args: &[RtValue]) -> Option<String> {
    let count_ok = if sig.variadic {
        args.len() >= sig.params.len()
    } else {
        args.len() == sig.params.len()
    };
    if !count_ok {
        return Some(format!(
            "{} arguments given, {} expected",
            args.len(),
            sig.params.len()
        ));
    }
    sig.params
        .iter()
        .zip(args)
        .enumerate()
        .find(|(_, (p, a))| **p != a.ty())
        .map(|(i, (p, a))| format!("argument {i} is {} ({a}) but the parameter is {p}", a.ty()))
}
