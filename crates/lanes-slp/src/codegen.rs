//! Vector code from packs (SuperVectorization, PLDI'22 §3.4), in Predicated SSA.
//!
//! The list is first *scheduled*: a topological order of its dependence graph with every
//! pack as one node, preferring the original order, so that each pack comes after
//! everything its lanes depend on (code motion in Predicated SSA is reordering a list:
//! an item moves with its predicate). Each pack then becomes one vector item:
//!
//! - a pack of isomorphic instructions the same instruction on vectors; lanes under
//!   different predicates run under the strongest predicate all of them imply (their
//!   common conjuncts), which is safe because such packs cannot trap;
//! - adjacent loads and stores a vector load or store, *masked* by the lanes' own
//!   predicates where those differ;
//! - gated φs one vector gated φ when the lanes' gates agree, else a chain of selects
//!   (blends) whose masks are the gates;
//! - operands that are not packs vectors built from scalars, or splats;
//! - a lane that scalar code still reads is extracted right after its vector.
//!
//! Predicates become values where a mask needs them: `and`, `or` and `not` of the
//! conditions, computed where the conditions are available (a condition whose
//! definition did not run reads a value that the rest of the predicate makes irrelevant).

use std::collections::{HashMap, HashSet};

use lanes_ir::{BinaryOp, CastOp, Inst, InstData, IntFlags, Intrinsic, Type, UnaryOp, Value};

use crate::address::{Address, Term};

use crate::dependence::ListDeps;
use crate::items::Emit;
use crate::pack_tree::{Mask, Node, PackTree};
use crate::packing::{schedule, Scheduled};
use crate::predicate::Pred;
use crate::pssa::{Item, LoopId, Pssa};
use crate::substitute::substitute;

/// Replaces the packs of `trees` in the list of `l` by vector items.
pub fn emit_packs(pssa: &mut Pssa, l: Option<LoopId>, trees: &[PackTree]) {
    if trees.is_empty() {
        return;
    }
    let deps = ListDeps::of(pssa, l);
    let refs: Vec<&[Node]> = trees.iter().map(|t| &t.nodes[..]).collect();
    let order = schedule(&deps, &refs).expect("the packer kept only schedulable packs");
    let members: HashSet<Inst> = trees
        .iter()
        .flat_map(|t| t.nodes.iter().flat_map(|n| n.insts().iter().copied()))
        .collect();
    let read_outside = values_read_outside(pssa, &members, trees);
    let mut e = Emitter {
        e: Emit {
            pssa,
            items: Vec::new(),
        },
        vectors: HashMap::new(),
        subst: HashMap::new(),
        zero: HashMap::new(),
    };
    for entry in order {
        match entry {
            Scheduled::Item(p) => e.e.items.push(deps.items[p]),
            Scheduled::Pack { tree, node } => e.pack(&trees[tree].nodes, tree, node, &read_outside),
        }
    }
    let Emitter {
        e: Emit { pssa, items },
        subst,
        ..
    } = e;
    match l {
        Some(l) => pssa.loops[l].items = items,
        None => pssa.items = items,
    }
    substitute(pssa, &subst);
}

struct Emitter<'a> {
    /// The items of the list being rebuilt.
    e: Emit<'a>,
    /// The vector of every emitted pack node, by (tree, node).
    vectors: HashMap<(usize, usize), Value>,
    /// Packed scalars still read elsewhere, and their extractions.
    subst: HashMap<Value, Value>,
    zero: HashMap<Type, Value>,
}

