//! Splitting a very long vector function into a chain of calls, for the code generator.
//!
//! Linearization (PLDI'18 §3–4) turns every divergent branch into straight-line code, so
//! a large SPMD function becomes a few very long blocks, and LLVM's code generator is
//! superlinear in block length and in the number of uses of a long-lived value (measured
//! with `llc-19 -time-passes` on a 20,000-statement kernel: the machine combiner takes
//! the block's size by walking it after each rewrite; the machine scheduler walks every
//! use of each live register per scheduling region; greedy allocation splits live ranges
//! that span the function). Cutting the block with branches does not help: the code
//! generator's preparation merges straight-line blocks again, and long-lived values
//! still span the function.
//!
//! So a function above a size is cut, at blocks that every path goes through, into pieces
//! of about `chunk_insts` instructions; each piece becomes a `noinline` function
//! `F.chunkN(live-ins…, out)` that stores the values later code needs to `out`, and `F`
//! calls the pieces in order and loads those values back. LLVM then compiles pieces of
//! bounded size, so its time grows linearly with the function; at run time each cut costs
//! a call and a store and a load per value crossing it, every few thousand instructions.
//!
//! A piece runs from a start `S` to a cut `X`, both blocks outside every loop without a φ:
//! the blocks `S` dominates and `X` does not, where `X` post-dominates `S`. It must be
//! entered only at `S` (from before `S`) and left only to `X`, all of whose predecessors
//! it holds, and hold no return; so no value flows into `X` but through the values the
//! piece stores. Each cut is the next piece's first candidate start; blocks no piece
//! holds (a masked body's test of its entry mask and early return) stay in `F`. Stack allocations (all in the entry block; a
//! function with others is not split) stay in `F`, so their memory lives as long as
//! before, and the pieces receive their addresses; constants are made again where used.

use std::collections::HashMap;

use cranelift_entity::{EntitySet, SecondaryMap};
use lanes_analysis::{ControlFlowGraph, DominatorTree, LoopForest, PostDominatorTree};
use lanes_ir::{
    AddrSpace, Block, CastOp, FuncBuilder, FuncId, Function, Inst, InstData, Module, ScalarType,
    Type, Value, ValueDef,
};

/// Open starts tried at each cut candidate, earliest first (bounds the search on
/// functions with many nested branches).
const MAX_STARTS_TRIED: usize = 64;

/// One piece: the blocks from `start` up to (not including) `cut`, `start` first, the
/// others in layout order.
struct Piece {
    cut: Block,
    blocks: Vec<Block>,
}

/// The values crossing the cuts, per piece (index 0 is what stays in the caller).
struct Crossing {
    live_in: Vec<Vec<Value>>,
    live_out: Vec<Vec<Value>>,
    /// Constants a piece uses from elsewhere, made again in it.
    remade: Vec<Vec<Value>>,
}

/// Functions of at least this many instructions are split by [`split_if_large`]: past
/// it, LLVM's code generation time grows faster than the code (measured on linearized
/// kernels: x2.6 from 5,000 to 10,000 statements, x3.6 to 20,000).
pub const SPLIT_MIN_INSTS: usize = 10_000;

/// The size of the pieces [`split_if_large`] makes: large enough that a call and the
/// values crossing it cost nothing measurable, small enough for LLVM's superlinear
/// passes to stay cheap.
pub const PIECE_INSTS: usize = 2_000;

/// Functions whose calls return twice (C's `setjmp` family, as clang recognizes them
/// by name): a `longjmp` to a piece that has returned would jump into a dead frame.
const RETURNS_TWICE: [&str; 7] = [
    "setjmp",
    "_setjmp",
    "sigsetjmp",
    "__sigsetjmp",
    "savectx",
    "vfork",
    "getcontext",
];

