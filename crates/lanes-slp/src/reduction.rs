//! Reductions as seeds (SuperVectorization, PLDI'22 §3.2: "common seeds are stores to
//! contiguous memory locations and reductions").
//!
//! Unrolled, a loop that folds one value per iteration into an accumulator —
//! `s = mu(init, s ⊕ x)` — becomes a chain `s ⊕ x₀ ⊕ x₁ ⊕ … ⊕ x_{U-1}` per main-loop
//! iteration: one long dependence, nothing to pack. Where `⊕` may be reassociated —
//! integer `add`, `mul`, `and`, `or`, `xor`, and floating-point `fadd` and `fmul` whose
//! every operation carries the `reassoc` flag (C's `-ffast-math` or
//! `-fassociative-math`: the program allows the sum in another order, and its last bits
//! change, as with LLVM's vectorizers) — the chain is split into `U` accumulators, `p_k = mu(e, p_k ⊕ x_k)` (`p_0` starting
//! from `init`, the others from the identity `e`), whose μ-nodes are one column: a seed
//! that packs into one vector μ-node with a vector `⊕` and the `x_k` packed below it.
//! The identities are exact: `x + -0.0 = x` for every `x`, `-0.0` included.
//! After the loop the accumulators are folded together, in lane order, where the
//! chain's last value was read.

use lanes_ir::{BinaryOp, FastMath, Inst, InstData, ScalarType, Type, Value};

use crate::items::Emit;
use crate::pssa::{Item, LoopId, Mu, Pssa};
use crate::substitute::substitute_outside;

/// Splits the reduction chains of the main loop `main` (unrolled by `u`) into `u`
/// accumulators each; how many chains were split.
pub fn split_reductions(pssa: &mut Pssa, main: LoopId, u: u32) -> usize {
    let mus = pssa.loops[main].mus.clone();
    // Splitting one chain changes no other chain's reads.
    let uses = use_counts(pssa);
    let mut split = 0;
    for m in mus {
        if let Some(chain) = chain_of(pssa, &uses, main, &m, u) {
            split_chain(pssa, main, &m, &chain);
            split += 1;
        }
    }
    split
}

/// The operations of `m`'s reduction chain in `main`, first to last, if it is one: `u`
/// unconditional operations of one reassociable kind, each reading the previous value
/// (the μ-node's, for the first) and nothing else reading it, the last being `m`'s
/// recursive value and read in the loop only by `m`.
fn chain_of(
    pssa: &Pssa,
    uses: &std::collections::HashMap<Value, usize>,
    main: LoopId,
    m: &Mu,
    u: u32,
) -> Option<Vec<Inst>> {
    let f = &pssa.func;
    let always = pssa.preds.always();
    let items = &pssa.loops[main].items;
    let mut v = m.value;
    let mut chain = Vec::with_capacity(u as usize);
    let mut kind: Option<BinaryOp> = None;
    for _ in 0..u {
        if uses.get(&v).copied().unwrap_or(0) != 1 {
            return None;
        }
        let user = items.iter().find_map(|&it| match it {
            Item::Inst(i) if f.dfg.inst(i).args().contains(&v) => Some(i),
            _ => None,
        })?;
        let InstData::Binary { op, args, .. } = *f.dfg.inst(user) else {
            return None;
        };
        if pssa.inst_pred[user] != always
            || args[0] == args[1]
            || kind.is_some_and(|k| k != op)
            || identity(op, f.dfg.value_type(v), f.dfg.fast_math(user)).is_none()
        {
            return None;
        }
        kind = Some(op);
        chain.push(user);
        v = f.dfg.inst_result(user)?;
    }
    // The last value: the μ-node's next, read after the loop perhaps, not in it.
    let in_loop = items.iter().any(|&it| match it {
        Item::Inst(i) => {
            let mut reads = false;
            pssa.for_each_operand(i, |x| reads |= x == v);
            pssa.for_each_cond(i, |x| reads |= x == v);
            reads
        }
        Item::Loop(_) => true,
    });
    (v == m.rec && !in_loop).then_some(chain)
}

