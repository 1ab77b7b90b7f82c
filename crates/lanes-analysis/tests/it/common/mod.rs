//! Test support: a random CFG function builder and a plain graph view for the oracles.
//!
//! The builder makes functions whose terminators (`br`, `brif`, `switch`, `ret`,
//! `unreachable`) branch anywhere, so the graphs have unreachable blocks, irreducible
//! cycles, infinite loops, self-loops, several returns and duplicate targets. Branch
//! conditions come from parameters (`v0: i1`, `v1: i32`). For liveness, blocks define
//! `i32` values and use values of their dominators (dominance computed by brute force here,
//! not by the analysis under test), and join blocks get φs whose operands are available at
//! the end of each predecessor, so the functions are in SSA form.
//!
//! Everything is deterministic: case `seed` draws its bytes from
//! `SmallRng::seed_from_u64(seed)` and feeds them to `arbitrary::Unstructured`.

// Not every test binary uses every helper; the oracles index relation matrices by block
// position, which reads better as index loops.
#![allow(dead_code, clippy::needless_range_loop)]

pub mod checks;
pub mod oracle;

use arbitrary::{Result, Unstructured};
use lanes_ir::{BinaryOp, Block, FuncBuilder, Function, InstData, Type, Value};

/// Runs `f` on the bytes of case `seed`.
pub fn with_bytes<T>(seed: u64, f: impl FnOnce(&mut Unstructured) -> T) -> T {
    let bytes = lanes_test_support::seeded_bytes(seed, 4096);
    f(&mut Unstructured::new(&bytes))
}

/// The random function of case `seed`.
pub fn random_function(seed: u64) -> Function {
    with_bytes(seed, |u| {
        build(u).expect("the builder never fails on exhausted input")
    })
}

/// A terminator of the skeleton; targets are block positions.
#[derive(Clone, Debug)]
enum Term {
    Br(usize),
    Brif(usize, usize),
    Switch(Vec<usize>, usize),
    Ret,
    Unreachable,
}

impl Term {
    fn targets(&self) -> Vec<usize> {
        match self {
            Term::Br(t) => vec![*t],
            Term::Brif(a, b) => vec![*a, *b],
            Term::Switch(cases, d) => cases.iter().copied().chain([*d]).collect(),
            Term::Ret | Term::Unreachable => vec![],
        }
    }
}

fn target(u: &mut Unstructured, i: usize, n: usize, lo: usize) -> Result<usize> {
    Ok(match u.int_in_range(0..=9)? {
        0..=3 if i + 1 < n => i + 1,
        4..=5 if i + 1 < n => u.int_in_range(i + 1..=n - 1)?,
        _ => u.int_in_range(lo..=n - 1)?,
    })
}

fn skeleton(u: &mut Unstructured) -> Result<Vec<Term>> {
    let n = match u.int_in_range(0..=3)? {
        0 => u.int_in_range(1..=6)?,
        _ => u.int_in_range(1..=30)?,
    };
    // Some functions never return, so that infinite loops are common.
    let ret_weight = u.int_in_range(0..=3)?;
    // A quarter of the functions may branch back to the entry (which the verifier
    // rejects, but the analyses must handle); the others start at a block without
    // predecessors. A one-block function without entry edges cannot branch at all.
    let lo = if n > 1 && !u.ratio(1, 4)? { 1 } else { 0 };
    if n == 1 && lo == 0 && u.ratio(1, 2)? {
        return Ok(vec![Term::Ret]);
    }
    let mut terms = Vec::with_capacity(n);
    for i in 0..n {
        let kind = u.int_in_range(0..=19)?;
        let term = match kind {
            0..=5 => Term::Br(target(u, i, n, lo)?),
            6..=12 => Term::Brif(target(u, i, n, lo)?, target(u, i, n, lo)?),
            13..=14 => {
                let cases = u.int_in_range(1..=4)?;
                let mut ts = Vec::new();
                for _ in 0..cases {
                    ts.push(target(u, i, n, lo)?);
                }
                Term::Switch(ts, target(u, i, n, lo)?)
            }
            15..=18 if ret_weight > 0 && kind - 15 < ret_weight => Term::Ret,
            19 => Term::Unreachable,
            _ => Term::Br(target(u, i, n, lo)?),
        };
        terms.push(term);
    }
    // Many cases should have a way out: the last block returns half the time.
    if ret_weight > 1 && u.arbitrary::<bool>()? {
        terms[n - 1] = Term::Ret;
    }
    Ok(terms)
}

