//! Straight-line instructions: scalar arithmetic, comparisons, selects, casts, constants,
//! math intrinsics and calls, none of which can fault.
//!
//! Each instruction takes its operands from the [`super::pool::Pool`] (so it is dominated by
//! their definitions) and adds its result to it. The only operations that trap in lanes IR
//! are integer division and remainder (by zero, and `MIN / -1` for the signed ones) and
//! memory accesses ([`super::memory`]); divisors are rewritten so that neither can happen:
//! `d | 1` for unsigned division, and `smax(d, 1)` or `(d | 2) & -2` (non-zero and even, so
//! never `-1`) for signed division, so both signs of divisor occur.

use arbitrary::Result;

use super::chance;
use super::emit::Gen;
use super::pool::Slot;
use crate::entities::Value;
use crate::flags::IntFlags;
use crate::instructions::InstData;
use crate::opcodes::{BinaryOp, CastOp, FloatCC, IntCC, Intrinsic, IntrinsicClass, UnaryOp};
use crate::types::ScalarType;

/// What one generated instruction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    IntBinary,
    IntDiv,
    Unary,
    IntMath,
    Icmp,
    Select,
    Cast,
    Const,
    FloatBinary,
    FloatMath,
    Fcmp,
    Load,
    Store,
    Atomic,
    Call,
    Vector,
}

pub(super) const INT_BINARY: [BinaryOp; 13] = [
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::And,
    BinaryOp::Or,
    BinaryOp::Xor,
    BinaryOp::Shl,
    BinaryOp::LShr,
    BinaryOp::AShr,
    BinaryOp::SMin,
    BinaryOp::SMax,
    BinaryOp::UMin,
    BinaryOp::UMax,
];

pub(super) const INT_DIV: [BinaryOp; 4] = [
    BinaryOp::SDiv,
    BinaryOp::UDiv,
    BinaryOp::SRem,
    BinaryOp::URem,
];

pub(super) const FLOAT_BINARY: [BinaryOp; 7] = [
    BinaryOp::FAdd,
    BinaryOp::FSub,
    BinaryOp::FMul,
    BinaryOp::FDiv,
    BinaryOp::FRem,
    BinaryOp::FMin,
    BinaryOp::FMax,
];

/// Float intrinsics that are correctly rounded (or exact) everywhere.
pub(super) const EXACT_MATH: [Intrinsic; 9] = [
    Intrinsic::Sqrt,
    Intrinsic::Fabs,
    Intrinsic::Floor,
    Intrinsic::Ceil,
    Intrinsic::Trunc,
    Intrinsic::Round,
    Intrinsic::Rint,
    Intrinsic::Copysign,
    Intrinsic::Fma,
];

/// Float intrinsics whose results depend on the libm.
pub(super) const TRANSCENDENTAL: [Intrinsic; 17] = [
    Intrinsic::Exp,
    Intrinsic::Exp2,
    Intrinsic::Log,
    Intrinsic::Log2,
    Intrinsic::Log10,
    Intrinsic::Sin,
    Intrinsic::Cos,
    Intrinsic::Tan,
    Intrinsic::Asin,
    Intrinsic::Acos,
    Intrinsic::Atan,
    Intrinsic::Sinh,
    Intrinsic::Cosh,
    Intrinsic::Tanh,
    Intrinsic::Pow,
    Intrinsic::Atan2,
    Intrinsic::Fmod,
];

pub(super) const INT_MATH: [Intrinsic; 4] = [
    Intrinsic::Abs,
    Intrinsic::Ctpop,
    Intrinsic::Ctlz,
    Intrinsic::Cttz,
];

/// Interesting integer constants (fitted to the type's width when used).
const INT_CONSTS: [i64; 14] = [
    0,
    1,
    -1,
    2,
    3,
    7,
    8,
    31,
    32,
    63,
    255,
    1000,
    i64::MIN,
    i64::MAX,
];

const FLOAT_CONSTS: [f64; 10] = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.25, -7.5, 1.0e10, 1.0e-10];

/// Sign-extends the low `bits` bits of `imm` (`i1` constants are 0 or 1).
pub(super) fn fit(imm: i64, bits: u32) -> i64 {
    match bits {
        1 => imm & 1,
        64.. => imm,
        b => (imm << (64 - b)) >> (64 - b),
    }
}

