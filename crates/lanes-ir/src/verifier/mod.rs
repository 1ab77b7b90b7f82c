//! The IR verifier: structure, SSA dominance, types, φ/predecessor agreement, terminators.
//!
//! Every transformation in lanes is checked by running the verifier after it (debug builds
//! and tests, ARCHITECTURE.md "The IR"), so its errors must point at the culprit: each
//! error names the function and the entity it concerns (block, instruction with its text,
//! value, global), and one run reports every error it finds rather than stopping at the
//! first, like Cranelift's `verifier/mod.rs`.
//!
//! Rules:
//! - every block in the layout is non-empty and ends in its only terminator; φs stand at
//!   the top; the entry block has no predecessors and no φs; branch targets are in the
//!   layout;
//! - every value used is defined: a parameter, or the result of a placed instruction;
//! - SSA dominance: a definition dominates each use; a φ operand's definition dominates
//!   the end of its incoming block. Uses in unreachable blocks are exempt, as in LLVM;
//! - each φ lists every distinct predecessor block exactly once, and nothing else;
//! - an instruction has a result exactly when its kind (or its callee) produces one;
//! - operand and result types obey the rules in `typing`;
//! - globals' initializers match their size; alignments are powers of two.

mod dominance;
mod typing;

use core::fmt;

use cranelift_entity::SecondaryMap;

use crate::dfg::ValueDef;
use crate::entities::{Block, GlobalId, Inst, Value};
use crate::function::Function;
use crate::instructions::InstData;
use crate::module::Module;
use crate::write::inst_to_string;
use dominance::BlockDominance;

/// What an error is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    Function,
    Block(Block),
    /// An instruction, its block (if placed) and its printed text.
    Inst {
        inst: Inst,
        block: Option<Block>,
        text: String,
    },
    Value(Value),
    Global(GlobalId),
}

/// One verifier finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifierError {
    /// The function's name (empty for module-level errors).
    pub function: String,
    pub location: Location,
    pub message: String,
}

impl fmt::Display for VerifierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.function.is_empty() {
            write!(f, "@{}: ", self.function)?;
        }
        match &self.location {
            Location::Function => {}
            Location::Block(b) => write!(f, "{b}: ")?,
            Location::Inst { inst, block, text } => {
                if let Some(b) = block {
                    write!(f, "{b}: ")?;
                }
                write!(f, "{inst} `{text}`: ")?;
            }
            Location::Value(v) => write!(f, "{v}: ")?,
            Location::Global(g) => write!(f, "{g}: ")?,
        }
        f.write_str(&self.message)
    }
}

/// All findings of one verifier run (never empty).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct VerifierErrors(pub Vec<VerifierError>);

impl fmt::Display for VerifierErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

/// Verifies every global and every defined function of `module`.
pub fn verify_module(module: &Module) -> Result<(), VerifierErrors> {
    let mut errors = Vec::new();
    for (id, g) in module.globals.iter() {
        let mut err = |message: String| {
            errors.push(VerifierError {
                function: String::new(),
                location: Location::Global(id),
                message,
            })
        };
        if g.init
            .as_ref()
            .is_some_and(|init| init.len() as u64 != g.size)
        {
            err(format!(
                "@{} has {} initializer bytes for size {}",
                g.name,
                g.init.as_ref().map_or(0, Vec::len),
                g.size
            ));
        }
        if g.align != 0 && !g.align.is_power_of_two() {
            err(format!(
                "@{} has alignment {}, not a power of two",
                g.name, g.align
            ));
        }
    }
    for (_, func) in module.functions() {
        if let Err(VerifierErrors(mut errs)) = verify_function(module, func) {
            errors.append(&mut errs);
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(VerifierErrors(errors))
    }
}

/// Verifies one function of `module`.
pub fn verify_function(module: &Module, func: &Function) -> Result<(), VerifierErrors> {
    // Each instruction's position in its block, computed once: asking the layout per use
    // would make the check quadratic in the size of a block.
    let mut position = SecondaryMap::with_default(0u32);
    for block in func.layout.blocks() {
        for (i, &inst) in func.layout.block_insts(block).iter().enumerate() {
            position[inst] = u32::try_from(i).unwrap_or(u32::MAX);
        }
    }
    let mut v = Verifier {
        module,
        func,
        position,
        errors: Vec::new(),
    };
    v.run();
    if v.errors.is_empty() {
        Ok(())
    } else {
        Err(VerifierErrors(v.errors))
    }
}

struct Verifier<'a> {
    module: &'a Module,
    func: &'a Function,
    /// Index of each placed instruction within its block.
    position: SecondaryMap<Inst, u32>,
    errors: Vec<VerifierError>,
}

