//! The work-item function: a kernel as one work-item of a group runs it, with the
//! runtime's callbacks replaced by values (CC'12 §2.2).
//!
//! The kernel keeps its own parameters (uniform: every work-item of a launch gets the
//! same arguments) and gains six: the group's context ([`crate::group_context`]), the
//! three local ids (`lx` contiguous across work-items, `ly`, `lz` uniform: dimension 0 is
//! the one vectorized, CC'12 §2.2/§3.1), and the live-value buffers its continuations read
//! and write ([`crate::continuations`]). It returns the id of the barrier it stopped at, 0
//! when it finished.
//!
//! Every work-item query becomes arithmetic on these: `get_local_id(0)` is `lx`,
//! `get_global_id(d)` is `group_id(d) · local_size(d) + offset(d) + local_id(d)` (without
//! wrapping: it is below the global size), the sizes and the group id are loads from the
//! context. Loads from the uniform context are uniform, so the shape analysis sees what
//! CC'12 §3.1 states: ids of dimension 0 contiguous, everything else uniform.

use lanes_ir::{
    BinaryOp, CastOp, FuncCursor, FuncId, Function, InstData, IntFlags, MemAccess, Shape, Type,
    Value, WorkItemQuery,
};

use crate::group_context::field;

/// Indices of the parameters the work-item function adds after the kernel's own.
pub mod extra {
    pub const CTX: usize = 0;
    pub const LX: usize = 1;
    pub const LY: usize = 2;
    pub const LZ: usize = 3;
    pub const LIVE_IN: usize = 4;
    pub const LIVE_OUT: usize = 5;
    pub const COUNT: usize = 6;
}

/// The parameters added to a kernel's own: their types and shapes, in [`extra`] order.
pub const EXTRA_PARAMS: [(Type, Shape); extra::COUNT] = [
    (Type::PTR, Shape::Uniform),
    (Type::I64, Shape::Contiguous),
    (Type::I64, Shape::Uniform),
    (Type::I64, Shape::Uniform),
    (Type::PTR, Shape::Uniform),
    (Type::PTR, Shape::Uniform),
];

/// Makes `kernel` (a clone) the work-item function `name`: adds the parameters of
/// [`EXTRA_PARAMS`], returns `i32` 0 where it returned, and replaces work-item queries and
/// calls to `get_work_dim` (`work_dim_fns`) by context values.
///
/// With `local` given, the function is specialized for that local size, as pocl
/// specializes work-group functions: `get_local_size(d)` is a constant, so divisions by it
/// become shifts and loops over it get known trip counts.
pub fn work_item_function(
    kernel: &Function,
    name: &str,
    work_dim_fns: &[FuncId],
    local: Option<[u64; 3]>,
) -> Function {
    let mut f = kernel.clone();
    f.name = name.to_string();
    f.origin = Some(kernel.name.clone());
    f.attrs.kernel = false;
    let own = f.params.len();
    for p in &mut f.params {
        p.attrs.shape = Some(Shape::Uniform);
    }
    for (i, (ty, shape)) in EXTRA_PARAMS.into_iter().enumerate() {
        let value = f.dfg.make_param(own + i, ty);
        f.params.push(lanes_ir::Param {
            value,
            attrs: lanes_ir::ParamAttrs {
                shape: Some(shape),
                align: if ty.is_ptr() { 8 } else { 0 },
            },
        });
    }
    if !f.abi.params.is_empty() {
        f.abi.params.resize(f.params.len(), Default::default());
    }
    f.ret = Some(Type::I32);
    let extra_param = |f: &Function, k: usize| f.params[own + k].value;
    let (ctx, ids) = (
        extra_param(&f, extra::CTX),
        [extra::LX, extra::LY, extra::LZ].map(|k| extra_param(&f, k)),
    );
    let blocks: Vec<_> = f.layout.blocks().collect();
    let mut query_values = Vec::new();
    for &b in &blocks {
        for inst in f.layout.block_insts(b).to_vec() {
            let data = f.dfg.inst(inst).clone();
            let mut cur = FuncCursor::new(&mut f);
            cur.goto_inst(inst);
            match data {
                InstData::Return { .. } => {
                    let zero = cur.insert_value(InstData::Iconst { imm: 0 }, Type::I32);
                    *cur.func.dfg.inst_mut(inst) = InstData::Return { value: Some(zero) };
                }
                InstData::WorkItem { query, dim } => {
                    let v = match (query, local) {
                        (WorkItemQuery::LocalSize, Some(sizes)) if dim <= 2 => cur.insert_value(
                            InstData::Iconst {
                                imm: sizes[usize::from(dim)] as i64,
                            },
                            Type::I64,
                        ),
                        _ => query_value(&mut cur, ctx, ids, query, dim),
                    };
                    query_values.push(replace_result(&mut cur, inst, v));
                }
                InstData::Call { func, .. } if work_dim_fns.contains(&func) => {
                    let v = ctx_word(&mut cur, ctx, field::WORK_DIM);
                    query_values.push(replace_result(&mut cur, inst, v));
                }
                _ => {}
            }
        }
    }
    mark_exact_truncations(&mut f, &query_values);
    f
}