/// Splits function `id` into pieces of [`PIECE_INSTS`] if it has at least
/// [`SPLIT_MIN_INSTS`] instructions and calls nothing that returns twice; returns the
/// pieces made.
pub fn split_if_large(module: &mut Module, id: FuncId) -> Vec<FuncId> {
    let Some(f) = module.function(id) else {
        return Vec::new();
    };
    // Most functions are small: the size decides before any instruction is read.
    if f.num_placed_insts() < SPLIT_MIN_INSTS {
        return Vec::new();
    }
    let returns_twice = |i: &Inst| match f.dfg.inst(*i) {
        InstData::Call { func, .. } => RETURNS_TWICE.contains(&module.funcs[*func].name()),
        _ => false,
    };
    if f.layout
        .blocks()
        .any(|b| f.layout.block_insts(b).iter().any(returns_twice))
    {
        return Vec::new();
    }
    split_into_chunks(module, id, PIECE_INSTS)
}

/// Splits function `id` of `module` into pieces of about `chunk_insts` instructions, each
/// a new `noinline` function called in turn by `id` (module docs); returns the pieces
/// (none when no cut applies).
pub fn split_into_chunks(module: &mut Module, id: FuncId, chunk_insts: usize) -> Vec<FuncId> {
    let Some(f) = module.function(id) else {
        return Vec::new();
    };
    let mut caller = f.clone();
    split_after_phis(&mut caller);
    let pieces = find_pieces(&caller, chunk_insts);
    if pieces.is_empty() {
        return Vec::new();
    }
    let crossing = crossing_values(&caller, &pieces);
    let mut slots: Vec<Vec<u32>> = Vec::new();
    let mut ids = Vec::new();
    let mut buffer_size = 0;
    for (k, piece) in pieces.iter().enumerate() {
        let name = format!("{}.chunk{}", caller.name, k + 1);
        let (g, (offsets, bytes)) = piece_function(&caller, piece, &crossing, k + 1, &name);
        ids.push(module.define(g));
        slots.push(offsets);
        buffer_size = buffer_size.max(bytes);
    }
    call_pieces(&mut caller, &pieces, &crossing, &ids, &slots, buffer_size);
    *module.function_mut(id).expect("defined above") = caller;
    ids
}

/// Moves what follows the φs of each block that has both into a new block after it, so
/// that a join of scalar branches (its φs) is followed by a block without φs, a
/// candidate cut. LLVM merges the two again.
fn split_after_phis(f: &mut Function) {
    let mut order = Vec::with_capacity(f.layout.num_blocks());
    let blocks: Vec<Block> = f.layout.blocks().collect();
    for x in blocks {
        order.push(x);
        let insts = f.layout.block_insts(x);
        let phis = insts
            .iter()
            .take_while(|&&i| f.dfg.inst(i).is_phi())
            .count();
        if phis == 0 || phis == insts.len() {
            continue;
        }
        let rest = insts[phis..].to_vec();
        let y = f.dfg.make_block();
        f.layout.append_block(y);
        order.push(y);
        let dfg = &f.dfg;
        f.layout.retain_insts(x, |i| dfg.inst(i).is_phi());
        for &i in &rest {
            f.layout.append_inst(i, y);
        }
        let jump = f.dfg.make_inst(InstData::Jump { dest: y }, None);
        f.layout.append_inst(jump, x);
        // The edges out of `x` now leave from `y`.
        let mut targets = rest
            .last()
            .map_or(Vec::new(), |&t| f.dfg.inst(t).branch_targets());
        targets.dedup();
        for t in targets {
            for &i in f.layout.block_insts(t) {
                let InstData::Phi { incoming } = f.dfg.inst_mut(i) else {
                    break;
                };
                for (from, _) in incoming {
                    if *from == x {
                        *from = y;
                    }
                }
            }
        }
    }
    f.layout.set_block_order(order);
}

