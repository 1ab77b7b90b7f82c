//! Predicated SSA (SuperVectorization, PLDI'22 §3.1, Fig. 4): a function as a flat list
//! of *items* — instructions and loops — each with a control predicate saying whether it
//! executes, instead of a control-flow graph.
//!
//! ```text
//! fn   := item_1 : p_1, …, item_n : p_n
//! loop := with v_1 = mu(init, rec), … do item_1 : p_1, … while p_cont
//! phi  := phi(v_1 : p_1, …, v_n : p_n)           (gated φ)
//! ```
//!
//! Code motion is then a reordering of a list: an item moves with its predicate and no
//! control-flow information is lost. The instructions themselves stay in the function's
//! data-flow graph (lanes-ir's "what"); a [`Pssa`] replaces its layout (the "where") with
//! the item tree. Loop-header φs are μ-nodes ([`Mu`]) of their loop and forward φs are
//! gated ([`Pssa::gates`]); both keep their `Phi` instruction for its result value, with
//! the instruction's own incoming list emptied so that only these tables speak for it.
//!
//! Inside a loop, predicates are relative to one iteration (an item with predicate
//! `true` runs in every iteration the loop runs); a value defined in a loop and read
//! after it is the one of the last iteration.

use std::collections::HashMap;

use cranelift_entity::{entity_impl, PrimaryMap, SecondaryMap};
use lanes_ir::{Function, Inst, InstData, Type, Value};

use crate::predicate::{Pred, PredPool};

/// A loop of a [`Pssa`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LoopId(u32);
entity_impl!(LoopId, "L");

/// An element of a function's or a loop's item list.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Item {
    Inst(Inst),
    Loop(LoopId),
}

/// What reads a value ([`Pssa::for_each_read`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reader {
    /// An instruction item, as an operand (or a gated φ's incoming value).
    Operand(Inst),
    /// An instruction item, as a condition of its predicate or of its gates.
    Cond(Inst),
    /// The μ-node of this φ instruction, as its initial or recursive value.
    Mu(Inst),
    /// A loop, as a condition of its own predicate.
    LoopPred(LoopId),
    /// A loop, as a condition of its continue predicate.
    LoopCont(LoopId),
}

/// A loop-carried value: `value = mu(init, rec)` is `init` in the first iteration and the
/// previous iteration's `rec` in every later one.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Mu {
    /// The φ instruction whose result this is.
    pub inst: Inst,
    pub value: Value,
    pub init: Value,
    pub rec: Value,
}

/// A loop: `with mus do items while cont`. The body runs at least once when the loop's
/// own predicate holds, and again as long as `cont` holds at the end of an iteration.
#[derive(Clone, Debug)]
pub struct LoopData {
    /// The loop whose item list holds this one (`None`: the function's).
    pub parent: Option<LoopId>,
    /// The loop's own control predicate, in its parent.
    pub pred: Pred,
    pub mus: Vec<Mu>,
    pub items: Vec<Item>,
    /// The continue predicate.
    pub cont: Pred,
    /// LLVM loop hints (`llvm.loop.mustprogress`, pragmas), put back on the latch of the
    /// lowered loop; a main loop of unrolled copies also says `llvm.loop.isvectorized`.
    pub hints: Vec<lanes_ir::LoopHint>,
    /// Merged into another loop (fusion, co-iteration): in no list any more.
    pub dead: bool,
    /// μ-nodes that are one μ-node of each of the loops merged into this one (copies of
    /// one loop, from unrolling the loop around them), lane by lane, and the flags and
    /// held live-outs co-iteration gave each: the seeds of vector μ-nodes (Fig. 11).
    pub columns: Vec<Vec<Inst>>,
}

/// A function in Predicated SSA.
#[derive(Clone)]
pub struct Pssa {
    /// The function whose data-flow graph holds the instructions; its layout is empty.
    pub func: Function,
    pub preds: PredPool,
    /// The function's items; a `ret` comes last.
    pub items: Vec<Item>,
    pub loops: PrimaryMap<LoopId, LoopData>,
    /// The control predicate of every instruction item (of the item list it is in).
    pub inst_pred: SecondaryMap<Inst, Pred>,
    /// The gated φs: their incoming values, each with the predicate under which it is
    /// the one that arrives.
    pub gates: HashMap<Inst, Vec<(Pred, Value)>>,
}

impl Pssa {
    /// The control predicate of `item` in the list that holds it.
    pub fn pred_of(&self, item: Item) -> Pred {
        match item {
            Item::Inst(i) => self.inst_pred[i],
            Item::Loop(l) => self.loops[l].pred,
        }
    }

