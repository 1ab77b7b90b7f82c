//! Masks as lane-width integer vectors, for targets without mask registers.
//!
//! Widening (PLDI'18 §2.5, the reconverging paper's exec-mask lowering) writes every
//! mask as `<W x i1>`. On AVX-512 that is what the machine has: a `k` register. On SSE,
//! AVX and AVX2 it is not: a compare writes all-ones or all-zeros into each lane of an
//! ordinary vector register, a blend reads the lanes' sign bits, and `movmsk` gathers them
//! for a branch. LLVM lowers an `<8 x i1>` that lives in one block to exactly that, but a
//! mask held across blocks (a loop's active mask, a φ of exit masks, a mask computed in
//! one block and used in another) is legalized to packed words: every iteration of a
//! divergent loop then packs and unpacks its masks (`vpackssdw`, `vpmovzxwd`,
//! `vpslld $31`). ISPC keeps its masks in lane-width integer vectors instead, and so does
//! this pass, after widening: every vector mask that is a φ, a logical combination of
//! masks, a blend of masks, a splat or a parameter becomes `<W x iB>` (all-ones or
//! all-zeros per lane), where `iB` is the lane width of the data the function compares
//! and blends most; compares keep their `<W x i1>` result for the uses in their own block
//! and are sign-extended once for the others; a use that needs `<W x i1>` elsewhere (a
//! blend of data, a masked memory access, `any`/`all`, a call) reads the sign bit,
//! `icmp slt m, 0`, which the code generator folds into the instruction that consumes it.
//! A mask wider than a register (16 lanes of 32 bits on AVX2) is tested with one `ptest`
//! of its registers or-ed together, and its compares' sign extensions are frozen
//! (`UnaryOp::Freeze`): LLVM's combiner would otherwise fold the logic on them back into
//! `<W x i1>` logic, which x86 legalizes as packed bytes (`vpackssdw`, `vpacksswb`,
//! `vpmovzxbd`) in every iteration.
//!
//! The result is ordinary lanes IR: the interpreter runs it and the verifier checks it as
//! any other, which is how the differential tests cover both layouts.

use std::collections::{HashMap, HashSet};

use lanes_analysis::{ControlFlowGraph, DominatorTree, LoopForest};
use lanes_ir::cursor::FuncCursor;
use lanes_ir::{
    BinaryOp, Block, CastOp, Function, Inst, InstData, IntCC, IntFlags, Intrinsic, ScalarType,
    Type, UnaryOp, Value,
};

use crate::cfg_edit::def_block;

/// What [`lane_width_masks`] did to one function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaneMasks {
    /// The lane width the masks got (`None`: the function has no vector mask).
    pub elem: Option<ScalarType>,
    /// Mask values now held as lane-width integers.
    pub widened: usize,
    /// Sign tests (`icmp slt m, 0`) inserted where a use needs `<W x i1>`.
    pub narrowed: usize,
}

/// Is `ty` a vector mask, `<W x i1>` with `W >= 2`?
fn is_vector_mask(ty: Type) -> bool {
    matches!(ty, Type::Vector(n, ScalarType::I1) if n >= 2)
}

/// The lane width for the masks of `func`: 64 bits if 64-bit data (doubles, `i64`,
/// pointers) is what its compares, blends and masked accesses mostly work on, else 32 (as
/// ISPC's `i32x` targets). A mask of the data's own width feeds its blends and masked
/// accesses directly; another width costs a conversion per use. Each instruction counts
/// eight times as much per enclosing loop: what runs in the loops decides.
pub fn mask_element(func: &Function) -> ScalarType {
    let cfg = ControlFlowGraph::with_function(func);
    let domtree = DominatorTree::with_function(func, &cfg);
    let loops = LoopForest::with_cfg(&cfg, &domtree);
    let (mut narrow, mut wide) = (0u64, 0u64);
    for block in func.layout.blocks() {
        let weight = 8u64.saturating_pow(loops.loop_depth(block));
        let mut vote = |ty: Type| {
            if ty.is_vector() && !ty.is_bool() {
                if ty.elem().bits() == 64 || ty.is_ptr() {
                    wide = wide.saturating_add(weight);
                } else {
                    narrow = narrow.saturating_add(weight);
                }
            }
        };
        for &inst in func.layout.block_insts(block) {
            match func.dfg.inst(inst) {
                InstData::Icmp { args, .. } | InstData::Fcmp { args, .. } => {
                    vote(func.dfg.value_type(args[0]))
                }
                InstData::Select { args } if is_vector_mask(func.dfg.value_type(args[0])) => {
                    vote(func.dfg.value_type(args[1]))
                }
                InstData::MaskedLoad { .. } | InstData::Gather { .. } => {
                    if let Some(v) = func.dfg.inst_result(inst) {
                        vote(func.dfg.value_type(v))
                    }
                }
                InstData::MaskedStore { value, .. } | InstData::Scatter { value, .. } => {
                    vote(func.dfg.value_type(*value))
                }
                _ => {}
            }
        }
    }
    if wide > narrow {
        ScalarType::I64
    } else {
        ScalarType::I32
    }
}

