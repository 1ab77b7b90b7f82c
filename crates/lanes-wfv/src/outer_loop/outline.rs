//! The body of a parallel loop as an SPMD function of the iteration number (PLDI'18 §7:
//! "the loop body becomes the SPMD region").
//!
//! `body(k, live-ins…, slots…)` runs iteration `k` of the loop: inductions are recomputed
//! as `start + k·step`, every other value the loop reads from before it is a uniform
//! parameter (constants are rematerialized so that strides stay known to the shape
//! analysis), and each value that crosses iterations or leaves the loop lives in a
//! per-lane slot: `slot + lane_id · size`. Stack memory used only by the loop is a
//! variable of the body and is allocated anew in it (privatized per lane). At width 1 that is element 0; once widened,
//! lane `j` of the vector instance owns element `j`, so reductions keep one partial
//! result per lane and the last iteration's values can be picked from the lane that ran
//! it. Slots are read when the body starts (reduction partials) and written when it ends.

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{EntitySet, SecondaryMap};
use lanes_ir::{
    BinaryOp, Block, CastOp, FuncAbi, FuncAttrs, FuncBuilder, FuncCursor, Function, InstData,
    Param, ParamAttrs, Shape, Type, Value,
};

use super::recognize::{LiveOut, ParallelLoop};
use super::recurrence;

/// What a per-lane slot holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotKind {
    /// The partial result of reduction `i` (read at the start, written at the end).
    Reduction(usize),
    /// The value of a live-out in the iteration the lane ran last.
    Last(Value),
}

/// One per-lane slot: `ty` is the element type in memory (`i1` is kept as `i8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    pub kind: SlotKind,
    pub ty: Type,
}

/// The outlined body and how to call it.
#[derive(Clone, Debug)]
pub struct Outlined {
    pub body: Function,
    /// Values of the original function passed as the parameters after `k`.
    pub live_ins: Vec<Value>,
    /// The slots passed after the live-ins.
    pub slots: Vec<Slot>,
    /// The type of `k` (the controlling induction's type).
    pub index_type: Type,
    /// In `body`, this lane's element of each slot (the addresses its stores go to).
    pub slot_ptrs: Vec<Value>,
    /// Does the body allocate stack memory of its own (variables of an iteration)? A
    /// pointer into it is dangling once the body returns.
    pub private_memory: bool,
}

/// The memory type of a slot holding values of `ty`.
pub(crate) fn slot_type(ty: Type) -> Type {
    if ty == Type::I1 {
        Type::I8
    } else {
        ty
    }
}

/// Is `v` a constant that is cheaper to recreate than to pass, or stack memory that only
/// the loop uses (a variable declared in the body, which clang allocates in the entry
/// block): each iteration, and so each lane, gets its own. Addresses into such memory at
/// constant offsets count too, wherever they were computed: clang hoists them out of the
/// loop (the fields of a per-iteration array `int t[5]` once its filling loop is unrolled),
/// and passing them would make every lane share one array.
fn is_rematerializable(func: &Function, v: Value, in_loop: &EntitySet<Block>) -> bool {
    match func.dfg.def_inst(v).map(|i| func.dfg.inst(i)) {
        Some(InstData::Iconst { .. } | InstData::Fconst { .. } | InstData::GlobalAddr { .. }) => {
            true
        }
        Some(InstData::Alloca { .. }) => only_addressed_outside(func, v, in_loop),
        Some(InstData::PtrAdd { args, .. }) => {
            let base_private = matches!(
                func.dfg.def_inst(args[0]).map(|i| func.dfg.inst(i)),
                Some(InstData::Alloca { .. } | InstData::PtrAdd { .. })
            );
            base_private
                && constant_of(func, args[1]).is_some()
                && is_rematerializable(func, args[0], in_loop)
        }
        _ => false,
    }
}

/// Outside the loop, is `v` only the base of constant-offset address computations, whose
/// results are (recursively) used the same way?
fn only_addressed_outside(func: &Function, v: Value, in_loop: &EntitySet<Block>) -> bool {
    func.layout
        .blocks()
        .filter(|&b| !in_loop.contains(b))
        .flat_map(|b| func.layout.block_insts(b).iter().copied())
        .filter(|&i| func.dfg.inst(i).args().contains(&v))
        .all(|i| match func.dfg.inst(i) {
            InstData::PtrAdd { args, .. }
                if args[0] == v && constant_of(func, args[1]).is_some() =>
            {
                func.dfg
                    .inst_result(i)
                    .is_some_and(|r| only_addressed_outside(func, r, in_loop))
            }
            _ => false,
        })
}

/// The immediate of `v` if an `iconst` defines it.
fn constant_of(func: &Function, v: Value) -> Option<i64> {
    match func.dfg.def_inst(v).map(|i| func.dfg.inst(i)) {
        Some(InstData::Iconst { imm }) => Some(*imm),
        _ => None,
    }
}

