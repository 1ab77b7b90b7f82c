//! The code the mask lowering ([`super::lower`]) puts into a reconverging function: the
//! execution and re-join masks, the accumulators of φs at re-join points, the per-lane
//! copies of values threads wait on, and the branches on `any(exec)`. Each is written as
//! an assignment to a [`Variables`] variable, and all are put into SSA form at the end.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use cranelift_entity::EntitySet;

use lanes_analysis::{AnalysisSet, ControlFlowGraph, FunctionAnalyses};
use lanes_ir::cursor::phis;
use lanes_ir::{
    BinaryOp, Block, FuncCursor, Function, Inst, InstData, IntFlags, Intrinsic, Type, UnaryOp,
    Value, ValueSubstitution,
};

use super::variables::{Var, Variables};
use crate::cfg_edit::{bool_const, def_block, phi_result, reachable_avoiding, zero_value};
use crate::guards::{guard_block, Predication};
use crate::redundant_blends::remove_redundant_blends;
use crate::ssa_repair::remove_dead_code;

/// One divergent branch: `block: brif …` with its secondary and primary successor.
pub(super) struct Divergent {
    pub block: Block,
    pub secondary: Block,
    pub primary: Block,
    /// Whether the secondary successor is the one taken when the condition holds.
    pub secondary_on_true: bool,
}

/// The accumulators of the φs of one re-join point: `(φ's incoming values, accumulator)`.
pub(super) type PhiAccumulators = Vec<(Vec<(Block, Value)>, Var)>;

/// The variables of the lowering and the code that reads and writes them.
pub(super) struct Masks<'f> {
    func: &'f mut Function,
    vars: Variables,
    exec: Var,
    rejoin: HashMap<Block, Var>,
    /// The last instruction of the re-join code at the top of each re-join point.
    rejoin_code_end: HashMap<Block, Inst>,
    /// The `exec |= rejoin` at the top of each re-join point.
    rejoin_exec: HashMap<Block, Inst>,
    /// Copies to drop once the variables are resolved.
    copies: Vec<Inst>,
    /// `copy exec` at the top of every block: its mask, once resolved.
    mask_copy: HashMap<Block, Inst>,
    /// The copies that stand for the removed φs of re-join points.
    phi_copies: Vec<Inst>,
    /// Removed φ → its copy.
    phi_subst: ValueSubstitution,
    /// `(latch, value)` → the φ's back-edge value and the values it takes on entering
    /// the loop, for each value kept in its loop's φ ([`Masks::keep`]); the back-edge value
    /// holds every lane's exit value, and the entry value in the lanes that never ran.
    kept_in_loop_phi: BTreeMap<(Block, Value), (Value, Vec<Value>)>,
    zeros: HashMap<Type, Value>,
    true_value: Value,
    false_value: Value,
}

impl<'f> Masks<'f> {
    pub fn new(func: &'f mut Function) -> Self {
        let true_value = bool_const(func, true);
        let false_value = bool_const(func, false);
        let mut vars = Variables::default();
        let exec = vars.declare(func, Type::I1, true_value);
        Masks {
            func,
            vars,
            exec,
            rejoin: HashMap::new(),
            rejoin_code_end: HashMap::new(),
            rejoin_exec: HashMap::new(),
            copies: Vec::new(),
            mask_copy: HashMap::new(),
            phi_copies: Vec::new(),
            phi_subst: ValueSubstitution::new(),
            kept_in_loop_phi: BTreeMap::new(),
            zeros: HashMap::new(),
            true_value,
            false_value,
        }
    }

    /// Inserts after `at` (or at the top of `block`, after its φs) and moves `at` on.
    fn insert_after(
        &mut self,
        at: &mut Option<Inst>,
        block: Block,
        data: InstData,
        ty: Type,
    ) -> Inst {
        let mut cur = FuncCursor::new(self.func);
        match *at {
            Some(i) => cur.goto_after_inst(i),
            None => cur.goto_first_non_phi(block),
        };
        let inst = cur.insert_inst(data, Some(ty));
        *at = Some(inst);
        inst
    }

    /// Inserts before the terminator of `block`, after what was inserted there before.
    fn insert_at_end(&mut self, block: Block, data: InstData, ty: Type) -> Value {
        let inst = self.insert_inst_at_end(block, data, ty);
        self.result(inst)
    }

