//! Division of a contiguous index by a uniform divisor, once per vector instead of once
//! per lane.
//!
//! C kernels over 2-d data find their coordinates as `x = i % width, y = i / width`, with
//! `i` the instance index and `width` a parameter. Widened as they are, those are vector
//! divisions, which x86 does not have: one scalar division per lane, with the extracts and
//! inserts around it. But the lanes hold consecutive values `a₀ + l`, and when the divisor
//! `b` is at least the number of lanes the quotients and remainders follow from lane 0's:
//! with `q₀ = a₀ / b`, `r₀ = a₀ % b`, lane `l` wraps past a multiple of `b` exactly when
//! `l ≥ b − r₀`, so `q = q₀ + [l ≥ b − r₀]` and `r = r₀ + l`, less `b` where it wrapped.
//! That is two scalar divisions per vector and a few vector operations.
//!
//! A quotient divided again by a uniform `c` — the row of a 3-d grid, `y = (i / w) % h` —
//! holds `q₀` or `q₀ + 1` in every lane, stepping up once, so its quotients and remainders
//! follow from lane 0's too: with `t₀ = q₀ / c` and `s₀ = q₀ % c`, a lane whose quotient
//! stepped up has remainder `s₀ + 1`, wrapping to 0 (and quotient `t₀ + 1`) where that is
//! `c`. Those are computed on the same fast side, which then also needs `c > 0` (`c ≠ 0`
//! unsigned); the slow side divides as the code did. Such a division joins its group when
//! `c` is known before the group's first division and nothing between the two writes
//! memory or calls out, so that the slow side can divide a little earlier.
//!
//! The pass rewrites each group of divisions and remainders of one contiguous `a` by one
//! uniform `b` in a block into a uniform branch: the formula where `b ≥ num_lanes`, `a₀ ≥
//! 0` (signed division truncates, which is the floor only for non-negative dividends) and
//! `a₀ + num_lanes − 1` does not wrap, else the original instructions (which also keep
//! their traps: a zero or negative divisor takes that path). The branch is uniform, so
//! partial linearization keeps it (PLDI'18 Theorem 4.5) and only one side runs. At width 1
//! (`lane_id` 0, `num_lanes` 1) the formula is the division itself, which is how the
//! interpreter tests prove the rewrite. Full if-conversion would run both sides, so the
//! pass is for partial linearization only.

use std::collections::HashMap;

use lanes_analysis::shapes::ShapeInfo;
use lanes_ir::{
    BinaryOp, Block, CastOp, FuncCursor, Function, Inst, InstData, IntCC, IntFlags, Intrinsic,
    Type, Value, ValueDef,
};

/// The divisions of one dividend by one divisor in one block, of one signedness.
struct Group {
    signed: bool,
    dividend: Value,
    divisor: Value,
    /// Quotients and remainders, in block order.
    insts: Vec<(Inst, bool)>,
    /// Divisions of the group's quotient by other uniform divisors, one entry per divisor.
    chained: Vec<Chained>,
}

/// Quotients and remainders (`true`) of a group's quotient `(a / b) / c`, `(a / b) % c`
/// by one uniform divisor `c`.
struct Chained {
    divisor: Value,
    insts: Vec<(Inst, bool)>,
}

/// Rewrites the divisions of `func` whose dividend is contiguous and divisor uniform
/// (`info` describes `func`); returns how many groups it rewrote.
pub fn split_index_divisions(func: &mut Function, info: &ShapeInfo) -> usize {
    let groups = groups(func, info);
    let n = groups.len();
    for g in groups {
        rewrite(func, &g);
    }
    n
}

/// `(signed, is_remainder)` of an integer division or remainder.
fn division_kind(op: BinaryOp) -> Option<(bool, bool)> {
    match op {
        BinaryOp::SDiv => Some((true, false)),
        BinaryOp::SRem => Some((true, true)),
        BinaryOp::UDiv => Some((false, false)),
        BinaryOp::URem => Some((false, true)),
        _ => None,
    }
}