/// Old value → the body's value standing for it (a parameter or a copy).
type ValueMap = SecondaryMap<Value, PackedOption<Value>>;

/// Recreates rematerializable `v` (and what it is computed from) at the builder's
/// position, once; `map` takes the old value to its copy.
fn rematerialize(b: &mut FuncBuilder, func: &Function, v: Value, map: &mut ValueMap) {
    if map[v].is_some() {
        return;
    }
    // Rematerializable values are instruction results (`is_rematerializable`).
    let Some(i) = func.dfg.def_inst(v) else {
        return;
    };
    let mut data = func.dfg.inst(i).clone();
    for arg in data.args() {
        rematerialize(b, func, arg, map);
    }
    data.for_each_arg_mut(|a| {
        if let Some(c) = map[*a].expand() {
            *a = c;
        }
    });
    let copy = b.value(data, func.value_type(v));
    map[v] = copy.into();
}

/// Stores `v` of type `ty` to the slot `ptr` holding `slot_ty` (`i1` as a byte).
fn store_slot(b: &mut FuncBuilder, v: Value, ty: Type, ptr: Value, slot_ty: Type) {
    let stored = if ty == Type::I1 {
        b.cast(CastOp::Zext, v, Type::I8)
    } else {
        v
    };
    b.store(stored, ptr, slot_ty.bytes());
}

