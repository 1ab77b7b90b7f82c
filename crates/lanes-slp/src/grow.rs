//! Growing one pack tree bottom-up from its seed (SuperVectorization, PLDI'22 §3.2):
//! the use-def chains of a pack's lanes followed operand by operand, packing what is
//! isomorphic, adjacent or gated alike, across predicates, and stopping at anything else,
//! which becomes a vector built from scalars.
//!
//! In a loop's list the lanes may also be the loop's μ-nodes: a pack of μ-nodes is a
//! vector μ-node (Fig. 11), whose initial vector is built before the loop and whose
//! recursive values grow like any operand — the cycle through the loop closes on the μ
//! pack itself. Lanes that scalar code of a nested loop extracted from one vector, lane
//! by lane, are that vector again.

use std::collections::{HashMap, HashSet};

use lanes_ir::{BinaryOp, Inst, InstData, IntCC, Intrinsic, Type, Value};

use crate::address::Address;
use crate::dependence::ListDeps;
use crate::pack_tree::{Mask, Node};
use crate::predicate::{Pred, PredData};
use crate::pssa::{Item, LoopId, Mu, Pssa};

/// One tree being grown in the list of a loop (or the function's).
pub(crate) struct Grower<'a> {
    pssa: &'a Pssa,
    deps: &'a ListDeps,
    reach: &'a [Vec<u64>],
    /// Instructions in kept trees.
    taken: &'a HashSet<Inst>,
    /// The earlier trees whose packs this one may read.
    prior: &'a [&'a [Node]],
    /// The μ-nodes of the list's loop, by value.
    mus: HashMap<Value, Mu>,
    pub nodes: Vec<Node>,
    in_tree: HashSet<Inst>,
}

/// The deepest a tree grows.
const MAX_DEPTH: u32 = 16;

impl<'a> Grower<'a> {
    /// A grower for the list of `l` (`None`: the function's), whose dependences are
    /// `deps` (with `reach`, their transitive closure), that leaves the instructions of
    /// `taken` alone and may read the packs of the trees `prior`.
    pub fn new(
        pssa: &'a Pssa,
        l: Option<LoopId>,
        deps: &'a ListDeps,
        reach: &'a [Vec<u64>],
        taken: &'a HashSet<Inst>,
        prior: &'a [&'a [Node]],
    ) -> Self {
        let mus = l
            .map(|l| pssa.loops[l].mus.iter().map(|m| (m.value, *m)).collect())
            .unwrap_or_default();
        Grower {
            pssa,
            deps,
            reach,
            taken,
            prior,
            mus,
            nodes: Vec::new(),
            in_tree: HashSet::new(),
        }
    }
}

impl Grower<'_> {
    /// A tree whose root packs the μ-nodes `mus` of the list's loop.
    pub fn mu_tree(&mut self, mus: &[Inst]) -> Option<usize> {
        let values: Vec<Value> = mus
            .iter()
            .map(|&i| self.pssa.func.dfg.inst_result(i))
            .collect::<Option<_>>()?;
        let root = self.grow(&values, 0);
        matches!(self.nodes[root], Node::Mu { .. }).then_some(root)
    }

    fn push(&mut self, n: Node) -> usize {
        self.in_tree.extend(n.insts().iter().copied());
        self.nodes.push(n);
        self.nodes.len() - 1
    }

    pub fn store_tree(&mut self, stores: &[Inst]) -> Option<usize> {
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
        if let Some(v) = self.extracted_vector(values) {
            return self.push(Node::Vector(v));
        }
        let insts: Option<Vec<Inst>> = values
            .iter()
            .map(|&v| {
                self.inst_of(v)
                    .map(|(_, i)| i)
                    .or_else(|| self.mus.get(&v).map(|m| m.inst))
            })
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
        let is_mu = |v: &Value| self.mus.contains_key(v);
        let mus = values.iter().filter(|v| is_mu(v)).count();
        if depth >= MAX_DEPTH
            || distinct.len() != insts.len()
            || insts
                .iter()
                .any(|i| self.taken.contains(i) || self.in_tree.contains(i))
            || mus != 0 && mus != values.len()
            || mus == 0 && !self.independent(&insts)
        {
            return build(self);
        }
        if mus != 0 {
            return self.mu_pack(values, insts, depth);
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

    /// μ-nodes of the list's loop, one per lane, as a vector μ-node. The lanes are
    /// independent whatever their values: a μ-node is defined before anything of the
    /// iteration runs.
    fn mu_pack(&mut self, values: &[Value], insts: Vec<Inst>, depth: u32) -> usize {
        let ty = self.pssa.func.dfg.value_type(values[0]);
        if ty.is_vector()
            || values
                .iter()
                .any(|&v| self.pssa.func.dfg.value_type(v) != ty)
        {
            return self.push(Node::Build(values.to_vec()));
        }
        let me = self.push(Node::Mu {
            insts,
            init: usize::MAX,
            rec: usize::MAX,
        });
        let inits: Vec<Value> = values.iter().map(|v| self.mus[v].init).collect();
        let recs: Vec<Value> = values.iter().map(|v| self.mus[v].rec).collect();
        // The initial values come from outside the loop: a splat or a vector built
        // before it, never a pack of this list.
        let init = self.grow(&inits, MAX_DEPTH);
        let rec = self.grow(&recs, depth + 1);
        if let Node::Mu {
            init: i, rec: r, ..
        } = &mut self.nodes[me]
        {
            *i = init;
            *r = rec;
        }
        me
    }

    /// The vector whose lanes `values` are, in order, where each is an extraction of
    /// that lane from it (a pack of a nested loop's list, read by scalar code after it).
    fn extracted_vector(&self, values: &[Value]) -> Option<Value> {
        let f = &self.pssa.func;
        let mut vector = None;
        for (lane, &v) in values.iter().enumerate() {
            let i = f.dfg.def_inst(v)?;
            let InstData::Intrinsic {
                id: Intrinsic::Extract,
                args,
            } = f.dfg.inst(i)
            else {
                return None;
            };
            let idx = f.dfg.def_inst(args[1]).map(|i| f.dfg.inst(i));
            if !matches!(idx, Some(&InstData::Iconst { imm }) if imm == lane as i64)
                || vector.is_some_and(|x| x != args[0])
            {
                return None;
            }
            vector = Some(args[0]);
        }
        let vector = vector?;
        (f.dfg.value_type(vector).lanes().map(usize::from) == Some(values.len())).then_some(vector)
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
