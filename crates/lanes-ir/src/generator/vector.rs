//! Vector instructions, for testing the interpreter and the widening of already-vector
//! code: lane-wise arithmetic and comparisons, blends (`select` on masks), broadcasts,
//! lane extraction and insertion, shuffles, reductions, mask queries (`any`, `all`,
//! `popcount`, `ballot`), conversions, and — through [`super::memory`] — contiguous,
//! masked and gather/scatter accesses.
//!
//! The masks and blends are the vocabulary of linearized code (PLDI'18 §2.4: predicates
//! become `<N x i1>` and φs of divergent joins become blends), so generating them directly
//! exercises the interpreter on exactly what the vectorizer emits. Lane indices are
//! constants below the width or data forced into range with `urem`, so no access to a lane
//! can fail; division lanes are guarded like scalar division ([`super::body`]).

use arbitrary::Result;

use super::body::{bool_slot, FLOAT_BINARY, INT_BINARY, INT_MATH};
use super::emit::Gen;
use super::pool::Slot;
use super::{chance, range};
use crate::entities::Value;
use crate::flags::IntFlags;
use crate::instructions::InstData;
use crate::opcodes::{BinaryOp, CastOp, FloatCC, Intrinsic, UnaryOp};

/// What one generated vector instruction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum VKind {
    IntBinary,
    IntDiv,
    FloatBinary,
    Compare,
    Blend,
    SelectUniform,
    Broadcast,
    Extract,
    Insert,
    Reduce,
    MaskQuery,
    MaskLogic,
    Shuffle,
    Cast,
    Unary,
    Math,
    Memory,
}

const INT_REDUCE: [Intrinsic; 9] = [
    Intrinsic::ReduceAdd,
    Intrinsic::ReduceMul,
    Intrinsic::ReduceAnd,
    Intrinsic::ReduceOr,
    Intrinsic::ReduceXor,
    Intrinsic::ReduceSMin,
    Intrinsic::ReduceSMax,
    Intrinsic::ReduceUMin,
    Intrinsic::ReduceUMax,
];

const FLOAT_REDUCE: [Intrinsic; 4] = [
    Intrinsic::ReduceFAdd,
    Intrinsic::ReduceFMul,
    Intrinsic::ReduceFMin,
    Intrinsic::ReduceFMax,
];

impl Gen<'_, '_> {
    fn vector_slot(&mut self, with_mask: bool) -> Result<Slot> {
        let floats = self.cfg.floats;
        let keep = move |s: Slot| {
            !s.is_scalar() && (floats || !s.is_float()) && (with_mask || s != Slot::Mask)
        };
        Ok(self.pick_slot(keep)?.unwrap_or(Slot::VI32))
    }

    fn vector_int_slot(&mut self) -> Result<Slot> {
        Ok(if chance(self.u, 2, 3)? {
            Slot::VI32
        } else {
            Slot::VI64
        })
    }

    fn vector_float_slot(&mut self) -> Result<Slot> {
        Ok(if chance(self.u, 1, 2)? {
            Slot::VF32
        } else {
            Slot::VF64
        })
    }

    /// A lane index below the width: a constant, or data reduced with `urem`.
    fn lane_index(&mut self) -> Result<Value> {
        let w = i64::from(self.width);
        if chance(self.u, 1, 2)? {
            let lane = range(self.u, 0, usize::from(self.width).saturating_sub(1))? as i64;
            return Ok(self.constant(Slot::I32, lane));
        }
        let x = self.pick(Slot::I32)?;
        let m = self.constant(Slot::I32, w);
        Ok(self.ins(
            InstData::Binary {
                op: BinaryOp::URem,
                args: [x, m],
                flags: IntFlags::NONE,
            },
            Slot::I32.ty(1),
        ))
    }

