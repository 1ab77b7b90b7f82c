//! Operand and result type rules of every instruction.
//!
//! The rules are those the interpreter and the LLVM export rely on: binary operations take
//! and produce one type, comparisons produce `i1` or a mask of the same length, vector
//! memory operations agree with their masks on the lane count, intrinsics follow their
//! [`IntrinsicClass`]. Each violated rule is returned as one message; the driver attaches
//! the instruction.

use crate::entities::Value;
use crate::function::Function;
use crate::instructions::InstData;
use crate::memory_order::{MemAccess, Ordering};
use crate::module::Module;
use crate::opcodes::{CastOp, Intrinsic, IntrinsicClass, UnaryOp};
use crate::types::{ScalarType, Type};

/// Checks one instruction's operand and result types. `result` is the type of the
/// instruction's result, if it has one (the driver checks presence separately).
pub(super) fn check_inst(
    module: &Module,
    func: &Function,
    data: &InstData,
    result: Option<Type>,
    errors: &mut Vec<String>,
) {
    let ty = |v: Value| func.dfg.value_type(v);
    let mut err = |msg: String| errors.push(msg);
    // The result type, or a placeholder when it is missing (reported by the driver).
    let res = result.unwrap_or(Type::I32);
    if let Some(t) = result {
        if t.lanes() == Some(0) {
            err(format!("result type {t} has no lanes"));
        }
    }
    match data {
        InstData::Iconst { imm } => {
            if !(res.is_int() || res.is_ptr()) {
                err(format!(
                    "iconst produces {res}, expected an integer or pointer type"
                ));
            } else if res.elem().bits() < 64 {
                let bits = res.elem().bits();
                let (lo, hi) = (-(1i128 << (bits - 1)), (1i128 << bits) - 1);
                if !(lo..=hi).contains(&i128::from(*imm)) {
                    err(format!("constant {imm} does not fit in {}", res.elem()));
                }
            }
        }
        InstData::Fconst { bits } => {
            if !res.is_float() {
                err(format!("fconst produces {res}, expected a float type"));
            } else if res.elem() == ScalarType::F32 && *bits > u64::from(u32::MAX) {
                err(format!("f32 constant bits {bits:#x} do not fit in 32 bits"));
            }
        }
        InstData::Unary { op, arg } => {
            let ok = match op {
                UnaryOp::Ineg | UnaryOp::Not => ty(*arg).is_int(),
                UnaryOp::Fneg => ty(*arg).is_float(),
                UnaryOp::Copy | UnaryOp::Freeze => true,
            };
            if !ok {
                err(format!("{op} does not apply to {}", ty(*arg)));
            }
            same(&mut err, "result", res, "operand", ty(*arg));
        }
        InstData::Binary { op, args, flags } => {
            let (a, b) = (ty(args[0]), ty(args[1]));
            same(&mut err, "first operand", a, "second operand", b);
            same(&mut err, "result", res, "operand", a);
            let extra = flags.without(op.allowed_flags());
            if !extra.is_empty() {
                err(format!("{op} cannot carry the flags{extra}"));
            }
            let ok = if op.is_float() {
                a.is_float()
            } else {
                a.is_int()
            };
            if !ok {
                err(format!("{op} does not apply to {a}"));
            }
        }
        InstData::Icmp { args, .. } | InstData::Fcmp { args, .. } => {
            let (a, b) = (ty(args[0]), ty(args[1]));
            same(&mut err, "first operand", a, "second operand", b);
            let float = matches!(data, InstData::Fcmp { .. });
            if float && !a.is_float() {
                err(format!("fcmp compares {a}, expected floats"));
            }
            if !float && a.is_float() {
                err(format!("icmp compares {a}, expected integers or pointers"));
            }
            same(&mut err, "result", res, "comparison type", a.as_bool());
        }
        InstData::Select { args } => {
            let (c, a, b) = (ty(args[0]), ty(args[1]), ty(args[2]));
            same(&mut err, "true value", a, "false value", b);
            same(&mut err, "result", res, "value", a);
            let cond_ok = c == Type::I1 || (c.is_bool() && c.lanes() == a.lanes());
            if !cond_ok {
                err(format!(
                    "select condition is {c}, expected i1 or {}",
                    a.as_bool()
                ));
            }
        }
        InstData::Cast { op, arg, flags } => {
            let extra = flags.without(op.allowed_flags());
            if !extra.is_empty() {
                err(format!("{op} cannot carry the flags{extra}"));
            }
            check_cast(*op, ty(*arg), res, &mut err)
        }
        InstData::Phi { incoming } => {
            for (block, v) in incoming {
                if ty(*v) != res {
                    err(format!(
                        "φ operand {v} from {block} has type {}, expected {res}",
                        ty(*v)
                    ));
                }
            }
        }
        InstData::PtrAdd { args, flags } => {
            let extra = flags.without(crate::flags::IntFlags::PTRADD);
            if !extra.is_empty() {
                err(format!("flags{extra} do not apply to ptradd"));
            }
            let (p, o) = (ty(args[0]), ty(args[1]));
            if !p.is_ptr() {
                err(format!("ptradd base is {p}, expected a pointer"));
            }
            if !o.is_int() {
                err(format!("ptradd offset is {o}, expected an integer"));
            }
            if let (Some(n), Some(m)) = (p.lanes(), o.lanes()) {
                if n != m {
                    err(format!("ptradd lanes differ: {p} and {o}"));
                }
            }
            let lanes = p.lanes().or(o.lanes());
            let expect = match lanes {
                Some(n) => Type::Vector(n, p.elem()),
                None => Type::Scalar(p.elem()),
            };
            same(&mut err, "result", res, "pointer type", expect);
        }
        InstData::Alloca { align, .. } => {
            check_align(*align, &mut err);
            same(&mut err, "result", res, "alloca type", Type::PTR);
        }
        InstData::GlobalAddr { global } => match module.globals.get(*global) {
            Some(g) => same(&mut err, "result", res, "global's type", Type::ptr(g.space)),
            None => err(format!("{global} is not a global of the module")),
        },
        InstData::FuncAddr { func } => {
            if module.funcs.get(*func).is_none() {
                err(format!("{func} is not a function of the module"));
            }
            same(&mut err, "result", res, "func_addr type", Type::PTR);
        }
        InstData::Load { ptr, align, access } => {
            scalar_ptr(&mut err, "load address", ty(*ptr));
            check_align(*align, &mut err);
            check_access(access, Ordering::valid_for_load, res, &mut err);
        }
        InstData::Store {
            value,
            ptr,
            align,
            access,
        } => {
            scalar_ptr(&mut err, "store address", ty(*ptr));
            check_align(*align, &mut err);
            check_access(access, Ordering::valid_for_store, ty(*value), &mut err);
        }
        InstData::Fence { ordering, .. } => {
            if !ordering.valid_for_fence() {
                err(format!("a fence cannot be {ordering}"));
            }
        }
        InstData::MaskedLoad {
            ptr,
            mask,
            passthru,
            align,
        } => {
            scalar_ptr(&mut err, "masked_load address", ty(*ptr));
            check_align(*align, &mut err);
            mask_for(&mut err, ty(*mask), res);
            same(&mut err, "passthru", ty(*passthru), "result", res);
        }
        InstData::MaskedStore {
            value,
            ptr,
            mask,
            align,
        } => {
            scalar_ptr(&mut err, "masked_store address", ty(*ptr));
            check_align(*align, &mut err);
            mask_for(&mut err, ty(*mask), ty(*value));
        }
        InstData::Gather {
            ptrs,
            mask,
            passthru,
            align,
        } => {
            check_align(*align, &mut err);
            ptr_vector_for(&mut err, ty(*ptrs), res);
            mask_for(&mut err, ty(*mask), res);
            same(&mut err, "passthru", ty(*passthru), "result", res);
        }
        InstData::Scatter {
            value,
            ptrs,
            mask,
            align,
        } => {
            check_align(*align, &mut err);
            ptr_vector_for(&mut err, ty(*ptrs), ty(*value));
            mask_for(&mut err, ty(*mask), ty(*value));
        }
        InstData::AtomicRmw {
            ptr, value, access, ..
        } => {
            scalar_ptr(&mut err, "atomic address", ty(*ptr));
            check_rmw_access(access, &mut err);
            let v = ty(*value);
            if !(v.is_int() && !v.is_vector() && v != Type::I1) {
                err(format!("atomic operand is {v}, expected a scalar integer"));
            }
            same(&mut err, "result", res, "operand", v);
        }
        InstData::AtomicCas {
            ptr,
            expected,
            replacement,
            access,
            failure,
        } => {
            scalar_ptr(&mut err, "atomic address", ty(*ptr));
            check_rmw_access(access, &mut err);
            if !failure.valid_for_cas_failure() {
                err(format!("atomic_cas cannot fail with ordering {failure}"));
            }
            let e = ty(*expected);
            same(
                &mut err,
                "expected value",
                e,
                "replacement",
                ty(*replacement),
            );
            if !(e.is_int() && !e.is_vector() && e != Type::I1) {
                err(format!(
                    "atomic_cas operand is {e}, expected a scalar integer"
                ));
            }
            same(&mut err, "result", res, "operand", e);
        }
        InstData::Call { func: callee, args } => match module.funcs.get(*callee) {
            None => err(format!("{callee} is not a function of the module")),
            Some(entry) => {
                let sig = entry.signature();
                let count_ok = if sig.variadic {
                    args.len() >= sig.params.len()
                } else {
                    args.len() == sig.params.len()
                };
                if !count_ok {
                    let at_least = if sig.variadic { "at least " } else { "" };
                    err(format!(
                        "call to @{} passes {} arguments, the callee takes {at_least}{}",
                        entry.name(),
                        args.len(),
                        sig.params.len()
                    ));
                }
                for (i, (&a, &p)) in args.iter().zip(&sig.params).enumerate() {
                    if ty(a) != p {
                        err(format!(
                            "argument {i} ({a}) has type {}, @{} expects {p}",
                            ty(a),
                            entry.name()
                        ));
                    }
                }
                if let (Some(r), Some(t)) = (sig.ret, result) {
                    same(&mut err, "result", t, "callee's return type", r);
                }
            }
        },
        InstData::CallIndirect {
            callee,
            args,
            variadic,
        } => {
            scalar_ptr(&mut err, "callee", ty(*callee));
            if let Some(n) = variadic {
                if *n as usize > args.len() {
                    err(format!(
                        "call_indirect passes {} arguments to a callee with {n} fixed parameters",
                        args.len()
                    ));
                }
            }
        }
        InstData::Intrinsic { id, args } => {
            let arg_types: Vec<Type> = args.iter().map(|&v| ty(v)).collect();
            check_intrinsic(*id, &arg_types, result, &mut err);
        }
        InstData::WorkItem { dim, .. } => {
            if *dim > 2 {
                err(format!("work-item dimension {dim} is out of range 0..=2"));
            }
            if !(res == Type::I32 || res == Type::I64) {
                err(format!(
                    "work-item query produces {res}, expected i32 or i64"
                ));
            }
        }
        InstData::Shuffle { args, mask } => {
            let (a, b) = (ty(args[0]), ty(args[1]));
            same(&mut err, "first operand", a, "second operand", b);
            match a.lanes() {
                None => err(format!("shuffle operand is {a}, expected a vector")),
                Some(n) => {
                    if let Some(&bad) = mask.iter().find(|&&i| i >= 2 * u32::from(n)) {
                        err(format!(
                            "shuffle index {bad} is out of range for 2 x {n} lanes"
                        ));
                    }
                    let expect = u16::try_from(mask.len())
                        .ok()
                        .filter(|&m| m > 0)
                        .map(|m| Type::Vector(m, a.elem()));
                    match expect {
                        Some(e) => same(&mut err, "result", res, "shuffle type", e),
                        None => err(format!("shuffle mask has {} entries", mask.len())),
                    }
                }
            }
        }
        InstData::Brif { cond, .. } => {
            if ty(*cond) != Type::I1 {
                err(format!("brif condition is {}, expected i1", ty(*cond)));
            }
        }
        InstData::Switch { arg, cases, .. } => {
            let t = ty(*arg);
            if !t.is_int() || t.is_vector() {
                err(format!("switch operand is {t}, expected a scalar integer"));
            }
            let mut seen = std::collections::HashSet::new();
            for (k, _) in cases {
                if !seen.insert(*k) {
                    err(format!("switch case {k} appears twice"));
                }
            }
        }
        InstData::Return { value } => match (value, func.ret) {
            (Some(v), Some(r)) => same(&mut err, "returned value", ty(*v), "return type", r),
            (Some(v), None) => err(format!("returns {v} from a function without a return type")),
            (None, Some(r)) => err(format!("returns nothing from a function returning {r}")),
            (None, None) => {}
        },
        InstData::Jump { .. } | InstData::Unreachable => {}
    }
}

