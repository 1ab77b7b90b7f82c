//! Edge and block predicates from control dependence (PLDI'18 §2.4).
//!
//! "The predicate for an edge `a → b` is the conjunction of the block predicate of `a`
//! and the branch condition of `a` leading to `b`. The predicate of a block `b` is the
//! disjunction of the edge predicates of the control dependence edges of `b`."
//!
//! Control dependence is taken on the CFG without back edges (the graph Fig. 5 works on;
//! for post-dominance a latch that only jumps back flows to its loop's exits), per loop
//! iteration: a block `b` of loop `L` that is control dependent on an edge from
//! outside `L` has exactly the control dependences of `L`'s header `h` (it post-dominates
//! `h` in the acyclic body), so its predicate *is* `h`'s; so is the predicate of a loop
//! block without control dependences. The header of a loop made
//! uniform by the divergent loop transform (§5) has the predicate `entry ∧ live`, so that
//! lanes that left the loop are inactive in its later iterations; the live mask starts as
//! the preheader's predicate.
//!
//! **Uniformity** (§2.4): `uni(b) ⟺ uni(cdep(b))`, i.e. every control dependence edge
//! leaves a block with a uniform predicate through a uniform branch. By Theorem 4.1 a
//! block with a uniform predicate is reached in the partially linearized CFG exactly when
//! its predicate holds, so such a block needs no mask at all: its predicate is never
//! materialized and its out-edges' predicates are their branch conditions. Only varying
//! predicates become `i1` values (vectors after widening).
//!
//! Predicates are materialized on demand: a block predicate at the top of its block, an
//! edge predicate before the terminator of its source (or, for the edge of a kept uniform
//! branch into a block it alone enters, at the top of that block), all *before* linearization
//! rewrites the branches. Their uses may then no longer be dominated by their definitions;
//! linearization's SSA repair supplies `false` on paths that skip the defining block.

use std::collections::{HashMap, HashSet};

use cranelift_entity::SecondaryMap;
use lanes_analysis::{ControlFlowGraph, LoopForest};
use lanes_ir::graph::{Adjacency, DomTreeCore, NONE};
use lanes_ir::{
    BinaryOp, Block, FuncCursor, Function, Inst, InstData, IntCC, IntFlags, Type, UnaryOp, Value,
};

use crate::block_index::BlockIndex;
use crate::divergent_loops::TransformedLoop;

/// How a block's predicate is formed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
enum Kind {
    /// No control dependence: always true when reached.
    #[default]
    True,
    /// The predicate of this loop header.
    SameAs(Block),
    /// The disjunction of these edge predicates.
    Or(Vec<(Block, Block)>),
    /// Header of a transformed loop: `entry ∧ live`.
    Live {
        entry: Vec<(Block, Block)>,
        entry_uniform: bool,
        live: Value,
        entries: Vec<Block>,
    },
}

/// Block and edge predicates of one function.
#[derive(Clone, Debug)]
pub struct Predicates {
    kind: SecondaryMap<Block, Kind>,
    /// `uni(b)`; true for blocks outside the index, which no predicate is asked of.
    uniform: SecondaryMap<Block, bool>,
    /// Does the block end in a divergent branch?
    divergent: SecondaryMap<Block, bool>,
    cdep: SecondaryMap<Block, Vec<(Block, Block)>>,
    /// The materialized predicate of each block asked for so far (`Some(None)`: uniform).
    block_value: SecondaryMap<Block, Option<Option<Value>>>,
    edge_value: HashMap<(Block, Block), Value>,
    /// Edges of kept uniform branches into a block they alone enter
    /// ([`Predicates::place_at_target`]).
    at_target: HashSet<(Block, Block)>,
}

impl Default for Predicates {
    fn default() -> Self {
        Predicates {
            kind: SecondaryMap::new(),
            uniform: SecondaryMap::with_default(true),
            divergent: SecondaryMap::new(),
            cdep: SecondaryMap::new(),
            block_value: SecondaryMap::new(),
            edge_value: HashMap::new(),
            at_target: HashSet::new(),
        }
    }
}

