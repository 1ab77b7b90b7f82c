//! Barriers by continuations (CC'12 §2.3).
//!
//! A barrier makes every work-item of the group wait until all have reached it. On a CPU,
//! where the group's work-items run one vector after another on one thread, that means
//! running every work-item up to the barrier, then every work-item from it onward. The
//! work-item function is split at its barriers into continuations: continuation 0 starts
//! at the kernel's entry, continuation `k` right after barrier `k`. Each runs until it
//! reaches a barrier `k`, where it saves the values live after that barrier and returns
//! `k`, or until the kernel's end, where it returns 0. The wrapper runs the continuation
//! the group's work-items returned next (CC'12 Fig. 4; [`crate::executor`]).
//!
//! Only values live after the barrier are saved, and only for the barrier reached: each
//! continuation `k` reloads exactly `live_in(after barrier k)`, the kernel's arguments and
//! the context being parameters of every continuation. The storage is laid out per barrier
//! as one array per value across the group's work-items (the value of work-item `i` at
//! `base + prefix · items + i · size`, values by decreasing size so every array is
//! aligned), so the vectorized continuations save and reload with vector stores and
//! loads; one buffer holds the largest barrier's values, and continuations read one buffer
//! and write the other (a work-item that reached the next barrier must not overwrite what
//! a later work-item of the group has not reloaded yet).
//!
//! Unlike CC'12, which splits the already vectorized kernel, lanes splits the scalar
//! work-item function and vectorizes each continuation: the continuations are ordinary
//! barrier-free functions, so the vectorizer needs to know nothing about barriers, and a
//! barrier inside divergent control flow still returns each lane's own barrier id, which
//! the wrapper compares across the group (a group whose work-items reach different
//! barriers is an error, never a hang).
//!
//! Two refinements keep the continuations' vector code as good as the kernel's: a value
//! that can be recomputed from the parameters and the group context (an address like
//! `&tile[get_local_id(0)]`, a local size) is recomputed after the barrier instead of
//! saved — reloaded, a vector of addresses would turn its accesses into gathers — and a
//! value the shape analysis finds uniform across the row (a loop counter of a tree
//! reduction) is saved once per row and reloaded as a scalar, so it stays uniform.
//!
//! A reloaded value is a second definition of the original one: inside a loop, the
//! original definition reaches the same uses around the back edge. SSA is rebuilt with
//! [`lanes_wfv::add_definitions`].

use std::collections::HashMap;

use lanes_analysis::{ControlFlowGraph, Liveness};
use lanes_ir::{
    Block, FuncCursor, Function, Inst, InstData, IntFlags, Intrinsic, MemAccess, Type, Value,
    ValueDef,
};

use crate::group_context::field;
use crate::work_items::{binary, ctx_field, extra};

/// The continuations of a work-item function.
pub struct Continuations {
    /// `functions[0]` starts at the kernel's entry, `functions[k]` after barrier `k`.
    pub functions: Vec<Function>,
    /// Bytes one work-item saves at the barrier that saves most.
    pub bytes_per_item: u64,
    /// The source line of each barrier (`barrier_lines[k - 1]`; 0 if unknown).
    pub barrier_lines: Vec<u32>,
}

/// Where the values live after one barrier are saved.
struct SavedValues {
    /// The block after the barrier.
    resume: Block,
    /// The block ending in the barrier.
    barrier_block: Block,
    /// Each value, its per-work-item offset prefix (bytes before its array, per item),
    /// and whether it is the same for the whole row (saved once per row, reloaded as a
    /// uniform value) rather than per work-item.
    values: Vec<(Value, u64, bool)>,
    /// Values recomputed after the barrier instead of saved.
    recomputed: Vec<Value>,
}