/// Gives `nuw nsw` to truncations of work-item query values to 32 bits or more: the
/// executor launches no range whose ids or sizes reach 2^31 ([`crate::range`]), so
/// `int i = get_global_id(0)` drops only zero bits, and the index `a[i]` stays
/// contiguous through the `sext` back to 64 bits (a gather otherwise).
fn mark_exact_truncations(f: &mut Function, query_values: &[Value]) {
    let insts: Vec<_> = f.dfg.insts().collect();
    for inst in insts {
        let Some(result) = f.dfg.inst_result(inst) else {
            continue;
        };
        let wide_enough = f.dfg.value_type(result).elem().bits() >= 32;
        if let InstData::Cast {
            op: CastOp::Trunc,
            arg,
            flags,
        } = f.dfg.inst_mut(inst)
        {
            if wide_enough && query_values.contains(arg) {
                *flags = IntFlags::NUW.union(IntFlags::NSW);
            }
        }
        // clang folds `sext(trunc(id))` to `ashr(shl(id, 32), 32)` and `zext(trunc(id))`
        // to `and(id, 0xffffffff)`: both are the id itself.
        if let Some(q) = sign_or_zero_extension_in_register(f, inst) {
            if query_values.contains(&q) {
                f.dfg.replace_uses(result, q);
            }
        }
    }
}

/// `x` if `inst` is `ashr(shl(x, k), k)` with `k ≤ 32` or `and(x, 0xffffffff)` on 64
/// bits: the low bits of `x`, sign- or zero-extended in place.
fn sign_or_zero_extension_in_register(f: &Function, inst: lanes_ir::Inst) -> Option<Value> {
    let constant = |v: Value| match f.dfg.value_def(v) {
        lanes_ir::ValueDef::Result(i) => match f.dfg.inst(i) {
            InstData::Iconst { imm } => Some(*imm),
            _ => None,
        },
        lanes_ir::ValueDef::Param(_) => None,
    };
    let InstData::Binary {
        op, args: [a, b], ..
    } = f.dfg.inst(inst)
    else {
        return None;
    };
    if f.dfg.value_type(*a) != Type::I64 {
        return None;
    }
    match op {
        BinaryOp::AShr => {
            let k = constant(*b).filter(|k| (1..=32).contains(k))?;
            let lanes_ir::ValueDef::Result(shl) = f.dfg.value_def(*a) else {
                return None;
            };
            match f.dfg.inst(shl) {
                InstData::Binary {
                    op: BinaryOp::Shl,
                    args: [x, c],
                    ..
                } if constant(*c) == Some(k) => Some(*x),
                _ => None,
            }
        }
        BinaryOp::And => {
            let m = constant(*b)?;
            (m == 0xffff_ffff).then_some(*a)
        }
        _ => None,
    }
}

