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
pub fn work_item_function(kernel: &Function, name: &str, work_dim_fns: &[FuncId]) -> Function {
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
    for b in blocks {
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
                    let v = query_value(&mut cur, ctx, ids, query, dim);
                    replace_result(&mut cur, inst, v);
                }
                InstData::Call { func, .. } if work_dim_fns.contains(&func) => {
                    let v = ctx_word(&mut cur, ctx, field::WORK_DIM);
                    replace_result(&mut cur, inst, v);
                }
                _ => {}
            }
        }
    }
    f
}

/// `v` (an `i64`) in place of `inst`'s result, converted to its type; `inst` removed.
fn replace_result(cur: &mut FuncCursor<'_>, inst: lanes_ir::Inst, v: Value) {
    let Some(old) = cur.func.dfg.inst_result(inst) else {
        return;
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
}

/// The `i64` word `index` of the context.
fn ctx_word(cur: &mut FuncCursor<'_>, ctx: Value, index: usize) -> Value {
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
        Type::I64,
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

fn binary(cur: &mut FuncCursor<'_>, op: BinaryOp, a: Value, b: Value, flags: IntFlags) -> Value {
    cur.insert_value(
        InstData::Binary {
            op,
            args: [a, b],
            flags,
        },
        Type::I64,
    )
}