/// Splits `func` (a work-item function with `own` parameters of the kernel before the
/// [`extra`] ones) at its barriers.
pub fn split_at_barriers(
    module: &lanes_ir::Module,
    func: &Function,
    own: usize,
    shapes: &lanes_analysis::shapes::ArgShapes,
) -> Result<Continuations, lanes_wfv::WfvError> {
    let barriers: Vec<Inst> = func
        .layout
        .blocks()
        .flat_map(|b| func.layout.block_insts(b).iter().copied())
        .filter(|&i| {
            matches!(
                func.dfg.inst(i),
                InstData::Intrinsic {
                    id: Intrinsic::Barrier,
                    ..
                }
            )
        })
        .collect();
    let barrier_lines = barriers
        .iter()
        .map(|&i| func.source_lines.get(i).copied().unwrap_or(0))
        .collect();
    if barriers.is_empty() {
        return Ok(Continuations {
            functions: vec![func.clone()],
            bytes_per_item: 0,
            barrier_lines,
        });
    }
    // Each barrier ends its block, which jumps to the block after it.
    let mut split = func.clone();
    let mut sites = Vec::new();
    for &barrier in &barriers {
        let block = split.layout.inst_block(barrier).expect("placed");
        let insts = split.layout.block_insts(block);
        let next = insts[split.layout.inst_index(barrier) + 1];
        let mut cur = FuncCursor::new(&mut split);
        let resume = cur.split_block_before(next).expect("placed");
        cur.goto_bottom(block);
        cur.insert_inst(InstData::Jump { dest: resume }, None);
        sites.push((block, resume));
    }
    let ctx = split.params[own + extra::CTX].value;
    let info = lanes_wfv::shapes_of(module, &split, shapes)?;
    let cfg = ControlFlowGraph::with_function(&split);
    let liveness = Liveness::with_function(&split, &cfg);
    let mut bytes_per_item = 0;
    let saved: Vec<SavedValues> = sites
        .iter()
        .map(|&(barrier_block, resume)| {
            let (recomputed, mut live): (Vec<Value>, Vec<Value>) = liveness
                .live_in(resume)
                .iter()
                .copied()
                .filter(|&v| !matches!(split.dfg.value_def(v), ValueDef::Param(_)))
                .partition(|&v| recomputable(&split, v, ctx, 0));
            live.sort_by_key(|&v| (std::cmp::Reverse(value_bytes(&split, v)), v));
            let mut prefix = 0;
            let values = live
                .into_iter()
                .map(|v| {
                    let at = prefix;
                    prefix += value_bytes(&split, v);
                    (v, at, info.shape(v).is_uniform())
                })
                .collect();
            bytes_per_item = bytes_per_item.max(prefix);
            SavedValues {
                resume,
                barrier_block,
                values,
                recomputed,
            }
        })
        .collect();
    let functions = (0..=saved.len())
        .map(|entry| continuation(&split, own, &saved, entry))
        .collect();
    Ok(Continuations {
        functions,
        bytes_per_item,
        barrier_lines,
    })
}

/// Bytes a value takes in the live-value storage.
fn value_bytes(func: &Function, v: Value) -> u64 {
    u64::from(func.dfg.value_type(v).bytes())
}

/// Continuation `entry` of `split` (0: from the kernel's entry).
fn continuation(split: &Function, own: usize, saved: &[SavedValues], entry: usize) -> Function {
    let mut c = split.clone();
    c.name = format!("{}.c{entry}", split.name);
    let param = |c: &Function, k: usize| c.params[own + k].value;
    let (live_in, live_out) = (param(&c, extra::LIVE_IN), param(&c, extra::LIVE_OUT));
    // Every barrier saves what is live after it and returns its id.
    for (k, site) in saved.iter().enumerate() {
        let mut cur = FuncCursor::new(&mut c);
        let insts = cur.func.layout.block_insts(site.barrier_block).to_vec();
        // The barrier and the jump after it go.
        for &i in &insts[insts.len() - 2..] {
            cur.goto_inst(i);
            cur.remove_inst();
        }
        cur.goto_bottom(site.barrier_block);
        let (item, row) = item_index(&mut cur, own);
        for &(v, prefix, uniform) in &site.values {
            let bytes = value_bytes(cur.func, v);
            let ptr = slot(
                &mut cur,
                live_out,
                prefix,
                if uniform { row } else { item },
                bytes,
            );
            let align = cur.func.dfg.value_type(v).bytes();
            cur.insert_inst(
                InstData::Store {
                    value: v,
                    ptr,
                    align,
                    access: MemAccess::PLAIN,
                },
                None,
            );
        }
        let id = cur.insert_value(InstData::Iconst { imm: k as i64 + 1 }, Type::I32);
        cur.insert_inst(InstData::Return { value: Some(id) }, None);
    }
    if entry == 0 {
        FuncCursor::new(&mut c).remove_unreachable();
        return c;
    }
    // Continuation `entry` starts by reloading what its barrier saved.
    let site = &saved[entry - 1];
    let mut cur = FuncCursor::new(&mut c);
    let start = cur.create_entry_block();
    cur.goto_bottom(start);
    let (item, row) = item_index(&mut cur, own);
    let mut reloads = Vec::new();
    for &(v, prefix, uniform) in &site.values {
        let ty = cur.func.dfg.value_type(v);
        let at = if uniform { row } else { item };
        let ptr = slot(&mut cur, live_in, prefix, at, u64::from(ty.bytes()));
        let reload = cur.insert_value(
            InstData::Load {
                ptr,
                align: ty.bytes(),
                access: MemAccess::PLAIN,
            },
            ty,
        );
        reloads.push((v, reload));
    }
    let mut copies = HashMap::new();
    for &v in &site.recomputed {
        let copy = recompute(&mut cur, v, &mut copies);
        reloads.push((v, copy));
    }
    cur.goto_bottom(start);
    cur.insert_inst(InstData::Jump { dest: site.resume }, None);
    cur.remove_unreachable();
    for (v, reload) in reloads {
        let still_defined = match c.dfg.value_def(v) {
            ValueDef::Result(i) => c.layout.inst_block(i).is_some(),
            ValueDef::Param(_) => true,
        };
        if still_defined {
            lanes_wfv::add_definitions(&mut c, v, &[(start, reload)]);
        } else {
            c.dfg.replace_uses(v, reload);
        }
    }
    c
}