impl Predicates {
    /// Computes control dependence on the acyclic CFG and the uniformity of every block.
    /// `divergent(b)`: the branch ending `b` is divergent.
    pub fn compute(
        cfg: &ControlFlowGraph,
        loops: &LoopForest,
        index: &BlockIndex,
        divergent: &dyn Fn(Block) -> bool,
        transformed: &[TransformedLoop],
    ) -> Predicates {
        let order = index.order();
        let n = order.len();
        let pos = |b: Block| index.pos(b).unwrap_or(usize::MAX);
        // The post-dominator tree of the DAG, from the shared engine: node `n` is a
        // virtual exit after every block without successors.
        let mut flow = Adjacency::new();
        for &b in order {
            let mut succs = BlockIndex::dag_succs(cfg, loops, b);
            if succs.is_empty() {
                // A latch that only jumps back continues the loop, which is eventually
                // left through one of its exits: for post-dominance it flows there (else
                // blocks after a loop would not post-dominate its header).
                if let Some(l) = loops.loops().find(|&l| loops.latches(l).contains(&b)) {
                    succs = loops.exit_blocks(l).to_vec();
                }
            }
            let targets: Vec<u32> = succs
                .into_iter()
                .map(pos)
                .filter(|&k| k < n)
                .map(|k| k as u32)
                .collect();
            if targets.is_empty() {
                flow.push_node([n as u32]);
            } else {
                flow.push_node(targets);
            }
        }
        flow.push_node([]);
        let backwards = flow.reversed();
        let pdt = DomTreeCore::compute(n as u32, &backwards, &flow);
        let mut p = Predicates::default();
        for (ia, &a) in order.iter().enumerate() {
            p.divergent[a] = divergent(a);
            for s in BlockIndex::dag_succs(cfg, loops, a) {
                let is = pos(s);
                if is >= n {
                    continue;
                }
                // The blocks control dependent on `a → s`: those post-dominating `s` but
                // not `a`, i.e. the post-dominator tree path from `s` up to, excluding, the
                // first post-dominator of `a` (Ferrante, Ottenstein and Warren).
                let mut k = is as u32;
                while k != NONE && !pdt.dominates(k, ia as u32) {
                    p.cdep[order[k as usize]].push((a, s));
                    k = pdt.idom(k);
                }
            }
        }
        for &b in order {
            let cdep = p.cdep[b].clone();
            let edges_uniform = cdep.iter().all(|&(a, _)| p.uniform[a] && !p.divergent[a]);
            // The loop whose iterations evaluate `b`'s predicate: the innermost loop around
            // `b`, or for a loop header the enclosing one (a header is part of its
            // parent's body, where its predicate is the parent header's).
            let l = loops.innermost_loop(b).and_then(|l| {
                if loops.header(l) == b {
                    loops.parent(l)
                } else {
                    Some(l)
                }
            });
            let (kind, uni) = if let Some(t) = transformed.iter().find(|t| t.header == b) {
                (
                    Kind::Live {
                        entry: cdep,
                        entry_uniform: edges_uniform,
                        live: t.live,
                        entries: loop_entries(cfg, loops, b),
                    },
                    false,
                )
            } else if let Some(h) = l.map(|l| loops.header(l)).filter(|&h| h != b).filter(|_| {
                cdep.is_empty()
                    || cdep
                        .iter()
                        .any(|&(a, _)| !l.is_some_and(|l| loops.contains(l, a)))
            }) {
                (Kind::SameAs(h), p.uniform[h])
            } else if cdep.is_empty() {
                (Kind::True, true)
            } else {
                (Kind::Or(cdep), edges_uniform)
            };
            p.kind[b] = kind;
            p.uniform[b] = uni;
        }
        p
    }

    /// `uni(b)`: is the predicate of `b` uniform (so `b` needs no mask)?
    pub fn is_uniform(&self, b: Block) -> bool {
        self.uniform[b]
    }

    /// `cdep(b)` on the acyclic CFG.
    pub fn cdep(&self, b: Block) -> &[(Block, Block)] {
        &self.cdep[b]
    }

