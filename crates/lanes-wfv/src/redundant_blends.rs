//! Blends that repeat a blend made on every path into their block.
//!
//! A BOSCC gadget (PLDI'18 §6.1) puts a uniform branch around a linearized region `b`,
//! and the join `d` after it is then entered both from the end of `b` and, when no lane
//! needs `b`, straight from before it. The φs of `d` (§5, [`crate::blend`]) become a uniform
//! φ of the two paths followed by a blend on the mask of the lanes that skipped `b`:
//!
//! ```text
//! b:  v' = select(c, new, old)        // b's own blend: lanes outside c keep old
//! d:  p  = φ(b: v', skip: old)
//!     m  = φ(b: ¬c, skip: false)
//!     s  = select(m, old, p)          // the lanes that skipped b keep old, again
//! ```
//!
//! On each path into `d` the lanes that `s` sends to `old` already hold `old` in `p`, so
//! `s` is `p`. Besides a select per live value per gadget, this keeps a mask φ (`m`) alive
//! across blocks, which LLVM turns into a `<W x i1>` φ: on AVX2, whose masks are vector
//! registers of lane-width integers, every such φ is packed to bytes and unpacked again in
//! the loop (`vpackssdw`, `vpmovzxbd`, `vpslld`, as in the ray/sphere kernel at 16 lanes).
//!
//! The rule, for `s = select(m, x, y)` in a block whose φs hold `y` (or `x`) and `m`: on
//! every incoming edge, the lanes that pick the other operand `a` must already hold `a`
//! in the φ's incoming value — the value is `a`, or a chain of selects that sends those
//! lanes to `a`, or the lanes are none (a `false` mask). Masks are compared as
//! conjunctions of literals (a root value and a polarity, through copies, `not`s and
//! `and`s): a select sends the lanes to its false side when a literal of its condition
//! contradicts one of theirs, to its true side when they imply all of its literals. A
//! blend made redundant this way may make the next one in a chain redundant too (two
//! gadgets on nested branches). The rule holds per instance, before widening, so it holds
//! lane by lane after it.
//!
//! A second rule needs no φ of masks: `s = select(m, x, y)` is `x` when `x` already
//! holds `y` in every lane outside `m`, followed through selects as above and through
//! the φs of forward joins (each incoming must hold it). The divergent loop transform's
//! keep-in-place select in the pure latch, `select(live, v, p)`, is one (§5): the
//! iteration's own blends made `v` from `p` under masks inside `live`, so the lanes that
//! are no longer live hold `p` in `v` already. Loop headers' φs are not followed: their
//! back-edge values were computed under the previous iteration's masks; nor are the φs
//! of irreducible regions, entered round their cycles without a header.

use lanes_analysis::LoopForest;
use lanes_ir::{BinaryOp, Block, Function, InstData, UnaryOp, Value, ValueSubstitution};

/// How many literals a mask is split into at most (the rest stay whole `and`s).
const MAX_LITERALS: usize = 8;

/// How many values the second rule looks at per blend (φs fan out).
const MAX_VISITS: usize = 32;

/// Replaces the redundant blends of `func` (module docs) by the values they repeat;
/// returns how many. `loops` describes `func`'s CFG. The blends are left dead for the
/// caller's dead-code removal.
pub fn remove_redundant_blends(func: &mut Function, loops: &LoopForest) -> usize {
    let mut subst = ValueSubstitution::new();
    let mut removed = 0;
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for block in blocks {
        for &inst in func.layout.block_insts(block) {
            let InstData::Select { args } = func.dfg.inst(inst) else {
                continue;
            };
            let [m, x, y] = args.map(|v| subst.resolve(v));
            let Some(s) = func.dfg.inst_result(inst) else {
                continue;
            };
            let facts = Facts {
                func,
                subst: &subst,
                loops,
            };
            // `p = y`: the lanes where m holds pick `x`; `p = x`: those where it does not.
            let same = [(y, x, false), (x, y, true)]
                .into_iter()
                .find(|&(p, a, flip)| facts.repeats(block, m, flip, p, a))
                .or_else(|| {
                    // `x` holds `y` outside `m`, or `y` holds `x` inside it.
                    [(x, y, true), (y, x, false)]
                        .into_iter()
                        .find(|&(p, a, flip)| {
                            let lanes = literals(func, &subst, m, flip);
                            let mut budget = MAX_VISITS;
                            facts.holds(p, &lanes, a, &mut budget)
                        })
                });
            if let Some((p, ..)) = same {
                subst.insert(s, p);
                removed += 1;
            }
        }
    }
    func.dfg.apply_substitution(&subst);
    removed
}

