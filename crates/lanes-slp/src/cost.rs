//! The cost model of packing (SuperVectorization, PLDI'22 §4.3): a tree is kept when
//! `c_scalar − c_vector − c_shuffle > 0`, where `c_scalar` prices the scalar instructions
//! the packs replace, `c_vector` the vector instructions that replace them (masked
//! memory and blends where lanes' predicates differ), and `c_shuffle` the data movement:
//! vectors built from scalars, splats, permutations, and extractions of lanes that
//! scalar code still reads.
//!
//! [`CostModel`] is the interface the packer and the unroller ask. Every [`Prices`] is
//! one: the walk over a tree that sums the three terms is shared, the prices of single
//! instructions and shuffles differ. [`RegisterCost`] prices every instruction at one
//! per register it fills, which is what the paper's model reduces to when every
//! instruction costs one; [`crate::target_cost::TargetCost`] asks the code generator's
//! cost model of the target, as the paper does.

use std::collections::HashSet;

use lanes_ir::{Function, Inst, InstData, ScalarType, Type, Value};

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

/// The price of each instruction and shuffle a tree of packs is made of, in one unit.
pub trait Prices {
    /// Bits of the target's vector registers.
    fn register_bits(&self) -> u32;
    /// Instruction `inst` of `f` run on one lane (`lanes == 1`), or as one vector
    /// instruction of `lanes` lanes (a contiguous access for loads and stores), masked
    /// lane by lane if `masked`.
    fn inst(&self, f: &Function, inst: Inst, lanes: usize, masked: bool) -> i64;
    /// The mask of a masked access whose lanes' predicates were not packed, built from
    /// the lanes' own predicate values.
    fn lane_mask(&self, lanes: usize) -> i64;
    /// A vector of `lanes` elements built from as many scalars.
    fn build(&self, elem: ScalarType, lanes: usize) -> i64;
    /// One scalar in every lane.
    fn splat(&self, elem: ScalarType, lanes: usize) -> i64;
    /// One lane read out of a vector.
    fn extract(&self, elem: ScalarType, lanes: usize) -> i64;
    /// Lanes put in the order `perm`.
    fn permute(&self, elem: ScalarType, perm: &[u32]) -> i64;
    /// A lane-wise choice between two vectors.
    fn blend(&self, elem: ScalarType, lanes: usize) -> i64;
    /// Whether any lane of a mask is set.
    fn any(&self, lanes: usize) -> i64;
}

/// Every instruction costs one; a vector costs one per register it fills; masking an
/// access costs two more, a blend two, every other shuffle one per lane it moves.
#[derive(Copy, Clone, Debug)]
pub struct RegisterCost {
    /// Bits of a vector register (128 for SSE, 256 for AVX2, 512 for AVX-512).
    pub register_bits: u32,
}

impl Prices for RegisterCost {
    fn register_bits(&self) -> u32 {
        self.register_bits
    }

    fn inst(&self, f: &Function, inst: Inst, lanes: usize, masked: bool) -> i64 {
        let ty = priced_type(f, inst);
        let bits = ty.elem().bits().max(8);
        let total = lanes as u64 * u64::from(bits);
        let registers = total.div_ceil(u64::from(self.register_bits)).max(1) as i64;
        registers + if masked { 2 } else { 0 }
    }

    fn lane_mask(&self, _: usize) -> i64 {
        0
    }

    fn build(&self, _: ScalarType, lanes: usize) -> i64 {
        lanes as i64
    }

    fn splat(&self, _: ScalarType, _: usize) -> i64 {
        1
    }

    fn extract(&self, _: ScalarType, _: usize) -> i64 {
        1
    }

    fn permute(&self, _: ScalarType, _: &[u32]) -> i64 {
        1
    }

    fn blend(&self, _: ScalarType, _: usize) -> i64 {
        2
    }

    fn any(&self, _: usize) -> i64 {
        1
    }
}

/// The type whose lanes a packed `inst` moves: the stored value of a store, else the
/// result.
pub(crate) fn priced_type(f: &Function, inst: Inst) -> Type {
    match *f.dfg.inst(inst) {
        InstData::Store { value, .. } => f.dfg.value_type(value),
        _ => f
            .dfg
            .inst_result(inst)
            .map_or(Type::I8, |v| f.dfg.value_type(v)),
    }
}

