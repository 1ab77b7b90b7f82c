//! On-demand SSA reconstruction (Braun et al., CC'13, "Simple and Efficient Construction
//! of Static Single Assignment Form"), used by LCSSA and after linearization.
//!
//! Partial linearization changes the CFG, so a definition may stop dominating its uses:
//! a block that used to be reached only through the defining block can now also be
//! reached along a folded path that skips it (PLDI'18 §3.4 relies on "proper predication
//! of the code"). On such a path the value is never needed by an active instance, but SSA
//! still needs one: the search walks predecessors from the use, placing φs at joins, and
//! yields a *default* (zero, null, `false`) where the definition cannot reach.
//!
//! Freshness across loop iterations comes from the block index (§3.1), as in RV's
//! `promoteDefinition`: a block earlier in the index than the definition cannot be
//! reached from it within one iteration, so the search stops there with the default
//! instead of carrying a value of the previous iteration around the back edge. This is
//! what makes an edge predicate of a skipped block read as `false`.

use std::collections::HashMap;

use cranelift_entity::{EntitySet, SecondaryMap};
use lanes_analysis::{AnalysisSet, Edits, FunctionAnalyses};
use lanes_ir::{
    Block, FuncCursor, Function, Inst, InstData, Type, Value, ValueDef, ValueSubstitution,
};

/// One search for the reaching definition of one variable.
pub(crate) struct SsaSearch<'a> {
    /// Predecessors of each block in the CFG being repaired.
    pub preds: &'a SecondaryMap<Block, Vec<Block>>,
    /// The value available at the end of these blocks (the definition's, the exits' of a
    /// loop, or every block assigning one of the mask lowering's variables).
    defs: HashMap<Block, Value>,
    /// Blocks at whose end the variable has the default value.
    pub cutoff: &'a dyn Fn(Block) -> bool,
    pub default: Value,
    pub ty: Type,
    /// The value at the top of the blocks searched so far: few of the function's, and one
    /// search per repaired value, so a map over all blocks would cost more than the search.
    entry_memo: HashMap<Block, Value>,
    in_progress: Vec<Block>,
    /// The φs this search created, for [`remove_trivial_phis`].
    pub created: Vec<Value>,
}

impl<'a> SsaSearch<'a> {
    pub fn new(
        preds: &'a SecondaryMap<Block, Vec<Block>>,
        defs: Vec<(Block, Value)>,
        cutoff: &'a dyn Fn(Block) -> bool,
        default: Value,
        ty: Type,
    ) -> Self {
        let mut by_block = HashMap::with_capacity(defs.len());
        for (b, v) in defs {
            by_block.entry(b).or_insert(v);
        }
        SsaSearch {
            preds,
            defs: by_block,
            cutoff,
            default,
            ty,
            entry_memo: HashMap::new(),
            in_progress: Vec::new(),
            created: Vec::new(),
        }
    }

    /// The value at the end of `b`.
    pub fn at_end(&mut self, func: &mut Function, b: Block) -> Value {
        if let Some(&v) = self.defs.get(&b) {
            return v;
        }
        if (self.cutoff)(b) {
            return self.default;
        }
        self.at_entry(func, b)
    }

    /// The value at the top of `b` (before its own instructions).
    pub fn at_entry(&mut self, func: &mut Function, b: Block) -> Value {
        if let Some(&v) = self.entry_memo.get(&b) {
            return v;
        }
        let preds = self.preds[b].clone();
        match preds.len() {
            0 => self.default,
            1 => {
                // Re-entering `b` is fine once: a reachable cycle passes a block with two
                // predecessors, whose φ is memoized by then. Only a cycle of
                // single-predecessor blocks (unreachable code) would come back again.
                if self.in_progress.iter().filter(|&&x| x == b).count() >= 2 {
                    return self.default;
                }
                self.in_progress.push(b);
                let v = self.at_end(func, preds[0]);
                self.in_progress.pop();
                self.entry_memo.insert(b, v);
                v
            }
            _ => {
                let phi = FuncCursor::new(func)
                    .goto_first_non_phi(b)
                    .insert_phi(self.ty, Vec::new());
                self.entry_memo.insert(b, phi);
                self.created.push(phi);
                let incoming: Vec<(Block, Value)> =
                    preds.iter().map(|&p| (p, self.at_end(func, p))).collect();
                let inst = phi_inst(func, phi);
                *func.dfg.inst_mut(inst) = InstData::Phi { incoming };
                phi
            }
        }
    }
}