/// Brute-force dominators of a skeleton: `idom[b]` (None for the entry and unreachable).
fn skeleton_idoms(succ: &[Vec<usize>]) -> (Vec<bool>, Vec<Option<usize>>) {
    let n = succ.len();
    let reach = |removed: Option<usize>| {
        let mut seen = vec![false; n];
        if removed == Some(0) {
            return seen;
        }
        let mut stack = vec![0];
        seen[0] = true;
        while let Some(x) = stack.pop() {
            for &s in &succ[x] {
                if !seen[s] && Some(s) != removed {
                    seen[s] = true;
                    stack.push(s);
                }
            }
        }
        seen
    };
    let reachable = reach(None);
    // doms[b] = strict dominators of b.
    let mut doms: Vec<Vec<usize>> = vec![Vec::new(); n];
    for a in 0..n {
        let r = reach(Some(a));
        for b in 0..n {
            if b != a && reachable[b] && !r[b] {
                doms[b].push(a);
            }
        }
    }
    // The immediate dominator is the strict dominator with the most dominators.
    let idom = (0..n)
        .map(|b| doms[b].iter().copied().max_by_key(|&d| doms[d].len()))
        .collect();
    (reachable, idom)
}

fn build(u: &mut Unstructured) -> Result<Function> {
    let terms = skeleton(u)?;
    let n = terms.len();
    let succ: Vec<Vec<usize>> = terms
        .iter()
        .map(|t| {
            let mut s = t.targets();
            s.dedup();
            let mut d = Vec::new();
            for x in s {
                if !d.contains(&x) {
                    d.push(x);
                }
            }
            d
        })
        .collect();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (p, ss) in succ.iter().enumerate() {
        for &s in ss {
            preds[s].push(p);
        }
    }
    let (reachable, idom) = skeleton_idoms(&succ);

    let mut func = Function::new("cfg", &[Type::I1, Type::I32], Some(Type::I32));
    let (cond, sel) = (func.params[0].value, func.params[1].value);
    let mut fb = FuncBuilder::new(&mut func);
    let blocks: Vec<Block> = (0..n).map(|_| fb.create_block()).collect();

    // Dominators before the blocks they dominate: by depth in the dominator tree.
    let depth = |mut b: usize| {
        let mut d = 0;
        while let Some(p) = idom[b] {
            b = p;
            d += 1;
        }
        d
    };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&b| (!reachable[b], depth(b), b));

    let mut avail_end: Vec<Vec<Value>> = vec![Vec::new(); n];
    let mut phis: Vec<(usize, Value)> = Vec::new();
    for &b in &order {
        fb.switch_to_block(blocks[b]);
        let mut avail = match idom[b] {
            Some(d) if reachable[b] => avail_end[d].clone(),
            _ => vec![sel],
        };
        if !preds[b].is_empty() && b != 0 {
            for _ in 0..u.int_in_range(0..=2)? {
                let phi = fb.phi(Type::I32, Vec::new());
                phis.push((b, phi));
                avail.push(phi);
            }
        }
        for _ in 0..u.int_in_range(0..=3)? {
            let v = if u.ratio(1, 3)? {
                fb.iconst(Type::I32, i64::from(u.int_in_range(0..=9)?))
            } else {
                let x = *u.choose(&avail)?;
                let y = *u.choose(&avail)?;
                fb.binary(BinaryOp::Add, x, y)
            };
            avail.push(v);
        }
        match &terms[b] {
            Term::Br(t) => {
                fb.jump(blocks[*t]);
            }
            Term::Brif(x, y) => {
                fb.brif(cond, blocks[*x], blocks[*y]);
            }
            Term::Switch(cases, d) => {
                let cases = cases
                    .iter()
                    .enumerate()
                    .map(|(k, &t)| (k as i64, blocks[t]))
                    .collect();
                fb.switch(sel, cases, blocks[*d]);
            }
            Term::Ret => {
                let v = *u.choose(&avail)?;
                fb.ret(Some(v));
            }
            Term::Unreachable => {
                fb.unreachable();
            }
        }
        avail_end[b] = avail;
    }
    for (b, phi) in phis {
        let mut incoming = Vec::new();
        for &p in &preds[b] {
            incoming.push((blocks[p], *u.choose(&avail_end[p])?));
        }
        let inst = match func.dfg.value_def(phi) {
            lanes_ir::ValueDef::Result(inst) => inst,
            lanes_ir::ValueDef::Param(_) => unreachable!("φs are instruction results"),
        };
        *func.dfg.inst_mut(inst) = InstData::Phi { incoming };
    }
    Ok(func)
}

/// Runs `check` on the random functions of seeds `0..cases`; panics at the first failure
/// with the seed and the function's text.
pub fn run_cases(cases: u64, mut check: impl FnMut(&Function) -> std::result::Result<(), String>) {
    for seed in 0..cases {
        let func = random_function(seed);
        checks::expect_ok(&format!("seed {seed}"), &func, check(&func));
    }
}