/// What the rules read: the function, the blends already found redundant, its loops.
struct Facts<'a> {
    func: &'a Function,
    subst: &'a ValueSubstitution,
    loops: &'a LoopForest,
}

impl Facts<'_> {
    /// Whether `p`, a φ of `block`, holds `a` on every incoming edge in the lanes where
    /// the mask `m` (negated if `flip`), read on that edge, holds.
    fn repeats(&self, block: Block, m: Value, flip: bool, p: Value, a: Value) -> bool {
        let func = self.func;
        let (root, negated) = atom(func, m);
        let (Some(mask_in), Some(value_in)) = (phi_in(func, block, root), phi_in(func, block, p))
        else {
            return false;
        };
        mask_in.iter().all(|&(pred, k)| {
            let Some(&(_, v)) = value_in.iter().find(|&&(q, _)| q == pred) else {
                return false;
            };
            let lanes = literals(func, self.subst, k, negated ^ flip);
            let mut budget = MAX_VISITS;
            self.holds(self.subst.resolve(v), &lanes, a, &mut budget)
        })
    }

    /// Whether `v` equals `a` in the lanes where every literal of `lanes` holds, through
    /// selects (whose lanes all take one side: the false side if a literal of the
    /// condition contradicts one of theirs, the true side if they imply the condition)
    /// and the φs of blocks that are no loop header. `budget` bounds the values visited.
    fn holds(&self, v: Value, lanes: &[(Value, bool)], a: Value, budget: &mut usize) -> bool {
        let func = self.func;
        if v == a || lanes.iter().any(|&l| constant(func, l) == Some(false)) {
            return true;
        }
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        let Some(inst) = func.dfg.def_inst(v) else {
            return false;
        };
        match func.dfg.inst(inst) {
            InstData::Select { args } => {
                let [c, t, f] = args.map(|v| self.subst.resolve(v));
                let cond = literals(func, self.subst, c, false);
                let side = if cond.iter().any(|&(r, n)| lanes.contains(&(r, !n))) {
                    f
                } else if cond.iter().all(|l| lanes.contains(l)) {
                    t
                } else {
                    return false;
                };
                self.holds(side, lanes, a, budget)
            }
            InstData::Phi { incoming } => {
                let forward = func
                    .layout
                    .inst_block(inst)
                    .is_some_and(|b| !self.may_close_a_cycle(b));
                forward
                    && incoming
                        .iter()
                        .all(|&(_, x)| self.holds(self.subst.resolve(x), lanes, a, budget))
            }
            _ => false,
        }
    }

    /// Whether an edge into `b` may close a cycle: `b` heads a natural loop or lies in an
    /// irreducible region (the reconverging transform's input may keep one), whose entries
    /// are no header but are entered again round the cycle.
    fn may_close_a_cycle(&self, b: Block) -> bool {
        self.loops.loop_of_header(b).is_some()
            || self
                .loops
                .irreducible_regions()
                .iter()
                .any(|r| r.blocks.contains(&b))
    }
}

/// A mask as a conjunction of literals: a root value and whether it is negated.
type Conjunction = Vec<(Value, bool)>;