fn phi_inst(func: &Function, phi: Value) -> lanes_ir::Inst {
    match func.dfg.value_def(phi) {
        lanes_ir::ValueDef::Result(i) => i,
        lanes_ir::ValueDef::Param(_) => unreachable!("φ values are instruction results"),
    }
}

/// Removes φs among `created` whose incoming values are one value besides the φ itself,
/// replacing their uses, until none is left. Replacements are collected and the uses
/// rewritten in one walk over the function at the end.
pub(crate) fn remove_trivial_phis(func: &mut Function, created: &[Value]) {
    let mut subst = ValueSubstitution::new();
    let mut changed = true;
    while changed {
        changed = false;
        for &phi in created {
            if subst.contains(phi) {
                continue;
            }
            let inst = phi_inst(func, phi);
            let InstData::Phi { incoming } = func.dfg.inst(inst) else {
                continue;
            };
            let mut same: Option<Value> = None;
            let mut trivial = true;
            for &(_, v) in incoming {
                let v = subst.resolve(v);
                if v == phi || Some(v) == same {
                    continue;
                }
                if same.is_some() {
                    trivial = false;
                    break;
                }
                same = Some(v);
            }
            if let (true, Some(w)) = (trivial, same) {
                subst.insert(phi, w);
                FuncCursor::new(func).goto_inst(inst).remove_inst();
                changed = true;
            }
        }
    }
    func.dfg.apply_substitution(&subst);
}

/// Restores SSA dominance after a CFG rewrite: every use whose definition no longer
/// dominates it reads the reaching definition, with the type's zero where none reaches —
/// within the current loop iteration if a block `index` is given (blocks before the
/// definition's cut the search off), else anywhere (the reconverging transform, whose
/// rerouted paths are only taken where the original ones were). Dominance comes from
/// `analyses`, which must describe the rewritten CFG where valid, and stay valid for it.
pub(crate) fn repair_ssa(
    func: &mut Function,
    analyses: &mut FunctionAnalyses,
    index: Option<&crate::block_index::BlockIndex>,
) {
    analyses.compute(func, AnalysisSet::DOMTREE);
    let (cfg, domtree) = (analyses.cfg(), analyses.domtree());
    let preds: SecondaryMap<Block, Vec<Block>> = func
        .layout
        .blocks()
        .map(|b| (b, cfg.preds(b).to_vec()))
        .collect();
    let mut broken: Vec<BrokenUse> = Vec::new();
    for b in func.layout.blocks() {
        for &inst in func.layout.block_insts(b) {
            match func.dfg.inst(inst) {
                InstData::Phi { incoming } => {
                    for &(p, v) in incoming {
                        if let Some(d) = crate::cfg_edit::def_block(func, v) {
                            if !domtree.dominates(d, p) {
                                broken.push(BrokenUse {
                                    value: v,
                                    def: d,
                                    inst,
                                    block: b,
                                    pred: Some(p),
                                });
                            }
                        }
                    }
                }
                data => data.for_each_arg(|v| {
                    if let Some(d) = crate::cfg_edit::def_block(func, v) {
                        if d != b && !domtree.dominates(d, b) {
                            broken.push(BrokenUse {
                                value: v,
                                def: d,
                                inst,
                                block: b,
                                pred: None,
                            });
                        }
                    }
                }),
            }
        }
    }
    broken.sort_by_key(|u| u.value);
    let mut zeros = HashMap::new();
    let mut all_created = Vec::new();
    let mut i = 0;
    while i < broken.len() {
        let (v, d) = (broken[i].value, broken[i].def);
        let dpos = index.and_then(|index| index.pos(d)).unwrap_or(0);
        let cutoff =
            move |blk: Block| index.is_some_and(|index| index.pos(blk).is_none_or(|p| p < dpos));
        let ty = func.dfg.value_type(v);
        let default = crate::cfg_edit::zero_value(func, ty, &mut zeros);
        let mut search = SsaSearch::new(&preds, vec![(d, v)], &cutoff, default, ty);
        // Repair inserts φs and moves nothing: each use is still where it was found.
        while i < broken.len() && broken[i].value == v {
            let BrokenUse {
                inst, block, pred, ..
            } = broken[i];
            let new = match pred {
                Some(p) => search.at_end(func, p),
                None => search.at_entry(func, block),
            };
            match (func.dfg.inst_mut(inst), pred) {
                (InstData::Phi { incoming }, Some(p)) => {
                    for e in incoming.iter_mut() {
                        if e.0 == p && e.1 == v {
                            e.1 = new;
                        }
                    }
                }
                (data, _) => data.for_each_arg_mut(|x| {
                    if *x == v {
                        *x = new
                    }
                }),
            }
            i += 1;
        }
        all_created.extend(search.created);
    }
    remove_trivial_phis(func, &all_created);
    // φs and constants were added, no block or edge.
    analyses.keep_after(Edits::Values);
}