/// How many times each value is read: operands, gates, predicates, μ-nodes.
fn use_counts(pssa: &Pssa) -> std::collections::HashMap<Value, usize> {
    let mut n: std::collections::HashMap<Value, usize> = Default::default();
    pssa.for_each_read(|_, v| *n.entry(v).or_insert(0) += 1);
    n
}

/// The identity of `op` on `ty` as a constant, for the operations that may be
/// reassociated: integer ones always, floating-point ones with `reassoc` in `fm`.
fn identity(op: BinaryOp, ty: Type, fm: FastMath) -> Option<InstData> {
    if ty.is_vector() {
        return None;
    }
    if ty.is_float() {
        if !fm.contains(FastMath::REASSOC) {
            return None;
        }
        let f64 = ty.elem() == ScalarType::F64;
        return Some(InstData::Fconst {
            bits: match (op, f64) {
                (BinaryOp::FAdd, false) => u64::from((-0.0f32).to_bits()),
                (BinaryOp::FAdd, true) => (-0.0f64).to_bits(),
                (BinaryOp::FMul, false) => u64::from(1.0f32.to_bits()),
                (BinaryOp::FMul, true) => 1.0f64.to_bits(),
                _ => return None,
            },
        });
    }
    if !ty.is_int() {
        return None;
    }
    Some(match op {
        BinaryOp::Add | BinaryOp::Or | BinaryOp::Xor => InstData::Iconst { imm: 0 },
        BinaryOp::Mul => InstData::Iconst { imm: 1 },
        BinaryOp::And => InstData::Iconst { imm: -1 },
        _ => return None,
    })
}

fn split_chain(pssa: &mut Pssa, main: LoopId, m: &Mu, chain: &[Inst]) {
    let f = &pssa.func;
    let ty = f.dfg.value_type(m.value);
    let InstData::Binary { op, .. } = *f.dfg.inst(chain[0]) else {
        unreachable!("a chain of binary operations")
    };
    let fm = f.dfg.fast_math(chain[0]);
    let outside = pssa.loops[main].pred;
    // Before the loop: the identity the other accumulators start from.
    let mut pre = Emit {
        pssa,
        items: Vec::new(),
    };
    let e = pre.value(identity(op, ty, fm).expect("checked"), ty, outside);
    let Emit { pssa, items: pre } = pre;
    let mut column = Vec::with_capacity(chain.len());
    let mut prev = m.value;
    for (k, &op_k) in chain.iter().enumerate() {
        let (phi, p) = pssa.new_phi(ty);
        pssa.func.dfg.inst_mut(op_k).for_each_arg_mut(|a| {
            if *a == prev {
                *a = p;
            }
        });
        prev = pssa
            .func
            .dfg
            .inst_result(op_k)
            .expect("a binary has a result");
        pssa.loops[main].mus.push(Mu {
            inst: phi,
            value: p,
            init: if k == 0 { m.init } else { e },
            rec: prev,
        });
        column.push(phi);
    }
    pssa.loops[main].mus.retain(|x| x.inst != m.inst);
    pssa.loops[main].columns.push(column);
    // After the loop: the accumulators folded, lane by lane, for what read the chain's
    // last value (made before it is placed, so that the substitution leaves it alone).
    let results: Vec<Value> = chain
        .iter()
        .map(|&i| pssa.func.dfg.inst_result(i).expect("a binary has a result"))
        .collect();
    let mut post = Emit {
        pssa,
        items: Vec::new(),
    };
    let mut acc = results[0];
    for &r in &results[1..] {
        acc = post.binary(op, acc, r, outside);
        let inst = post.pssa.func.dfg.def_inst(acc).expect("just made");
        post.pssa.func.dfg.set_fast_math(inst, fm);
    }
    let Emit { pssa, items: post } = post;
    let last = *results.last().expect("a chain");
    let subst = [(last, acc)].into_iter().collect();
    let excluded = [main].into_iter().collect();
    substitute_outside(pssa, &subst, &excluded);
    let (list, at) = pssa.list_holding(main);
    list.splice(at + 1..at + 1, post);
    list.splice(at..at, pre);
}