/// `v` (an `i64`) in place of `inst`'s result, converted to its type; `inst` removed.
fn replace_result(cur: &mut FuncCursor<'_>, inst: lanes_ir::Inst, v: Value) -> Value {
    let Some(old) = cur.func.dfg.inst_result(inst) else {
        return v;
    };
    let ty = cur.func.dfg.value_type(old);
    let v = if ty == Type::I64 {
        v
    } else {
        cur.insert_value(
            InstData::Cast {
                op: CastOp::Trunc,
                arg: v,
                flags: IntFlags::NONE,
            },
            ty,
        )
    };
    cur.func.dfg.replace_uses(old, v);
    cur.goto_inst(inst);
    cur.remove_inst();
    v
}

/// The `i64` word `index` of the context.
fn ctx_word(cur: &mut FuncCursor<'_>, ctx: Value, index: usize) -> Value {
    ctx_field(cur, ctx, index, Type::I64)
}

/// Context word `index` read as `ty` (an `i64`, or the local memory's pointer), at the
/// cursor: the one way compiled code reads the group context.
pub(crate) fn ctx_field(cur: &mut FuncCursor<'_>, ctx: Value, index: usize, ty: Type) -> Value {
    let ptr = if index == 0 {
        ctx
    } else {
        let off = cur.insert_value(
            InstData::Iconst {
                imm: 8 * index as i64,
            },
            Type::I64,
        );
        cur.insert_value(
            InstData::PtrAdd {
                args: [ctx, off],
                flags: IntFlags::PTRADD,
            },
            Type::PTR,
        )
    };
    cur.insert_value(
        InstData::Load {
            ptr,
            align: 8,
            access: MemAccess::PLAIN,
        },
        ty,
    )
}

/// The value of `query` in dimension `dim` (OpenCL: ids 0 and sizes 1 past dimension 2).
fn query_value(
    cur: &mut FuncCursor<'_>,
    ctx: Value,
    ids: [Value; 3],
    query: WorkItemQuery,
    dim: u8,
) -> Value {
    let d = usize::from(dim);
    if d > 2 {
        let one = matches!(
            query,
            WorkItemQuery::GlobalSize | WorkItemQuery::LocalSize | WorkItemQuery::NumGroups
        );
        return cur.insert_value(
            InstData::Iconst {
                imm: i64::from(one),
            },
            Type::I64,
        );
    }
    let base = match query {
        WorkItemQuery::LocalId => return ids[d],
        WorkItemQuery::GlobalOffset => field::GLOBAL_OFFSET,
        WorkItemQuery::LocalSize => field::LOCAL_SIZE,
        WorkItemQuery::GlobalSize => field::GLOBAL_SIZE,
        WorkItemQuery::NumGroups => field::NUM_GROUPS,
        WorkItemQuery::GroupId => field::GROUP_ID,
        WorkItemQuery::GlobalId => {
            let group = ctx_word(cur, ctx, field::GROUP_ID + d);
            let size = ctx_word(cur, ctx, field::LOCAL_SIZE + d);
            let offset = ctx_word(cur, ctx, field::GLOBAL_OFFSET + d);
            // Below the global size, which a `size_t` holds: nothing wraps.
            let exact = IntFlags::NUW.union(IntFlags::NSW);
            let first = binary(cur, BinaryOp::Mul, group, size, exact);
            let first = binary(cur, BinaryOp::Add, first, offset, exact);
            return binary(cur, BinaryOp::Add, first, ids[d], exact);
        }
    };
    ctx_word(cur, ctx, base + d)
}

/// `op a, b` on `i64`s at the cursor.
pub(crate) fn binary(
    cur: &mut FuncCursor<'_>,
    op: BinaryOp,
    a: Value,
    b: Value,
    flags: IntFlags,
) -> Value {
    cur.insert_value(
        InstData::Binary {
            op,
            args: [a, b],
            flags,
        },
        Type::I64,
    )
}