/// Gives `value` further definitions: `extra` lists blocks at whose end another value
/// stands for it (a reload of a spilled value at a new entry, say). Every use of `value`
/// then reads the definition that reaches it, through new φs where several meet; a path
/// on which none reaches reads the type's zero. The blocks of `extra` must not use
/// `value` themselves, nor be its defining block.
///
/// The continuations of OpenCL barriers (CC'12 §2.3) need this: a value live across a
/// barrier is reloaded at the continuation's entry, and inside a loop its original
/// definition reaches the same uses around the back edge.
pub fn add_definitions(func: &mut Function, value: Value, extra: &[(Block, Value)]) {
    let def = crate::cfg_edit::def_block(func, value);
    let mut defs: Vec<(Block, Value)> = extra.to_vec();
    match def {
        Some(d) => defs.push((d, value)),
        // A parameter: defined at the top of the entry block.
        None => {
            if let Some(entry) = func.entry_block() {
                defs.push((entry, value));
            }
        }
    }
    rewrite_to_reaching(func, value, def, defs);
}

/// Turns `variable`, a value without a placed definition, into SSA: `defs` lists blocks
/// at whose end the variable is assigned a value, and every use of `variable` then reads
/// the assignment that reaches it, through new φs where several meet; a path on which
/// none reaches reads the type's zero. The blocks of `defs` must not use `variable`.
///
/// Lowering Predicated SSA back to a CFG (SuperVectorization, PLDI'22 §3.5) needs this:
/// a gated φ becomes one assignment per incoming value, in a block built for that
/// value's gate, and SSA is restored from the assignments.
pub fn define_by_assignments(func: &mut Function, variable: Value, defs: &[(Block, Value)]) {
    rewrite_to_reaching(func, variable, None, defs.to_vec());
}

