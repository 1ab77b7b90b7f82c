//! Programs with similar sides, for branch fusion's differential tests.
//!
//! Random programs rarely hold a divergent if-then-else whose two sides do similar work,
//! which is what branch fusion (PACT'11 §IV-A) merges. [`twin_sides`] makes such branches
//! out of a generated function: it splits a block after a random point into a diamond
//! whose `then` side is the block's tail and whose `else` side is a copy of that tail
//! with mutations — operands replaced by constants, operations swapped for a sibling,
//! instructions dropped or doubled — so the two sides align with selectors and gaps. The
//! branch tests the work item's id, so instances diverge. The result is a new program,
//! whose own scalar runs are the reference.

use std::collections::HashMap;

use lanes_ir::{
    BinaryOp, Block, FuncCursor, Function, Inst, InstData, IntCC, IntFlags, Type, Value,
    WorkItemQuery,
};
use rand::rngs::SmallRng;
use rand::Rng;

/// Splits about half of `func`'s blocks into twin-sided diamonds; returns how many. The
/// branches test the low bits of `instance`, an `i64` parameter that differs between
/// instances (an integer parameter, say), or of the work item's global id if there is none.
pub fn twin_sides(func: &mut Function, instance: Option<Value>, rng: &mut SmallRng) -> usize {
    let blocks: Vec<Block> = func.layout.blocks().collect();
    blocks
        .into_iter()
        .filter(|&b| rng.gen_bool(0.5) && split(func, b, instance, rng))
        .count()
}

fn is_phi(func: &Function, i: Inst) -> bool {
    matches!(func.dfg.inst(i), InstData::Phi { .. })
}

/// Makes `b`'s tail the `then` side of a new diamond; false if `b` has too little code.
fn split(func: &mut Function, b: Block, instance: Option<Value>, rng: &mut SmallRng) -> bool {
    let insts = func.layout.block_insts(b).to_vec();
    let Some((&term, rest)) = insts.split_last() else {
        return false;
    };
    let body: Vec<Inst> = rest.iter().copied().filter(|&i| !is_phi(func, i)).collect();
    // Stack memory stays where the generator put it (linearization runs conditional
    // allocas for every instance, which the comparison would see as a new allocation).
    let alloca = |&i: &Inst| matches!(func.dfg.inst(i), InstData::Alloca { .. });
    if body.len() < 2 || body.iter().any(alloca) {
        return false;
    }
    let tail = body[rng.gen_range(0..body.len() - 1)..].to_vec();
    // The tail and the terminator move to the join, which the successors' φs now see;
    // the tail then moves on to the `then` side.
    let mut cur = FuncCursor::new(func);
    let Some(join) = cur.split_block_before(tail[0]) else {
        return false;
    };
    let then_side = cur.create_block_after(b);
    let else_side = cur.create_block_after(then_side);
    debug_assert_eq!(func.terminator(join), Some(term));
    for &i in &tail {
        func.layout.remove_inst(i);
        func.layout.append_inst(i, then_side);
    }
    let mut cur = FuncCursor::new(func);
    cur.goto_bottom(b);
    let id = instance.unwrap_or_else(|| {
        cur.insert_value(
            InstData::WorkItem {
                query: WorkItemQuery::GlobalId,
                dim: 0,
            },
            Type::I64,
        )
    });
    let ty = cur.func.dfg.value_type(id);
    let three = cur.insert_value(InstData::Iconst { imm: 3 }, ty);
    let low = cur.insert_value(
        InstData::Binary {
            op: BinaryOp::And,
            args: [id, three],
            flags: IntFlags::NONE,
        },
        ty,
    );
    let bound = cur.insert_value(
        InstData::Iconst {
            imm: rng.gen_range(1..=3),
        },
        ty,
    );
    let cond = cur.insert_value(
        InstData::Icmp {
            cond: IntCC::Slt,
            args: [low, bound],
        },
        Type::I1,
    );
    cur.insert_inst(
        InstData::Brif {
            cond,
            then_dest: then_side,
            else_dest: else_side,
        },
        None,
    );
    let copies = mutated_copy(func, &tail, else_side, rng);
    for side in [then_side, else_side] {
        FuncCursor::new(func)
            .goto_bottom(side)
            .insert_inst(InstData::Jump { dest: join }, None);
    }
    // The tail's values leave through φs of the join.
    for &i in &tail {
        let Some(v) = func.dfg.inst_result(i) else {
            continue;
        };
        let ty = func.dfg.value_type(v);
        let phi = FuncCursor::new(func)
            .goto_top(join)
            .insert_phi(ty, vec![(then_side, v), (else_side, copies[&v])]);
        let outside: Vec<Block> = func
            .layout
            .blocks()
            .filter(|&x| x != then_side && x != else_side)
            .collect();
        for x in outside {
            for &k in func.layout.block_insts(x) {
                if func.dfg.inst_result(k) == Some(phi) {
                    continue;
                }
                func.dfg.inst_mut(k).for_each_arg_mut(|a| {
                    if *a == v {
                        *a = phi;
                    }
                });
            }
        }
    }
    true
}

