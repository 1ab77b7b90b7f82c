//! Branches that partial linearization kept (PLDI'18 §3–4) in the widened function.
//!
//! Linearization keeps only branches the shape analysis proved uniform *before* it ran,
//! so every lane that executes such a block in the original program computes the same
//! condition. Blends may still make the linearized condition look varying (inactive lanes
//! hold other values); then the condition of the first active lane is the branch's
//! condition: `extract(c, min(cttz(ballot(mask)), W - 1))`.

use lanes_ir::{BinaryOp, Block, InstData, IntFlags, Intrinsic, Type, Value};

use super::Widener;

impl Widener<'_> {
    /// The scalar condition of a branch linearization kept. Linearization keeps only
    /// branches the shape analysis proved uniform *before* it ran, so every lane that
    /// executes the block in the original program computes the same condition; blends may
    /// still make the linearized value look varying (inactive lanes hold other values).
    /// Then the condition of the first active lane is the branch's condition.
    pub(super) fn kept_condition(&mut self, b: Block, cond: Value) -> Value {
        if self.is_uniform(cond) {
            return self.scalar(cond);
        }
        let vec = self.mapped(cond);
        let ty = self.old.dfg.value_type(cond);
        let idx = self.first_active_lane(b);
        self.emit_v(
            InstData::Intrinsic {
                id: Intrinsic::Extract,
                args: vec![vec, idx],
            },
            ty,
        )
    }

    /// The index (`i32`) of the first active lane of old block `b`:
    /// `min(cttz(ballot(mask)), W - 1)`, or 0 when all lanes are active.
    pub(super) fn first_active_lane(&mut self, b: Block) -> Value {
        match self.mask_of(b) {
            None => self.emit_v(InstData::Iconst { imm: 0 }, Type::I32),
            Some(m) => {
                let bits = self.emit_v(
                    InstData::Intrinsic {
                        id: Intrinsic::Ballot,
                        args: vec![m],
                    },
                    Type::I64,
                );
                let tz = self.emit_v(
                    InstData::Intrinsic {
                        id: Intrinsic::Cttz,
                        args: vec![bits],
                    },
                    Type::I64,
                );
                let last = self.emit_v(
                    InstData::Iconst {
                        imm: i64::from(self.width) - 1,
                    },
                    Type::I64,
                );
                let i = self.emit_v(
                    InstData::Binary {
                        op: BinaryOp::UMin,
                        args: [tz, last],
                        flags: IntFlags::NONE,
                    },
                    Type::I64,
                );
                self.emit_v(
                    InstData::Cast {
                        op: lanes_ir::CastOp::Trunc,
                        arg: i,
                        flags: IntFlags::NONE,
                    },
                    Type::I32,
                )
            }
        }
    }
}
