//! Choosing vector packs (SuperVectorization, PLDI'22 §3.2): bottom-up SLP over one
//! item list of Predicated SSA.
//!
//! Seeds are runs of stores to adjacent addresses. From each seed the packer follows the
//! use-def chains, packing the operands of a pack when they are isomorphic instructions
//! of the same list (same operation, types and immediates, one per lane, commutative
//! operands swapped to match), adjacent loads, or gated φs, and stopping at anything
//! else, which becomes a vector built from scalars (or a splat of one value). Because
//! items carry their predicates, lanes may sit under different control predicates — in
//! the paper's words, packs span basic blocks: pure operations are then executed under
//! the predicates' common part (speculated), loads and stores become masked, gated φs
//! blends; only operations that can trap need equal predicates.
//!
//! A tree is kept when it is legal — no lane of a pack depends on another, and the list
//! stays schedulable with every kept pack as one node (§3.4) — and when the cost model
//! says it pays (§4.3): the scalar instructions it replaces outweigh the vector ones,
//! the vectors built from scalars and the extractions of lanes still used as scalars.

use std::collections::{HashMap, HashSet};

use lanes_ir::{BinaryOp, Inst, InstData, IntCC, Type, Value};

use crate::address::Address;
use crate::cost::CostModel;
use crate::dependence::{ListDeps, MemEffect};
pub use crate::pack_tree::{Mask, Node, PackTree};
use crate::predicate::{Pred, PredData};
use crate::pssa::{Item, LoopId, Pssa};
pub use crate::schedule::{schedule, schedule_groups, Grouped, Scheduled};

/// Why a candidate tree was not kept, for remarks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// The packs would have to run in an order the list's dependences forbid.
    Dependence,
    /// The cost model found no saving (`saving` ≤ 0).
    NotProfitable { saving: i64 },
}

/// The outcome of packing one list.
#[derive(Clone, Debug, Default)]
pub struct ListPacking {
    pub trees: Vec<PackTree>,
    /// Seeds tried and not kept: the first store of the seed, and why.
    pub rejected: Vec<(Inst, Rejection)>,
}

/// Finds the packs of the list of `l` (`None`: the function's).
///
/// Seeds are first grown together, later trees reusing earlier trees' packs, and kept
/// together when their joint saving pays — a value two trees read (the two sides of an
/// if-else both updating one element, say) then needs no extraction. Where that fails,
/// each seed is tried alone, greedily.
pub fn pack_list(pssa: &Pssa, l: Option<LoopId>, cost: &dyn CostModel) -> ListPacking {
    let deps = ListDeps::of(pssa, l);
    let reach = deps.reachability();
    let seeds = store_seeds(pssa, &deps, cost);
    if seeds.len() > 1 {
        if let Some(joint) = pack_jointly(pssa, l, &deps, &reach, &seeds, cost) {
            return joint;
        }
    }
    let mut out = ListPacking::default();
    let mut packed: HashSet<Inst> = HashSet::new();
    for seed in seeds {
        if seed.iter().any(|i| packed.contains(i)) {
            continue;
        }
        let mut grower = Grower {
            pssa,
            deps: &deps,
            reach: &reach,
            taken: &packed,
            prior: &[],
            nodes: Vec::new(),
            in_tree: HashSet::new(),
        };
        if grower.store_tree(&seed).is_none() {
            // A lane's store depends on another's (through memory or values).
            out.rejected.push((seed[0], Rejection::Dependence));
            continue;
        }
        let nodes = grower.nodes;
        let saving = cost.saving(pssa, l, &nodes, &HashSet::new());
        if saving <= 0 {
            out.rejected
                .push((seed[0], Rejection::NotProfitable { saving }));
            continue;
        }
        let mut trial: Vec<&[Node]> = out.trees.iter().map(|t| &t.nodes[..]).collect();
        trial.push(&nodes);
        if schedule(&deps, &trial).is_none() {
            out.rejected.push((seed[0], Rejection::Dependence));
            continue;
        }
        packed.extend(nodes.iter().flat_map(|n| n.insts().iter().copied()));
        out.trees.push(PackTree { nodes, saving });
    }
    out
}

