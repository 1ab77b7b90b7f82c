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
        // The assignments of each block in block order, and the value at the end of each
        // assigning block: its last assignment.
        let mut by_block: HashMap<Block, Vec<Inst>> = HashMap::new();
        for &a in &data.assignments {
            if let Some(b) = func.layout.inst_block(a) {
                by_block.entry(b).or_default().push(a);
            }
        }
        for insts in by_block.values_mut() {
            insts.sort_by_key(|&a| func.layout.inst_index(a));
        }
        let at_end: Vec<(Block, Value)> = by_block
            .iter()
            .filter_map(|(&b, insts)| Some((b, func.dfg.inst_result(*insts.last()?)?)))
            .collect();
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
            let here = by_block.get(&b).map_or(&[][..], Vec::as_slice);
            let value = reaching(func, &mut search, here, b, reader);
            func.dfg.inst_mut(reader).for_each_arg_mut(|a| {
                if *a == data.placeholder {
                    *a = value;
                }
            });
        }
        let created = search.created.clone();
        remove_trivial_phis(func, &created);
    }
}

/// The assignment reaching `reader` in block `b`, whose own assignments (in block order)
/// are `here`.
fn reaching(
    func: &mut Function,
    search: &mut SsaSearch,
    here: &[Inst],
    b: Block,
    reader: Inst,
) -> Value {
    // φs the search inserts shift indices, but not the order within the block.
    let at = func.layout.inst_index(reader);
    let before = here
        .iter()
        .rev()
        .find(|&&a| func.layout.inst_index(a) < at)
        .and_then(|&a| func.dfg.inst_result(a));
    match before {
        Some(v) => v,
        None => search.at_entry(func, b),
    }
}
