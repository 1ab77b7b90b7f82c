//! Operand vectors of packs: vectors built from scalars, zero vectors, masks from
//! predicates (packed conditions where the packer found them), and addresses recomputed
//! where a masked access runs (SuperVectorization, PLDI'22 §3.4).

use lanes_ir::{BinaryOp, CastOp, InstData, IntFlags, Intrinsic, Type, UnaryOp, Value};

use super::Emitter;
use crate::address::{Address, Term};
use crate::pack_tree::{Mask, Node};
use crate::predicate::Pred;

impl Emitter<'_> {
    /// A zero vector of type `ty` (for masked loads' inactive lanes).
    pub(super) fn zero_vector(&mut self, ty: Type) -> Value {
        if let Some(&v) = self.zero.get(&ty) {
            return v;
        }
        let t = self.e.pssa.preds.always();
        let scalar = Type::from(ty.elem());
        let data = if scalar.is_float() {
            InstData::Fconst { bits: 0 }
        } else {
            InstData::Iconst { imm: 0 }
        };
        let s = self.e.value(data, scalar, t);
        let v = self.e.value(
            InstData::Intrinsic {
                id: Intrinsic::Broadcast,
                args: vec![s],
            },
            ty,
            t,
        );
        self.zero.insert(ty, v);
        v
    }

    /// A vector whose lanes are `values`.
    pub(super) fn build(&mut self, values: &[Value], pred: Pred) -> Value {
        let elem = self.e.pssa.func.dfg.value_type(values[0]).elem();
        let ty = Type::vector(values.len() as u16, elem);
        let mut v = self.e.value(
            InstData::Intrinsic {
                id: Intrinsic::Broadcast,
                args: vec![values[0]],
            },
            ty,
            pred,
        );
        for (lane, &x) in values.iter().enumerate().skip(1) {
            if x == values[0] {
                continue;
            }
            let idx = self.lane_index(lane);
            v = self.e.value(
                InstData::Intrinsic {
                    id: Intrinsic::Insert,
                    args: vec![v, x, idx],
                },
                ty,
                pred,
            );
        }
        v
    }

    /// The mask whose lane `i` is `preds[i]`: the packed conditions of `packed` where
    /// the packer found them, else the predicates computed lane by lane.
    pub(super) fn lane_mask(
        &mut self,
        nodes: &[Node],
        tree: usize,
        packed: Option<&Mask>,
        preds: &[Pred],
        pred: Pred,
    ) -> Value {
        let Some(m) = packed else {
            return self.mask(preds, pred);
        };
        let mut acc: Option<Value> = None;
        for &(node, negated) in &m.parts {
            let mut v = self.operand(nodes, tree, node, pred);
            let ty = self.e.pssa.func.dfg.value_type(v);
            if negated {
                v = self.e.value(
                    InstData::Unary {
                        op: UnaryOp::Not,
                        arg: v,
                    },
                    ty,
                    pred,
                );
            }
            acc = Some(match acc {
                None => v,
                Some(a) => self.e.value(
                    InstData::Binary {
                        op: BinaryOp::And,
                        args: [a, v],
                        flags: IntFlags::NONE,
                    },
                    ty,
                    pred,
                ),
            });
        }
        acc.expect("a mask has parts")
    }

    /// The mask whose lane `i` is `preds[i]`.
    pub(super) fn mask(&mut self, preds: &[Pred], pred: Pred) -> Value {
        let always = self.e.pssa.preds.always();
        let bits: Vec<Value> = preds
            .iter()
            .map(|&p| self.e.materialize(p, always))
            .collect();
        self.build(&bits, pred)
    }

    /// The address `addr` computed afresh under `pred`: a masked access runs where any
    /// lane's predicate holds, and the pointer of one lane may have been computed only
    /// under that lane's. Everything the address reads is read by every lane's address,
    /// so it has run whenever some lane is active.
    pub(super) fn address(&mut self, addr: &Address, pred: Pred) -> Value {
        let mut sum: Option<Value> = None;
        let konst = |e: &mut Self, c: i64| e.e.konst(Type::I64, c, pred);
        for &(term, coeff) in &addr.terms {
            let v = match term {
                Term::Value(v) => v,
                Term::Sext(x) | Term::Zext(x) => {
                    let op = if matches!(term, Term::Sext(_)) {
                        CastOp::Sext
                    } else {
                        CastOp::Zext
                    };
                    self.e.value(
                        InstData::Cast {
                            op,
                            arg: x,
                            flags: IntFlags::NONE,
                        },
                        Type::I64,
                        pred,
                    )
                }
            };
            let c = konst(self, coeff);
            let scaled = self.e.binary(BinaryOp::Mul, v, c, pred);
            sum = Some(match sum {
                Some(acc) => self.e.binary(BinaryOp::Add, acc, scaled, pred),
                None => scaled,
            });
        }
        let k = konst(self, addr.offset);
        let offset = match sum {
            Some(acc) => self.e.binary(BinaryOp::Add, acc, k, pred),
            None => k,
        };
        let ty = self.e.pssa.func.dfg.value_type(addr.base);
        self.e.value(
            InstData::PtrAdd {
                args: [addr.base, offset],
                flags: IntFlags::NONE,
            },
            ty,
            pred,
        )
    }
}
