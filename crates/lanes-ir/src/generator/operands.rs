//! Values with a role: the entry block's seeds, branch conditions, switch selectors and
//! the checksum a function returns, plus conversions between the generator's types.
//!
//! Seeds make every type available from the entry block on, so any instruction anywhere
//! finds operands of any type (the entry block dominates all others). Branch conditions
//! and switch selectors are computed from data, so the paths a run takes depend on its
//! arguments and on memory — the divergence a vectorizer must handle (PLDI'18 §2). The
//! returned checksum folds several live values of any type into the return type, so the
//! result observes the computation; floats enter it through the saturating `fptosi`,
//! which maps NaN to 0, so NaN payloads never reach the result.

use arbitrary::Result;

use super::body::bool_slot;
use super::emit::Gen;
use super::pool::Slot;
use super::{chance, range, GenParam};
use crate::entities::Value;
use crate::flags::IntFlags;
use crate::instructions::InstData;
use crate::opcodes::{BinaryOp, CastOp, FloatCC, IntCC, Intrinsic, WorkItemQuery};
use crate::types::Type;

impl Gen<'_, '_> {
    /// Makes the parameters usable and every slot in use non-empty; sets up the buffers.
    pub(super) fn seed(&mut self, params: &[GenParam]) -> Result<()> {
        // Constants first, so that the parameters and values derived from them are the
        // recent ones `pick` prefers.
        for slot in [Slot::I32, Slot::I64] {
            let c = self.random_constant(slot)?;
            self.pool.push(slot, c);
        }
        let mut param_slots = vec![];
        for (i, p) in params.iter().enumerate() {
            let v = self.func.params[i].value;
            match p {
                GenParam::Int(t) | GenParam::Float(t) => {
                    if let Some(slot) = Slot::of(*t, self.width) {
                        self.pool.push(slot, v);
                        param_slots.push(slot);
                    }
                }
                GenParam::Buffer { .. } => self.buffers.push(super::emit::Buffer {
                    base: v,
                    bytes: p.buffer_bytes(),
                    writable: true,
                    elem: None,
                }),
            }
        }
        if self.cfg.work_items {
            // Instance-dependent values: what makes SPMD instances diverge (PLDI'18 §2.3).
            let queries = [
                (WorkItemQuery::GlobalId, Slot::I64),
                (WorkItemQuery::LocalId, Slot::I32),
                (WorkItemQuery::GlobalSize, Slot::I64),
                (WorkItemQuery::GroupId, Slot::I32),
            ];
            for (query, slot) in queries {
                if query == WorkItemQuery::GlobalId || chance(self.u, 1, 3)? {
                    self.def(InstData::WorkItem { query, dim: 0 }, slot);
                }
            }
        }
        let order = [
            Slot::I32,
            Slot::I64,
            Slot::I8,
            Slot::I16,
            Slot::I1,
            Slot::F64,
            Slot::F32,
            Slot::VI32,
            Slot::VI64,
            Slot::VF32,
            Slot::VF64,
            Slot::Mask,
        ];
        for slot in order {
            if !self.has(slot) || param_slots.contains(&slot) {
                continue;
            }
            let v = match slot {
                Slot::I1 => self.icmp(Slot::I32)?,
                Slot::Mask => {
                    let cond = *self.u.choose(IntCC::ALL)?;
                    let args = self.pick2(Slot::VI32)?;
                    self.ins(InstData::Icmp { cond, args }, Slot::Mask.ty(self.width))
                }
                s if s.is_scalar() => {
                    // Derived from a parameter if there is one, so data flows from inputs.
                    let src = match param_slots.iter().rev().find(|&&p| p != s) {
                        Some(&p) => p,
                        None if s == Slot::I32 || s == Slot::I64 => continue,
                        None => Slot::I32,
                    };
                    let x = self.pick(src)?;
                    let v = self.convert(x, src, s)?;
                    param_slots.push(s);
                    v
                }
                s => {
                    let x = self.pick(s.elem())?;
                    self.ins(
                        InstData::Intrinsic {
                            id: Intrinsic::Broadcast,
                            args: vec![x],
                        },
                        s.ty(self.width),
                    )
                }
            };
            if self.pool.get(slot).last() != Some(&v) {
                self.pool.push(slot, v);
            }
        }
        self.seed_memory()
    }

