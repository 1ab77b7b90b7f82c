//! The Predicated SSA verifier: the invariants every transform must keep (after
//! Cranelift's and lanes-ir's verifiers, which check a CFG's).
//!
//! - Every item appears once; each loop's `parent` is the loop whose list holds it.
//! - Only a `ret` ends the function's list, and nothing else is a terminator.
//! - Every value an item reads — operand, gated φ incoming value, a condition of its
//!   predicate or gates — is available where it stands: a parameter, or defined by an
//!   item earlier in the pre-order of the item tree (a value of a loop's last iteration
//!   is available after the loop), or a μ-node of a loop the reader is in or follows.
//!   A μ's initial value must be available before its loop, its recurrent value at the
//!   end of its body, and so must the conditions of the continue predicate.
//! - Conditions are `i1` values, and every predicate is one of the pool's.

use std::collections::{HashMap, HashSet};

use lanes_ir::{Inst, InstData, Type, Value};

use crate::predicate::Pred;
use crate::pssa::{Item, LoopId, Pssa};
use crate::SlpError;

/// Checks `pssa`'s invariants; the first broken one is the error.
pub fn verify_pssa(pssa: &Pssa) -> Result<(), SlpError> {
    let mut v = Verifier {
        pssa,
        available: pssa.func.param_values().collect(),
        placed: HashSet::new(),
        loops_seen: HashSet::new(),
    };
    v.items(None, &pssa.items)
        .map_err(|message| SlpError::Invalid {
            func: pssa.func.name.clone(),
            message,
        })?;
    for l in pssa.loops.keys() {
        if pssa.loops[l].dead == v.loops_seen.contains(&l) {
            return Err(SlpError::Invalid {
                func: pssa.func.name.clone(),
                message: if pssa.loops[l].dead {
                    format!("loop {l} was merged into another but is still in a list")
                } else {
                    format!("loop {l} is in no item list")
                },
            });
        }
    }
    Ok(())
}

struct Verifier<'a> {
    pssa: &'a Pssa,
    available: HashSet<Value>,
    placed: HashSet<Inst>,
    loops_seen: HashSet<LoopId>,
}

impl Verifier<'_> {
    fn items(&mut self, parent: Option<LoopId>, items: &[Item]) -> Result<(), String> {
        for (k, &item) in items.iter().enumerate() {
            let pred = self.pssa.pred_of(item);
            self.pred(pred, &format!("the predicate of {}", self.describe(item)))?;
            match item {
                Item::Inst(inst) => self.inst(parent, inst, k + 1 == items.len())?,
                Item::Loop(l) => self.lp(parent, l)?,
            }
        }
        Ok(())
    }

    fn describe(&self, item: Item) -> String {
        match item {
            Item::Inst(i) => match self.pssa.func.dfg.inst_result(i) {
                Some(v) => format!("{v}"),
                None => format!("{i} ({})", self.pssa.func.dfg.inst(i).opcode_name()),
            },
            Item::Loop(l) => format!("loop {l}"),
        }
    }

    fn pred(&self, p: crate::predicate::Pred, what: &str) -> Result<(), String> {
        if !self.pssa.preds.is_valid(p) {
            return Err(format!("{what} is not a predicate of the pool"));
        }
        let mut err = None;
        self.pssa.preds.for_each_cond(p, &mut |c| {
            if err.is_some() {
                return;
            }
            if !self.pssa.func.dfg.is_valid_value(c) || self.pssa.func.dfg.value_type(c) != Type::I1
            {
                err = Some(format!("{what} reads {c}, which is not an i1 value"));
            } else if !self.available.contains(&c) {
                err = Some(format!("{what} reads {c} before it is defined"));
            }
        });
        err.map_or(Ok(()), Err)
    }

    fn inst(&mut self, parent: Option<LoopId>, inst: Inst, last: bool) -> Result<(), String> {
        let pssa = self.pssa;
        let what = self.describe(Item::Inst(inst));
        if !pssa.func.dfg.is_valid_inst(inst) || !self.placed.insert(inst) {
            return Err(format!("{what} appears twice or is not an instruction"));
        }
        let data = pssa.func.dfg.inst(inst);
        match data {
            InstData::Return { .. } if parent.is_none() && last => {}
            InstData::Phi { .. } if pssa.gates.contains_key(&inst) => {
                for &(g, _) in &pssa.gates[&inst] {
                    self.pred(g, &format!("a gate of {what}"))?;
                }
            }
            InstData::Phi { .. } => {
                return Err(format!("{what} is a φ with neither gates nor loop"))
            }
            d if d.is_terminator() => {
                return Err(format!(
                    "{what} is a terminator; only a `ret` ending the function is allowed"
                ))
            }
            _ => {}
        }
        let mut missing = None;
        pssa.for_each_operand(inst, |v| {
            if missing.is_none() && !self.available.contains(&v) {
                missing = Some(v);
            }
        });
        if let Some(v) = missing {
            return Err(format!("{what} reads {v} before it is defined"));
        }
        if let Some(v) = pssa.func.dfg.inst_result(inst) {
            self.available.insert(v);
        }
        Ok(())
    }

    fn lp(&mut self, parent: Option<LoopId>, l: LoopId) -> Result<(), String> {
        let pssa = self.pssa;
        if !pssa.loops.is_valid(l) || !self.loops_seen.insert(l) {
            return Err(format!("loop {l} appears twice or does not exist"));
        }
        let data = &pssa.loops[l];
        if data.parent != parent {
            return Err(format!(
                "loop {l} says its parent is {:?} but is in the list of {parent:?}",
                data.parent
            ));
        }
        for m in &data.mus {
            if !self.available.contains(&m.init) {
                return Err(format!(
                    "μ {} of {l} starts from {}, not yet defined",
                    m.value, m.init
                ));
            }
            if !self.placed.insert(m.inst) {
                return Err(format!("μ {} of {l} appears twice", m.value));
            }
        }
        for m in &data.mus {
            self.available.insert(m.value);
        }
        self.items(Some(l), &data.items)?;
        for m in &data.mus {
            if !self.available.contains(&m.rec) {
                return Err(format!(
                    "μ {} of {l} recurs from {}, not defined in the loop",
                    m.value, m.rec
                ));
            }
        }
        self.pred(data.cont, &format!("the continue predicate of {l}"))
    }
}