/// The pieces of `f`, in order; empty if `f` is too small or has no cut.
///
/// Blocks are visited in reverse post-order; every cut candidate (outside loops, no φ)
/// may start a piece. At a candidate `b` that is `chunk_insts` instructions past the
/// earliest open start, the earliest start `s` that `b` closes (`s` dominates `b`, `b`
/// post-dominates `s`, and the region between is closed) makes a piece, and `b` is the
/// next start. Blocks before a piece's start that no piece holds stay in the caller (the
/// entry mask's test of a masked body, its early return).
fn find_pieces(f: &Function, chunk_insts: usize) -> Vec<Piece> {
    let Some(entry) = f.entry_block() else {
        return Vec::new();
    };
    let is_alloca = |i: &Inst| matches!(f.dfg.inst(*i), InstData::Alloca { .. });
    let allocas_elsewhere = f
        .layout
        .blocks()
        .skip(1)
        .any(|b| f.layout.block_insts(b).iter().any(is_alloca));
    let cfg = ControlFlowGraph::with_function(f);
    if allocas_elsewhere || cfg.rpo().len() != f.layout.num_blocks() {
        return Vec::new();
    }
    let dom = DominatorTree::with_function(f, &cfg);
    let pdom = PostDominatorTree::with_function(f, &cfg);
    let loops = LoopForest::with_cfg(&cfg, &dom);
    let mut position: SecondaryMap<Block, u32> = SecondaryMap::new();
    for (k, b) in f.layout.blocks().enumerate() {
        position[b] = k as u32;
    }
    let candidate = |b: Block| {
        loops.loop_depth(b) == 0
            && f.layout
                .first_inst(b)
                .is_none_or(|i| !f.dfg.inst(i).is_phi())
    };
    let mut pieces = Vec::new();
    // Open starts, each with the instruction count before it.
    let mut opens: Vec<(Block, usize)> = vec![(entry, 0)];
    let mut seen = 0;
    for &b in cfg.rpo() {
        if b != entry && candidate(b) {
            // A start that does not dominate `b` is in a branch that reverse post-order
            // has usually left for good; dropping it keeps the search short (only which
            // pieces are found depends on it, not their correctness).
            opens.retain(|&(s, _)| dom.dominates(s, b));
            let closing = opens
                .iter()
                .take_while(|&&(_, at)| seen - at >= chunk_insts)
                .take(MAX_STARTS_TRIED)
                .find_map(|&(s, _)| {
                    let closes = dom.dominates(s, b) && pdom.post_dominates(b, s);
                    closes.then(|| closed_region(&cfg, &dom, s, b)).flatten()
                });
            if let Some(mut blocks) = closing {
                blocks[1..].sort_by_key(|&x| position[x]);
                pieces.push(Piece { cut: b, blocks });
                opens.clear();
            }
            opens.push((b, seen));
        }
        seen += f.layout.block_insts(b).len();
    }
    pieces
}

/// The blocks `s` dominates and `x` does not (`s` first), if they are entered only at
/// `s` from outside and left only to `x`, which they alone enter, and none returns.
fn closed_region(
    cfg: &ControlFlowGraph,
    dom: &DominatorTree,
    s: Block,
    x: Block,
) -> Option<Vec<Block>> {
    let mut inside = EntitySet::new();
    let mut blocks = Vec::new();
    let mut stack = vec![s];
    while let Some(b) = stack.pop() {
        inside.insert(b);
        blocks.push(b);
        stack.extend(dom.children(b).filter(|&c| c != x));
    }
    for &b in &blocks {
        let succs = cfg.succs(b);
        if succs.is_empty() || succs.iter().any(|&t| t != x && !inside.contains(t)) {
            return None;
        }
        let entered_well = |p: Block| {
            if b == s {
                !inside.contains(p) && !dom.dominates(x, p)
            } else {
                inside.contains(p)
            }
        };
        if !cfg.preds(b).iter().all(|&p| entered_well(p)) {
            return None;
        }
    }
    cfg.preds(x)
        .iter()
        .all(|&p| inside.contains(p))
        .then_some(blocks)
}

