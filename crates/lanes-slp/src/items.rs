//! Building items of Predicated SSA: new instructions appended to a list being made,
//! each with its predicate — constants, arithmetic, compares, gated φs, and predicates
//! computed as `i1` values. Unrolling and co-iteration make their guards and joins
//! with it.

use lanes_ir::{BinaryOp, InstData, IntCC, IntFlags, Type, UnaryOp, Value};

use crate::predicate::{Pred, PredData};
use crate::pssa::{Item, Pssa};

/// Items being built for one list.
pub(crate) struct Emit<'a> {
    pub pssa: &'a mut Pssa,
    pub items: Vec<Item>,
}

impl Emit<'_> {
    pub fn value(&mut self, data: InstData, ty: Type, pred: Pred) -> Value {
        let inst = self.pssa.func.dfg.make_inst(data, Some(ty));
        self.pssa.inst_pred[inst] = pred;
        self.items.push(Item::Inst(inst));
        self.pssa
            .func
            .dfg
            .inst_result(inst)
            .expect("made with a result")
    }

    pub fn konst(&mut self, ty: Type, imm: i64, pred: Pred) -> Value {
        self.value(InstData::Iconst { imm }, ty, pred)
    }

    pub fn binary(&mut self, op: BinaryOp, a: Value, b: Value, pred: Pred) -> Value {
        let ty = self.pssa.func.dfg.value_type(a);
        self.value(
            InstData::Binary {
                op,
                args: [a, b],
                flags: IntFlags::NONE,
            },
            ty,
            pred,
        )
    }

    pub fn icmp(&mut self, cond: IntCC, a: Value, b: Value, pred: Pred) -> Value {
        self.value(InstData::Icmp { cond, args: [a, b] }, Type::I1, pred)
    }

    /// A gated φ of `incoming`.
    pub fn phi(&mut self, ty: Type, incoming: Vec<(Pred, Value)>, pred: Pred) -> Value {
        let v = self.value(
            InstData::Phi {
                incoming: Vec::new(),
            },
            ty,
            pred,
        );
        let inst = self.pssa.func.dfg.def_inst(v).expect("just made");
        self.pssa.gates.insert(inst, incoming);
        v
    }

    /// Predicate `p` as an `i1` value, computed by items under `pred` from the
    /// conditions (a condition whose definition did not run reads a value the rest of
    /// the predicate makes irrelevant).
    pub fn materialize(&mut self, p: Pred, pred: Pred) -> Value {
        self.materialize_shared(p, pred, &mut std::collections::HashMap::new())
    }

    /// [`Emit::materialize`], each part of `p` computed once (predicates share parts).
    fn materialize_shared(
        &mut self,
        p: Pred,
        pred: Pred,
        done: &mut std::collections::HashMap<Pred, Value>,
    ) -> Value {
        if let Some(&v) = done.get(&p) {
            return v;
        }
        let v = self.materialize_once(p, pred, done);
        done.insert(p, v);
        v
    }

    fn materialize_once(
        &mut self,
        p: Pred,
        pred: Pred,
        done: &mut std::collections::HashMap<Pred, Value>,
    ) -> Value {
        match self.pssa.preds.data(p).clone() {
            PredData::True => self.konst(Type::I1, 1, pred),
            PredData::False => self.konst(Type::I1, 0, pred),
            PredData::Lit {
                cond,
                negated: false,
            } => cond,
            PredData::Lit {
                cond,
                negated: true,
            } => self.value(
                InstData::Unary {
                    op: UnaryOp::Not,
                    arg: cond,
                },
                Type::I1,
                pred,
            ),
            PredData::And(ps) | PredData::Or(ps) => {
                let op = if matches!(self.pssa.preds.data(p), PredData::And(_)) {
                    BinaryOp::And
                } else {
                    BinaryOp::Or
                };
                let mut acc = self.materialize_shared(ps[0], pred, done);
                for &q in &ps[1..] {
                    let x = self.materialize_shared(q, pred, done);
                    acc = self.binary(op, acc, x, pred);
                }
                acc
            }
        }
    }
}