/// The most literals a control predicate, gate or loop predicate may have written out.
pub const MAX_PREDICATE_TERMS: u64 = 4096;

/// The most literals a predicate made by unrolling and merging loops may have written
/// out: copies multiply the predicates of what they copy, and lowering branches on each
/// (an unrolling that goes past this is not kept).
pub const MAX_UNROLLED_PREDICATE_TERMS: u64 = 256;

/// Declines a function whose predicates would be too large to lower: a chain of joins
/// whose paths cross (clang's expansion of nested `MIN`/`MAX` macros, say) can make
/// path predicates that share parts at every level, exponentially many when written
/// out as the short-circuit branches of lowering (§3.5) test them.
pub(crate) fn check_predicate_sizes(pssa: &Pssa, limit: u64) -> Result<(), SlpError> {
    let mut memo = HashMap::new();
    let mut all: Vec<Pred> = Vec::new();
    for (_, item) in pssa.walk() {
        match item {
            Item::Inst(i) => {
                all.push(pssa.inst_pred[i]);
                all.extend(pssa.gates.get(&i).into_iter().flatten().map(|g| g.0));
            }
            Item::Loop(l) => all.extend([pssa.loops[l].pred, pssa.loops[l].cont]),
        }
    }
    for p in all {
        if pssa.preds.written_size(p, &mut memo) > limit {
            return Err(SlpError::TooComplex {
                func: pssa.func.name.clone(),
                terms: limit,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::to_pssa;

    const LOOP: &str = "function @f(v0: i32) -> i32 {
block0:
    v1: i32 = iconst 0
    v2: i32 = iconst 1
    br block1
block1:
    v3: i32 = phi [block0: v1], [block2: v5]
    v4: i1 = icmp slt v3, v0
    brif v4, block2, block3
block2:
    v5: i32 = add v3, v2
    br block1
block3:
    ret v3
}";

    fn pssa() -> Pssa {
        let m = lanes_ir::parse_module(LOOP).expect("parses");
        let f = m.functions().next().expect("one").1;
        let p = to_pssa(f).expect("converts");
        verify_pssa(&p).expect("the conversion verifies");
        p
    }

    fn message(p: &Pssa) -> String {
        verify_pssa(p).expect_err("broken").to_string()
    }

    #[test]
    fn a_use_before_its_definition_is_found() {
        let mut p = pssa();
        // The counter's increment moved in front of the loop.
        let Some(pos) = p.items.iter().position(|i| matches!(i, Item::Loop(_))) else {
            panic!("a loop");
        };
        let Item::Loop(l) = p.items[pos] else {
            unreachable!()
        };
        let inc = p.loops[l].items.iter().copied().find(|&i| {
            matches!(i, Item::Inst(x) if matches!(p.func.dfg.inst(x), InstData::Binary { .. }))
        });
        let inc = inc.expect("the add");
        p.loops[l].items.retain(|&i| i != inc);
        p.items.insert(pos, inc);
        assert!(
            message(&p).contains("before it is defined"),
            "{}",
            message(&p)
        );
    }

    #[test]
    fn an_item_twice_and_a_lost_loop_are_found() {
        let mut p = pssa();
        let first = p.items[0];
        let before_ret = p.items.len() - 1;
        p.items.insert(before_ret, first);
        assert!(message(&p).contains("appears twice"), "{}", message(&p));
        let mut p = pssa();
        p.items.retain(|i| !matches!(i, Item::Loop(_)));
        assert!(
            message(&p).contains("before it is defined") || message(&p).contains("in no item list")
        );
    }

    #[test]
    fn a_predicate_on_a_non_boolean_is_found() {
        let mut p = pssa();
        let Item::Inst(first) = p.items[0] else {
            panic!("an instruction first")
        };
        let v = p.func.dfg.inst_result(first).expect("iconst");
        let bad = p.preds.lit(v, false);
        p.inst_pred[first] = bad;
        assert!(message(&p).contains("not an i1 value"), "{}", message(&p));
    }

    #[test]
    fn a_ret_that_is_not_last_is_found() {
        let mut p = pssa();
        let ret = p.items.pop().expect("ret last");
        p.items.insert(0, ret);
        assert!(message(&p).contains("terminator"), "{}", message(&p));
    }
}