/// Is `v` a constant (no operands, no effect, not a stack allocation), made again where
/// it is used rather than passed?
fn is_remade(f: &Function, v: Value) -> bool {
    let Some(i) = f.dfg.def_inst(v) else {
        return false;
    };
    match f.dfg.inst(i) {
        InstData::Iconst { .. }
        | InstData::Fconst { .. }
        | InstData::GlobalAddr { .. }
        | InstData::FuncAddr { .. }
        | InstData::WorkItem { .. } => true,
        d @ InstData::Intrinsic { args, .. } => args.is_empty() && !d.has_side_effects(),
        _ => false,
    }
}

/// The values each piece takes and gives (module docs).
fn crossing_values(f: &Function, pieces: &[Piece]) -> Crossing {
    let n = pieces.len() + 1;
    let mut piece_of: SecondaryMap<Block, usize> = SecondaryMap::new();
    for (k, p) in pieces.iter().enumerate() {
        for &b in &p.blocks {
            piece_of[b] = k + 1;
        }
    }
    // Parameters and stack allocations belong to the caller.
    let def_piece = |v: Value| match f.dfg.value_def(v) {
        ValueDef::Param(_) => 0,
        ValueDef::Result(i) if matches!(f.dfg.inst(i), InstData::Alloca { .. }) => 0,
        ValueDef::Result(i) => f.layout.inst_block(i).map_or(0, |b| piece_of[b]),
    };
    let mut c = Crossing {
        live_in: vec![Vec::new(); n],
        live_out: vec![Vec::new(); n],
        remade: vec![Vec::new(); n],
    };
    // The three lists, in the order `add` indexes them.
    const LIVE_IN: usize = 0;
    const LIVE_OUT: usize = 1;
    const REMADE: usize = 2;
    let mut seen: [Vec<EntitySet<Value>>; 3] = std::array::from_fn(|_| vec![EntitySet::new(); n]);
    let mut add = |list: usize, k: usize, v: Value, c: &mut Crossing| {
        if seen[list][k].insert(v) {
            [&mut c.live_in, &mut c.live_out, &mut c.remade][list][k].push(v);
        }
    };
    for b in f.layout.blocks() {
        let used_in = piece_of[b];
        for &i in f.layout.block_insts(b) {
            f.dfg.inst(i).for_each_arg(|v| {
                let def_in = def_piece(v);
                if def_in == used_in {
                    return;
                }
                if is_remade(f, v) {
                    add(REMADE, used_in, v, &mut c);
                    return;
                }
                if def_in != 0 {
                    add(LIVE_OUT, def_in, v, &mut c);
                }
                if used_in != 0 {
                    add(LIVE_IN, used_in, v, &mut c);
                }
            });
        }
    }
    c
}

/// How a value of type `ty` is kept in memory: booleans as bytes.
fn stored_type(ty: Type) -> Type {
    if ty.is_bool() {
        ty.with_elem(ScalarType::I8)
    } else {
        ty
    }
}

/// The alignment of a value of type `ty` in the buffer: its size, up to 64.
fn slot_align(ty: Type) -> u32 {
    stored_type(ty).bytes().next_power_of_two().min(64)
}

/// The byte offsets of `values` in a buffer, each aligned by [`slot_align`], and the
/// bytes they take.
fn offsets(f: &Function, values: &[Value]) -> (Vec<u32>, u32) {
    let mut at = 0u32;
    let offsets = values
        .iter()
        .map(|&v| {
            let ty = f.dfg.value_type(v);
            at = at.next_multiple_of(slot_align(ty));
            let here = at;
            at += stored_type(ty).bytes();
            here
        })
        .collect();
    (offsets, at)
}