    /// An `i1` branch condition computed from data.
    pub(super) fn condition(&mut self) -> Result<Value> {
        let r = range(self.u, 0, 99)?;
        if r < 20 {
            return self.pick(Slot::I1);
        }
        if r < 35 && self.cfg.floats {
            let slot = if chance(self.u, 1, 2)? {
                Slot::F32
            } else {
                Slot::F64
            };
            let cond = *self.u.choose(FloatCC::ALL)?;
            let args = self.pick2(slot)?;
            return Ok(self.def(InstData::Fcmp { cond, args }, Slot::I1));
        }
        if r < 50 && self.has(Slot::Mask) {
            let id = if chance(self.u, 1, 2)? {
                Intrinsic::Any
            } else {
                Intrinsic::All
            };
            let mask = self.pick(Slot::Mask)?;
            return Ok(self.def(
                InstData::Intrinsic {
                    id,
                    args: vec![mask],
                },
                Slot::I1,
            ));
        }
        let slot = self.int_slot(false)?;
        self.icmp(slot)
    }

    /// A switch operand and `k` distinct case values, mostly values it can take.
    pub(super) fn selector(&mut self, k: usize) -> Result<(Value, Vec<i64>)> {
        let slot = self.int_slot(false)?;
        let x = self.pick(slot)?;
        let ty = slot.ty(self.width);
        let r = range(self.u, 0, 9)?;
        let arg = if r < 4 {
            let m = self.constant(slot, k as i64 + 1);
            self.ins(
                InstData::Binary {
                    op: BinaryOp::URem,
                    args: [x, m],
                    flags: IntFlags::NONE,
                },
                ty,
            )
        } else if r < 7 {
            let m = self.constant(slot, 7);
            self.ins(
                InstData::Binary {
                    op: BinaryOp::And,
                    args: [x, m],
                    flags: IntFlags::NONE,
                },
                ty,
            )
        } else {
            x
        };
        let offset = *self.u.choose(&[0i64, 0, -1, 1])?;
        let step = *self.u.choose(&[1i64, 1, 2])?;
        let mut values: Vec<i64> = (0..k as i64).map(|j| offset + j * step).collect();
        for i in (1..values.len()).rev() {
            let j = range(self.u, 0, i)?;
            values.swap(i, j);
        }
        Ok((arg, values))
    }

    /// A combination of a few usable values, converted to `ret`.
    pub(super) fn checksum(&mut self, ret: Type) -> Result<Value> {
        let rslot = Slot::of(ret, self.width).unwrap_or(Slot::I32);
        let mut acc = None;
        for _ in 0..range(self.u, 1, 4)? {
            let Some(slot) = self.pick_slot(|_| true)? else {
                break;
            };
            let v = self.pick(slot)?;
            let v = self.convert(v, slot, rslot)?;
            acc = Some(match acc {
                None => v,
                Some(a) => {
                    let op = if rslot.is_float() {
                        BinaryOp::FAdd
                    } else {
                        *self
                            .u
                            .choose(&[BinaryOp::Xor, BinaryOp::Add, BinaryOp::Sub])?
                    };
                    self.ins(
                        InstData::Binary {
                            op,
                            args: [a, v],
                            flags: IntFlags::NONE,
                        },
                        ret,
                    )
                }
            });
        }
        Ok(match acc {
            Some(a) => a,
            None => self.constant(rslot, 0),
        })
    }