/// Builds the body function of `pl` (a loop of `func`), named `name`.
pub fn outline(func: &Function, pl: &ParallelLoop, name: &str) -> Outlined {
    let mut in_loop: EntitySet<Block> = EntitySet::new();
    in_loop.extend(pl.blocks.iter().copied());
    let mut body = func.clone();
    body.name = name.to_string();
    body.origin = Some(func.origin_name().to_string());
    body.abi = FuncAbi::default();
    body.attrs = FuncAttrs::default();
    // With early exits the body returns which way the iteration ended: 0 for the latch,
    // `j` for `pl.early_exits[j - 1]` (module `early_exit`).
    let early = !pl.early_exits.is_empty();
    body.ret = early.then_some(Type::I32);
    let mut cur = FuncCursor::new(&mut body);
    for b in func
        .layout
        .blocks()
        .filter(|&b| !in_loop.contains(b) && !pl.traps.contains(&b))
    {
        cur.remove_block(b);
    }
    let mut defined: EntitySet<Value> = EntitySet::new();
    for &b in &pl.blocks {
        for &i in func.layout.block_insts(b) {
            defined.extend(func.dfg.inst_result(i));
        }
    }
    // Operands from outside the loop, in order of first use; the header φs' operands
    // from the preheader do not count (the φs go away).
    let mut carried: EntitySet<Value> = EntitySet::new();
    carried.extend(
        pl.inductions
            .iter()
            .map(|d| d.phi)
            .chain(pl.reductions.iter().map(|r| r.phi))
            .chain(pl.recurrences.iter().map(|r| r.phi)),
    );
    let mut outside: Vec<Value> = Vec::new();
    for &b in &pl.blocks {
        for &i in func.layout.block_insts(b) {
            if func.dfg.inst_result(i).is_some_and(|r| carried.contains(r)) {
                continue;
            }
            for v in func.dfg.inst(i).args() {
                if !defined.contains(v) && !outside.contains(&v) {
                    outside.push(v);
                }
            }
        }
    }
    // Induction starts and recurrences' initial values are read in the new entry block.
    let firsts = pl.inductions.iter().map(|d| d.start);
    for v in firsts.chain(pl.recurrences.iter().map(|r| r.init)) {
        if !outside.contains(&v) {
            outside.push(v);
        }
    }
    let (consts, live_ins): (Vec<Value>, Vec<Value>) = outside
        .into_iter()
        .partition(|&v| is_rematerializable(func, v, &in_loop));
    let allocates_inside = pl.blocks.iter().any(|&b| {
        func.layout
            .block_insts(b)
            .iter()
            .any(|&i| matches!(func.dfg.inst(i), InstData::Alloca { .. }))
    });
    let private_memory = allocates_inside
        || consts.iter().any(|&v| {
            matches!(
                func.dfg.def_inst(v).map(|i| func.dfg.inst(i)),
                Some(InstData::Alloca { .. } | InstData::PtrAdd { .. })
            )
        });

    let index_type = func.value_type(pl.inductions[pl.trip.induction].phi);
    let mut slots: Vec<Slot> = (0..pl.reductions.len())
        .map(|r| Slot {
            kind: SlotKind::Reduction(r),
            ty: slot_type(func.value_type(pl.reductions[r].phi)),
        })
        .collect();
    for &(v, kind) in &pl.live_outs {
        if kind == LiveOut::Last {
            slots.push(Slot {
                kind: SlotKind::Last(v),
                ty: slot_type(func.value_type(v)),
            });
        }
    }

    // Parameters: k, live-ins, slots.
    let mut params = Vec::new();
    let mut param = |body: &mut Function, ty: Type, shape: Shape| {
        let v = body.dfg.make_param(params.len(), ty);
        params.push(Param {
            value: v,
            attrs: ParamAttrs {
                shape: Some(shape),
                align: 0,
            },
        });
        v
    };
    let k = param(&mut body, index_type, Shape::Contiguous);
    let mut map: ValueMap = SecondaryMap::new();
    for &v in &live_ins {
        let p = param(&mut body, func.value_type(v), Shape::Uniform);
        map[v] = p.into();
    }
    let slot_params: Vec<Value> = slots
        .iter()
        .map(|_| param(&mut body, Type::PTR, Shape::Uniform))
        .collect();
    body.params = params;

    // Remove the header φs (their values are computed in the new entry).
    let mut cur = FuncCursor::new(&mut body);
    for &i in func.layout.block_insts(pl.header) {
        if func.dfg.inst(i).is_phi() {
            cur.goto_inst(i).remove_inst();
        }
    }
    let entry = cur.create_entry_block();
    let done = body.append_new_block();

    let mut b = FuncBuilder::new(&mut body);
    b.switch_to_block(entry);
    for &c in &consts {
        rematerialize(&mut b, func, c, &mut map);
    }
    let mut replace: Vec<(Value, Value)> = map
        .iter()
        .filter_map(|(old, new)| Some((old, new.expand()?)))
        .collect();
    let mut starts = Vec::new();
    for d in &pl.inductions {
        let ty = func.value_type(d.phi);
        let start = map[d.start].expand().expect(
            "an induction's start is read from outside the loop: a live-in parameter or a \
             rematerialized constant",
        );
        starts.push(start);
        let v = d.value_at(&mut b, ty, start, k, index_type);
        replace.push((d.phi, v));
    }
    let lane = b.lane_id(Type::I64);
    let mut slot_ptrs = Vec::new();
    for (s, &p) in slots.iter().zip(&slot_params) {
        let size = b.iconst(Type::I64, i64::from(s.ty.bytes()));
        let off = b.binary(BinaryOp::Mul, lane, size);
        let ptr = b.ptradd(p, off);
        slot_ptrs.push(ptr);
        if let SlotKind::Reduction(r) = s.kind {
            let partial = b.load(s.ty, ptr, s.ty.bytes());
            let phi = pl.reductions[r].phi;
            // A boolean partial (`&&`, `||`) is kept as a byte.
            let partial = if func.value_type(phi) == Type::I1 {
                b.cast(CastOp::Trunc, partial, Type::I1)
            } else {
                partial
            };
            replace.push((phi, partial));
        }
    }
    if !pl.recurrences.is_empty() {
        replace.extend(recurrence::emit_previous(
            &mut b,
            entry,
            func,
            &pl.recurrences,
            &pl.inductions
                .iter()
                .copied()
                .zip(starts)
                .collect::<Vec<_>>(),
            k,
            index_type,
        ));
    }
    b.jump(pl.header);
    for &(old, new) in &replace {
        body.dfg.replace_uses(old, new);
    }
    let renamed = |v: Value| {
        replace
            .iter()
            .find(|&&(old, _)| old == v)
            .map_or(v, |&(_, new)| new)
    };
    // Each early exit stores the live-outs it has and returns its code.
    for (j, edge) in pl.early_exits.iter().enumerate() {
        let mut cur = FuncCursor::new(&mut body);
        let exit = cur.create_block_after(edge.from);
        cur.retarget(edge.from, edge.to, exit);
        let mut b = FuncBuilder::new(&mut body);
        b.switch_to_block(exit);
        for (s, &ptr) in slots.iter().zip(&slot_ptrs) {
            if let SlotKind::Last(v) = s.kind {
                if edge.live.contains(&v) {
                    store_slot(&mut b, renamed(v), func.value_type(v), ptr, s.ty);
                }
            }
        }
        let code = b.iconst(Type::I32, j as i64 + 1);
        b.ret(Some(code));
    }
    // The back edge and the exit become the end of the body.
    if let Some(t) = body.terminator(pl.latch) {
        FuncCursor::new(&mut body).goto_inst(t).remove_inst();
    }
    let mut b = FuncBuilder::new(&mut body);
    b.switch_to_block(pl.latch);
    b.jump(done);
    b.switch_to_block(done);
    for (s, &ptr) in slots.iter().zip(&slot_ptrs) {
        let v = match s.kind {
            SlotKind::Reduction(r) => pl.reductions[r].latch_value,
            SlotKind::Last(v) if early && !pl.latch_live.contains(&v) => continue,
            SlotKind::Last(v) => v,
        };
        store_slot(&mut b, renamed(v), func.value_type(v), ptr, s.ty);
    }
    let code = early.then(|| b.iconst(Type::I32, 0));
    b.ret(code);
    Outlined {
        body,
        live_ins,
        slots,
        index_type,
        slot_ptrs,
        private_memory,
    }
}