fn same(err: &mut impl FnMut(String), what: &str, a: Type, other: &str, b: Type) {
    if a != b {
        err(format!("{what} has type {a}, but {other} is {b}"));
    }
}

/// A load's or store's ordering must suit it, and an atomic access is of one scalar (LLVM
/// has no atomic vector access).
fn check_access(
    access: &MemAccess,
    valid: fn(Ordering) -> bool,
    value: Type,
    err: &mut impl FnMut(String),
) {
    if let Some(o) = access.ordering() {
        if !valid(o) {
            err(format!("ordering {o} is not allowed here"));
        }
        if value.is_vector() || value == Type::I1 {
            err(format!(
                "atomic access of {value}, expected a scalar of 8 bits or more"
            ));
        }
    }
}

fn check_rmw_access(access: &MemAccess, err: &mut impl FnMut(String)) {
    match access.ordering() {
        None => err("atomic operation without an ordering".into()),
        Some(o) if !o.valid_for_rmw() => err(format!("atomic operation cannot be {o}")),
        _ => {}
    }
}

fn check_align(align: u32, err: &mut impl FnMut(String)) {
    if align != 0 && !align.is_power_of_two() {
        err(format!("alignment {align} is not a power of two"));
    }
}

fn scalar_ptr(err: &mut impl FnMut(String), what: &str, t: Type) {
    if !t.is_ptr() || t.is_vector() {
        err(format!("{what} is {t}, expected a scalar pointer"));
    }
}