    /// Emits one random vector instruction.
    pub(super) fn gen_vector_inst(&mut self) -> Result<()> {
        let mut menu: Vec<(u32, VKind)> = vec![
            (12, VKind::IntBinary),
            (2, VKind::IntDiv),
            (8, VKind::Compare),
            (8, VKind::Blend),
            (2, VKind::SelectUniform),
            (6, VKind::Broadcast),
            (5, VKind::Extract),
            (5, VKind::Insert),
            (5, VKind::Reduce),
            (5, VKind::MaskQuery),
            (4, VKind::MaskLogic),
            (3, VKind::Shuffle),
            (5, VKind::Cast),
            (2, VKind::Unary),
            (3, VKind::Math),
        ];
        if self.cfg.floats {
            menu.push((8, VKind::FloatBinary));
        }
        if !self.buffers.is_empty() {
            menu.push((14, VKind::Memory));
        }
        let kind = super::weighted(self.u, &menu)?;
        match kind {
            VKind::IntBinary => {
                let slot = self.vector_int_slot()?;
                let op = *self.u.choose(&INT_BINARY)?;
                self.binary(op, slot)?;
            }
            VKind::IntDiv => {
                let slot = self.vector_int_slot()?;
                self.division(slot)?;
            }
            VKind::FloatBinary => {
                let slot = self.vector_float_slot()?;
                let op = *self.u.choose(&FLOAT_BINARY)?;
                self.binary(op, slot)?;
            }
            VKind::Compare => {
                let slot = self.vector_slot(false)?;
                if slot.is_float() {
                    let cond = *self.u.choose(FloatCC::ALL)?;
                    let args = self.pick2(slot)?;
                    self.def(InstData::Fcmp { cond, args }, Slot::Mask);
                } else {
                    self.icmp(slot)?;
                }
            }
            VKind::Blend | VKind::SelectUniform => {
                let slot = self.vector_slot(true)?;
                let cond_slot = if kind == VKind::Blend {
                    bool_slot(slot)
                } else {
                    Slot::I1
                };
                let cond = self.pick(cond_slot)?;
                let [a, b] = self.pick2(slot)?;
                self.def(InstData::Select { args: [cond, a, b] }, slot);
            }
            VKind::Broadcast => {
                let slot = self.vector_slot(true)?;
                let x = self.pick(slot.elem())?;
                self.def(
                    InstData::Intrinsic {
                        id: Intrinsic::Broadcast,
                        args: vec![x],
                    },
                    slot,
                );
            }
            VKind::Extract => {
                let slot = self.vector_slot(false)?;
                let v = self.pick(slot)?;
                let idx = self.lane_index()?;
                self.def(
                    InstData::Intrinsic {
                        id: Intrinsic::Extract,
                        args: vec![v, idx],
                    },
                    slot.elem(),
                );
            }
            VKind::Insert => {
                let slot = self.vector_slot(true)?;
                let (v, x) = (self.pick(slot)?, self.pick(slot.elem())?);
                let idx = self.lane_index()?;
                self.def(
                    InstData::Intrinsic {
                        id: Intrinsic::Insert,
                        args: vec![v, x, idx],
                    },
                    slot,
                );
            }
            VKind::Reduce => {
                let slot = self.vector_slot(false)?;
                let id = if slot.is_float() {
                    *self.u.choose(&FLOAT_REDUCE)?
                } else {
                    *self.u.choose(&INT_REDUCE)?
                };
                let v = self.pick(slot)?;
                self.def(InstData::Intrinsic { id, args: vec![v] }, slot.elem());
            }
            VKind::MaskQuery => self.mask_query()?,
            VKind::MaskLogic => {
                self.mask_logic()?;
            }
            VKind::Shuffle => {
                let slot = self.vector_slot(true)?;
                let [a, b] = self.pick2(slot)?;
                let lanes = 2 * usize::from(self.width);
                let mut mask = Vec::with_capacity(usize::from(self.width));
                for _ in 0..self.width {
                    mask.push(range(self.u, 0, lanes - 1)? as u32);
                }
                self.def(InstData::Shuffle { args: [a, b], mask }, slot);
            }
            VKind::Cast => self.vector_cast()?,
            VKind::Unary => {
                let slot = self.vector_slot(true)?;
                let op = if slot.is_float() {
                    UnaryOp::Fneg
                } else {
                    UnaryOp::Not
                };
                let op = if chance(self.u, 1, 4)? {
                    UnaryOp::Copy
                } else if op == UnaryOp::Not && slot != Slot::Mask && chance(self.u, 1, 2)? {
                    UnaryOp::Ineg
                } else {
                    op
                };
                let arg = self.pick(slot)?;
                self.def(InstData::Unary { op, arg }, slot);
            }
            VKind::Math => {
                if self.cfg.floats && chance(self.u, 1, 2)? {
                    let slot = self.vector_float_slot()?;
                    self.float_math(slot)?;
                } else {
                    let slot = self.vector_int_slot()?;
                    let id = *self.u.choose(&INT_MATH)?;
                    let arg = self.pick(slot)?;
                    self.def(
                        InstData::Intrinsic {
                            id,
                            args: vec![arg],
                        },
                        slot,
                    );
                }
            }
            VKind::Memory => self.gen_vector_mem()?,
        }
        Ok(())
    }

    fn mask_query(&mut self) -> Result<()> {
        let mask = self.pick(Slot::Mask)?;
        let (id, slot) = match range(self.u, 0, 3)? {
            0 => (Intrinsic::Any, Slot::I1),
            1 => (Intrinsic::All, Slot::I1),
            2 => (Intrinsic::Popcount, Slot::I32),
            _ if self.width <= 32 => (Intrinsic::Ballot, Slot::I32),
            _ if self.width <= 64 => (Intrinsic::Ballot, Slot::I64),
            _ => (Intrinsic::Popcount, Slot::I64),
        };
        self.def(
            InstData::Intrinsic {
                id,
                args: vec![mask],
            },
            slot,
        );
        Ok(())
    }

    /// A lane-wise conversion between two vector slots.
    fn vector_cast(&mut self) -> Result<()> {
        let from = self.vector_slot(true)?;
        let floats = self.cfg.floats;
        let keep = move |s: Slot| !s.is_scalar() && s != from && (floats || !s.is_float());
        let Some(mut to) = self.pick_slot(keep)? else {
            return Ok(());
        };
        if from.is_float() && to == Slot::Mask {
            to = Slot::VI32;
        }
        let (fb, tb) = (
            from.elem().ty(1).elem().bits(),
            to.elem().ty(1).elem().bits(),
        );
        let op = match (from.is_float(), to.is_float()) {
            (false, false) if tb < fb => CastOp::Trunc,
            (false, false) => *self.u.choose(&[CastOp::Zext, CastOp::Sext])?,
            (true, true) if tb < fb => CastOp::FpTrunc,
            (true, true) => CastOp::FpExt,
            _ if fb == tb && chance(self.u, 1, 3)? => CastOp::Bitcast,
            (true, false) => *self.u.choose(&[CastOp::FpToSi, CastOp::FpToUi])?,
            (false, true) => *self.u.choose(&[CastOp::SiToFp, CastOp::UiToFp])?,
        };
        let arg = self.pick(from)?;
        self.def(
            InstData::Cast {
                op,
                arg,
                flags: IntFlags::NONE,
            },
            to,
        );
        Ok(())
    }
}