    /// The materialized predicate of `b`, or None if it is uniform (Theorem 4.1: the
    /// block runs exactly when its predicate holds).
    pub fn block_pred(&mut self, func: &mut Function, b: Block) -> Option<Value> {
        if let Some(v) = self.block_value[b] {
            return v;
        }
        let v = if self.is_uniform(b) {
            None
        } else {
            match self.kind[b].clone() {
                Kind::True => None,
                Kind::SameAs(h) => self.block_pred(func, h),
                Kind::Or(edges) => Some(self.or_at_top(func, b, &edges)),
                Kind::Live {
                    entry,
                    entry_uniform,
                    live,
                    entries,
                } => {
                    // The live mask starts as the predicate of the block entering the loop.
                    let mut all_set = true;
                    for pre in entries {
                        match self.block_pred(func, pre) {
                            Some(pp) => set_incoming(func, live, pre, pp),
                            None => all_set = false,
                        }
                    }
                    // Every lane of an entry block's predicate enters the loop, so when
                    // the live mask starts from those predicates it never holds a lane
                    // outside the loop's entry predicate: the conjunction with it, loop-
                    // invariant work in every iteration, is left out.
                    let entry_v = if entry_uniform || entry.is_empty() || all_set {
                        None
                    } else {
                        Some(self.or_at_top(func, b, &entry))
                    };
                    Some(match entry_v {
                        None => live,
                        Some(e) => at_top(
                            func,
                            b,
                            InstData::Binary {
                                op: BinaryOp::And,
                                args: [e, live],
                                flags: IntFlags::NONE,
                            },
                        ),
                    })
                }
            }
        };
        self.block_value[b] = Some(v);
        v
    }

    /// Disjunction of edge predicates, placed at the top of `b`.
    fn or_at_top(&mut self, func: &mut Function, b: Block, edges: &[(Block, Block)]) -> Value {
        let vals: Vec<Value> = edges
            .iter()
            .map(|&(a, s)| self.edge_pred(func, a, s))
            .collect();
        let mut acc = vals[0];
        for &v in &vals[1..] {
            acc = at_top(
                func,
                b,
                InstData::Binary {
                    op: BinaryOp::Or,
                    args: [acc, v],
                    flags: IntFlags::NONE,
                },
            );
        }
        acc
    }

    /// Edges `a → s` of uniform branches that linearization keeps, where `a` is the only
    /// predecessor of `s`: control reaches `s` only when the (uniform) condition holds, so
    /// the edge's predicate is `a`'s own, placed at the top of `s` instead of `pred(a) ∧
    /// cond` before `a`'s terminator. A loop's uniform exit (a kill exit kept as a branch
    /// out of a divergent loop's body) then costs nothing in the iterations that do not
    /// take it, where the conjunction would be computed, broadcast and masked in each.
    pub fn place_at_target(&mut self, edges: impl IntoIterator<Item = (Block, Block)>) {
        self.at_target.extend(edges);
    }

    /// The predicate of the edge `a → s`, placed before `a`'s terminator (which must still
    /// be the original branch), or at the top of `s` ([`Predicates::place_at_target`]).
    pub fn edge_pred(&mut self, func: &mut Function, a: Block, s: Block) -> Value {
        if let Some(&v) = self.edge_value.get(&(a, s)) {
            return v;
        }
        if self.at_target.contains(&(a, s)) {
            if let Some(p) = self.block_pred(func, a) {
                let v = at_top(
                    func,
                    s,
                    InstData::Unary {
                        op: UnaryOp::Copy,
                        arg: p,
                    },
                );
                self.edge_value.insert((a, s), v);
                return v;
            }
        }
        let cond = edge_condition(func, a, s);
        let bp = self.block_pred(func, a);
        // Always a fresh instruction in `a`, even for a constant or a value defined
        // earlier: SSA repair reads `false` for it on paths that skip `a` in the current
        // iteration, which is what makes blends pick the path actually taken.
        let data = match (cond, bp) {
            (None, None) => InstData::Iconst { imm: 1 },
            (None, Some(x)) | (Some(x), None) => InstData::Unary {
                op: UnaryOp::Copy,
                arg: x,
            },
            (Some(c), Some(p)) => InstData::Binary {
                op: BinaryOp::And,
                args: [p, c],
                flags: IntFlags::NONE,
            },
        };
        let v = before_terminator(func, a, data, Type::I1);
        self.edge_value.insert((a, s), v);
        v
    }
}