    /// Converts `v` of `from` to `to`: vectors are reduced first, booleans compare with
    /// zero, integers extend or truncate, floats convert with saturation.
    pub(super) fn convert(&mut self, v: Value, from: Slot, to: Slot) -> Result<Value> {
        let (v, from) = if from.is_scalar() {
            (v, from)
        } else {
            self.reduce_to_scalar(v, from)?
        };
        if from == to {
            return Ok(v);
        }
        if !to.is_scalar() {
            let e = self.convert(v, from, to.elem())?;
            let args = vec![e];
            return Ok(self.ins(
                InstData::Intrinsic {
                    id: Intrinsic::Broadcast,
                    args,
                },
                to.ty(self.width),
            ));
        }
        let tty = to.ty(self.width);
        if to == Slot::I1 {
            let zero = self.constant(from, 0);
            return Ok(if from.is_float() {
                self.ins(
                    InstData::Fcmp {
                        cond: FloatCC::One,
                        args: [v, zero],
                    },
                    Type::I1,
                )
            } else {
                self.ins(
                    InstData::Icmp {
                        cond: IntCC::Ne,
                        args: [v, zero],
                    },
                    Type::I1,
                )
            });
        }
        let (fb, tb) = (from.ty(1).elem().bits(), tty.elem().bits());
        let op = match (from.is_float(), to.is_float()) {
            (false, false) if from == Slot::I1 => CastOp::Zext,
            (false, false) if tb < fb => CastOp::Trunc,
            (false, false) => CastOp::Sext,
            (false, true) => CastOp::SiToFp,
            (true, false) => CastOp::FpToSi,
            (true, true) if tb < fb => CastOp::FpTrunc,
            (true, true) => CastOp::FpExt,
        };
        Ok(self.ins(
            InstData::Cast {
                op,
                arg: v,
                flags: IntFlags::NONE,
            },
            tty,
        ))
    }

    /// A scalar summarizing a vector: a reduction, a lane, or a mask count.
    fn reduce_to_scalar(&mut self, v: Value, slot: Slot) -> Result<(Value, Slot)> {
        let elem = slot.elem();
        if slot == Slot::Mask {
            let (id, to) = if chance(self.u, 1, 2)? {
                (Intrinsic::Popcount, Slot::I32)
            } else {
                (Intrinsic::Any, Slot::I1)
            };
            return Ok((
                self.ins(InstData::Intrinsic { id, args: vec![v] }, to.ty(1)),
                to,
            ));
        }
        if chance(self.u, 1, 4)? {
            let lane = range(self.u, 0, usize::from(self.width).saturating_sub(1))?;
            let idx = self.constant(Slot::I32, lane as i64);
            let args = vec![v, idx];
            return Ok((
                self.ins(
                    InstData::Intrinsic {
                        id: Intrinsic::Extract,
                        args,
                    },
                    elem.ty(1),
                ),
                elem,
            ));
        }
        let id = if slot.is_float() {
            *self.u.choose(&[
                Intrinsic::ReduceFAdd,
                Intrinsic::ReduceFMax,
                Intrinsic::ReduceFMin,
            ])?
        } else {
            *self.u.choose(&[
                Intrinsic::ReduceXor,
                Intrinsic::ReduceAdd,
                Intrinsic::ReduceUMax,
            ])?
        };
        Ok((
            self.ins(InstData::Intrinsic { id, args: vec![v] }, elem.ty(1)),
            elem,
        ))
    }

    /// `and`/`or`/`xor` of two masks, or `not` of one.
    pub(super) fn mask_logic(&mut self) -> Result<Value> {
        if chance(self.u, 1, 4)? {
            let arg = self.pick(Slot::Mask)?;
            return Ok(self.def(
                InstData::Unary {
                    op: crate::opcodes::UnaryOp::Not,
                    arg,
                },
                Slot::Mask,
            ));
        }
        let op = *self
            .u
            .choose(&[BinaryOp::And, BinaryOp::Or, BinaryOp::Xor])?;
        self.binary(op, bool_slot(Slot::VI32))
    }
}