/// Most operations a recomputed value may take (longer chains are saved instead).
const RECOMPUTE_DEPTH: u32 = 12;

/// Whether `v` can be computed again after a barrier from the continuation's parameters
/// alone: pure operations on parameters and constants, and loads from the group context
/// (which no work-item writes). Such values are not saved: an address like
/// `&scratch[get_local_id(0)]` would come back from memory as a vector of unrelated
/// pointers (a gather), recomputed it stays contiguous.
fn recomputable(func: &Function, v: Value, ctx: Value, depth: u32) -> bool {
    let ValueDef::Result(inst) = func.dfg.value_def(v) else {
        return true;
    };
    if depth > RECOMPUTE_DEPTH {
        return false;
    }
    let data = func.dfg.inst(inst);
    let context_load = match data {
        InstData::Load { ptr, access, .. } if *access == MemAccess::PLAIN => {
            *ptr == ctx
                || matches!(func.dfg.value_def(*ptr), ValueDef::Result(p)
                    if matches!(func.dfg.inst(p), InstData::PtrAdd { args: [base, off], .. }
                        if *base == ctx && matches!(func.dfg.value_def(*off), ValueDef::Result(o)
                            if matches!(func.dfg.inst(o), InstData::Iconst { .. }))))
        }
        _ => false,
    };
    if !context_load
        && (data.is_phi()
            || data.has_side_effects()
            || data.reads_memory()
            || matches!(data, InstData::Call { .. } | InstData::Alloca { .. }))
    {
        return false;
    }
    let mut ok = true;
    data.for_each_arg(|a| ok &= recomputable(func, a, ctx, depth + 1));
    ok
}

/// A copy of `v`'s computation at the cursor (operands first), reusing `copies`.
fn recompute(cur: &mut FuncCursor<'_>, v: Value, copies: &mut HashMap<Value, Value>) -> Value {
    let ValueDef::Result(inst) = cur.func.dfg.value_def(v) else {
        return v;
    };
    if let Some(&c) = copies.get(&v) {
        return c;
    }
    let mut data = cur.func.dfg.inst(inst).clone();
    let mut args = Vec::new();
    data.for_each_arg(|a| args.push(a));
    let mapped: Vec<Value> = args
        .into_iter()
        .map(|a| recompute(cur, a, copies))
        .collect();
    let mut k = 0;
    data.for_each_arg_mut(|a| {
        *a = mapped[k];
        k += 1;
    });
    let ty = cur.func.dfg.value_type(v);
    let copy = cur.insert_value(data, ty);
    copies.insert(v, copy);
    copy
}

/// The work-item's index in its group, `lx + Lx · (ly + Ly · lz)`, and its row's,
/// `ly + Ly · lz`, at the cursor.
fn item_index(cur: &mut FuncCursor<'_>, own: usize) -> (Value, Value) {
    let p = |cur: &FuncCursor<'_>, k: usize| cur.func.params[own + k].value;
    let (ctx, lx, ly, lz) = (
        p(cur, extra::CTX),
        p(cur, extra::LX),
        p(cur, extra::LY),
        p(cur, extra::LZ),
    );
    let size_x = ctx_field(cur, ctx, field::LOCAL_SIZE, Type::I64);
    let size_y = ctx_field(cur, ctx, field::LOCAL_SIZE + 1, Type::I64);
    let exact = IntFlags::NUW.union(IntFlags::NSW);
    let yz = binary(cur, lanes_ir::BinaryOp::Mul, size_y, lz, exact);
    let yz = binary(cur, lanes_ir::BinaryOp::Add, yz, ly, exact);
    let row_start = binary(cur, lanes_ir::BinaryOp::Mul, size_x, yz, exact);
    (
        binary(cur, lanes_ir::BinaryOp::Add, row_start, lx, exact),
        yz,
    )
}

/// The address of a work-item's slot: `buf + prefix · items + item · size`.
fn slot(cur: &mut FuncCursor<'_>, buf: Value, prefix: u64, item: Value, size: u64) -> Value {
    let exact = IntFlags::NUW.union(IntFlags::NSW);
    let ctx = cur.func.params[cur.func.params.len() - extra::COUNT + extra::CTX].value;
    let items = ctx_field(cur, ctx, field::ITEMS, Type::I64);
    let prefix = cur.insert_value(InstData::Iconst { imm: prefix as i64 }, Type::I64);
    let size = cur.insert_value(InstData::Iconst { imm: size as i64 }, Type::I64);
    let array = binary(cur, lanes_ir::BinaryOp::Mul, prefix, items, exact);
    let within = binary(cur, lanes_ir::BinaryOp::Mul, item, size, exact);
    let off = binary(cur, lanes_ir::BinaryOp::Add, array, within, exact);
    cur.insert_value(
        InstData::PtrAdd {
            args: [buf, off],
            flags: IntFlags::PTRADD,
        },
        Type::PTR,
    )
}