/// Every seed grown, each tree reusing the packs of the trees before it; the set if it
/// is schedulable and its joint saving is positive.
fn pack_jointly(
    pssa: &Pssa,
    l: Option<LoopId>,
    deps: &ListDeps,
    reach: &[Vec<u64>],
    seeds: &[Vec<Inst>],
    cost: &dyn CostModel,
) -> Option<ListPacking> {
    let mut trees: Vec<Vec<Node>> = Vec::new();
    let mut packed: HashSet<Inst> = HashSet::new();
    for seed in seeds {
        if seed.iter().any(|i| packed.contains(i)) {
            continue;
        }
        let prior: Vec<&[Node]> = trees.iter().map(|t| t.as_slice()).collect();
        let mut grower = Grower {
            pssa,
            deps,
            reach,
            taken: &packed,
            prior: &prior,
            nodes: Vec::new(),
            in_tree: HashSet::new(),
        };
        grower.store_tree(seed)?;
        let nodes = grower.nodes;
        packed.extend(nodes.iter().flat_map(|n| n.insts().iter().copied()));
        trees.push(nodes);
    }
    if trees.len() < 2 {
        return None;
    }
    let savings: Vec<i64> = trees
        .iter()
        .map(|t| {
            let mine: HashSet<Inst> = t.iter().flat_map(|n| n.insts().iter().copied()).collect();
            let others: HashSet<Inst> = packed.difference(&mine).copied().collect();
            cost.saving(pssa, l, t, &others)
        })
        .collect();
    if savings.iter().sum::<i64>() <= 0 {
        return None;
    }
    let refs: Vec<&[Node]> = trees.iter().map(|t| &t[..]).collect();
    schedule(deps, &refs)?;
    Some(ListPacking {
        trees: trees
            .into_iter()
            .zip(savings)
            .map(|(nodes, saving)| PackTree { nodes, saving })
            .collect(),
        rejected: Vec::new(),
    })
}

/// Stores of one type to one symbolic address: (address, type, (offset, store)s).
type StoreGroup = (Address, Type, Vec<(i64, Inst)>);

/// Runs of stores to adjacent addresses, cut into chunks of as many lanes as a vector
/// register holds (a power of two, at least 2), longest first.
fn store_seeds(pssa: &Pssa, deps: &ListDeps, cost: &dyn CostModel) -> Vec<Vec<Inst>> {
    let func = &pssa.func;
    // Group by symbolic address and stored type.
    let mut groups: Vec<StoreGroup> = Vec::new();
    for (pos, &item) in deps.items.iter().enumerate() {
        let Item::Inst(inst) = item else { continue };
        let MemEffect::Access {
            addr, write: true, ..
        } = &deps.effects[pos]
        else {
            continue;
        };
        let InstData::Store { value, .. } = *func.dfg.inst(inst) else {
            continue;
        };
        let ty = func.dfg.value_type(value);
        if ty.is_vector() || ty.is_bool() {
            continue;
        }
        match groups
            .iter_mut()
            .find(|g| g.1 == ty && g.0.same_symbolic(addr))
        {
            Some(g) => g.2.push((addr.offset, inst)),
            None => groups.push((addr.clone(), ty, vec![(addr.offset, inst)])),
        }
    }
    let mut seeds = Vec::new();
    for (_, ty, stores) in groups {
        let size = i64::from(ty.bytes());
        let max = cost.max_lanes(ty);
        // Several stores to one address (one per branch of an if-else chain, say) make
        // layers: the k-th store to each address, in list order, belongs to layer k, so
        // that unrolled copies of one branch's store line up.
        let mut layers: Vec<Vec<(i64, Inst)>> = Vec::new();
        let mut seen: HashMap<i64, usize> = HashMap::new();
        for (off, inst) in stores {
            let layer = seen.entry(off).or_insert(0);
            if layers.len() <= *layer {
                layers.push(Vec::new());
            }
            layers[*layer].push((off, inst));
            *layer += 1;
        }
        for mut layer in layers {
            layer.sort_by_key(|s| s.0);
            let mut run: Vec<Inst> = Vec::new();
            let mut last: Option<i64> = None;
            let flush = |run: &mut Vec<Inst>, seeds: &mut Vec<Vec<Inst>>| {
                let mut rest = &run[..];
                while rest.len() >= 2 {
                    let lanes = (rest.len().min(max)).next_power_of_two();
                    let lanes = if lanes > rest.len() { lanes / 2 } else { lanes };
                    seeds.push(rest[..lanes].to_vec());
                    rest = &rest[lanes..];
                }
                run.clear();
            };
            for (off, inst) in layer {
                if last.is_some_and(|l| off != l + size) {
                    flush(&mut run, &mut seeds);
                }
                run.push(inst);
                last = Some(off);
            }
            flush(&mut run, &mut seeds);
        }
    }
    seeds.sort_by_key(|s| std::cmp::Reverse(s.len()));
    seeds
}