/// The literals whose conjunction is the mask `v` (negated if `negated`): through copies,
/// `not`s and, unnegated, `and`s; anything else is one literal.
fn literals(func: &Function, subst: &ValueSubstitution, v: Value, negated: bool) -> Conjunction {
    let mut out = Conjunction::new();
    let mut work = vec![(subst.resolve(v), negated)];
    while let Some((v, negated)) = work.pop() {
        let (v, n) = atom(func, v);
        let negated = negated ^ n;
        match func.dfg.def_inst(v).map(|i| func.dfg.inst(i)) {
            Some(InstData::Binary {
                op: BinaryOp::And,
                args,
                ..
            }) if !negated && out.len() + work.len() < MAX_LITERALS => {
                work.extend(args.iter().map(|&x| (subst.resolve(x), false)));
            }
            _ => out.push((v, negated)),
        }
    }
    out
}

/// The incoming `(predecessor, value)`s of `v` if it is a φ of `block`.
fn phi_in(func: &Function, block: Block, v: Value) -> Option<&[(Block, Value)]> {
    let inst = func.dfg.def_inst(v)?;
    if func.layout.inst_block(inst) != Some(block) {
        return None;
    }
    match func.dfg.inst(inst) {
        InstData::Phi { incoming } => Some(incoming),
        _ => None,
    }
}

/// `v` as a root value and a polarity, through copies and `not`s.
fn atom(func: &Function, mut v: Value) -> (Value, bool) {
    let mut negated = false;
    while let Some(InstData::Unary { op, arg }) = func.dfg.def_inst(v).map(|i| func.dfg.inst(i)) {
        match op {
            UnaryOp::Copy => {}
            UnaryOp::Not => negated = !negated,
            _ => break,
        }
        v = *arg;
    }
    (v, negated)
}

/// The value of the literal `(root, negated)` if its root is a constant.
fn constant(func: &Function, (root, negated): (Value, bool)) -> Option<bool> {
    func.dfg.splat_constant(root).map(|c| (c != 0) != negated)
}

#[cfg(test)]
mod tests {
    use super::remove_redundant_blends;

    /// A join after a skipped region, `d: s = select(m, old, φ(b: v, skip: old))` with
    /// `m = φ(b: ¬c, skip: false)`, where the region's code `v` leaves `v5`; how many
    /// blends go.
    fn removed(v: &str) -> usize {
        let text = format!(
            "function @f(v0: i32, v1: i32, v2: i1, v3: i1, v4: i1) -> i32 {{
block0:
    brif v4, block1, block2
block1:
    {v}
    v6: i1 = not v2
    br block3
block2:
    v7: i1 = iconst 0
    br block3
block3:
    v8: i32 = phi [block1: v5], [block2: v0]
    v9: i1 = phi [block1: v6], [block2: v7]
    v10: i32 = select v9, v0, v8
    ret v10
}}
"
        );
        let mut module = lanes_ir::parse_module(&text).expect("parses");
        let id = module.functions().next().expect("one function").0;
        let func = module.function_mut(id).expect("defined");
        let mut analyses = lanes_analysis::FunctionAnalyses::new();
        analyses.compute(func, lanes_analysis::AnalysisSet::LOOPS);
        let n = remove_redundant_blends(func, analyses.loops());
        let func = module.function(id).expect("defined");
        lanes_ir::verifier::verify_function(&module, func).expect("verifies");
        n
    }

    #[test]
    fn a_blend_the_region_made_is_not_made_again() {
        // The region blended on c: the lanes outside it hold v0 already.
        assert_eq!(removed("v5: i32 = select v2, v1, v0"), 1);
        // On c ∧ v3, as an inner branch's blend: the lanes outside c still hold v0.
        assert_eq!(
            removed("v11: i1 = and v2, v3\n    v5: i32 = select v11, v1, v0"),
            1
        );
        // A copy of v0 is not looked through (the rule compares values).
        assert_eq!(removed("v5: i32 = copy v0"), 0);
    }

    #[test]
    fn a_blend_the_region_did_not_make_stays() {
        // A condition unrelated to c: a lane outside c may take v1.
        assert_eq!(removed("v5: i32 = select v3, v1, v0"), 0);
        // The region's blend the other way round: lanes outside c take v1.
        assert_eq!(removed("v5: i32 = select v2, v0, v1"), 0);
        // A value the region computed for every lane.
        assert_eq!(removed("v5: i32 = add v0, v1"), 0);
    }
}