impl Emitter<'_> {
    fn emit(&mut self, data: InstData, ty: Option<Type>, pred: Pred) -> Option<Value> {
        let inst = self.e.pssa.func.dfg.make_inst(data, ty);
        self.e.pssa.inst_pred[inst] = pred;
        self.e.items.push(Item::Inst(inst));
        self.e.pssa.func.dfg.inst_result(inst)
    }

    fn lane_index(&mut self, lane: usize) -> Value {
        let t = self.e.pssa.preds.always();
        self.e
            .value(InstData::Iconst { imm: lane as i64 }, Type::I32, t)
    }

    /// A zero vector of type `ty` (for masked loads' inactive lanes).
    fn zero_vector(&mut self, ty: Type) -> Value {
        if let Some(&v) = self.zero.get(&ty) {
            return v;
        }
        let t = self.e.pssa.preds.always();
        let scalar = Type::from(ty.elem());
        let data = if scalar.is_float() {
            InstData::Fconst { bits: 0 }
        } else {
            InstData::Iconst { imm: 0 }
        };
        let s = self.e.value(data, scalar, t);
        let v = self.e.value(
            InstData::Intrinsic {
                id: Intrinsic::Broadcast,
                args: vec![s],
            },
            ty,
            t,
        );
        self.zero.insert(ty, v);
        v
    }

    /// A vector whose lanes are `values`.
    fn build(&mut self, values: &[Value], pred: Pred) -> Value {
        let elem = self.e.pssa.func.dfg.value_type(values[0]).elem();
        let ty = Type::vector(values.len() as u16, elem);
        let mut v = self.e.value(
            InstData::Intrinsic {
                id: Intrinsic::Broadcast,
                args: vec![values[0]],
            },
            ty,
            pred,
        );
        for (lane, &x) in values.iter().enumerate().skip(1) {
            if x == values[0] {
                continue;
            }
            let idx = self.lane_index(lane);
            v = self.e.value(
                InstData::Intrinsic {
                    id: Intrinsic::Insert,
                    args: vec![v, x, idx],
                },
                ty,
                pred,
            );
        }
        v
    }

    /// The mask whose lane `i` is `preds[i]`: the packed conditions of `packed` where
    /// the packer found them, else the predicates computed lane by lane.
    fn lane_mask(
        &mut self,
        nodes: &[Node],
        tree: usize,
        packed: Option<&Mask>,
        preds: &[Pred],
        pred: Pred,
    ) -> Value {
        let Some(m) = packed else {
            return self.mask(preds, pred);
        };
        let mut acc: Option<Value> = None;
        for &(node, negated) in &m.parts {
            let mut v = self.operand(nodes, tree, node, pred);
            let ty = self.e.pssa.func.dfg.value_type(v);
            if negated {
                v = self.e.value(
                    InstData::Unary {
                        op: UnaryOp::Not,
                        arg: v,
                    },
                    ty,
                    pred,
                );
            }
            acc = Some(match acc {
                None => v,
                Some(a) => self.e.value(
                    InstData::Binary {
                        op: BinaryOp::And,
                        args: [a, v],
                        flags: IntFlags::NONE,
                    },
                    ty,
                    pred,
                ),
            });
        }
        acc.expect("a mask has parts")
    }

    /// The mask whose lane `i` is `preds[i]`.
    fn mask(&mut self, preds: &[Pred], pred: Pred) -> Value {
        let always = self.e.pssa.preds.always();
        let bits: Vec<Value> = preds
            .iter()
            .map(|&p| self.e.materialize(p, always))
            .collect();
        self.build(&bits, pred)
    }

    /// The address `addr` computed afresh under `pred`: a masked access runs where any
    /// lane's predicate holds, and the pointer of one lane may have been computed only
    /// under that lane's. Everything the address reads is read by every lane's address,
    /// so it has run whenever some lane is active.
    fn address(&mut self, addr: &Address, pred: Pred) -> Value {
        let mut sum: Option<Value> = None;
        let konst = |e: &mut Self, c: i64| e.e.konst(Type::I64, c, pred);
        for &(term, coeff) in &addr.terms {
            let v = match term {
                Term::Value(v) => v,
                Term::Sext(x) | Term::Zext(x) => {
                    let op = if matches!(term, Term::Sext(_)) {
                        CastOp::Sext
                    } else {
                        CastOp::Zext
                    };
                    self.e.value(
                        InstData::Cast {
                            op,
                            arg: x,
                            flags: IntFlags::NONE,
                        },
                        Type::I64,
                        pred,
                    )
                }
            };
            let c = konst(self, coeff);
            let scaled = self.e.binary(BinaryOp::Mul, v, c, pred);
            sum = Some(match sum {
                Some(acc) => self.e.binary(BinaryOp::Add, acc, scaled, pred),
                None => scaled,
            });
        }
        let k = konst(self, addr.offset);
        let offset = match sum {
            Some(acc) => self.e.binary(BinaryOp::Add, acc, k, pred),
            None => k,
        };
        let ty = self.e.pssa.func.dfg.value_type(addr.base);
        self.e.value(
            InstData::PtrAdd {
                args: [addr.base, offset],
                flags: IntFlags::NONE,
            },
            ty,
            pred,
        )
    }

    /// The strongest predicate every one of `preds` implies: their common conjuncts.
    fn common(&mut self, preds: &[Pred]) -> Pred {
        let mut common = self.e.pssa.preds.conjuncts(preds[0]);
        for &p in &preds[1..] {
            let c = self.e.pssa.preds.conjuncts(p);
            common.retain(|t| c.contains(t));
        }
        self.e.pssa.preds.and(&common)
    }

    /// The vector of operand node `k` of tree `tree`.
    fn operand(&mut self, nodes: &[Node], tree: usize, k: usize, pred: Pred) -> Value {
        match &nodes[k] {
            Node::Splat(v) => {
                let ty = Type::vector(
                    lanes_of(nodes, k) as u16,
                    self.e.pssa.func.dfg.value_type(*v).elem(),
                );
                self.e.value(
                    InstData::Intrinsic {
                        id: Intrinsic::Broadcast,
                        args: vec![*v],
                    },
                    ty,
                    pred,
                )
            }
            Node::Build(values) => self.build(values, pred),
            Node::Shared { tree: t, node } => self.vectors[&(*t, *node)],
            _ => self.vectors[&(tree, k)],
        }
    }

    fn pack(&mut self, nodes: &[Node], tree: usize, k: usize, read_outside: &HashSet<Value>) {
        let insts = nodes[k].insts().to_vec();
        let preds: Vec<Pred> = insts.iter().map(|&i| self.e.pssa.inst_pred[i]).collect();
        let same = preds.iter().all(|&p| p == preds[0]);
        let pred = if same { preds[0] } else { self.common(&preds) };
        let lanes = insts.len() as u16;
        let f = &self.e.pssa.func;
        let result_ty = f
            .dfg
            .inst_result(insts[0])
            .map(|v| Type::vector(lanes, f.dfg.value_type(v).elem()));
        let vector = match &nodes[k] {
            Node::Pack { operands, .. } => {
                let ops: Vec<Value> = operands
                    .iter()
                    .map(|&o| self.operand(nodes, tree, o, pred))
                    .collect();
                let mut data = self.e.pssa.func.dfg.inst(insts[0]).clone();
                let mut next = ops.into_iter();
                data.for_each_arg_mut(|v| *v = next.next().expect("one vector per operand"));
                let fm = self.e.pssa.func.dfg.fast_math(insts[0]);
                let v = self
                    .e
                    .value(data, result_ty.expect("packed values have results"), pred);
                let inst = self.e.pssa.func.dfg.def_inst(v).expect("just made");
                self.e.pssa.func.dfg.set_fast_math(inst, fm);
                Some(v)
            }
            Node::Load {
                first, perm, mask, ..
            } => {
                let InstData::Load { ptr, align, access } =
                    *self.e.pssa.func.dfg.inst(insts[*first])
                else {
                    unreachable!("a load node holds loads")
                };
                let ty = result_ty.expect("a load has a result");
                let align = if align == 0 { ty.elem().bytes() } else { align };
                let loaded = if same {
                    self.e
                        .value(InstData::Load { ptr, align, access }, ty, pred)
                } else {
                    // The mask is in memory order.
                    let mut in_memory = preds.clone();
                    for (lane, &e) in perm.iter().enumerate() {
                        in_memory[e as usize] = preds[lane];
                    }
                    let mask = self.lane_mask(nodes, tree, mask.as_ref(), &in_memory, pred);
                    let passthru = self.zero_vector(ty);
                    let ptr = self.address(&Address::of(&self.e.pssa.func, ptr), pred);
                    self.e.value(
                        InstData::MaskedLoad {
                            ptr,
                            mask,
                            passthru,
                            align,
                        },
                        ty,
                        pred,
                    )
                };
                Some(if perm.iter().enumerate().all(|(i, &e)| e as usize == i) {
                    loaded
                } else {
                    self.e.value(
                        InstData::Shuffle {
                            args: [loaded, loaded],
                            mask: perm.clone(),
                        },
                        ty,
                        pred,
                    )
                })
            }
            Node::Store { value, mask, .. } => {
                let InstData::Store {
                    ptr, align, access, ..
                } = *self.e.pssa.func.dfg.inst(insts[0])
                else {
                    unreachable!("a store node holds stores")
                };
                let v = self.operand(nodes, tree, *value, pred);
                let elem = self.e.pssa.func.dfg.value_type(v).elem();
                let align = if align == 0 { elem.bytes() } else { align };
                if same {
                    self.emit(
                        InstData::Store {
                            value: v,
                            ptr,
                            align,
                            access,
                        },
                        None,
                        pred,
                    );
                } else {
                    let mask = self.lane_mask(nodes, tree, mask.as_ref(), &preds, pred);
                    let ptr = self.address(&Address::of(&self.e.pssa.func, ptr), pred);
                    self.emit(
                        InstData::MaskedStore {
                            value: v,
                            ptr,
                            mask,
                            align,
                        },
                        None,
                        pred,
                    );
                }
                None
            }
            Node::Phi {
                incoming, masks, ..
            } => {
                let ty = result_ty.expect("a φ has a result");
                let ins: Vec<Value> = incoming
                    .iter()
                    .map(|&o| self.operand(nodes, tree, o, pred))
                    .collect();
                let gates: Vec<Vec<Pred>> = insts
                    .iter()
                    .map(|i| self.e.pssa.gates[i].iter().map(|g| g.0).collect())
                    .collect();
                if gates.iter().all(|g| *g == gates[0]) {
                    let v = self.e.value(
                        InstData::Phi {
                            incoming: Vec::new(),
                        },
                        ty,
                        pred,
                    );
                    let inst = self.e.pssa.func.dfg.def_inst(v).expect("just made");
                    let g: Vec<(Pred, Value)> = gates[0].iter().copied().zip(ins).collect();
                    self.e.pssa.gates.insert(inst, g);
                    Some(v)
                } else {
                    let mut acc = ins[0];
                    for (j, &x) in ins.iter().enumerate().skip(1) {
                        let lane_gates: Vec<Pred> = gates.iter().map(|g| g[j]).collect();
                        let mask =
                            self.lane_mask(nodes, tree, masks[j].as_ref(), &lane_gates, pred);
                        acc = self.e.value(
                            InstData::Select {
                                args: [mask, x, acc],
                            },
                            ty,
                            pred,
                        );
                    }
                    Some(acc)
                }
            }
            Node::Shared { .. } | Node::Splat(_) | Node::Build(_) => {
                unreachable!("leaves are not scheduled")
            }
        };
        let Some(vector) = vector else { return };
        self.vectors.insert((tree, k), vector);
        for (lane, &i) in insts.iter().enumerate() {
            let scalar = self
                .e
                .pssa
                .func
                .dfg
                .inst_result(i)
                .expect("packed values have results");
            if read_outside.contains(&scalar) {
                let idx = self.lane_index(lane);
                let ty = self.e.pssa.func.dfg.value_type(scalar);
                let x = self.e.value(
                    InstData::Intrinsic {
                        id: Intrinsic::Extract,
                        args: vec![vector, idx],
                    },
                    ty,
                    pred,
                );
                self.subst.insert(scalar, x);
            }
        }
    }
}