fn mask_for(err: &mut impl FnMut(String), mask: Type, value: Type) {
    match value.lanes() {
        None => err(format!(
            "masked operation on scalar {value}, expected a vector"
        )),
        Some(n) if mask != Type::mask(n) => err(format!("mask is {mask}, expected <{n} x i1>")),
        Some(_) => {}
    }
}

fn ptr_vector_for(err: &mut impl FnMut(String), ptrs: Type, value: Type) {
    if !(ptrs.is_ptr() && ptrs.lanes().is_some() && ptrs.lanes() == value.lanes()) {
        err(format!(
            "addresses are {ptrs}, expected a vector of pointers as long as {value}"
        ));
    }
}

fn check_cast(op: CastOp, from: Type, to: Type, err: &mut impl FnMut(String)) {
    let (fb, tb) = (from.elem().bits(), to.elem().bits());
    let lanes_ok = from.lanes() == to.lanes();
    let ok = match op {
        CastOp::Trunc => lanes_ok && from.is_int() && to.is_int() && tb < fb,
        CastOp::Zext | CastOp::Sext => lanes_ok && from.is_int() && to.is_int() && tb > fb,
        CastOp::FpTrunc => lanes_ok && from.is_float() && to.is_float() && tb < fb,
        CastOp::FpExt => lanes_ok && from.is_float() && to.is_float() && tb > fb,
        CastOp::FpToSi | CastOp::FpToUi => lanes_ok && from.is_float() && to.is_int(),
        CastOp::SiToFp | CastOp::UiToFp => lanes_ok && from.is_int() && to.is_float(),
        CastOp::Bitcast => {
            !from.is_ptr()
                && !to.is_ptr()
                && fb * from.lane_count() == tb * to.lane_count()
                && from != to
        }
        CastOp::PtrToInt => lanes_ok && from.is_ptr() && to.is_int() && to.elem() != ScalarType::I1,
        CastOp::IntToPtr => lanes_ok && from.is_int() && to.is_ptr(),
        CastOp::AddrSpaceCast => lanes_ok && from.is_ptr() && to.is_ptr(),
    };
    if !ok {
        err(format!("{op} cannot convert {from} to {to}"));
    }
}