/// Inserts `data` (an `i1` result) after the φs and earlier predicate code of `b`.
fn at_top(func: &mut Function, b: Block, data: InstData) -> Value {
    // Keep predicate code in creation order: after the φs and after other predicate
    // instructions already placed (which are all `and`/`or` on i1 at the top).
    let is_pred_code = |func: &Function, i: Inst| {
        matches!(
            func.dfg.inst(i),
            InstData::Binary {
                op: BinaryOp::And | BinaryOp::Or,
                ..
            } | InstData::Unary {
                op: UnaryOp::Copy,
                ..
            }
        ) && func.dfg.inst_result(i).map(|r| func.dfg.value_type(r)) == Some(Type::I1)
    };
    let mut cur = FuncCursor::new(func);
    let mut at = cur.goto_first_non_phi(b).current_inst();
    while at.is_some_and(|i| is_pred_code(cur.func, i)) {
        at = cur.next_inst();
    }
    cur.insert_value(data, Type::I1)
}

/// Inserts `data` (with a result of type `ty`) before the terminator of `a`; its result.
fn before_terminator(func: &mut Function, a: Block, data: InstData, ty: Type) -> Value {
    FuncCursor::new(func)
        .goto_before_terminator(a)
        .insert_value(data, ty)
}

/// The condition under which `a`'s terminator goes to `s` (None: always), materialized
/// before the terminator.
fn edge_condition(func: &mut Function, a: Block, s: Block) -> Option<Value> {
    let t = func.terminator(a)?;
    match func.dfg.inst(t).clone() {
        InstData::Brif {
            cond,
            then_dest,
            else_dest,
        } => {
            if then_dest == s && else_dest == s {
                None
            } else if then_dest == s {
                Some(cond)
            } else {
                let not = InstData::Unary {
                    op: UnaryOp::Not,
                    arg: cond,
                };
                Some(before_terminator(func, a, not, Type::I1))
            }
        }
        InstData::Switch {
            arg,
            cases,
            default,
        } => {
            let ty = func.dfg.value_type(arg);
            let emit = |func: &mut Function, data: InstData, ty: Type| {
                before_terminator(func, a, data, ty)
            };
            let mut any_case: Option<Value> = None;
            let mut none_case: Option<Value> = None;
            for &(k, target) in &cases {
                let kv = emit(func, InstData::Iconst { imm: k }, ty);
                let cc = if target == s { IntCC::Eq } else { IntCC::Ne };
                let c = emit(
                    func,
                    InstData::Icmp {
                        cond: cc,
                        args: [arg, kv],
                    },
                    Type::I1,
                );
                if target == s {
                    any_case = Some(match any_case {
                        None => c,
                        Some(x) => emit(
                            func,
                            InstData::Binary {
                                op: BinaryOp::Or,
                                args: [x, c],
                                flags: IntFlags::NONE,
                            },
                            Type::I1,
                        ),
                    });
                } else if default == s {
                    none_case = Some(match none_case {
                        None => c,
                        Some(x) => emit(
                            func,
                            InstData::Binary {
                                op: BinaryOp::And,
                                args: [x, c],
                                flags: IntFlags::NONE,
                            },
                            Type::I1,
                        ),
                    });
                }
            }
            // For the default edge, cases that also go to `s` count as taken.
            let dflt = if default == s {
                Some(none_case.unwrap_or_else(|| emit(func, InstData::Iconst { imm: 1 }, Type::I1)))
            } else {
                None
            };
            match (any_case, dflt) {
                (Some(x), Some(y)) => Some(emit(
                    func,
                    InstData::Binary {
                        op: BinaryOp::Or,
                        args: [x, y],
                        flags: IntFlags::NONE,
                    },
                    Type::I1,
                )),
                (x, y) => x.or(y),
            }
        }
        _ => None,
    }
}

/// Sets the incoming value of the φ `phi` from `pred`.
fn set_incoming(func: &mut Function, phi: Value, pred: Block, v: Value) {
    if let lanes_ir::ValueDef::Result(i) = func.dfg.value_def(phi) {
        if let InstData::Phi { incoming } = func.dfg.inst_mut(i) {
            for e in incoming.iter_mut() {
                if e.0 == pred {
                    e.1 = v;
                }
            }
        }
    }
}

/// The blocks entering the loop headed by `h`, as the CFG is now: passes after the
/// divergent loop transform (index division, BOSCC) may split the preheader the transform
/// saw, so its block must not be remembered from then.
fn loop_entries(cfg: &ControlFlowGraph, loops: &LoopForest, h: Block) -> Vec<Block> {
    let l = loops.loop_of_header(h);
    cfg.preds(h)
        .iter()
        .copied()
        .filter(|&p| !l.is_some_and(|l| loops.contains(l, p)))
        .collect()
}