/// Rewrites every use of `value` (outside its defining block `def`, if any) to the
/// definition among `defs` that reaches it.
fn rewrite_to_reaching(
    func: &mut Function,
    value: Value,
    def: Option<Block>,
    defs: Vec<(Block, Value)>,
) {
    let mut preds: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
    for b in func.layout.blocks() {
        for s in func.successors(b) {
            if !preds[s].contains(&b) {
                preds[s].push(b);
            }
        }
    }
    // Uses first (the search inserts φs, which must keep what it gives them).
    let mut uses: Vec<(Inst, Block, Option<Block>)> = Vec::new();
    for b in func.layout.blocks() {
        for &inst in func.layout.block_insts(b) {
            match func.dfg.inst(inst) {
                InstData::Phi { incoming } => {
                    for &(p, v) in incoming {
                        if v == value {
                            uses.push((inst, b, Some(p)));
                        }
                    }
                }
                data => {
                    let mut used = false;
                    data.for_each_arg(|v| used |= v == value);
                    // A use in the defining block follows the definition (SSA).
                    if used && Some(b) != def {
                        uses.push((inst, b, None));
                    }
                }
            }
        }
    }
    let ty = func.dfg.value_type(value);
    let default = crate::cfg_edit::zero_value(func, ty, &mut HashMap::new());
    let never = |_: Block| false;
    let mut search = SsaSearch::new(&preds, defs, &never, default, ty);
    let mut rewrites = Vec::with_capacity(uses.len());
    for &(inst, block, pred) in &uses {
        let new = match pred {
            Some(p) => search.at_end(func, p),
            None => search.at_entry(func, block),
        };
        rewrites.push((inst, pred, new));
    }
    for (inst, pred, new) in rewrites {
        match (func.dfg.inst_mut(inst), pred) {
            (InstData::Phi { incoming }, Some(p)) => {
                for e in incoming.iter_mut().filter(|e| e.0 == p && e.1 == value) {
                    e.1 = new;
                }
            }
            (data, _) => data.for_each_arg_mut(|x| {
                if *x == value {
                    *x = new
                }
            }),
        }
    }
    remove_trivial_phis(func, &search.created);
}

/// A use of `value` (defined in block `def`) by `inst` in `block` that `def` no longer
/// dominates; `pred` is the incoming block of a φ use.
#[derive(Clone, Copy)]
struct BrokenUse {
    value: Value,
    def: Block,
    inst: Inst,
    block: Block,
    pred: Option<Block>,
}

/// Removes instructions whose result is unused and that have no effect (not memory
/// reads either, so that access traces stay comparable), until none is left. Cleans up
/// predicates materialized twice, constants of repairs that found their value, and
/// unused broadcasts. `roots` are used elsewhere (the masks of a side table).
///
/// Linear: uses are counted once, and removing an instruction releases its operands,
/// whose definitions join the worklist when their last use goes (a chain of dead values
/// does not cost one pass over the function per link); each block is then compacted once.
pub(crate) fn remove_dead_code(func: &mut Function, roots: &[Value]) {
    remove_dead_code_where(func, roots, |d| !(d.has_side_effects() || d.reads_memory()));
}

/// [`remove_dead_code`] of the unused instructions that `may_go` allows (never
/// terminators).
pub(crate) fn remove_dead_code_where(
    func: &mut Function,
    roots: &[Value],
    may_go: impl Fn(&InstData) -> bool,
) {
    let mut uses: SecondaryMap<Value, u32> = SecondaryMap::new();
    for &r in roots {
        uses[r] += 1;
    }
    for b in func.layout.blocks() {
        for &i in func.layout.block_insts(b) {
            func.dfg.inst(i).for_each_arg(|v| uses[v] += 1);
        }
    }
    let removable = |func: &Function, i: Inst| {
        let d = func.dfg.inst(i);
        !d.is_terminator() && may_go(d) && func.layout.inst_block(i).is_some()
    };
    let mut work: Vec<Inst> = Vec::new();
    for b in func.layout.blocks() {
        for &i in func.layout.block_insts(b) {
            let unused = func.dfg.inst_result(i).is_some_and(|r| uses[r] == 0);
            if unused && removable(func, i) {
                work.push(i);
            }
        }
    }
    let mut dead: EntitySet<Inst> = EntitySet::new();
    while let Some(i) = work.pop() {
        if !dead.insert(i) {
            continue;
        }
        let mut freed = Vec::new();
        func.dfg.inst(i).for_each_arg(|v| {
            let n = &mut uses[v];
            *n = n
                .checked_sub(1)
                .expect("a placed instruction's operands were counted, and it dies once");
            if *n == 0 {
                freed.push(v);
            }
        });
        for v in freed {
            if let ValueDef::Result(d) = func.dfg.value_def(v) {
                if removable(func, d) && !dead.contains(d) {
                    work.push(d);
                }
            }
        }
    }
    if dead.is_empty() {
        return;
    }
    let blocks: Vec<Block> = func.layout.blocks().collect();
    let mut cur = FuncCursor::new(func);
    for b in blocks {
        cur.retain_insts(b, |i| !dead.contains(i));
    }
}