fn check_intrinsic(
    id: Intrinsic,
    args: &[Type],
    result: Option<Type>,
    err: &mut impl FnMut(String),
) {
    let arity = |n: usize, err: &mut dyn FnMut(String)| {
        if args.len() != n {
            err(format!("{id} takes {n} operands, found {}", args.len()));
            false
        } else {
            true
        }
    };
    let needs_result = !matches!(id.class(), IntrinsicClass::Barrier);
    if needs_result != result.is_some() {
        return; // reported by the driver
    }
    let res = result.unwrap_or(Type::I32);
    match id.class() {
        IntrinsicClass::FloatMath(n) | IntrinsicClass::IntMath(n) => {
            let float = matches!(id.class(), IntrinsicClass::FloatMath(_));
            if arity(n, err) {
                for (i, &a) in args.iter().enumerate() {
                    if a != res {
                        err(format!("{id} operand {i} is {a}, expected {res}"));
                    }
                }
            }
            let ok = if float { res.is_float() } else { res.is_int() };
            if !ok {
                err(format!(
                    "{id} produces {res}, expected {}",
                    if float { "floats" } else { "integers" }
                ));
            }
        }
        IntrinsicClass::LaneQuery => {
            arity(0, err);
            if !res.is_int() || res.elem() == ScalarType::I1 {
                err(format!(
                    "{id} produces {res}, expected an integer scalar or vector"
                ));
            }
        }
        IntrinsicClass::MaskQuery => {
            if arity(1, err) && !args[0].is_bool() {
                err(format!(
                    "{id} operand is {}, expected i1 or a mask",
                    args[0]
                ));
            }
            let ok = match id {
                Intrinsic::Any | Intrinsic::All => res == Type::I1,
                _ => res.is_int() && !res.is_vector() && res.elem() != ScalarType::I1,
            };
            if !ok {
                err(format!("{id} produces {res}"));
            }
            if id == Intrinsic::Ballot
                && args.len() == 1
                && args[0].lane_count() > res.elem().bits()
            {
                err(format!(
                    "ballot of {} lanes does not fit in {res}",
                    args[0].lane_count()
                ));
            }
        }
        IntrinsicClass::CrossLane(n) => {
            if arity(n, err) {
                if args[0].is_vector() || res != args[0] {
                    err(format!("{id} of {} cannot produce {res}", args[0]));
                }
                if args[1..].iter().any(|a| !a.is_int() || a.is_vector()) {
                    err(format!("{id} lane index is not a scalar integer"));
                }
            }
        }
        IntrinsicClass::Reduction { float } => {
            if arity(1, err) {
                let a = args[0];
                if !a.is_vector() {
                    err(format!("{id} operand is {a}, expected a vector"));
                }
                let ok = if float { a.is_float() } else { a.is_int() };
                if !ok {
                    err(format!("{id} does not apply to {a}"));
                }
                if res != Type::Scalar(a.elem()) {
                    err(format!("{id} produces {res}, expected {}", a.elem()));
                }
            }
        }
        IntrinsicClass::Broadcast => {
            if arity(1, err)
                && (args[0].is_vector()
                    || res != Type::Vector(res.lane_count() as u16, args[0].elem())
                    || !res.is_vector())
            {
                err(format!("broadcast of {} cannot produce {res}", args[0]));
            }
        }
        IntrinsicClass::Extract => {
            if arity(2, err) {
                if !args[0].is_vector() || res != Type::Scalar(args[0].elem()) {
                    err(format!("extract from {} cannot produce {res}", args[0]));
                }
                if !args[1].is_int() || args[1].is_vector() {
                    err(format!(
                        "extract index is {}, expected a scalar integer",
                        args[1]
                    ));
                }
            }
        }
        IntrinsicClass::Insert => {
            if arity(3, err) {
                if !args[0].is_vector() || args[1] != Type::Scalar(args[0].elem()) || res != args[0]
                {
                    err(format!(
                        "insert of {} into {} cannot produce {res}",
                        args[1], args[0]
                    ));
                }
                if !args[2].is_int() || args[2].is_vector() {
                    err(format!(
                        "insert index is {}, expected a scalar integer",
                        args[2]
                    ));
                }
            }
        }
        IntrinsicClass::Barrier => {
            arity(0, err);
        }
        IntrinsicClass::PageProbe => {
            if arity(2, err)
                && (args[0].is_vector()
                    || !args[0].elem().is_ptr()
                    || !args[1].is_int()
                    || args[1].is_vector())
            {
                err(format!(
                    "{id} takes a scalar pointer and a scalar size, found {} and {}",
                    args[0], args[1]
                ));
            }
            if res != Type::I1 {
                err(format!("{id} produces {res}, expected i1"));
            }
        }
        IntrinsicClass::SpeculativeLoad => {
            if arity(2, err) {
                let (ptr, mask) = (args[0], args[1]);
                let lanes_ok = if ptr.is_vector() {
                    res.lane_count() == ptr.lane_count() && res.is_vector()
                } else {
                    true
                };
                if !ptr.elem().is_ptr()
                    || !mask.is_bool()
                    || mask.lane_count() != res.lane_count()
                    || !lanes_ok
                {
                    err(format!("{id} of {ptr} under {mask} cannot produce {res}"));
                }
            }
        }
    }
}