impl<P: Prices> CostModel for P {
    fn max_lanes(&self, ty: Type) -> usize {
        (self.register_bits() / ty.elem().bits().max(8)).max(2) as usize
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
        let scalar =
            |insts: &[Inst]| -> i64 { insts.iter().map(|&i| self.inst(f, i, 1, false)).sum() };
        let preds_differ = |insts: &[Inst]| {
            insts
                .iter()
                .any(|&i| pssa.inst_pred[i] != pssa.inst_pred[insts[0]])
        };
        let mut saving = 0i64;
        for (k, node) in nodes.iter().enumerate() {
            let n = node.insts().len();
            match node {
                Node::Pack { insts, .. } => {
                    saving += scalar(insts) - self.inst(f, insts[0], n, false);
                }
                Node::Load {
                    insts, perm, mask, ..
                } => {
                    let masked = preds_differ(insts);
                    let mut cost = self.inst(f, insts[0], n, masked);
                    if masked && mask.is_none() {
                        cost += self.lane_mask(n);
                    }
                    if perm.iter().enumerate().any(|(i, &e)| e as usize != i) {
                        cost += self.permute(priced_type(f, insts[0]).elem(), perm);
                    }
                    saving += scalar(insts) - cost;
                }
                Node::Store { insts, mask, .. } => {
                    let masked = preds_differ(insts);
                    let mut cost = self.inst(f, insts[0], n, masked);
                    if masked && mask.is_none() {
                        cost += self.lane_mask(n);
                    }
                    saving += scalar(insts) - cost;
                }
                Node::Phi {
                    insts, incoming, ..
                } => {
                    let mut cost = self.inst(f, insts[0], n, false);
                    let gates_differ = insts.iter().any(|i| {
                        pssa.gates[i]
                            .iter()
                            .map(|g| g.0)
                            .ne(pssa.gates[&insts[0]].iter().map(|g| g.0))
                    });
                    if gates_differ {
                        let elem = priced_type(f, insts[0]).elem();
                        cost += incoming.len() as i64 * self.blend(elem, n);
                    }
                    saving += scalar(insts) - cost;
                }
                Node::Splat(v) => {
                    if varying.as_ref().is_none_or(|vs| vs.contains(v)) {
                        let elem = f.dfg.value_type(*v).elem();
                        saving -= self.splat(elem, crate::codegen::lanes_of(nodes, k));
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
                        let elem = f.dfg.value_type(values[0]).elem();
                        saving -= self.build(elem, values.len());
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
        let any_lanes = l.and_then(|l| {
            let conds = pssa.preds.disjoined_conds(pssa.loops[l].cont)?;
            let all: HashSet<Value> = conds.into_iter().collect();
            nodes
                .iter()
                .any(|n| {
                    let lanes: HashSet<Value> = n
                        .insts()
                        .iter()
                        .filter_map(|&i| f.dfg.inst_result(i))
                        .collect();
                    !lanes.is_empty() && lanes == all
                })
                .then_some((l, all.len()))
        });
        if let Some((_, lanes)) = any_lanes {
            saving -= self.any(lanes);
        }
        let any_loop = any_lanes.map(|(l, _)| l);
        let mut extracted: HashSet<Value> = HashSet::new();
        pssa.for_each_read(|reader, v| {
            let inside = match reader {
                // Members read each other as vectors, a packed μ-node is the vector
                // μ-node's, other kept trees read these lanes as vectors too.
                Reader::Operand(i) | Reader::Cond(i) | Reader::Mu(i) => {
                    members.contains(&i) || packed_elsewhere.contains(&i)
                }
                Reader::LoopCont(x) => Some(x) == any_loop,
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
        let lanes_of_value = |v: Value| {
            nodes
                .iter()
                .find(|n| n.insts().iter().any(|&i| f.dfg.inst_result(i) == Some(v)))
                .map_or(1, |n| n.insts().len())
        };
        saving
            - extracted
                .iter()
                .map(|&v| self.extract(f.dfg.value_type(v).elem(), lanes_of_value(v)))
                .sum::<i64>()
    }
}
