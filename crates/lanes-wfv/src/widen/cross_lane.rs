//! Widening of the cross-lane intrinsics of `include/lanes.h` (RV's `rv_extract` and
//! `rv_broadcast`, PLDI'18 §2 "SIMD-level intrinsics"): in the scalar function
//! `lane_extract x, lane` is `x` as lane `lane mod W` computed it and `lane_broadcast x`
//! is `x` of the first active lane; widened, they read elements of `x`'s vector.
//!
//! - a uniform `x` is the same in every lane: the result is `x` itself;
//! - `lane_broadcast` of a varying `x`: `extract(x, first active lane)` (the block mask's
//!   lowest set lane, as for kept branch conditions), a scalar;
//! - `lane_extract` with a uniform index: `extract(x, lane mod W)`, a scalar;
//! - `lane_extract` with a varying index (a shuffle): for each lane `k`,
//!   `insert(r, extract(x, lane[k] mod W), k)`.
//!
//! The index is reduced modulo W in `i64` before it is used, so no index is out of range
//! (an out-of-range `extract` is an interpreter error and LLVM poison). Which value an
//! inactive lane holds is unspecified, as in the SIMT interpreter.

use lanes_ir::{BinaryOp, Block, CastOp, InstData, IntFlags, Intrinsic, Type, Value};

use super::{vec_of, Widener};

impl Widener<'_> {
    /// The widened `lane_extract`/`lane_broadcast` of old block `b` with old operands
    /// `args`; scalar if `uniform`, else a vector.
    pub(super) fn cross_lane(
        &mut self,
        b: Block,
        id: Intrinsic,
        args: &[Value],
        uniform: bool,
    ) -> Value {
        let x = args[0];
        let ty = self.old.dfg.value_type(x);
        let one = if self.is_uniform(x) {
            self.scalar(x)
        } else {
            let xs = self.mapped(x);
            match (id, args.get(1)) {
                (Intrinsic::LaneExtract, Some(&lane)) if !self.is_uniform(lane) => {
                    let all = self.shuffle(xs, self.mapped(lane), ty);
                    return if uniform {
                        self.element(all, None, ty)
                    } else {
                        all
                    };
                }
                (Intrinsic::LaneExtract, Some(&lane)) => {
                    let i = self.lane_index(self.scalar(lane));
                    self.element(xs, Some(i), ty)
                }
                _ => {
                    let i = self.first_active_lane(b);
                    self.element(xs, Some(i), ty)
                }
            }
        };
        if uniform {
            one
        } else {
            self.broadcast(one)
        }
    }

    /// Element `i` (lane 0 without `i`) of the vector `v` of element type `ty`.
    fn element(&mut self, v: Value, i: Option<Value>, ty: Type) -> Value {
        let i = i.unwrap_or_else(|| self.emit_v(InstData::Iconst { imm: 0 }, Type::I32));
        self.emit_v(
            InstData::Intrinsic {
                id: Intrinsic::Extract,
                args: vec![v, i],
            },
            ty,
        )
    }

    /// The new scalar integer `lane` modulo W, as an `i32` element index.
    fn lane_index(&mut self, lane: Value) -> Value {
        let t = self.new.dfg.value_type(lane);
        let wide = match t.elem().bits() {
            64 => lane,
            _ => self.emit_v(
                InstData::Cast {
                    op: CastOp::Zext,
                    arg: lane,
                    flags: IntFlags::NONE,
                },
                Type::I64,
            ),
        };
        let w = u64::from(self.width);
        let (op, k) = if w.is_power_of_two() {
            (BinaryOp::And, w - 1)
        } else {
            (BinaryOp::URem, w)
        };
        let k = self.emit_v(InstData::Iconst { imm: k as i64 }, Type::I64);
        let r = self.emit_v(
            InstData::Binary {
                op,
                args: [wide, k],
                flags: IntFlags::NONE,
            },
            Type::I64,
        );
        self.emit_v(
            InstData::Cast {
                op: CastOp::Trunc,
                arg: r,
                flags: IntFlags::NONE,
            },
            Type::I32,
        )
    }

    /// `r[k] = xs[lanes[k] mod W]` for every lane `k`.
    fn shuffle(&mut self, xs: Value, lanes: Value, ty: Type) -> Value {
        let lane_ty = Type::Scalar(self.new.dfg.value_type(lanes).elem());
        let mut acc = self.zero_vec(ty);
        for k in 0..self.width {
            let kk = self.emit_v(InstData::Iconst { imm: i64::from(k) }, Type::I32);
            let lane = self.element(lanes, Some(kk), lane_ty);
            let i = self.lane_index(lane);
            let x = self.element(xs, Some(i), ty);
            acc = self.emit_v(
                InstData::Intrinsic {
                    id: Intrinsic::Insert,
                    args: vec![acc, x, kk],
                },
                vec_of(ty, self.width),
            );
        }
        acc
    }
}