impl Gen<'_, '_> {
    /// A constant of `slot` (splatted for vectors; converted for floats), not made usable
    /// as data but reused where it dominates.
    pub(super) fn constant(&mut self, slot: Slot, imm: i64) -> Value {
        let ty = slot.ty(self.width);
        let imm = if slot.is_float() {
            imm
        } else {
            fit(imm, ty.elem().bits())
        };
        if let Some(v) = self.pool.constant(slot, imm) {
            return v;
        }
        let v = if slot.is_float() {
            let bits = if ty.elem() == ScalarType::F32 {
                u64::from((imm as f32).to_bits())
            } else {
                (imm as f64).to_bits()
            };
            self.ins(InstData::Fconst { bits }, ty)
        } else {
            self.ins(InstData::Iconst { imm }, ty)
        };
        self.pool.add_constant(slot, imm, v);
        v
    }

    /// A random int slot; `i1` only if `allow_i1`.
    pub(super) fn int_slot(&mut self, allow_i1: bool) -> Result<Slot> {
        let r = super::range(self.u, 0, 19)?;
        Ok(match r {
            0..=7 => Slot::I32,
            8..=14 => Slot::I64,
            15..=16 => Slot::I8,
            17..=18 => Slot::I16,
            _ if allow_i1 => Slot::I1,
            _ => Slot::I32,
        })
    }

    fn float_slot(&mut self) -> Result<Slot> {
        Ok(if chance(self.u, 1, 2)? {
            Slot::F32
        } else {
            Slot::F64
        })
    }

