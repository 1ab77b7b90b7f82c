//! Variables with several assignments, put into SSA form at the end (Braun et al.,
//! CC'13, through [`SsaSearch`]), for the mask lowering of [`super::lower`].
//!
//! The lowering writes the execution mask, the re-join masks and the accumulators of φs
//! at many places of a CFG whose cycles it does not change, and reads them at others;
//! writing each as a variable and resolving every read at the end keeps each rule of the
//! lowering local. A read is an operand holding the variable's *placeholder*, a value no
//! instruction in the layout defines; [`Variables::resolve`] replaces it with the
//! assignment reaching the reading instruction (for a φ operand, the end of its
//! predecessor), placing φs at joins, and with the variable's initial value where no
//! assignment reaches.

use std::collections::HashMap;

use cranelift_entity::SecondaryMap;
use lanes_analysis::ControlFlowGraph;
use lanes_ir::{Block, Function, Inst, InstData, Type, Value};

use crate::ssa_repair::{remove_trivial_phis, SsaSearch};

/// One variable of a [`Variables`] set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Var(usize);

struct VarData {
    ty: Type,
    initial: Value,
    placeholder: Value,
    /// The instructions whose results are assigned to the variable.
    assignments: Vec<Inst>,
}

/// A set of variables of one function.
#[derive(Default)]
pub(super) struct Variables {
    vars: Vec<VarData>,
    by_placeholder: HashMap<Value, Var>,
}

impl Variables {
    /// A new variable of type `ty` holding `initial` (a value defined at the top of the
    /// entry block) until its first assignment.
    pub fn declare(&mut self, func: &mut Function, ty: Type, initial: Value) -> Var {
        // A result of an instruction never placed in the layout: no code can define it.
        let dummy = func.dfg.make_inst(InstData::Iconst { imm: 0 }, Some(ty));
        let placeholder = func
            .dfg
            .inst_result(dummy)
            .expect("make_inst with a result type makes a result");
        let var = Var(self.vars.len());
        self.vars.push(VarData {
            ty,
            initial,
            placeholder,
            assignments: Vec::new(),
        });
        self.by_placeholder.insert(placeholder, var);
        var
    }

    /// The operand that reads `var`.
    pub fn read(&self, var: Var) -> Value {
        self.vars[var.0].placeholder
    }

    /// Assigns the result of `inst` (already in the layout) to `var` from there on.
    pub fn assign(&mut self, var: Var, inst: Inst) {
        self.vars[var.0].assignments.push(inst);
    }

    /// Replaces every read with the reaching assignment; `func`'s CFG must be final.
    pub fn resolve(&self, func: &mut Function) {
        let cfg = ControlFlowGraph::with_function(func);
        let preds: SecondaryMap<Block, Vec<Block>> = func
            .layout
            .blocks()
            .map(|b| (b, cfg.preds(b).to_vec()))
            .collect();
        // The readers of each variable.
        let mut readers: Vec<Vec<Inst>> = vec![Vec::new(); self.vars.len()];
        for b in func.layout.blocks() {
            for &inst in func.layout.block_insts(b) {
                let mut seen: Vec<Var> = Vec::new();
                func.dfg.inst(inst).for_each_arg(|a| {
                    if let Some(&v) = self.by_placeholder.get(&a) {
                        if !seen.contains(&v) {
                            seen.push(v);
                        }
                    }
                });
                for v in seen {
                    readers[v.0].push(inst);
                }
            }
        }
        for (data, readers) in self.vars.iter().zip(readers) {
            self.resolve_one(func, &preds, data, &readers);
        }
    }

    fn resolve_one(
        &self,
        func: &mut Function,
        preds: &SecondaryMap<Block, Vec<Block>>,
        data: &VarData,
        readers: &[Inst],
    ) {
        // The value at the end of each assigning block: its last assignment.
        let mut at_end: Vec<(Block, Value)> = Vec::new();
        for &a in &data.assignments {
            let (Some(b), Some(r)) = (func.layout.inst_block(a), func.dfg.inst_result(a)) else {
                continue;
            };
            let pos = func.layout.inst_index(a);
            match at_end.iter_mut().find(|(x, _)| *x == b) {
                Some(slot) => {
                    let old = func.dfg.def_inst(slot.1).map(|i| func.layout.inst_index(i));
                    if old.is_some_and(|o| o < pos) {
                        slot.1 = r;
                    }
                }
                None => at_end.push((b, r)),
            }
        }
        let never = |_: Block| false;
        let mut search = SsaSearch::new(preds, at_end, &never, data.initial, data.ty);
        for &reader in readers {
            let Some(b) = func.layout.inst_block(reader) else {
                continue;
            };
            if let InstData::Phi { incoming } = func.dfg.inst(reader).clone() {
                let incoming = incoming
                    .into_iter()
                    .map(|(p, v)| {
                        if v == data.placeholder {
                            (p, search.at_end(func, p))
                        } else {
                            (p, v)
                        }
                    })
                    .collect();
                *func.dfg.inst_mut(reader) = InstData::Phi { incoming };
                continue;
            }
            let value = self.reaching(func, &mut search, data, b, reader);
            func.dfg.inst_mut(reader).for_each_arg_mut(|a| {
                if *a == data.placeholder {
                    *a = value;
                }
            });
        }
        let created = search.created.clone();
        remove_trivial_phis(func, &created);
    }

    /// The assignment of `data`'s variable reaching `reader` in block `b`.
    fn reaching(
        &self,
        func: &mut Function,
        search: &mut SsaSearch,
        data: &VarData,
        b: Block,
        reader: Inst,
    ) -> Value {
        let at = func.layout.inst_index(reader);
        let mut best: Option<(usize, Value)> = None;
        for &a in &data.assignments {
            if func.layout.inst_block(a) != Some(b) {
                continue;
            }
            let pos = func.layout.inst_index(a);
            if pos < at && best.is_none_or(|(p, _)| p < pos) {
                best = func.dfg.inst_result(a).map(|r| (pos, r));
            }
        }
        match best {
            Some((_, v)) => v,
            None => search.at_entry(func, b),
        }
    }
}