    /// [`Self::insert_at_end`], returning the instruction.
    fn insert_inst_at_end(&mut self, block: Block, data: InstData, ty: Type) -> Inst {
        FuncCursor::new(self.func)
            .goto_before_terminator(block)
            .insert_inst(data, Some(ty))
    }

    fn result(&self, inst: Inst) -> Value {
        self.func
            .dfg
            .inst_result(inst)
            .expect("the lowering only makes instructions with results here")
    }

    fn def_inst(&self, v: Value) -> Option<Inst> {
        self.func.dfg.def_inst(v)
    }

    fn mask_of(&self, b: Block) -> Value {
        self.result(self.mask_copy[&b])
    }

    /// Replaces the φs of every re-join point by copies of accumulators at its top, and
    /// gives it the re-join of the threads waiting there: `exec |= rejoin`, `rejoin = 0`.
    pub fn replace_rejoin_phis(
        &mut self,
        rejoins: &BTreeSet<Block>,
    ) -> Vec<(Block, PhiAccumulators)> {
        let mut out = Vec::new();
        for &x in rejoins {
            let mut at: Option<Inst> = None;
            let mut accs: PhiAccumulators = Vec::new();
            for phi in phis(self.func, x) {
                let InstData::Phi { incoming } = self.func.dfg.inst(phi).clone() else {
                    continue;
                };
                let result = phi_result(self.func, phi);
                let ty = self.func.dfg.value_type(result);
                let zero = zero_value(self.func, ty, &mut self.zeros);
                let acc = self.vars.declare(self.func, ty, zero);
                let copy = InstData::Unary {
                    op: UnaryOp::Copy,
                    arg: self.vars.read(acc),
                };
                let c = self.insert_after(&mut at, x, copy, ty);
                self.phi_copies.push(c);
                self.phi_subst.insert(result, self.result(c));
                self.func.layout.remove_inst(phi);
                accs.push((incoming, acc));
            }
            let rejoin = self.vars.declare(self.func, Type::I1, self.false_value);
            self.rejoin.insert(x, rejoin);
            let joined = InstData::Binary {
                op: BinaryOp::Or,
                args: [self.vars.read(self.exec), self.vars.read(rejoin)],
                flags: IntFlags::NONE,
            };
            let joined = self.insert_after(&mut at, x, joined, Type::I1);
            self.vars.assign(self.exec, joined);
            self.rejoin_exec.insert(x, joined);
            let reset = self.insert_after(&mut at, x, InstData::Iconst { imm: 0 }, Type::I1);
            self.vars.assign(rejoin, reset);
            self.rejoin_code_end.insert(x, reset);
            out.push((x, accs));
        }
        self.func.dfg.apply_substitution(&self.phi_subst);
        for (_, accs) in &mut out {
            for (incoming, _) in accs.iter_mut() {
                for (_, v) in incoming.iter_mut() {
                    *v = self.phi_subst.resolve(*v);
                }
            }
        }
        out
    }

    /// Puts `copy exec` at the top of every block (after a re-join point's own code).
    pub fn mask_blocks(&mut self) {
        let blocks: Vec<Block> = self.func.layout.blocks().collect();
        for b in blocks {
            let mut at = self.rejoin_code_end.get(&b).copied();
            let copy = InstData::Unary {
                op: UnaryOp::Copy,
                arg: self.vars.read(self.exec),
            };
            let c = self.insert_after(&mut at, b, copy, Type::I1);
            self.mask_copy.insert(b, c);
        }
    }

    /// Takes the execution mask of each re-join point `b` of `pairs` from the block `a`
    /// whose threads all meet again there (`(b, a)`), instead of rebuilding it.
    pub fn rejoin_all_from(&mut self, pairs: &[(Block, Block)]) {
        for &(b, a) in pairs {
            let Some(&joined) = self.rejoin_exec.get(&b) else {
                continue;
            };
            *self.func.dfg.inst_mut(joined) = InstData::Unary {
                op: UnaryOp::Copy,
                arg: self.mask_of(a),
            };
            self.copies.push(joined);
        }
    }