    /// Emits one random instruction into the current block.
    pub(super) fn gen_inst(&mut self) -> Result<()> {
        let mut menu: Vec<(u32, Kind)> = vec![
            (20, Kind::IntBinary),
            (4, Kind::IntDiv),
            (4, Kind::Unary),
            (3, Kind::IntMath),
            (6, Kind::Icmp),
            (5, Kind::Select),
            (6, Kind::Cast),
            (3, Kind::Const),
        ];
        if self.cfg.floats {
            menu.extend([
                (10, Kind::FloatBinary),
                (4, Kind::FloatMath),
                (3, Kind::Fcmp),
            ]);
        }
        if !self.buffers.is_empty() {
            menu.extend([(7, Kind::Load), (6, Kind::Store), (1, Kind::Atomic)]);
        }
        if self.env.helper.is_some() {
            menu.push((2, Kind::Call));
        }
        if self.has(Slot::Mask) {
            menu.push((30, Kind::Vector));
        }
        let kind = super::weighted(self.u, &menu)?;
        match kind {
            Kind::IntBinary => {
                let slot = self.int_slot(true)?;
                let op = if slot == Slot::I1 {
                    *self
                        .u
                        .choose(&[BinaryOp::And, BinaryOp::Or, BinaryOp::Xor])?
                } else {
                    *self.u.choose(&INT_BINARY)?
                };
                self.binary(op, slot)?;
            }
            Kind::IntDiv => {
                let slot = self.int_slot(false)?;
                self.division(slot)?;
            }
            Kind::Unary => {
                let Some(slot) = self.pick_slot(Slot::is_scalar)? else {
                    return Ok(());
                };
                let op = if slot.is_float() {
                    *self.u.choose(&[UnaryOp::Fneg, UnaryOp::Copy])?
                } else {
                    *self
                        .u
                        .choose(&[UnaryOp::Ineg, UnaryOp::Not, UnaryOp::Copy])?
                };
                let arg = self.pick(slot)?;
                self.def(InstData::Unary { op, arg }, slot);
            }
            Kind::IntMath => {
                let slot = self.int_slot(false)?;
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
            Kind::Icmp => {
                let slot = self.int_slot(true)?;
                self.icmp(slot)?;
            }
            Kind::Select => {
                let Some(slot) = self.pick_slot(Slot::is_scalar)? else {
                    return Ok(());
                };
                let cond = self.pick(Slot::I1)?;
                let [a, b] = self.pick2(slot)?;
                self.def(InstData::Select { args: [cond, a, b] }, slot);
            }
            Kind::Cast => self.scalar_cast()?,
            Kind::Const => {
                let Some(slot) = self.pick_slot(Slot::is_scalar)? else {
                    return Ok(());
                };
                let v = self.random_constant(slot)?;
                self.pool.push(slot, v);
            }
            Kind::FloatBinary => {
                let slot = self.float_slot()?;
                let op = *self.u.choose(&FLOAT_BINARY)?;
                self.binary(op, slot)?;
            }
            Kind::FloatMath => {
                let slot = self.float_slot()?;
                self.float_math(slot)?;
            }
            Kind::Fcmp => {
                let slot = self.float_slot()?;
                let cond = *self.u.choose(FloatCC::ALL)?;
                let args = self.pick2(slot)?;
                self.def(InstData::Fcmp { cond, args }, Slot::I1);
            }
            Kind::Load => self.gen_load()?,
            Kind::Store => self.gen_store()?,
            Kind::Atomic => self.gen_atomic()?,
            Kind::Call => self.gen_call()?,
            Kind::Vector => self.gen_vector_inst()?,
        }
        Ok(())
    }

    /// `op a, b` on two usable values of `slot` (scalar or vector).
    pub(super) fn binary(&mut self, op: BinaryOp, slot: Slot) -> Result<Value> {
        let args = self.pick2(slot)?;
        Ok(self.def(
            InstData::Binary {
                op,
                args,
                flags: IntFlags::NONE,
            },
            slot,
        ))
    }

    /// `icmp` of two usable values of `slot`, sometimes against a constant.
    pub(super) fn icmp(&mut self, slot: Slot) -> Result<Value> {
        let cond = *self.u.choose(IntCC::ALL)?;
        let a = self.pick(slot)?;
        let b = if chance(self.u, 1, 3)? {
            self.random_constant(slot)?
        } else {
            self.pick_other(slot, a)?
        };
        Ok(self.def(InstData::Icmp { cond, args: [a, b] }, bool_slot(slot)))
    }

    /// A guarded integer division or remainder on `slot` (scalar or vector).
    pub(super) fn division(&mut self, slot: Slot) -> Result<Value> {
        let op = *self.u.choose(&INT_DIV)?;
        let a = self.pick(slot)?;
        let d = self.pick(slot)?;
        let d = match op {
            BinaryOp::UDiv | BinaryOp::URem => {
                let one = self.constant(slot, 1);
                self.ins(
                    InstData::Binary {
                        op: BinaryOp::Or,
                        args: [d, one],
                        flags: IntFlags::NONE,
                    },
                    slot.ty(self.width),
                )
            }
            _ if chance(self.u, 1, 2)? => {
                let one = self.constant(slot, 1);
                self.ins(
                    InstData::Binary {
                        op: BinaryOp::SMax,
                        args: [d, one],
                        flags: IntFlags::NONE,
                    },
                    slot.ty(self.width),
                )
            }
            _ => {
                let two = self.constant(slot, 2);
                let ty = slot.ty(self.width);
                let d2 = self.ins(
                    InstData::Binary {
                        op: BinaryOp::Or,
                        args: [d, two],
                        flags: IntFlags::NONE,
                    },
                    ty,
                );
                let m2 = self.constant(slot, -2);
                self.ins(
                    InstData::Binary {
                        op: BinaryOp::And,
                        args: [d2, m2],
                        flags: IntFlags::NONE,
                    },
                    ty,
                )
            }
        };
        Ok(self.def(
            InstData::Binary {
                op,
                args: [a, d],
                flags: IntFlags::NONE,
            },
            slot,
        ))
    }

    /// A float intrinsic on `slot` (scalar or vector of floats).
    pub(super) fn float_math(&mut self, slot: Slot) -> Result<Value> {
        let id = if self.cfg.transcendental && chance(self.u, 1, 3)? {
            *self.u.choose(&TRANSCENDENTAL)?
        } else {
            *self.u.choose(&EXACT_MATH)?
        };
        let arity = match id.class() {
            IntrinsicClass::FloatMath(k) => k,
            _ => 1,
        };
        let mut args = Vec::with_capacity(arity);
        for _ in 0..arity {
            args.push(self.pick(slot)?);
        }
        if matches!(
            id,
            Intrinsic::Sqrt | Intrinsic::Log | Intrinsic::Log2 | Intrinsic::Log10
        ) {
            // The square root (or logarithm) of a magnitude: a number unless the input is NaN.
            let ty = slot.ty(self.width);
            args[0] = self.ins(
                InstData::Intrinsic {
                    id: Intrinsic::Fabs,
                    args: vec![args[0]],
                },
                ty,
            );
        }
        Ok(self.def(InstData::Intrinsic { id, args }, slot))
    }

    /// A random constant of `slot`, not yet usable.
    pub(super) fn random_constant(&mut self, slot: Slot) -> Result<Value> {
        let ty = slot.ty(self.width);
        if slot.is_float() {
            let x = if chance(self.u, 3, 4)? {
                *self.u.choose(&FLOAT_CONSTS)?
            } else {
                f64::from(self.u.int_in_range(-1000i32..=1000)?) / 8.0
            };
            let bits = if ty.elem() == ScalarType::F32 {
                u64::from((x as f32).to_bits())
            } else {
                x.to_bits()
            };
            Ok(self.ins(InstData::Fconst { bits }, ty))
        } else {
            let imm = if chance(self.u, 3, 4)? {
                *self.u.choose(&INT_CONSTS)?
            } else {
                self.u.int_in_range(i64::MIN..=i64::MAX)?
            };
            Ok(self.constant(slot, imm))
        }
    }

    /// A conversion between two scalar slots.
    fn scalar_cast(&mut self) -> Result<()> {
        let Some(from) = self.pick_slot(Slot::is_scalar)? else {
            return Ok(());
        };
        let Some(mut to) = self.pick_slot(|s| s.is_scalar() && s != from)? else {
            return Ok(());
        };
        if from.is_float() && to == Slot::I1 {
            to = Slot::I32;
        }
        let arg = self.pick(from)?;
        let (fty, tty) = (from.ty(self.width), to.ty(self.width));
        let op = if from.is_float() == to.is_float() && !from.is_float() {
            if tty.elem().bits() < fty.elem().bits() {
                CastOp::Trunc
            } else if chance(self.u, 1, 2)? {
                CastOp::Zext
            } else {
                CastOp::Sext
            }
        } else if from.is_float() && to.is_float() {
            if tty.elem().bits() < fty.elem().bits() {
                CastOp::FpTrunc
            } else {
                CastOp::FpExt
            }
        } else if fty.elem().bits() == tty.elem().bits() && to != Slot::I1 && chance(self.u, 1, 3)?
        {
            CastOp::Bitcast
        } else if from.is_float() {
            *self.u.choose(&[CastOp::FpToSi, CastOp::FpToUi])?
        } else {
            *self.u.choose(&[CastOp::SiToFp, CastOp::UiToFp])?
        };
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

    fn gen_call(&mut self) -> Result<()> {
        let Some(h) = &self.env.helper else {
            return Ok(());
        };
        let mut args = Vec::with_capacity(h.params.len());
        for &ty in &h.params {
            let slot = Slot::of(ty, self.width).unwrap_or(Slot::I32);
            args.push(self.pick(slot)?);
        }
        let slot = Slot::of(h.ret, self.width).unwrap_or(Slot::I32);
        let inst = self
            .func
            .dfg
            .make_inst(InstData::Call { func: h.id, args }, Some(h.ret));
        self.func.layout.append_inst(inst, self.cur);
        if let Some(v) = self.func.dfg.inst_result(inst) {
            self.pool.push(slot, v);
        }
        Ok(())
    }
}

/// The slot of a comparison of two values of `slot`: `i1`, or the mask for vectors.
pub(super) fn bool_slot(slot: Slot) -> Slot {
    if slot.is_scalar() {
        Slot::I1
    } else {
        Slot::Mask
    }
}

#[cfg(test)]
mod tests {
    use super::fit;

    #[test]
    fn constants_fit_their_width() {
        assert_eq!(fit(255, 8), -1);
        assert_eq!(fit(128, 8), -128);
        assert_eq!(fit(-1, 1), 1);
        assert_eq!(fit(2, 1), 0);
        assert_eq!(fit(i64::MIN, 64), i64::MIN);
        assert_eq!(fit(0x1_0000_0005, 32), 5);
    }
}