struct Grower<'a> {
    pssa: &'a Pssa,
    deps: &'a ListDeps,
    reach: &'a [Vec<u64>],
    /// Instructions in kept trees.
    taken: &'a HashSet<Inst>,
    /// The earlier trees whose packs this one may read.
    prior: &'a [&'a [Node]],
    nodes: Vec<Node>,
    in_tree: HashSet<Inst>,
}

/// The deepest a tree grows.
const MAX_DEPTH: u32 = 16;

impl Grower<'_> {
    fn push(&mut self, n: Node) -> usize {
        self.in_tree.extend(n.insts().iter().copied());
        self.nodes.push(n);
        self.nodes.len() - 1
    }

    fn store_tree(&mut self, stores: &[Inst]) -> Option<usize> {
        if !self.independent(stores) {
            return None;
        }
        let values: Vec<Value> = stores
            .iter()
            .map(|&s| match *self.pssa.func.dfg.inst(s) {
                InstData::Store { value, .. } => value,
                _ => unreachable!("seeds are stores"),
            })
            .collect();
        let root = self.push(Node::Store {
            insts: stores.to_vec(),
            value: usize::MAX,
            mask: None,
        });
        let value = self.grow(&values, 0);
        let preds: Vec<Pred> = stores.iter().map(|&i| self.pssa.inst_pred[i]).collect();
        let mask = self.mask(&preds, 1);
        if let Node::Store {
            value: v, mask: m, ..
        } = &mut self.nodes[root]
        {
            *v = value;
            *m = mask;
        }
        Some(root)
    }

    /// The position in the list of the item defining `v`, if an instruction of it.
    fn inst_of(&self, v: Value) -> Option<(usize, Inst)> {
        let &pos = self.deps.def_pos.get(&v)?;
        match self.deps.items[pos] {
            Item::Inst(i) if self.pssa.func.dfg.inst_result(i) == Some(v) => Some((pos, i)),
            _ => None,
        }
    }

    /// Are the instructions pairwise independent (no lane reaches another)?
    fn independent(&self, insts: &[Inst]) -> bool {
        let pos: Vec<usize> = insts
            .iter()
            .filter_map(|&i| self.deps.items.iter().position(|&it| it == Item::Inst(i)))
            .collect();
        pos.len() == insts.len()
            && pos.iter().all(|&b| {
                pos.iter()
                    .all(|&a| a == b || self.reach[b][a / 64] & (1 << (a % 64)) == 0)
            })
    }

    /// The node producing `values`, one per lane.
    fn grow(&mut self, values: &[Value], depth: u32) -> usize {
        if values.iter().all(|&v| v == values[0]) {
            return self.push(Node::Splat(values[0]));
        }
        let insts: Option<Vec<Inst>> = values
            .iter()
            .map(|&v| self.inst_of(v).map(|(_, i)| i))
            .collect();
        let build = |g: &mut Self| g.push(Node::Build(values.to_vec()));
        let Some(insts) = insts else {
            return build(self);
        };
        // The same lanes packed by an earlier tree: its vector.
        for (t, nodes) in self.prior.iter().enumerate() {
            if let Some(k) = nodes
                .iter()
                .position(|n| !n.insts().is_empty() && n.insts() == &insts[..])
            {
                return self.push(Node::Shared { tree: t, node: k });
            }
        }
        // The same lanes packed already in this tree: one vector serves both reads.
        if let Some(k) = self
            .nodes
            .iter()
            .position(|n| !n.insts().is_empty() && n.insts() == &insts[..])
        {
            return k;
        }
        let mut distinct = insts.clone();
        distinct.sort();
        distinct.dedup();
        if depth >= MAX_DEPTH
            || distinct.len() != insts.len()
            || insts
                .iter()
                .any(|i| self.taken.contains(i) || self.in_tree.contains(i))
            || !self.independent(&insts)
        {
            return build(self);
        }
        let func = &self.pssa.func;
        let d0 = func.dfg.inst(insts[0]);
        // Gated φs: incoming position by position.
        if self.pssa.gates.contains_key(&insts[0]) {
            let n = self.pssa.gates[&insts[0]].len();
            if insts
                .iter()
                .any(|i| self.pssa.gates.get(i).is_none_or(|g| g.len() != n))
            {
                return build(self);
            }
            let me = self.push(Node::Phi {
                insts: insts.clone(),
                incoming: Vec::new(),
                masks: Vec::new(),
            });
            let mut incoming = Vec::with_capacity(n);
            let mut masks = Vec::with_capacity(n);
            // A gate's common part must hold wherever the φs run for its residual
            // condition to stand for it.
            let run: Vec<Pred> = insts.iter().map(|&i| self.pssa.inst_pred[i]).collect();
            for j in 0..n {
                let lane_values: Vec<Value> =
                    insts.iter().map(|i| self.pssa.gates[i][j].1).collect();
                incoming.push(self.grow(&lane_values, depth + 1));
                let gates: Vec<Pred> = insts.iter().map(|i| self.pssa.gates[i][j].0).collect();
                let implied = self.common(&gates).iter().all(|t| {
                    run.iter()
                        .all(|&p| self.pssa.preds.conjuncts(p).contains(t))
                });
                masks.push(if implied {
                    self.mask(&gates, depth + 1)
                } else {
                    None
                });
            }
            if let Node::Phi {
                incoming: inc,
                masks: m,
                ..
            } = &mut self.nodes[me]
            {
                *inc = incoming;
                *m = masks;
            }
            return me;
        }
        if let InstData::Load { .. } = d0 {
            return match self.adjacent_loads(&insts) {
                Some((first, perm)) => {
                    let preds: Vec<Pred> = insts.iter().map(|&i| self.pssa.inst_pred[i]).collect();
                    let me = self.push(Node::Load {
                        insts,
                        first,
                        perm: perm.clone(),
                        mask: None,
                    });
                    // The mask is in memory order.
                    let mut in_memory = preds.clone();
                    for (lane, &e) in perm.iter().enumerate() {
                        in_memory[e as usize] = preds[lane];
                    }
                    let mask = self.mask(&in_memory, depth + 1);
                    if let Node::Load { mask: m, .. } = &mut self.nodes[me] {
                        *m = mask;
                    }
                    me
                }
                None => build(self),
            };
        }
        if !vectorizable(d0) || !insts.iter().all(|&i| self.isomorphic(insts[0], i)) {
            return build(self);
        }
        if d0_can_trap(d0) {
            let p = self.pssa.inst_pred[insts[0]];
            if insts.iter().any(|&i| self.pssa.inst_pred[i] != p) {
                return build(self);
            }
        }
        // Operands, lane by lane; commutative operands matched to lane 0's.
        let mut lanes: Vec<Vec<Value>> = insts.iter().map(|&i| func.dfg.inst(i).args()).collect();
        if commutative(d0) {
            // Matched by operation, and loads by the object they read.
            let key = |g: &Self, v: Value| {
                g.inst_of(v).map(|(_, i)| match *func.dfg.inst(i) {
                    InstData::Load { ptr, .. } => {
                        let a = Address::of(func, ptr);
                        (func.dfg.inst(i).opcode_name(), Some((a.base, a.terms)))
                    }
                    ref d => (d.opcode_name(), None),
                })
            };
            let first = key(self, lanes[0][0]);
            for lane in lanes.iter_mut().skip(1) {
                if key(self, lane[0]) != first && key(self, lane[1]) == first {
                    lane.swap(0, 1);
                }
            }
        }
        let me = self.push(Node::Pack {
            insts: insts.clone(),
            operands: Vec::new(),
        });
        let arity = lanes[0].len();
        let mut operands = Vec::with_capacity(arity);
        for j in 0..arity {
            let col: Vec<Value> = lanes.iter().map(|l| l[j]).collect();
            operands.push(self.grow(&col, depth + 1));
        }
        if let Node::Pack { operands: ops, .. } = &mut self.nodes[me] {
            *ops = operands;
        }
        me
    }

    /// The conjuncts every one of `preds` has.
    fn common(&self, preds: &[Pred]) -> Vec<Pred> {
        let mut common = self.pssa.preds.conjuncts(preds[0]);
        for &p in &preds[1..] {
            let c = self.pssa.preds.conjuncts(p);
            common.retain(|t| c.contains(t));
        }
        common
    }

    /// Lanes under predicates `preds` that differ, beyond their common part, in the same
    /// number of conditions each, taken the same way position by position: those
    /// conditions packed as a mask (at most four parts).
    fn mask(&mut self, preds: &[Pred], depth: u32) -> Option<Mask> {
        if preds.iter().all(|&p| p == preds[0]) {
            return None;
        }
        let common = self.common(preds);
        let mut lanes: Vec<Vec<(Value, bool)>> = Vec::with_capacity(preds.len());
        for &p in preds {
            let mut rest: Vec<(Value, bool)> = Vec::new();
            for t in self.pssa.preds.conjuncts(p) {
                if common.contains(&t) {
                    continue;
                }
                let PredData::Lit { cond, negated } = *self.pssa.preds.data(t) else {
                    return None;
                };
                rest.push((cond, negated));
            }
            // Position by definition: the k-th condition of one lane corresponds to the
            // k-th of another.
            rest.sort_by_key(|&(c, _)| self.deps.def_pos.get(&c).copied().unwrap_or(0));
            lanes.push(rest);
        }
        let parts = lanes[0].len();
        if parts == 0 || parts > 4 || lanes.iter().any(|l| l.len() != parts) {
            return None;
        }
        let mut out = Vec::with_capacity(parts);
        for k in 0..parts {
            let negated = lanes[0][k].1;
            if lanes.iter().any(|l| l[k].1 != negated) {
                return None;
            }
            let conds: Vec<Value> = lanes.iter().map(|l| l[k].0).collect();
            out.push((self.grow(&conds, depth), negated));
        }
        Some(Mask { parts: out })
    }

    /// Do lanes `b` and `a` compute the same operation on (possibly) different operands?
    fn isomorphic(&self, a: Inst, b: Inst) -> bool {
        let f = &self.pssa.func;
        let strip = |i: Inst| {
            let mut d = f.dfg.inst(i).clone();
            d.for_each_arg_mut(|v| *v = Value::from_u32(0));
            d
        };
        let ty = |i: Inst| f.dfg.inst_result(i).map(|v| f.dfg.value_type(v));
        let arg_tys = |i: Inst| {
            f.dfg
                .inst(i)
                .args()
                .iter()
                .map(|&v| f.dfg.value_type(v))
                .collect::<Vec<_>>()
        };
        strip(a) == strip(b)
            && ty(a) == ty(b)
            && arg_tys(a) == arg_tys(b)
            && f.dfg.fast_math(a) == f.dfg.fast_math(b)
            && !self.pssa.gates.contains_key(&b)
    }

    /// Are these plain scalar loads of the elements of one vector, in some order? The
    /// lane with the lowest address and each lane's element, if so.
    fn adjacent_loads(&self, insts: &[Inst]) -> Option<(usize, Vec<u32>)> {
        let f = &self.pssa.func;
        let mut addrs: Vec<Address> = Vec::with_capacity(insts.len());
        let mut ty0: Option<Type> = None;
        for &i in insts {
            let InstData::Load { ptr, access, .. } = *f.dfg.inst(i) else {
                return None;
            };
            let ty = f
                .dfg
                .value_type(f.dfg.inst_result(i).expect("a load has a result"));
            if !access.is_plain() || ty.is_vector() || ty.is_bool() || ty0.is_some_and(|t| t != ty)
            {
                return None;
            }
            ty0 = Some(ty);
            addrs.push(Address::of(f, ptr));
        }
        let size = i64::from(ty0?.bytes());
        let first = (0..insts.len()).min_by_key(|&k| addrs[k].offset)?;
        let mut perm = Vec::with_capacity(insts.len());
        let mut seen = vec![false; insts.len()];
        for a in &addrs {
            let delta = a.offset - addrs[first].offset;
            let e = delta / size;
            if !a.same_symbolic(&addrs[first])
                || delta % size != 0
                || e >= insts.len() as i64
                || seen[e as usize]
            {
                return None;
            }
            seen[e as usize] = true;
            perm.push(e as u32);
        }
        Some((first, perm))
    }
}