fn groups(func: &Function, info: &ShapeInfo) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    for block in func.layout.blocks() {
        let mut here: HashMap<(bool, Value, Value), usize> = HashMap::new();
        // The quotients of this block's groups: value → its group.
        let mut quotients: HashMap<Value, usize> = HashMap::new();
        // The positions of the block's instructions so far, and of the last one that
        // writes memory or calls out.
        let mut position: HashMap<Inst, usize> = HashMap::new();
        let mut last_effect: Option<usize> = None;
        for (n, &i) in func.layout.block_insts(block).iter().enumerate() {
            position.insert(i, n);
            let data = func.dfg.inst(i);
            if data.has_side_effects() {
                last_effect = Some(n);
            }
            let InstData::Binary { op, args, .. } = *data else {
                continue;
            };
            let Some((signed, rem)) = division_kind(op) else {
                continue;
            };
            let [a, b] = args;
            let ty = func.dfg.value_type(a);
            if ty.is_vector() || ty == Type::I1 || !info.shape(b).is_uniform() {
                continue;
            }
            if let Some(&g) = quotients.get(&a) {
                let first = position[&out[g].insts[0].0];
                if out[g].signed == signed
                    && last_effect.is_none_or(|e| e < first)
                    && known_before(func, info, b, block, first, &position)
                {
                    let chained = &mut out[g].chained;
                    match chained.iter_mut().find(|c| c.divisor == b) {
                        Some(c) => c.insts.push((i, rem)),
                        None => chained.push(Chained {
                            divisor: b,
                            insts: vec![(i, rem)],
                        }),
                    }
                }
                continue;
            }
            let contiguous = info.shape(a).stride() == Some(1) && !info.shape(a).is_uniform();
            if !contiguous {
                continue;
            }
            let key = (signed, a, b);
            let g = match here.get(&key) {
                Some(&g) => {
                    out[g].insts.push((i, rem));
                    g
                }
                None => {
                    here.insert(key, out.len());
                    out.push(Group {
                        signed,
                        dividend: a,
                        divisor: b,
                        insts: vec![(i, rem)],
                        chained: Vec::new(),
                    });
                    out.len() - 1
                }
            };
            if !rem {
                if let Some(q) = func.dfg.inst_result(i) {
                    quotients.insert(q, g);
                }
            }
        }
    }
    out
}

/// Is `v` defined before the instruction at `first` in `block` (`position`: the block's
/// instructions so far, by position): a parameter, a value of a block dominating this
/// one, or one of this block before `first`?
fn known_before(
    func: &Function,
    info: &ShapeInfo,
    v: Value,
    block: Block,
    first: usize,
    position: &HashMap<Inst, usize>,
) -> bool {
    let ValueDef::Result(def) = func.dfg.value_def(v) else {
        return true;
    };
    match func.layout.inst_block(def) {
        Some(d) if d == block => position.get(&def).is_some_and(|&d| d < first),
        Some(d) => info.domtree().dominates(d, block),
        None => false,
    }
}

/// The largest value of the integer type `ty`, signed or not, as an `iconst` stores it
/// (sign-extended: every unsigned maximum is all ones, -1).
fn max_value(ty: Type, signed: bool) -> i64 {
    match ty.elem().bits() {
        64 if signed => i64::MAX,
        bits if signed => (1i64 << (bits - 1)) - 1,
        _ => -1,
    }
}