/// Copies `tail` into `side` with mutations; returns each tail value's copy.
fn mutated_copy(
    func: &mut Function,
    tail: &[Inst],
    side: Block,
    rng: &mut SmallRng,
) -> HashMap<Value, Value> {
    let mut copies: HashMap<Value, Value> = HashMap::new();
    for &i in tail {
        let result = func.dfg.inst_result(i);
        let ty = result.map(|v| func.dfg.value_type(v));
        let scalar_number = ty.is_some_and(|t| !t.is_vector() && (t.is_int() || t.is_float()));
        let roll = rng.gen_range(0..100);
        if roll < 6 && scalar_number {
            // Dropped: later copies use a constant instead.
            let c = constant(func, side, ty.unwrap_or(Type::I32), rng);
            copies.insert(result.unwrap_or(c), c);
            continue;
        }
        let mut data = func.dfg.inst(i).clone();
        data.for_each_arg_mut(|a| *a = copies.get(a).copied().unwrap_or(*a));
        if (6..30).contains(&roll) {
            mutate(func, side, &mut data, rng);
        }
        let times = if roll >= 94 { 2 } else { 1 };
        for _ in 0..times {
            let k = FuncCursor::new(func)
                .goto_bottom(side)
                .insert_inst(data.clone(), ty);
            func.dfg.set_fast_math(k, func.dfg.fast_math(i));
            if let (Some(v), Some(c)) = (result, func.dfg.inst_result(k)) {
                copies.insert(v, c);
            }
        }
    }
    copies
}

/// A constant of the scalar `ty` at the end of `side`: 2 to 7 (0 or 1 for `i1`), or a
/// float near 1.
fn constant(func: &mut Function, side: Block, ty: Type, rng: &mut SmallRng) -> Value {
    let data = if ty.is_float() {
        let x: f64 = [0.5, 0.75, 1.25, 1.5, 3.0][rng.gen_range(0..5)];
        let bits = if ty == Type::F32 {
            u64::from((x as f32).to_bits())
        } else {
            x.to_bits()
        };
        InstData::Fconst { bits }
    } else if ty == Type::I1 {
        InstData::Iconst {
            imm: rng.gen_range(0..2),
        }
    } else {
        InstData::Iconst {
            imm: rng.gen_range(2..8),
        }
    };
    FuncCursor::new(func)
        .goto_bottom(side)
        .insert_value(data, ty)
}

/// Replaces an operand of a scalar arithmetic operation by a constant, or the operation
/// by a sibling of the same type. Shifts, divisions, memory and address arithmetic keep
/// their operands, so the copy stays in bounds and divides by what the original guarded.
fn mutate(func: &mut Function, side: Block, data: &mut InstData, rng: &mut SmallRng) {
    use BinaryOp::*;
    let InstData::Binary { op, args, flags } = data else {
        return;
    };
    let ty = func.dfg.value_type(args[0]);
    if ty.is_vector() || !(ty.is_int() || ty.is_float()) {
        return;
    }
    let sibling = match *op {
        Add => Sub,
        Sub => Add,
        And => Or,
        Or => Xor,
        Xor => And,
        SMin => SMax,
        SMax => SMin,
        UMin => UMax,
        UMax => UMin,
        FAdd => FSub,
        FSub => FMul,
        FMul => FAdd,
        FMin => FMax,
        FMax => FMin,
        _ => return,
    };
    if ty == Type::I1 && !matches!(sibling, And | Or | Xor) {
        return;
    }
    // The copy's overflow is not the original's: it asserts nothing.
    *flags = IntFlags::NONE;
    if rng.gen_bool(0.5) {
        *op = sibling;
    } else {
        let k = rng.gen_range(0..2);
        args[k] = constant(func, side, ty, rng);
    }
}