    /// Gives each value of `stale` a per-lane copy, `keep = select(exec, v, keep)` right
    /// after its definition, which its uses in the given blocks read instead (a φ's use
    /// counts at the end of its predecessor).
    pub fn keep(
        &mut self,
        stale: &BTreeMap<Value, EntitySet<Block>>,
        in_place: &BTreeMap<Value, (Block, Inst)>,
        phi_accs: &mut [(Block, PhiAccumulators)],
    ) {
        // Value → (the read of its copy, the blocks whose uses read that), for one walk.
        let mut reads: HashMap<Value, (Value, &EntitySet<Block>)> = HashMap::new();
        let mut selects: Vec<(Var, Value, Value, Block, Inst)> = Vec::new();
        for (&original, blocks) in stale {
            let v = self.phi_subst.resolve(original);
            let (Some(b), Some(def)) = (def_block(self.func, v), self.def_inst(v)) else {
                continue;
            };
            let ty = self.func.dfg.value_type(v);
            let zero = zero_value(self.func, ty, &mut self.zeros);
            let var = self.vars.declare(self.func, ty, zero);
            reads.insert(v, (self.vars.read(var), blocks));
            selects.push((var, original, v, b, def));
        }
        self.replace_stale_uses(&reads);
        for (_, accs) in phi_accs.iter_mut() {
            for (incoming, _) in accs.iter_mut() {
                for (p, x) in incoming.iter_mut() {
                    match reads.get(x) {
                        Some(&(read, blocks)) if blocks.contains(*p) => *x = read,
                        _ => {}
                    }
                }
            }
        }
        for (var, original, v, b, def) in selects {
            // Kept in the loop's φ (`lower::ends_single_exit_loop`): `select(mask(u), v, p)` at
            // the end of the latch `u`, the φ's back-edge value and the copy's value. The
            // map names the value as the transform left it; a rejoin φ (the counters a
            // nest of `if`s bumps) has since become the select `v` that stands for it.
            let in_loop_phi = in_place.get(&original).filter(|&&(u, phi)| {
                self.func.layout.inst_block(phi).is_some()
                    && matches!(self.func.dfg.inst(phi), InstData::Phi { incoming }
                        if incoming.iter().any(|&(from, x)| from == u && x == v))
            });
            if let Some(&(u, phi)) = in_loop_phi {
                let p = phi_result(self.func, phi);
                let select = InstData::Select {
                    args: [self.mask_of(u), v, p],
                };
                let ty = self.func.dfg.value_type(v);
                let s = self.insert_inst_at_end(u, select, ty);
                let nv = self.result(s);
                let mut entry = Vec::new();
                if let InstData::Phi { incoming } = self.func.dfg.inst_mut(phi) {
                    for (from, x) in incoming.iter_mut() {
                        if *from == u && *x == v {
                            *x = nv;
                        } else if *from != u {
                            entry.push(*x);
                        }
                    }
                }
                self.vars.assign(var, s);
                self.kept_in_loop_phi.insert((u, v), (nv, entry));
                continue;
            }
            // φs and the copies standing for them are defined at the top, before the mask.
            let at_top = self.func.dfg.inst(def).is_phi() || self.phi_copies.contains(&def);
            let mut at = Some(if at_top { self.mask_copy[&b] } else { def });
            let select = InstData::Select {
                args: [self.mask_of(b), v, self.vars.read(var)],
            };
            let ty = self.func.dfg.value_type(v);
            let s = self.insert_after(&mut at, b, select, ty);
            self.vars.assign(var, s);
        }
    }

    /// Replaces every use of a value of `reads` in its blocks (for a φ: on edges from
    /// them) with the read of its copy, in one walk over the function.
    fn replace_stale_uses(&mut self, reads: &HashMap<Value, (Value, &EntitySet<Block>)>) {
        for b in self.func.layout.blocks().collect::<Vec<_>>() {
            for &inst in self.func.layout.block_insts(b) {
                match self.func.dfg.inst_mut(inst) {
                    InstData::Phi { incoming } => {
                        for (p, x) in incoming.iter_mut() {
                            match reads.get(x) {
                                Some(&(read, blocks)) if blocks.contains(*p) => *x = read,
                                _ => {}
                            }
                        }
                    }
                    data => data.for_each_arg_mut(|x| match reads.get(x) {
                        Some(&(read, blocks)) if blocks.contains(b) => *x = read,
                        _ => {}
                    }),
                }
            }
        }
    }