    /// The item list of `l` (`None`: the function's).
    pub fn items_of(&self, l: Option<LoopId>) -> &[Item] {
        match l {
            Some(l) => &self.loops[l].items,
            None => &self.items,
        }
    }

    /// The item list holding loop `l` (its parent's, or the function's) and `l`'s
    /// position in it.
    pub fn list_holding(&mut self, l: LoopId) -> (&mut Vec<Item>, usize) {
        let list = match self.loops[l].parent {
            Some(q) => &mut self.loops[q].items,
            None => &mut self.items,
        };
        let at = list
            .iter()
            .position(|&i| i == Item::Loop(l))
            .expect("a loop is in its parent's list");
        (list, at)
    }

    /// The μ-nodes of `l` keyed by their instruction, for lookups.
    pub fn mu_of(&self, l: LoopId, inst: Inst) -> Option<&Mu> {
        self.loops[l].mus.iter().find(|m| m.inst == inst)
    }

    /// Calls `f` on every value instruction `inst` reads: the incoming values of a gated
    /// φ, the operands of any other instruction. (A μ's values are its loop's.)
    pub fn for_each_operand(&self, inst: Inst, mut f: impl FnMut(Value)) {
        match self.gates.get(&inst) {
            Some(gates) => gates.iter().for_each(|&(_, v)| f(v)),
            None => self.func.dfg.inst(inst).for_each_arg(f),
        }
    }

    /// Calls `f` on every branch condition `inst` depends on: those of its predicate and,
    /// for a gated φ, of its gates.
    pub fn for_each_cond(&self, inst: Inst, mut f: impl FnMut(Value)) {
        self.preds.for_each_cond(self.inst_pred[inst], &mut f);
        if let Some(gates) = self.gates.get(&inst) {
            for &(g, _) in gates {
                self.preds.for_each_cond(g, &mut f);
            }
        }
    }

    /// Calls `f` on every read of a value in the function, with who reads it: the
    /// operands and conditions of every instruction item at any depth, the initial and
    /// recursive values of every μ-node, and every loop's own and continue predicates.
    pub fn for_each_read(&self, mut f: impl FnMut(Reader, Value)) {
        for (_, item) in self.walk() {
            match item {
                Item::Inst(i) => {
                    self.for_each_operand(i, |v| f(Reader::Operand(i), v));
                    self.for_each_cond(i, |v| f(Reader::Cond(i), v));
                }
                Item::Loop(l) => {
                    let d = &self.loops[l];
                    for m in &d.mus {
                        f(Reader::Mu(m.inst), m.init);
                        f(Reader::Mu(m.inst), m.rec);
                    }
                    self.preds
                        .for_each_cond(d.pred, &mut |v| f(Reader::LoopPred(l), v));
                    self.preds
                        .for_each_cond(d.cont, &mut |v| f(Reader::LoopCont(l), v));
                }
            }
        }
    }

    /// A new φ instruction of type `ty` in no list, and its result: a μ-node's or a
    /// gated φ's, whose incoming values the tables hold.
    pub fn new_phi(&mut self, ty: Type) -> (Inst, Value) {
        let inst = self.func.dfg.make_inst(
            InstData::Phi {
                incoming: Vec::new(),
            },
            Some(ty),
        );
        (
            inst,
            self.func.dfg.inst_result(inst).expect("a φ has a result"),
        )
    }

    /// Every item in pre-order (a loop before its items), with the loop holding it.
    pub fn walk(&self) -> Vec<(Option<LoopId>, Item)> {
        let mut out = Vec::new();
        let mut stack: Vec<(Option<LoopId>, &[Item])> = vec![(None, &self.items)];
        while let Some((l, items)) = stack.pop() {
            let Some((&first, rest)) = items.split_first() else {
                continue;
            };
            stack.push((l, rest));
            out.push((l, first));
            if let Item::Loop(inner) = first {
                stack.push((Some(inner), &self.loops[inner].items));
            }
        }
        out
    }

    /// Number of instruction items (μ-nodes not counted).
    pub fn num_insts(&self) -> usize {
        self.walk()
            .iter()
            .filter(|(_, i)| matches!(i, Item::Inst(_)))
            .count()
    }

    /// Is `inst` a gated φ?
    pub fn is_gated_phi(&self, inst: Inst) -> bool {
        self.gates.contains_key(&inst) && matches!(self.func.dfg.inst(inst), InstData::Phi { .. })
    }
}