/// Can `data` (whose result is a vector mask) compute its result on lane-width masks
/// instead, with the operands in [`wide_operands`] lane-width too?
fn computes_wide(data: &InstData) -> bool {
    matches!(
        data,
        InstData::Binary {
            op: BinaryOp::And | BinaryOp::Or | BinaryOp::Xor,
            ..
        } | InstData::Unary {
            op: UnaryOp::Not | UnaryOp::Copy,
            ..
        } | InstData::Select { .. }
            | InstData::Phi { .. }
            | InstData::Iconst { .. }
            | InstData::Shuffle { .. }
            | InstData::Intrinsic {
                id: Intrinsic::Broadcast | Intrinsic::Insert,
                ..
            }
    )
}

/// Which operands of a [`computes_wide`] instruction are masks it reads lane-width (by
/// position); the others keep their type (a select's condition reads `<W x i1>`).
fn wide_operand(func: &Function, data: &InstData, position: usize) -> bool {
    match data {
        // A blend of masks by a mask is logic on the three (`select_as_logic`).
        InstData::Select { args } => position > 0 || is_vector_mask(func.dfg.value_type(args[0])),
        InstData::Intrinsic {
            id: Intrinsic::Insert,
            ..
        } => position == 0,
        _ => true,
    }
}

/// Rewrites the vector masks of `func` as lane-width integer vectors (module docs), for
/// vector registers of `register_bits` bits. Parameters and results keep their types (a
/// mask parameter is sign-extended on entry), so callers and the vector-function ABI see
/// no difference.
pub fn lane_width_masks(func: &mut Function, register_bits: u32) -> LaneMasks {
    let Some(entry) = func.layout.entry_block() else {
        return LaneMasks::default();
    };
    let placed: Vec<(Block, Inst)> = func
        .layout
        .blocks()
        .flat_map(|b| func.layout.block_insts(b).iter().map(move |&i| (b, i)))
        .collect();
    let masks: HashSet<Value> = func
        .param_values()
        .chain(placed.iter().filter_map(|&(_, i)| func.dfg.inst_result(i)))
        .filter(|&v| is_vector_mask(func.dfg.value_type(v)))
        .collect();
    if masks.is_empty() {
        return LaneMasks::default();
    }
    let elem = mask_element(func);
    let wide_ty = |ty: Type| ty.with_elem(elem);
    let mut report = LaneMasks {
        elem: Some(elem),
        ..LaneMasks::default()
    };
    // The lane-width form of each mask: the value itself, retyped, where its instruction
    // computes wide; else a sign extension right after its definition.
    let mut wide: HashMap<Value, Value> = HashMap::new();
    let mut retyped: Vec<Value> = Vec::new();
    let mut param_masks: Vec<Value> = func.param_values().filter(|v| masks.contains(v)).collect();
    param_masks.reverse();
    for p in param_masks {
        let ty = wide_ty(func.dfg.value_type(p));
        let mut cur = FuncCursor::new(func);
        cur.goto_first_non_phi(entry);
        let s = cur.insert_value(cast(CastOp::Sext, p), ty);
        wide.insert(p, s);
    }
    for &(_, inst) in &placed {
        let Some(v) = func.dfg.inst_result(inst) else {
            continue;
        };
        if !masks.contains(&v) {
            continue;
        }
        if computes_wide(func.dfg.inst(inst)) {
            wide.insert(v, v);
            retyped.push(v);
        } else {
            let ty = wide_ty(func.dfg.value_type(v));
            let mut cur = FuncCursor::new(func);
            cur.goto_after_inst(inst);
            let mut s = cur.insert_value(cast(CastOp::Sext, v), ty);
            if ty.lane_count() * elem.bits() > register_bits {
                // Over several registers: LLVM would fold `or (sext a), (sext b)` into
                // `sext (or a, b)`, logic on `<W x i1>` that x86 packs into bytes.
                s = cur.insert_value(
                    InstData::Unary {
                        op: UnaryOp::Freeze,
                        arg: s,
                    },
                    ty,
                );
            }
            wide.insert(v, s);
        }
    }
    report.widened = wide.len();
    // The all-zeros vector each sign test compares with, one per mask length, at entry.
    let mut zeros: HashMap<Type, Value> = HashMap::new();
    // One sign test per mask and block, before its first use there.
    let mut narrowed: HashMap<(Value, Block), Value> = HashMap::new();
    for &(block, inst) in &placed {
        let data = func.dfg.inst(inst).clone();
        let result_is_wide = func
            .dfg
            .inst_result(inst)
            .is_some_and(|v| wide.get(&v) == Some(&v));
        if let InstData::Intrinsic {
            id: id @ (Intrinsic::Any | Intrinsic::All),
            args,
        } = &data
        {
            if let [m] = args[..] {
                // A mask in one register is tested with one `movmsk` of its sign bits; one
                // spread over several is or-ed (or and-ed) first.
                let bits = func.dfg.value_type(m).lane_count() * elem.bits();
                if masks.contains(&m) && bits > register_bits {
                    test_as_reduction(func, inst, *id, wide[&m], elem);
                    continue;
                }
            }
        }
        let mut operands = data.args();
        for (position, operand) in operands.iter_mut().enumerate() {
            let v = *operand;
            if !masks.contains(&v) {
                continue;
            }
            *operand = if result_is_wide && wide_operand(func, &data, position) {
                wide[&v]
            } else if wide[&v] != v && def_block(func, v) == Some(block) {
                // A compare's own `<W x i1>`, used in its block.
                v
            } else if let Some(&n) = narrowed.get(&(v, block)) {
                n
            } else {
                let ty = func.dfg.value_type(v);
                let zero = *zeros.entry(ty).or_insert_with(|| {
                    let mut cur = FuncCursor::new(func);
                    cur.goto_first_non_phi(entry);
                    cur.insert_value(InstData::Iconst { imm: 0 }, wide_ty(ty))
                });
                let mut cur = FuncCursor::new(func);
                cur.goto_inst(inst);
                let n = cur.insert_value(
                    InstData::Icmp {
                        cond: IntCC::Slt,
                        args: [wide[&v], zero],
                    },
                    ty,
                );
                narrowed.insert((v, block), n);
                report.narrowed += 1;
                n
            };
        }
        if result_is_wide {
            widen_scalar_operands(func, inst, &mut operands, elem);
            if let InstData::Select { args } = &data {
                if masks.contains(&args[0]) {
                    let ty = wide_ty(func.dfg.value_type(args[0]));
                    let arms = [mask_constant(func, args[1]), mask_constant(func, args[2])];
                    let [c, a, b] = operands[..] else {
                        unreachable!("select")
                    };
                    select_as_logic(func, inst, &[c, a, b], arms, ty);
                    continue;
                }
            }
        }
        let mut it = operands.into_iter();
        func.dfg
            .inst_mut(inst)
            .for_each_arg_mut(|a| *a = it.next().expect("arity"));
    }
    for v in retyped {
        let ty = wide_ty(func.dfg.value_type(v));
        func.dfg.value_data_mut(v).ty = ty;
        if let Some(inst) = func.dfg.def_inst(v) {
            if let InstData::Iconst { imm } = func.dfg.inst_mut(inst) {
                *imm = if *imm & 1 != 0 { -1 } else { 0 };
            }
        }
    }
    report
}