impl Verifier<'_> {
    fn report(&mut self, location: Location, message: String) {
        self.errors.push(VerifierError {
            function: self.func.name.clone(),
            location,
            message,
        });
    }

    fn inst_location(&self, inst: Inst) -> Location {
        Location::Inst {
            inst,
            block: self.func.layout.inst_block(inst),
            text: inst_to_string(self.module, self.func, inst),
        }
    }

    fn report_inst(&mut self, inst: Inst, message: String) {
        let loc = self.inst_location(inst);
        self.report(loc, message);
    }

    fn run(&mut self) {
        let func = self.func;
        for (i, p) in func.params.iter().enumerate() {
            if !func.dfg.is_valid_value(p.value)
                || func.dfg.value_def(p.value) != ValueDef::Param(i)
            {
                self.report(
                    Location::Value(p.value),
                    format!("is listed as parameter {i} but not defined as one"),
                );
            }
            if p.attrs.align != 0 && !p.attrs.align.is_power_of_two() {
                self.report(
                    Location::Value(p.value),
                    format!("alignment {} is not a power of two", p.attrs.align),
                );
            }
        }
        let Some(entry) = func.entry_block() else {
            self.report(Location::Function, "has no blocks".to_string());
            return;
        };
        if !self.check_structure(entry) {
            return; // dominance and φ checks need well-formed blocks and targets
        }
        let preds = self.predecessors();
        if !preds[entry].is_empty() {
            self.report(
                Location::Block(entry),
                "the entry block must not have predecessors".to_string(),
            );
        }
        let dom = BlockDominance::compute(func);
        for block in func.layout.blocks() {
            for &inst in func.layout.block_insts(block) {
                self.check_inst(inst, block, &preds, &dom);
            }
        }
    }

    /// Block shape and branch targets; false if later checks cannot run.
    fn check_structure(&mut self, entry: Block) -> bool {
        let func = self.func;
        let mut ok = true;
        for block in func.layout.blocks() {
            let insts = func.layout.block_insts(block);
            if insts.is_empty() {
                self.report(
                    Location::Block(block),
                    "is empty; every block needs a terminator".to_string(),
                );
                ok = false;
                continue;
            }
            let mut seen_non_phi = false;
            for (i, &inst) in insts.iter().enumerate() {
                let data = func.dfg.inst(inst);
                let last = i + 1 == insts.len();
                if data.is_terminator() && !last {
                    self.report_inst(inst, "terminator in the middle of a block".to_string());
                    ok = false;
                }
                if last && !data.is_terminator() {
                    self.report_inst(inst, format!("{block} does not end in a terminator"));
                    ok = false;
                }
                if data.is_phi() {
                    if seen_non_phi {
                        self.report_inst(
                            inst,
                            "φ after a non-φ instruction; φs must stand at the top of the block"
                                .to_string(),
                        );
                    }
                    if block == entry {
                        self.report_inst(inst, "φ in the entry block".to_string());
                    }
                } else {
                    seen_non_phi = true;
                }
                for target in data.branch_targets() {
                    if !func.dfg.is_valid_block(target) || !func.layout.is_block_inserted(target) {
                        self.report_inst(
                            inst,
                            format!("branches to {target}, which is not in the layout"),
                        );
                        ok = false;
                    }
                }
                if let InstData::Phi { incoming } = data {
                    for (b, _) in incoming {
                        if !func.dfg.is_valid_block(*b) || !func.layout.is_block_inserted(*b) {
                            self.report_inst(
                                inst,
                                format!("φ names {b}, which is not in the layout"),
                            );
                            ok = false;
                        }
                    }
                }
            }
        }
        ok
    }

    /// Distinct predecessor blocks of each block, in layout order.
    fn predecessors(&self) -> SecondaryMap<Block, Vec<Block>> {
        let mut preds: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
        for block in self.func.layout.blocks() {
            for s in self.func.successors(block) {
                if !preds[s].contains(&block) {
                    preds[s].push(block);
                }
            }
        }
        preds
    }

    fn check_inst(
        &mut self,
        inst: Inst,
        block: Block,
        preds: &SecondaryMap<Block, Vec<Block>>,
        dom: &BlockDominance,
    ) {
        let func = self.func;
        let data = func.dfg.inst(inst);
        let result = func.dfg.inst_result(inst);
        // Result presence.
        let wants = match data.has_result() {
            Some(w) => Some(w),
            None => match data {
                InstData::Call { func: callee, .. } => self
                    .module
                    .funcs
                    .get(*callee)
                    .map(|f| f.signature().ret.is_some()),
                // The result's type is the callee's return type.
                _ => None,
            },
        };
        match (wants, result) {
            (Some(true), None) => {
                self.report_inst(inst, "produces a value but has no result".to_string())
            }
            (Some(false), Some(r)) => {
                self.report_inst(inst, format!("has result {r} but produces no value"))
            }
            _ => {}
        }
        // Fast-math flags only where LLVM allows them.
        if !func.dfg.fast_math(inst).is_empty()
            && !takes_fast_math(data, result.map(|r| func.dfg.value_type(r)))
        {
            self.report_inst(
                inst,
                "has fast-math flags but is no floating-point operation".into(),
            );
        }
        // Operands exist and are defined by placed instructions or parameters.
        let mut all_defined = true;
        for arg in data.args() {
            if !self.value_is_defined(arg) {
                self.report_inst(inst, format!("uses {arg}, which is not defined"));
                all_defined = false;
            }
        }
        if !all_defined {
            return;
        }
        let mut type_errors = Vec::new();
        typing::check_inst(
            self.module,
            func,
            data,
            result.map(|r| func.dfg.value_type(r)),
            &mut type_errors,
        );
        for msg in type_errors {
            self.report_inst(inst, msg);
        }
        // φ / predecessor agreement and SSA dominance.
        if let InstData::Phi { incoming } = data {
            let mut listed: Vec<Block> = Vec::new();
            for &(pred, _) in incoming {
                if listed.contains(&pred) {
                    self.report_inst(inst, format!("lists {pred} twice"));
                }
                listed.push(pred);
                if !preds[block].contains(&pred) {
                    self.report_inst(
                        inst,
                        format!("lists {pred}, which is not a predecessor of {block}"),
                    );
                }
            }
            for &pred in &preds[block] {
                if !listed.contains(&pred) {
                    self.report_inst(inst, format!("has no value for predecessor {pred}"));
                }
            }
            for &(pred, v) in incoming {
                if dom.is_reachable(pred) && !self.def_dominates_end_of(v, pred, dom) {
                    self.report_inst(inst, format!("{v} does not dominate the end of {pred}"));
                }
            }
        } else if dom.is_reachable(block) {
            let index = self.position[inst] as usize;
            for arg in data.args() {
                if !self.def_dominates_use(arg, block, index, dom) {
                    self.report_inst(
                        inst,
                        format!("use of {arg} is not dominated by its definition"),
                    );
                }
            }
        }
    }

    fn value_is_defined(&self, v: Value) -> bool {
        let dfg = &self.func.dfg;
        if !dfg.is_valid_value(v) {
            return false;
        }
        match dfg.value_def(v) {
            ValueDef::Param(i) => self.func.params.get(i).is_some_and(|p| p.value == v),
            ValueDef::Result(def) => {
                dfg.inst_result(def) == Some(v) && self.func.layout.inst_block(def).is_some()
            }
        }
    }

    fn def_block(&self, v: Value) -> Option<(Block, usize)> {
        match self.func.dfg.value_def(v) {
            ValueDef::Param(_) => None,
            ValueDef::Result(def) => {
                let b = self.func.layout.inst_block(def)?;
                Some((b, self.position[def] as usize))
            }
        }
    }

    fn def_dominates_use(
        &self,
        v: Value,
        block: Block,
        index: usize,
        dom: &BlockDominance,
    ) -> bool {
        match self.def_block(v) {
            None => true,
            Some((db, di)) if db == block => di < index,
            Some((db, _)) => dom.is_reachable(db) && dom.dominates(db, block),
        }
    }

    fn def_dominates_end_of(&self, v: Value, pred: Block, dom: &BlockDominance) -> bool {
        match self.def_block(v) {
            None => true,
            Some((db, _)) => dom.is_reachable(db) && dom.dominates(db, pred),
        }
    }
}

/// May `data` with result type `result` carry fast-math flags? (LLVM: floating-point
/// arithmetic, `fneg`, `fcmp`, and `select`, φ and calls of a floating-point type.)
fn takes_fast_math(data: &InstData, result: Option<crate::types::Type>) -> bool {
    let float_result = result.is_some_and(|t| t.is_float());
    match data {
        InstData::Fcmp { .. } => true,
        InstData::Binary { .. }
        | InstData::Unary { .. }
        | InstData::Select { .. }
        | InstData::Phi { .. }
        | InstData::Call { .. }
        | InstData::CallIndirect { .. }
        | InstData::Intrinsic { .. } => float_result,
        _ => false,
    }
}