/// Can a pack of this operation become one vector instruction of the same kind?
fn vectorizable(d: &InstData) -> bool {
    use lanes_ir::IntrinsicClass;
    match d {
        InstData::Binary { .. }
        | InstData::Unary { .. }
        | InstData::Icmp { .. }
        | InstData::Fcmp { .. }
        | InstData::Select { .. } => true,
        InstData::Cast { op, .. } => !matches!(
            op,
            lanes_ir::CastOp::PtrToInt
                | lanes_ir::CastOp::IntToPtr
                | lanes_ir::CastOp::AddrSpaceCast
        ),
        InstData::Intrinsic { id, .. } => matches!(
            id.class(),
            IntrinsicClass::FloatMath(_) | IntrinsicClass::IntMath(_)
        ),
        _ => false,
    }
}

fn d0_can_trap(d: &InstData) -> bool {
    matches!(d, InstData::Binary { op, .. } if op.can_trap())
}

/// May the two operands of this operation be swapped?
fn commutative(d: &InstData) -> bool {
    match d {
        InstData::Binary { op, .. } => matches!(
            op,
            BinaryOp::Add
                | BinaryOp::Mul
                | BinaryOp::And
                | BinaryOp::Or
                | BinaryOp::Xor
                | BinaryOp::SMin
                | BinaryOp::SMax
                | BinaryOp::UMin
                | BinaryOp::UMax
                | BinaryOp::FAdd
                | BinaryOp::FMul
        ),
        InstData::Icmp { cond, .. } => matches!(cond, IntCC::Eq | IntCC::Ne),
        _ => false,
    }
}