/// Rewrites `inst`, `any m` or `all m` of a mask wider than a register, as a test of the
/// lane-width mask's bits: `any` is `reduce_or m != 0`, `all` is `reduce_and m == -1`
/// (all-ones or all-zeros lanes make every bit the lane's). The code generator turns both
/// into one `ptest` of the mask's registers (`vpor` + `vptest` for 16 lanes of AVX2) where
/// a `movmsk` of a `<W x i1>` would first pack two registers into one.
fn test_as_reduction(func: &mut Function, inst: Inst, id: Intrinsic, m: Value, elem: ScalarType) {
    let (reduce, cond, imm) = match id {
        Intrinsic::Any => (Intrinsic::ReduceOr, IntCC::Ne, 0),
        _ => (Intrinsic::ReduceAnd, IntCC::Eq, -1),
    };
    let scalar = Type::Scalar(elem);
    let mut cur = FuncCursor::new(func);
    cur.goto_inst(inst);
    let folded = cur.insert_value(
        InstData::Intrinsic {
            id: reduce,
            args: vec![m],
        },
        scalar,
    );
    let expect = cur.insert_value(InstData::Iconst { imm }, scalar);
    *func.dfg.inst_mut(inst) = InstData::Icmp {
        cond,
        args: [folded, expect],
    };
}