fn rewrite(func: &mut Function, g: &Group) {
    let ty = func.dfg.value_type(g.dividend);
    let (a, b) = (g.dividend, g.divisor);
    let first = g.insts[0].0;
    // An earlier group of the block may have moved this one's code to its join.
    let Some(block) = func.layout.inst_block(first) else {
        return;
    };
    // Split the block before the first division: the rest moves to `join`.
    let mut cur = FuncCursor::new(func);
    let Some(join) = cur.split_block_before(first) else {
        return;
    };
    let fast = cur.create_block_after(block);
    let slow = cur.create_block_after(fast);
    let (ge, cmp_signed) = if g.signed {
        (IntCC::Sge, true)
    } else {
        (IntCC::Uge, false)
    };
    let le = if cmp_signed { IntCC::Sle } else { IntCC::Ule };
    let bin = |op, x, y| InstData::Binary {
        op,
        args: [x, y],
        flags: IntFlags::NONE,
    };
    let icmp = |cond, x, y| InstData::Icmp { cond, args: [x, y] };
    // The guard, at the end of the block.
    let mut cur = FuncCursor::new(func);
    cur.goto_bottom(block);
    let lane = cur.insert_value(
        InstData::Intrinsic {
            id: Intrinsic::LaneId,
            args: vec![],
        },
        ty,
    );
    let lanes = cur.insert_value(
        InstData::Intrinsic {
            id: Intrinsic::NumLanes,
            args: vec![],
        },
        ty,
    );
    let a0 = cur.insert_value(bin(BinaryOp::Sub, a, lane), ty);
    let wide = cur.insert_value(icmp(ge, b, lanes), Type::I1);
    let one = cur.insert_value(InstData::Iconst { imm: 1 }, ty);
    let max = cur.insert_value(
        InstData::Iconst {
            imm: max_value(ty, g.signed),
        },
        ty,
    );
    let spare = cur.insert_value(bin(BinaryOp::Sub, lanes, one), ty);
    let limit = cur.insert_value(bin(BinaryOp::Sub, max, spare), ty);
    let room = cur.insert_value(icmp(le, a0, limit), Type::I1);
    let mut ok = cur.insert_value(bin(BinaryOp::And, wide, room), Type::I1);
    // Zero, for the sign test and the chained divisors' tests and wrap.
    let zero = (g.signed || !g.chained.is_empty())
        .then(|| cur.insert_value(InstData::Iconst { imm: 0 }, ty));
    if let Some(zero) = zero.filter(|_| g.signed) {
        let sign = cur.insert_value(icmp(IntCC::Sge, a0, zero), Type::I1);
        ok = cur.insert_value(bin(BinaryOp::And, ok, sign), Type::I1);
    }
    // A chained divisor must be positive: the formula's remainder counts up to it.
    let positive = if g.signed { IntCC::Sgt } else { IntCC::Ne };
    if let Some(zero) = zero {
        for c in &g.chained {
            let fine = cur.insert_value(icmp(positive, c.divisor, zero), Type::I1);
            ok = cur.insert_value(bin(BinaryOp::And, ok, fine), Type::I1);
        }
    }
    cur.insert_inst(
        InstData::Brif {
            cond: ok,
            then_dest: fast,
            else_dest: slow,
        },
        None,
    );
    // The fast side: lane 0's quotient and remainder, and each lane's wrap.
    let (div, rem) = if g.signed {
        (BinaryOp::SDiv, BinaryOp::SRem)
    } else {
        (BinaryOp::UDiv, BinaryOp::URem)
    };
    cur.goto_bottom(fast);
    let q0 = cur.insert_value(bin(div, a0, b), ty);
    let r0 = cur.insert_value(bin(rem, a0, b), ty);
    let room_left = cur.insert_value(bin(BinaryOp::Sub, b, r0), ty);
    let wraps = cur.insert_value(icmp(ge, lane, room_left), Type::I1);
    let carry = cur.insert_value(
        InstData::Cast {
            op: CastOp::Zext,
            arg: wraps,
            flags: IntFlags::NONE,
        },
        ty,
    );
    let q = cur.insert_value(bin(BinaryOp::Add, q0, carry), ty);
    let past = cur.insert_value(bin(BinaryOp::Sub, lane, room_left), ty);
    let within = cur.insert_value(bin(BinaryOp::Add, r0, lane), ty);
    let r = cur.insert_value(
        InstData::Select {
            args: [wraps, past, within],
        },
        ty,
    );
    // The chained divisions: lane 0's quotient and remainder by `c`, and a step past the
    // remainder `c - 1` where the lane's quotient stepped up.
    let mut chained_fast: Vec<(Value, Value)> = Vec::new();
    if let Some(zero) = zero {
        for c in &g.chained {
            let t0 = cur.insert_value(bin(div, q0, c.divisor), ty);
            let s0 = cur.insert_value(bin(rem, q0, c.divisor), ty);
            let next = cur.insert_value(bin(BinaryOp::Add, s0, carry), ty);
            let wrapped = cur.insert_value(icmp(IntCC::Eq, next, c.divisor), Type::I1);
            let step = cur.insert_value(
                InstData::Cast {
                    op: CastOp::Zext,
                    arg: wrapped,
                    flags: IntFlags::NONE,
                },
                ty,
            );
            let quotient = cur.insert_value(bin(BinaryOp::Add, t0, step), ty);
            let remainder = cur.insert_value(
                InstData::Select {
                    args: [wrapped, zero, next],
                },
                ty,
            );
            chained_fast.push((quotient, remainder));
        }
    }
    cur.insert_inst(InstData::Jump { dest: join }, None);
    // The slow side: the original operations.
    cur.goto_bottom(slow);
    let q_slow = cur.insert_value(bin(div, a, b), ty);
    let r_slow = cur.insert_value(bin(rem, a, b), ty);
    let chained_slow: Vec<(Value, Value)> = g
        .chained
        .iter()
        .map(|c| {
            (
                cur.insert_value(bin(div, q_slow, c.divisor), ty),
                cur.insert_value(bin(rem, q_slow, c.divisor), ty),
            )
        })
        .collect();
    cur.insert_inst(InstData::Jump { dest: join }, None);
    cur.goto_top(join);
    let mut merge =
        |fast_v: Value, slow_v: Value| cur.insert_phi(ty, vec![(fast, fast_v), (slow, slow_v)]);
    let q_phi = merge(q, q_slow);
    let r_phi = merge(r, r_slow);
    let chained_phis: Vec<(Value, Value)> = chained_fast
        .iter()
        .zip(&chained_slow)
        .map(|(&(qf, rf), &(qs, rs))| (merge(qf, qs), merge(rf, rs)))
        .collect();
    // The group's instructions become the φs.
    let replaced = g.insts.iter().map(|&(i, is_rem)| (i, is_rem, q_phi, r_phi));
    let chained = g
        .chained
        .iter()
        .zip(chained_phis)
        .flat_map(|(c, (qc, rc))| c.insts.iter().map(move |&(i, is_rem)| (i, is_rem, qc, rc)));
    for (i, is_rem, quotient, remainder) in replaced.chain(chained).collect::<Vec<_>>() {
        if let Some(v) = func.dfg.inst_result(i) {
            func.dfg
                .replace_uses(v, if is_rem { remainder } else { quotient });
        }
        func.layout.remove_inst(i);
    }
}
