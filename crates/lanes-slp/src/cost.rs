//! The cost model of packing (SuperVectorization, PLDI'22 §4.3): a tree is kept when
//! `c_scalar − c_vector − c_shuffle > 0`, where `c_scalar` counts the scalar instructions
//! the packs replace, `c_vector` the vector instructions that replace them (more than one
//! where the vector is wider than a register, more for masked memory and blends), and
//! `c_shuffle` the data movement: vectors built from scalars, splats, and extractions of
//! lanes that scalar code still reads.
//!
//! [`CostModel`] is the interface; [`RegisterCost`] counts instructions with a register
//! width, which is what the paper's model reduces to when every instruction costs one.

use std::collections::HashSet;

use lanes_ir::{Inst, InstData, Type, Value};

use crate::pack_tree::Node;
use crate::pssa::{LoopId, Pssa, Reader};

/// Estimates what packing saves.
pub trait CostModel {
    /// The most lanes of element type `ty` worth packing.
    fn max_lanes(&self, ty: Type) -> usize;
    /// Scalar cost minus vector cost of the tree `nodes` of the list of `l` in `pssa`;
    /// reads by the instructions of `packed_elsewhere` (other trees kept with it) need no
    /// extraction.
    fn saving(
        &self,
        pssa: &Pssa,
        l: Option<LoopId>,
        nodes: &[Node],
        packed_elsewhere: &HashSet<Inst>,
    ) -> i64;
}

/// Every instruction costs one; a vector costs one per register it fills.
#[derive(Copy, Clone, Debug)]
pub struct RegisterCost {
    /// Bits of a vector register (128 for SSE, 256 for AVX2, 512 for AVX-512).
    pub register_bits: u32,
}

impl RegisterCost {
    fn vector_ops(&self, pssa: &Pssa, lanes: usize, v: Value) -> i64 {
        let bits = pssa.func.dfg.value_type(v).elem().bits().max(8);
        let total = lanes as u64 * u64::from(bits);
        total.div_ceil(u64::from(self.register_bits)).max(1) as i64
    }
}

impl CostModel for RegisterCost {
    fn max_lanes(&self, ty: Type) -> usize {
        (self.register_bits / ty.elem().bits().max(8)).max(2) as usize
    }

    fn saving(
        &self,
        pssa: &Pssa,
        l: Option<LoopId>,
        nodes: &[Node],
        packed_elsewhere: &HashSet<Inst>,
    ) -> i64 {
        let f = &pssa.func;
        // Values that change in the list's runs; a vector of others (defined before the
        // loop) is built once, outside it, by loop-invariant code motion.
        let varying = l.map(|l| crate::clone::values_in(pssa, l));
        let members: HashSet<_> = nodes
            .iter()
            .flat_map(|n| n.insts().iter().copied())
            .collect();
        let mut saving = 0i64;
        for node in nodes {
            match node {
                Node::Pack { insts, .. } | Node::Load { insts, .. } | Node::Phi { insts, .. } => {
                    let v = f
                        .dfg
                        .inst_result(insts[0])
                        .expect("packed values have results");
                    let mut cost = self.vector_ops(pssa, insts.len(), v);
                    let preds_differ = insts
                        .iter()
                        .any(|&i| pssa.inst_pred[i] != pssa.inst_pred[insts[0]]);
                    match node {
                        Node::Load { perm, .. } => {
                            if preds_differ {
                                cost += 2;
                            }
                            if perm.iter().enumerate().any(|(i, &e)| e as usize != i) {
                                cost += 1;
                            }
                        }
                        Node::Phi { incoming, .. } => {
                            let gates_differ = insts.iter().any(|i| {
                                pssa.gates[i]
                                    .iter()
                                    .map(|g| g.0)
                                    .ne(pssa.gates[&insts[0]].iter().map(|g| g.0))
                            });
                            if gates_differ {
                                cost += 2 * incoming.len() as i64;
                            }
                        }
                        _ => {}
                    }
                    saving += insts.len() as i64 - cost;
                }
                Node::Store { insts, .. } => {
                    let InstData::Store { value, .. } = *f.dfg.inst(insts[0]) else {
                        unreachable!("a store node holds stores")
                    };
                    let mut cost = self.vector_ops(pssa, insts.len(), value);
                    if insts
                        .iter()
                        .any(|&i| pssa.inst_pred[i] != pssa.inst_pred[insts[0]])
                    {
                        cost += 2;
                    }
                    saving += insts.len() as i64 - cost;
                }
                Node::Splat(v) => {
                    if varying.as_ref().is_none_or(|vs| vs.contains(v)) {
                        saving -= 1;
                    }
                }
                // A vector μ-node costs what its scalars did (nothing but registers).
                Node::Shared { .. } | Node::Vector(_) | Node::Mu { .. } => {}
                Node::Build(values) => {
                    let constants = values.iter().all(|&v| {
                        matches!(
                            f.dfg.def_inst(v).map(|i| f.dfg.inst(i)),
                            Some(InstData::Iconst { .. } | InstData::Fconst { .. })
                        )
                    });
                    let invariant = varying
                        .as_ref()
                        .is_some_and(|vs| values.iter().all(|v| !vs.contains(v)));
                    if !constants && !invariant {
                        saving -= values.len() as i64;
                    }
                }
            }
        }
        // Lanes still read as scalars are extracted.
        let results: HashSet<Value> = members
            .iter()
            .filter_map(|&i| f.dfg.inst_result(i))
            .collect();
        // A loop that goes on while any lane of a pack holds tests the vector at once.
        let any_lanes = l.filter(|&l| {
            let Some(conds) = pssa.preds.disjoined_conds(pssa.loops[l].cont) else {
                return false;
            };
            let all: HashSet<Value> = conds.into_iter().collect();
            nodes.iter().any(|n| {
                let lanes: HashSet<Value> = n
                    .insts()
                    .iter()
                    .filter_map(|&i| f.dfg.inst_result(i))
                    .collect();
                !lanes.is_empty() && lanes == all
            })
        });
        if any_lanes.is_some() {
            saving -= 1;
        }
        let mut extracted: HashSet<Value> = HashSet::new();
        pssa.for_each_read(|reader, v| {
            let inside = match reader {
                // Members read each other as vectors, a packed μ-node is the vector
                // μ-node's, other kept trees read these lanes as vectors too.
                Reader::Operand(i) | Reader::Cond(i) | Reader::Mu(i) => {
                    members.contains(&i) || packed_elsewhere.contains(&i)
                }
                Reader::LoopCont(x) => Some(x) == any_lanes,
                Reader::LoopPred(_) => false,
            };
            if !inside && results.contains(&v) {
                extracted.insert(v);
            }
        });
        // A member read by another member of the tree is not a use from outside, unless
        // it is a leaf built from scalars.
        for node in nodes {
            if let Node::Build(values) = node {
                for v in values {
                    if results.contains(v) {
                        extracted.insert(*v);
                    }
                }
            }
        }
        saving - extracted.len() as i64
    }
}