/// Piece `k` of `caller` as function `name(live-ins…, out)`; its live-outs' offsets in
/// `out` and the bytes they take.
fn piece_function(
    caller: &Function,
    piece: &Piece,
    crossing: &Crossing,
    k: usize,
    name: &str,
) -> (Function, (Vec<u32>, u32)) {
    let (live_in, live_out) = (&crossing.live_in[k], &crossing.live_out[k]);
    let mut tys: Vec<Type> = live_in.iter().map(|&v| caller.dfg.value_type(v)).collect();
    if !live_out.is_empty() {
        tys.push(Type::ptr(AddrSpace::PRIVATE));
    }
    let mut g = Function::new(name, &tys, None);
    g.attrs.noinline = true;
    g.origin = Some(caller.origin_name().to_string());
    let mut vmap: HashMap<Value, Value> = HashMap::new();
    for (p, &v) in g.params.iter_mut().zip(live_in) {
        vmap.insert(v, p.value);
        if let ValueDef::Param(n) = caller.dfg.value_def(v) {
            p.attrs.align = caller.params[n].attrs.align;
        }
    }
    let mut bmap: HashMap<Block, Block> = HashMap::new();
    for &b in &piece.blocks {
        let nb = g.dfg.make_block();
        g.layout.append_block(nb);
        bmap.insert(b, nb);
    }
    let exit = g.dfg.make_block();
    g.layout.append_block(exit);
    bmap.insert(piece.cut, exit);
    let entry = bmap[&piece.blocks[0]];
    let mut copied = Vec::new();
    let remade = crossing.remade[k]
        .iter()
        .filter_map(|&v| caller.dfg.def_inst(v));
    let own = piece.blocks.iter().flat_map(|&b| {
        let insts = caller.layout.block_insts(b);
        insts.iter().map(move |&i| (b, i))
    });
    for (b, i) in remade.map(|i| (piece.blocks[0], i)).chain(own) {
        let data = match caller.dfg.inst(i) {
            InstData::Alloca { .. } => continue,
            d => d.clone(),
        };
        let result = caller.dfg.inst_result(i);
        let ni = g
            .dfg
            .make_inst(data, result.map(|r| caller.dfg.value_type(r)));
        g.dfg.set_fast_math(ni, caller.dfg.fast_math(i));
        g.layout.append_inst(
            ni,
            if b == piece.blocks[0] {
                entry
            } else {
                bmap[&b]
            },
        );
        if let (Some(r), Some(nr)) = (result, g.dfg.inst_result(ni)) {
            vmap.insert(r, nr);
        }
        copied.push(ni);
    }
    for ni in copied {
        let data = g.dfg.inst_mut(ni);
        data.for_each_arg_mut(|v| *v = vmap[v]);
        data.for_each_target_mut(|t| *t = bmap[t]);
        if let InstData::Phi { incoming } = data {
            for (from, _) in incoming {
                *from = bmap[from];
            }
        }
    }
    let (at, bytes) = offsets(caller, live_out);
    let out = g.params.last().map(|p| p.value);
    let mut b = FuncBuilder::new(&mut g);
    b.switch_to_block(exit);
    for (&v, &off) in live_out.iter().zip(&at) {
        let (value, ty) = (vmap[&v], caller.dfg.value_type(v));
        let value = if ty.is_bool() {
            b.cast(CastOp::Zext, value, stored_type(ty))
        } else {
            value
        };
        let out = out.expect("a buffer parameter when values leave");
        let offset = b.iconst(Type::I64, i64::from(off));
        let ptr = b.ptradd(out, offset);
        b.store(value, ptr, slot_align(ty));
    }
    b.ret(None);
    (g, (at, bytes))
}