    /// The condition under which the divergent branch `d` goes to `to`, before its end.
    fn edge_condition(&mut self, d: &Divergent, to: Block) -> Value {
        let cond = self.branch_condition(d.block);
        let on_true = (to == d.secondary) == d.secondary_on_true;
        if on_true {
            cond
        } else {
            let not = InstData::Unary {
                op: UnaryOp::Not,
                arg: cond,
            };
            self.insert_at_end(d.block, not, Type::I1)
        }
    }

    /// The condition of the `brif` ending `b` (a divergent branch, so a `brif`: checked
    /// when the branches were classified; `false` otherwise, never reached).
    fn branch_condition(&self, b: Block) -> Value {
        match self.func.terminator(b).map(|t| self.func.dfg.inst(t)) {
            Some(InstData::Brif { cond, .. }) => *cond,
            _ => self.false_value,
        }
    }

    fn and_mask(&mut self, b: Block, cond: Value) -> Value {
        let data = InstData::Binary {
            op: BinaryOp::And,
            args: [self.mask_of(b), cond],
            flags: IntFlags::NONE,
        };
        self.insert_at_end(b, data, Type::I1)
    }

    /// Writes the accumulators of the re-join points' φs at the end of each predecessor,
    /// in the lanes taking the edge.
    ///
    /// A predecessor that the wave cannot reach from any predecessor's write without
    /// passing the re-join point writes first whenever it writes: no thread then holds a
    /// value in the accumulator that it has yet to read, so the write takes every lane
    /// (`acc = v`, no select). In a diamond this leaves one select per φ, as if-conversion
    /// has; a predecessor inside a loop of the region keeps its select, since threads
    /// that left earlier iterations wait on their values — unless the value is one kept
    /// in its loop's φ and read at the loop's only exit: the threads that left earlier
    /// iterations hold their values in it still (it stopped changing in their lanes), so
    /// the write takes every lane there too, as long as no other predecessor's write
    /// can have left a value in the accumulator before the loop (the wave cannot reach
    /// the latch from one without passing the re-join point) — or every other
    /// predecessor writes the value the loop's φ starts from: the threads that skipped
    /// the loop (a rotated loop's divergent guard, `if (n > 0) do … while (…)`) hold that
    /// in the φ too, since they never ran an iteration. Otherwise every iteration would
    /// blend the exit value into the accumulator besides keeping it in the φ.
    pub fn write_accumulators(
        &mut self,
        phi_accs: &[(Block, PhiAccumulators)],
        branches: &[Divergent],
    ) {
        let cfg = ControlFlowGraph::with_function(self.func);
        for (x, accs) in phi_accs {
            if accs.is_empty() {
                continue;
            }
            let mut preds: Vec<Block> = cfg.preds(*x).to_vec();
            preds.dedup();
            // The blocks the wave can run after a write, before it next reaches `x`.
            let after_writes: Vec<Block> = preds
                .iter()
                .flat_map(|&w| cfg.succs(w).iter().copied())
                .collect();
            let after_a_write = reachable_avoiding(&cfg, &after_writes, Some(*x));
            let after_another_write = |u: Block| {
                let others: Vec<Block> = preds
                    .iter()
                    .filter(|&&w| w != u)
                    .flat_map(|&w| cfg.succs(w).iter().copied())
                    .collect();
                reachable_avoiding(&cfg, &others, Some(*x)).contains(u)
            };
            for &u in &preds {
                let mask = match branches.iter().find(|d| d.block == u) {
                    Some(d) => {
                        let c = self.edge_condition(d, *x);
                        self.and_mask(u, c)
                    }
                    None => self.mask_of(u),
                };
                // `after_another_write(u)`, computed for the first kept value at most.
                let mut waits_from_before: Option<bool> = None;
                for (incoming, acc) in accs {
                    let Some(&(_, value)) = incoming.iter().find(|(p, _)| *p == u) else {
                        continue;
                    };
                    let ty = self.func.dfg.value_type(value);
                    let in_place = self
                        .kept_in_loop_phi
                        .get(&(u, self.phi_subst.resolve(value)))
                        .filter(|(_, entry)| {
                            self.others_write(incoming, u, entry)
                                || !*waits_from_before.get_or_insert_with(|| after_another_write(u))
                        })
                        .map(|&(kept, _)| kept);
                    let value = in_place.unwrap_or(value);
                    let write = if after_a_write.contains(u) && in_place.is_none() {
                        InstData::Select {
                            args: [mask, value, self.vars.read(*acc)],
                        }
                    } else {
                        InstData::Unary {
                            op: UnaryOp::Copy,
                            arg: value,
                        }
                    };
                    let copy = matches!(write, InstData::Unary { .. });
                    let inst = self.insert_inst_at_end(u, write, ty);
                    if copy {
                        self.copies.push(inst);
                    }
                    self.vars.assign(*acc, inst);
                }
            }
        }
    }

