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

use lanes_ir::{Inst, InstData, Intrinsic, Type, Value};

use crate::address::Address;

use crate::dependence::ListDeps;
use crate::items::Emit;
use crate::pack_tree::{Node, PackTree};
use crate::packing::{schedule, Scheduled};
use crate::predicate::Pred;
use crate::pssa::{Item, LoopId, Pssa, Reader};
use crate::substitute::substitute;

mod mu;
mod vectors;

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
    let opened = e.open_mus(trees, &read_outside);
    for entry in order {
        match entry {
            Scheduled::Item(p) => e.e.items.push(deps.items[p]),
            Scheduled::Pack { tree, node } => e.pack(&trees[tree].nodes, tree, node, &read_outside),
        }
    }
    let before = match l {
        Some(l) => {
            let before = e.close_mus(l, trees, &opened);
            e.any_cont(l, trees);
            before
        }
        None => Vec::new(),
    };
    let Emitter {
        e: Emit { pssa, items },
        subst,
        ..
    } = e;
    match l {
        Some(l) => {
            pssa.loops[l].items = items;
            // The initial vectors of vector μ-nodes, just before the loop.
            let (list, at) = pssa.list_holding(l);
            list.splice(at..at, before);
        }
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
            Node::Vector(v) => *v,
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
                } else if ins.len() == 2 && masks[1].is_none() && masks[0].is_some() {
                    // Two ways, the first's gates packed: pick by them (the gates of a
                    // φ are exclusive and one holds wherever it runs).
                    let lane_gates: Vec<Pred> = gates.iter().map(|g| g[0]).collect();
                    let mask = self.lane_mask(nodes, tree, masks[0].as_ref(), &lane_gates, pred);
                    Some(self.e.value(
                        InstData::Select {
                            args: [mask, ins[0], ins[1]],
                        },
                        ty,
                        pred,
                    ))
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
            Node::Shared { .. }
            | Node::Vector(_)
            | Node::Splat(_)
            | Node::Build(_)
            | Node::Mu { .. } => {
                unreachable!("leaves and μ-nodes are not scheduled")
            }
        };
        let Some(vector) = vector else { return };
        self.vectors.insert((tree, k), vector);
        self.extract_read(&insts, vector, pred, read_outside);
    }

    /// The lanes of `vector` (the pack of `insts`) that scalar code reads, extracted under
    /// `pred`.
    fn extract_read(
        &mut self,
        insts: &[Inst],
        vector: Value,
        pred: Pred,
        read_outside: &HashSet<Value>,
    ) {
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
pub(crate) fn lanes_of(nodes: &[Node], k: usize) -> usize {
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
            Node::Mu { init, rec, .. } => *init == k || *rec == k,
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
    // A packed μ-node's values are its vector μ-node's; a member reads the other
    // members' lanes as vectors, but its predicate's conditions as scalars.
    pssa.for_each_read(|reader, v| match reader {
        Reader::Operand(i) | Reader::Mu(i) if members.contains(&i) => {}
        _ => note(v),
    });
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