/// Replaces each piece in `caller` by a block that calls it (`ids`), passing its
/// live-ins and loading its live-outs from one buffer of `buffer_size` bytes (`slots`:
/// the offsets), then jumps to the piece's cut; branches to a piece's start go to its
/// call block instead.
fn call_pieces(
    caller: &mut Function,
    pieces: &[Piece],
    crossing: &Crossing,
    ids: &[FuncId],
    slots: &[Vec<u32>],
    buffer_size: u32,
) {
    let old_entry = caller.entry_block().expect("split functions have a body");
    let starts: HashMap<Block, usize> = (pieces.iter().enumerate())
        .map(|(k, p)| (p.blocks[0], k))
        .collect();
    // Stack allocations of a piece (all in the entry block) stay in the caller.
    let allocas: Vec<Inst> = match starts.get(&old_entry) {
        Some(_) => (caller.layout.block_insts(old_entry).iter().copied())
            .filter(|&i| matches!(caller.dfg.inst(i), InstData::Alloca { .. }))
            .collect(),
        None => Vec::new(),
    };
    let remade: Vec<Inst> = (crossing.remade[0].iter())
        .filter_map(|&v| caller.dfg.def_inst(v))
        .collect();
    let mut in_piece: EntitySet<Block> = EntitySet::new();
    for b in pieces.iter().flat_map(|p| &p.blocks) {
        in_piece.insert(*b);
    }
    caller.layout.retain_blocks(|b| !in_piece.contains(b));
    let calls: Vec<Block> = (pieces.iter())
        .map(|_| {
            let b = caller.dfg.make_block();
            caller.layout.append_block(b);
            b
        })
        .collect();
    let entry = starts.get(&old_entry).map_or(old_entry, |&k| calls[k]);
    // What the caller's entry block gets first: allocations, constants, the buffer.
    let mut first: Vec<Inst> = allocas;
    let mut cmap: HashMap<Value, Value> = HashMap::new();
    for i in remade {
        let result = caller.dfg.inst_result(i).expect("a constant has a value");
        let data = caller.dfg.inst(i).clone();
        let ty = caller.dfg.value_type(result);
        let ni = caller.dfg.make_inst(data, Some(ty));
        cmap.insert(result, caller.dfg.inst_result(ni).expect("made with one"));
        first.push(ni);
    }
    let buffer = (buffer_size > 0).then(|| {
        let data = InstData::Alloca {
            size: buffer_size,
            align: 64,
        };
        let i = caller
            .dfg
            .make_inst(data, Some(Type::ptr(AddrSpace::PRIVATE)));
        first.push(i);
        caller.dfg.inst_result(i).expect("made with one")
    });
    for (at, i) in first.into_iter().enumerate() {
        caller.layout.insert_inst_at(i, entry, at);
    }
    let out_types: Vec<Vec<Type>> = (crossing.live_out.iter())
        .map(|vs| vs.iter().map(|&v| caller.dfg.value_type(v)).collect())
        .collect();
    // Calls in piece order: a piece's live-ins from earlier pieces are loaded by then.
    let mut b = FuncBuilder::new(caller);
    for (k, piece) in pieces.iter().enumerate() {
        b.switch_to_block(calls[k]);
        let mut args: Vec<Value> = (crossing.live_in[k + 1].iter())
            .map(|v| cmap.get(v).copied().unwrap_or(*v))
            .collect();
        let live_out = &crossing.live_out[k + 1];
        args.extend(buffer.filter(|_| !live_out.is_empty()));
        b.call(ids[k], args, None);
        for ((&v, &off), &ty) in live_out.iter().zip(&slots[k]).zip(&out_types[k + 1]) {
            let offset = b.iconst(Type::I64, i64::from(off));
            let ptr = b.ptradd(buffer.expect("a buffer when values leave"), offset);
            let loaded = b.load(stored_type(ty), ptr, slot_align(ty));
            let value = if ty.is_bool() {
                b.cast(CastOp::Trunc, loaded, ty)
            } else {
                loaded
            };
            cmap.insert(v, value);
        }
        b.jump(piece.cut);
    }
    let blocks: Vec<Block> = caller.layout.blocks().collect();
    for &blk in &blocks {
        for &i in caller.layout.block_insts(blk) {
            let data = caller.dfg.inst_mut(i);
            data.for_each_arg_mut(|v| *v = cmap.get(v).copied().unwrap_or(*v));
            data.for_each_target_mut(|t| {
                if let Some(&k) = starts.get(t) {
                    *t = calls[k];
                }
            });
        }
    }
    let order = std::iter::once(entry)
        .chain(blocks.into_iter().filter(|&b| b != entry))
        .collect();
    caller.layout.set_block_order(order);
}