    /// Whether every predecessor of a re-join φ but `u` gives it (`incoming`) the value the
    /// loop's φ starts from (`entry`, its values on entering the loop).
    fn others_write(&self, incoming: &[(Block, Value)], u: Block, entry: &[Value]) -> bool {
        let same = |a: Value, b: Value| self.phi_subst.resolve(a) == self.phi_subst.resolve(b);
        !entry.is_empty()
            && incoming
                .iter()
                .filter(|(p, _)| *p != u)
                .all(|&(_, w)| entry.iter().all(|&e| same(e, w)))
    }

    /// Lowers the divergent branch `d`: the threads for the primary successor wait there,
    /// the wave goes on to the secondary with the rest — if any are left, when `skip`.
    pub fn branch(&mut self, d: &Divergent, skip: bool) {
        let b = d.block;
        let to_primary = self.edge_condition(d, d.primary);
        let to_secondary = self.edge_condition(d, d.secondary);
        let waiting = self.and_mask(b, to_primary);
        let rejoin = self.rejoin[&d.primary];
        let joined = InstData::Binary {
            op: BinaryOp::Or,
            args: [self.vars.read(rejoin), waiting],
            flags: IntFlags::NONE,
        };
        let joined = self.insert_inst_at_end(b, joined, Type::I1);
        self.vars.assign(rejoin, joined);
        let going = InstData::Binary {
            op: BinaryOp::And,
            args: [self.mask_of(b), to_secondary],
            flags: IntFlags::NONE,
        };
        let going = self.insert_inst_at_end(b, going, Type::I1);
        self.vars.assign(self.exec, going);
        let going = self.result(going);
        let Some(term) = self.func.terminator(b) else {
            return;
        };
        *self.func.dfg.inst_mut(term) = if skip {
            let any = InstData::Intrinsic {
                id: Intrinsic::Any,
                args: vec![going],
            };
            let any = self.insert_at_end(b, any, Type::I1);
            InstData::Brif {
                cond: any,
                then_dest: d.secondary,
                else_dest: d.primary,
            }
        } else {
            InstData::Jump { dest: d.secondary }
        };
    }

    /// Resolves the variables, drops the copies and returns the blocks' masks, with the
    /// side effects of blocks that do not run with all lanes guarded.
    pub fn finish(self) -> Predication {
        let kept_any = !self.kept_in_loop_phi.is_empty();
        let func = self.func;
        self.vars.resolve(func);
        let mut subst = ValueSubstitution::new();
        let copies = self.mask_copy.values().chain(&self.phi_copies);
        for &c in copies.chain(&self.copies) {
            if let InstData::Unary { arg, .. } = *func.dfg.inst(c) {
                if let Some(r) = func.dfg.inst_result(c) {
                    subst.insert(r, arg);
                }
            }
            func.layout.remove_inst(c);
        }
        func.dfg.apply_substitution(&subst);
        let mut predication = Predication::default();
        let mut roots = Vec::new();
        let mut blocks: Vec<(Block, Inst)> = self.mask_copy.iter().map(|(&b, &c)| (b, c)).collect();
        blocks.sort();
        for (b, c) in blocks {
            let Some(r) = func.dfg.inst_result(c) else {
                continue;
            };
            let mask = subst.resolve(r);
            if mask == self.true_value {
                continue;
            }
            predication.block_mask[b] = mask.into();
            guard_block(func, b, mask, &mut predication);
            roots.push(mask);
        }
        roots.extend(predication.guarded.iter().map(|&(_, m)| m));
        // The keeps in loop φs (`keep`) repeat what the blends inside the iteration did
        // where those ran under the loop's mask (a counter bumped in nested `if`s): each
        // is then its own value. Without a keep there is nothing of this kind to find.
        if kept_any {
            let mut analyses = FunctionAnalyses::new();
            analyses.compute(func, AnalysisSet::LOOPS);
            remove_redundant_blends(func, analyses.loops());
        }
        remove_dead_code(func, &roots);
        predication
    }
}