/// `Some(b)` if `v` is the mask constant all-`b` (a constant, or the splat of one,
/// sign-extended or not).
fn mask_constant(func: &Function, v: Value) -> Option<bool> {
    func.dfg.splat_constant(v).map(|imm| imm & 1 != 0)
}

/// Rewrites `inst`, `select c, a, b` on lane-width masks `[c, a, b]`, as the logic it is:
/// `(c & a) | (!c & b)`, one operation where an arm is constant (`c ? false : b` is
/// `!c & b`, the update of a loop's active mask). A blend would need `c` as `<W x i1>`:
/// a sign test per blend, which the code generator, after LLVM's combiner has turned the
/// tests of combined masks back into logic on `<W x i1>`, legalizes as packed bytes on
/// targets without mask registers.
fn select_as_logic(
    func: &mut Function,
    inst: Inst,
    [c, a, b]: &[Value; 3],
    arms: [Option<bool>; 2],
    ty: Type,
) {
    let mut cur = FuncCursor::new(func);
    cur.goto_inst(inst);
    let op = |cur: &mut FuncCursor, op: BinaryOp, x: Value, y: Value| {
        cur.insert_value(binary(op, x, y), ty)
    };
    let not_c = |cur: &mut FuncCursor| {
        cur.insert_value(
            InstData::Unary {
                op: UnaryOp::Not,
                arg: *c,
            },
            ty,
        )
    };
    let last = match arms {
        [Some(false), _] => {
            let n = not_c(&mut cur);
            binary(BinaryOp::And, n, *b)
        }
        [Some(true), _] => binary(BinaryOp::Or, *c, *b),
        [_, Some(false)] => binary(BinaryOp::And, *c, *a),
        [_, Some(true)] => {
            let n = not_c(&mut cur);
            binary(BinaryOp::Or, n, *a)
        }
        [None, None] => {
            let taken = op(&mut cur, BinaryOp::And, *c, *a);
            let n = not_c(&mut cur);
            let kept = op(&mut cur, BinaryOp::And, n, *b);
            binary(BinaryOp::Or, taken, kept)
        }
    };
    *func.dfg.inst_mut(inst) = last;
}

fn binary(op: BinaryOp, x: Value, y: Value) -> InstData {
    InstData::Binary {
        op,
        args: [x, y],
        flags: IntFlags::NONE,
    }
}

/// A lane-width mask made from a scalar `i1` (a splat or an inserted lane) needs the
/// scalar sign-extended to the lane width first: all-ones for true.
fn widen_scalar_operands(
    func: &mut Function,
    inst: Inst,
    operands: &mut [Value],
    elem: ScalarType,
) {
    let scalar_position = match func.dfg.inst(inst) {
        InstData::Intrinsic {
            id: Intrinsic::Broadcast,
            ..
        } => 0,
        InstData::Intrinsic {
            id: Intrinsic::Insert,
            ..
        } => 1,
        _ => return,
    };
    let v = operands[scalar_position];
    if func.dfg.value_type(v) != Type::I1 {
        return;
    }
    let mut cur = FuncCursor::new(func);
    cur.goto_inst(inst);
    operands[scalar_position] = cur.insert_value(cast(CastOp::Sext, v), Type::Scalar(elem));
}

fn cast(op: CastOp, arg: Value) -> InstData {
    InstData::Cast {
        op,
        arg,
        flags: IntFlags::NONE,
    }
}

/// [`lane_width_masks`] on every function of `module` that has vector masks (the vector
/// code lanes made: scalar functions have none); the number of functions changed.
pub fn lane_width_masks_in(module: &mut lanes_ir::Module, register_bits: u32) -> usize {
    let ids: Vec<lanes_ir::FuncId> = module.functions().map(|(id, _)| id).collect();
    let mut changed = 0;
    for id in ids {
        if let Some(func) = module.function_mut(id) {
            changed += usize::from(lane_width_masks(func, register_bits).elem.is_some());
        }
    }
    changed
}