/// The lanes of the pack that reads node `k` (a leaf has none of its own).
fn lanes_of(nodes: &[Node], k: usize) -> usize {
    nodes
        .iter()
        .find(|n| match n {
            Node::Pack { operands, .. } => operands.contains(&k),
            Node::Phi {
                incoming, masks, ..
            } => incoming.contains(&k) || masks.iter().flatten().any(|m| m.reads(k)),
            Node::Store { value, mask, .. } => {
                *value == k || mask.as_ref().is_some_and(|m| m.reads(k))
            }
            Node::Load { mask, .. } => mask.as_ref().is_some_and(|m| m.reads(k)),
            _ => false,
        })
        .map_or(1, |n| n.insts().len())
}

/// The results of `members` read by anything but members: items of any list, μ-nodes,
/// predicates, gates, and the scalar leaves of packs (which are built from scalars).
fn values_read_outside(pssa: &Pssa, members: &HashSet<Inst>, trees: &[PackTree]) -> HashSet<Value> {
    let f = &pssa.func;
    let results: HashSet<Value> = members
        .iter()
        .filter_map(|&i| f.dfg.inst_result(i))
        .collect();
    let mut out = HashSet::new();
    let mut note = |v: Value| {
        if results.contains(&v) {
            out.insert(v);
        }
    };
    for (_, item) in pssa.walk() {
        match item {
            Item::Inst(i) => {
                pssa.for_each_cond(i, &mut note);
                if !members.contains(&i) {
                    pssa.for_each_operand(i, &mut note);
                }
            }
            Item::Loop(l) => {
                let data = &pssa.loops[l];
                for m in &data.mus {
                    note(m.init);
                    note(m.rec);
                }
                pssa.preds.for_each_cond(data.cont, &mut note);
                pssa.preds.for_each_cond(data.pred, &mut note);
            }
        }
    }
    // A pack reads another pack's lanes as a vector, except through a leaf built from
    // scalars (a permutation, a mix with other values, a splat).
    for t in trees {
        for n in &t.nodes {
            match n {
                Node::Build(values) => values.iter().for_each(|&v| note(v)),
                Node::Splat(v) => note(*v),
                _ => {}
            }
        }
    }
    out
}
