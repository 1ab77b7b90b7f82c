//! Semantics of the enumerated intrinsics (`opcodes.rs`, `Intrinsic`).
//!
//! - Math intrinsics work lane by lane on floats (`sqrt` … `fma`, `fmuladd`) or integers (`abs`,
//!   `ctpop`, `ctlz`, `cttz`); `abs` of the minimum value wraps to itself, `ctlz`/`cttz`
//!   of 0 give the bit width (defined, unlike LLVM's `is_zero_poison` variants). `round`
//!   rounds halves away from zero (C `round`), `rint` to even (C `rint` in the default
//!   rounding mode).
//! - Lane queries are RV's `rv_lane_id`/`rv_num_lanes` (PLDI'18 §2): with a vector result
//!   `<W x iN>`, `lane_id` is `<0, 1, …, W-1>` and `num_lanes` is W in every lane; with a
//!   scalar result they answer for the executing instance from the [`ExecContext`]
//!   (lane 0 of 1 when run alone, the thread index in SIMT mode).
//! - Mask queries: `any`/`all` give `i1`, `popcount` the number of set lanes, `ballot` an
//!   integer whose bit `i` is lane `i` (lanes beyond its width are dropped).
//! - `lane_extract x, lane` and `lane_broadcast x` (RV's `rv_extract`/`rv_broadcast`) read
//!   `x` of another lane of the SIMD group; run alone an instance is the only lane of its
//!   group, so both give `x` (the SIMT driver of `lanes-simt` gives them their cross-lane
//!   meaning, the widened code computes it on vectors).
//! - Reductions fold lanes in order 0, 1, …, W-1 with the binary operation of the same
//!   name (so `reduce_fadd` is the ordered, not the reassociated, sum, and `reduce_fmin`
//!   uses minNum).
//! - `extract`/`insert` take an integer lane index read as unsigned; an index outside the
//!   vector is an error ([`ErrorKind::LaneIndex`]), not poison. `broadcast` splats.
//! - `page_probe` is true: an instance run alone is lane 0 of its group. (Widened code
//!   computes it on vectors; `speculative_load` is a memory access, in `mem_ops`.)
//! - `barrier` is a no-op: an instance run alone has no one to wait for. The work-group
//!   and SIMT drivers give it meaning by scheduling instances around it (CC'12 §2.3).

use lanes_ir::{BinaryOp, Intrinsic, IntrinsicClass, ScalarType, Type};

use crate::arith::{float_binary, int_binary, malformed};
use crate::context::ExecContext;
use crate::error::ErrorKind;
use crate::float::Float;
use crate::value::{sext, width_mask, RtValue};

/// Evaluates intrinsic `id` on `args`; `ret` is the instruction's result type.
pub fn intrinsic(
    id: Intrinsic,
    args: &[&RtValue],
    ret: Option<Type>,
    cx: &ExecContext,
) -> Result<Option<RtValue>, ErrorKind> {
    let arity = |n: usize| {
        if args.len() == n {
            Ok(())
        } else {
            Err(malformed(format!(
                "`{id}` takes {n} operands, got {}",
                args.len()
            )))
        }
    };
    let ret_ty = || ret.ok_or_else(|| malformed(format!("`{id}` needs a result type")));
    let out = match id.class() {
        IntrinsicClass::FloatMath(n) => {
            arity(n)?;
            float_math(id, args)?
        }
        IntrinsicClass::IntMath(n) => {
            arity(n)?;
            int_math(id, args[0])?
        }
        IntrinsicClass::LaneQuery => {
            arity(0)?;
            lane_query(id, ret_ty()?, cx)?
        }
        IntrinsicClass::MaskQuery => {
            arity(1)?;
            mask_query(id, args[0], ret_ty()?)?
        }
        IntrinsicClass::CrossLane(n) => {
            // Width-1 meaning: the only lane's own value (the SIMT driver gives the
            // cross-lane meaning).
            arity(n)?;
            if args[0].ty().is_vector() {
                return Err(malformed(format!("`{id}` of {}", args[0].ty())));
            }
            args[0].clone()
        }
        IntrinsicClass::Reduction { .. } => {
            arity(1)?;
            reduce(id, args[0])?
        }
        IntrinsicClass::Broadcast => {
            arity(1)?;
            let ty = ret_ty()?;
            match args[0].bits() {
                Some(bits) if ty.elem() == args[0].elem() => RtValue::splat(ty, bits),
                _ => return Err(malformed(format!("broadcast of {} to {ty}", args[0].ty()))),
            }
        }
        IntrinsicClass::Extract => {
            arity(2)?;
            let i = lane_index(args[1], args[0].lane_count())?;
            args[0].lane(i).ok_or_else(|| malformed("extract lane"))?
        }
        IntrinsicClass::Insert => {
            arity(3)?;
            let (vec, elem) = (args[0], args[1]);
            let i = lane_index(args[2], vec.lane_count())?;
            match elem.bits() {
                Some(bits) if elem.elem() == vec.elem() => {
                    let mut lanes = vec.lanes().to_vec();
                    lanes[i] = bits;
                    RtValue::from_lanes(vec.ty(), lanes).ok_or_else(|| malformed("insert"))?
                }
                _ => {
                    return Err(malformed(format!(
                        "insert of {} into {}",
                        elem.ty(),
                        vec.ty()
                    )))
                }
            }
        }
        IntrinsicClass::Barrier => {
            arity(0)?;
            return Ok(None);
        }
        IntrinsicClass::PageProbe => {
            // Run alone, an instance is lane 0 of its group: its access is on its own page.
            arity(2)?;
            RtValue::bool(true)
        }
        IntrinsicClass::SpeculativeLoad => {
            return Err(malformed(format!("`{id}` is a memory access (mem_ops)")));
        }
    };
    Ok(Some(out))
}

/// `shuffle a, b, [mask]`: lane `j` of the result is lane `mask[j]` of `a ++ b`.
pub fn shuffle(a: &RtValue, b: &RtValue, mask: &[u32], ty: Type) -> Result<RtValue, ErrorKind> {
    if a.ty() != b.ty() || ty.elem() != a.elem() || ty.lane_count() as usize != mask.len() {
        return Err(malformed(format!(
            "shuffle of {} and {} to {ty}",
            a.ty(),
            b.ty()
        )));
    }
    let n = a.lane_count();
    let lanes = mask
        .iter()
        .map(|&m| {
            let m = m as usize;
            match (
                a.lane_bits(m),
                m.checked_sub(n).and_then(|j| b.lane_bits(j)),
            ) {
                (Some(x), _) | (None, Some(x)) => Ok(x),
                _ => Err(ErrorKind::LaneIndex {
                    index: m as u64,
                    lanes: 2 * n,
                }),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    RtValue::from_lanes(ty, lanes).ok_or_else(|| malformed("shuffle lanes"))
}

/// A lane index operand, checked against `lanes`.
fn lane_index(index: &RtValue, lanes: usize) -> Result<usize, ErrorKind> {
    let i = index.as_u64().filter(|_| index.elem().is_int());
    let i = i.ok_or_else(|| malformed(format!("lane index of type {}", index.ty())))?;
    match usize::try_from(i) {
        Ok(i) if i < lanes => Ok(i),
        _ => Err(ErrorKind::LaneIndex { index: i, lanes }),
    }
}

/// One float math function on the operand lanes `xs`.
pub fn float_fn<F: Float>(id: Intrinsic, xs: &[F]) -> F {
    let x = xs[0];
    let y = || xs.get(1).copied().unwrap_or(x);
    match id {
        Intrinsic::Sqrt => x.sqrt(),
        Intrinsic::Fabs => x.abs(),
        Intrinsic::Floor => x.floor(),
        Intrinsic::Ceil => x.ceil(),
        Intrinsic::Trunc => x.trunc(),
        Intrinsic::Round => x.round(),
        Intrinsic::Rint => x.rint(),
        Intrinsic::Exp => x.exp(),
        Intrinsic::Exp2 => x.exp2(),
        Intrinsic::Log => x.ln(),
        Intrinsic::Log2 => x.log2(),
        Intrinsic::Log10 => x.log10(),
        Intrinsic::Sin => x.sin(),
        Intrinsic::Cos => x.cos(),
        Intrinsic::Tan => x.tan(),
        Intrinsic::Asin => x.asin(),
        Intrinsic::Acos => x.acos(),
        Intrinsic::Atan => x.atan(),
        Intrinsic::Sinh => x.sinh(),
        Intrinsic::Cosh => x.cosh(),
        Intrinsic::Tanh => x.tanh(),
        Intrinsic::Pow => x.powf(y()),
        Intrinsic::Atan2 => x.atan2(y()),
        Intrinsic::Fmod => x % y(),
        Intrinsic::Copysign => x.copysign(y()),
        // `fmuladd` may be fused or not (LLVM's choice per target); the interpreter fuses,
        // as clang's code does on every x86-64 CPU with FMA (`-march=native` here).
        Intrinsic::Fma | Intrinsic::FMulAdd => x.mul_add(y(), xs.get(2).copied().unwrap_or(x)),
        _ => x,
    }
}

fn float_math(id: Intrinsic, args: &[&RtValue]) -> Result<RtValue, ErrorKind> {
    let ty = args[0].ty();
    if args.iter().any(|a| a.ty() != ty) {
        return Err(malformed(format!("`{id}` operands of different types")));
    }
    fn lanes<F: Float>(id: Intrinsic, args: &[&RtValue]) -> Vec<u64> {
        (0..args[0].lane_count())
            .map(|i| {
                let xs: Vec<F> = args.iter().map(|a| F::from_lane(a.lanes()[i])).collect();
                float_fn(id, &xs).to_lane()
            })
            .collect()
    }
    let out = match ty.elem() {
        ScalarType::F32 => lanes::<f32>(id, args),
        ScalarType::F64 => lanes::<f64>(id, args),
        _ => return Err(malformed(format!("`{id}` on {ty}"))),
    };
    RtValue::from_lanes(ty, out).ok_or_else(|| malformed("lane count"))
}

fn int_math(id: Intrinsic, a: &RtValue) -> Result<RtValue, ErrorKind> {
    if !a.elem().is_int() {
        return Err(malformed(format!("`{id}` on {}", a.ty())));
    }
    let w = a.elem().bits();
    let lanes = a
        .lanes()
        .iter()
        .map(|&x| match id {
            Intrinsic::Abs => sext(w, x).wrapping_abs() as u64,
            Intrinsic::Ctpop => u64::from(x.count_ones()),
            Intrinsic::Ctlz => u64::from(x.leading_zeros() - (64 - w)),
            Intrinsic::Cttz => u64::from(x.trailing_zeros().min(w)),
            _ => x,
        })
        .collect();
    RtValue::from_lanes(a.ty(), lanes).ok_or_else(|| malformed("lane count"))
}

fn lane_query(id: Intrinsic, ty: Type, cx: &ExecContext) -> Result<RtValue, ErrorKind> {
    if !ty.is_int() {
        return Err(malformed(format!("`{id}` with result type {ty}")));
    }
    Ok(match (id, ty.lanes()) {
        (Intrinsic::LaneId, Some(n)) => RtValue::from_lanes(ty, (0..u64::from(n)).collect())
            .ok_or_else(|| malformed("lanes"))?,
        (_, Some(n)) => RtValue::splat(ty, u64::from(n)),
        (Intrinsic::LaneId, None) => RtValue::splat(ty, u64::from(cx.lane)),
        (_, None) => RtValue::splat(ty, u64::from(cx.num_lanes)),
    })
}

fn mask_query(id: Intrinsic, mask: &RtValue, ty: Type) -> Result<RtValue, ErrorKind> {
    if mask.elem() != ScalarType::I1 {
        return Err(malformed(format!("`{id}` of {}", mask.ty())));
    }
    let set = || mask.lanes().iter().filter(|&&b| b != 0).count() as u64;
    match id {
        Intrinsic::Any if ty == Type::I1 => Ok(RtValue::bool(set() > 0)),
        Intrinsic::All if ty == Type::I1 => Ok(RtValue::bool(set() == mask.lane_count() as u64)),
        Intrinsic::Popcount if ty.is_int() && !ty.is_vector() => Ok(RtValue::splat(ty, set())),
        Intrinsic::Ballot if ty.is_int() && !ty.is_vector() => {
            let bits = mask
                .lanes()
                .iter()
                .enumerate()
                .take(64)
                .fold(0u64, |acc, (i, &b)| acc | (b << i));
            Ok(RtValue::splat(ty, bits & width_mask(ty.elem().bits())))
        }
        _ => Err(malformed(format!("`{id}` with result type {ty}"))),
    }
}

fn reduce(id: Intrinsic, v: &RtValue) -> Result<RtValue, ErrorKind> {
    let elem = v.elem();
    let op = match id {
        Intrinsic::ReduceAdd => BinaryOp::Add,
        Intrinsic::ReduceMul => BinaryOp::Mul,
        Intrinsic::ReduceAnd => BinaryOp::And,
        Intrinsic::ReduceOr => BinaryOp::Or,
        Intrinsic::ReduceXor => BinaryOp::Xor,
        Intrinsic::ReduceSMin => BinaryOp::SMin,
        Intrinsic::ReduceSMax => BinaryOp::SMax,
        Intrinsic::ReduceUMin => BinaryOp::UMin,
        Intrinsic::ReduceUMax => BinaryOp::UMax,
        Intrinsic::ReduceFAdd => BinaryOp::FAdd,
        Intrinsic::ReduceFMul => BinaryOp::FMul,
        Intrinsic::ReduceFMin => BinaryOp::FMin,
        _ => BinaryOp::FMax,
    };
    let fits = if op.is_float() {
        elem.is_float()
    } else {
        elem.is_int()
    };
    if !fits {
        return Err(malformed(format!("`{id}` of {}", v.ty())));
    }
    let lanes = v.lanes();
    let mut acc = lanes[0];
    for &x in &lanes[1..] {
        acc = match elem {
            ScalarType::F32 => float_binary(op, f32::from_lane(acc), f32::from_lane(x))?.to_lane(),
            ScalarType::F64 => float_binary(op, f64::from_lane(acc), f64::from_lane(x))?.to_lane(),
            _ => int_binary(op, elem.bits(), acc, x)?,
        };
    }
    Ok(RtValue::from_bits(elem, acc))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(
        id: Intrinsic,
        args: &[RtValue],
        ret: Option<Type>,
    ) -> Result<Option<RtValue>, ErrorKind> {
        let refs: Vec<&RtValue> = args.iter().collect();
        intrinsic(id, &refs, ret, &ExecContext::default())
    }

    fn one(id: Intrinsic, args: &[RtValue], ret: Type) -> RtValue {
        call(id, args, Some(ret)).unwrap().unwrap()
    }

    #[test]
    fn cross_lane_values_are_the_own_value_at_width_1() {
        let x = RtValue::f32(2.5);
        assert_eq!(
            one(
                Intrinsic::LaneExtract,
                &[x.clone(), RtValue::i32(7)],
                Type::F32
            ),
            x
        );
        assert_eq!(
            one(
                Intrinsic::LaneBroadcast,
                std::slice::from_ref(&x),
                Type::F32
            ),
            x
        );
        let v = RtValue::i32s(&[1, 2]);
        assert!(call(
            Intrinsic::LaneBroadcast,
            std::slice::from_ref(&v),
            Some(v.ty())
        )
        .is_err());
        assert!(call(Intrinsic::LaneExtract, &[x], Some(Type::F32)).is_err());
    }

    #[test]
    fn lane_queries() {
        let v4 = Type::vector(4, ScalarType::I32);
        assert_eq!(
            one(Intrinsic::LaneId, &[], v4),
            RtValue::i32s(&[0, 1, 2, 3])
        );
        assert_eq!(
            one(Intrinsic::NumLanes, &[], v4),
            RtValue::i32s(&[4, 4, 4, 4])
        );
        assert_eq!(one(Intrinsic::LaneId, &[], Type::I32), RtValue::i32(0));
        assert_eq!(one(Intrinsic::NumLanes, &[], Type::I64), RtValue::i64(1));
    }

    #[test]
    fn mask_queries() {
        let m = RtValue::mask(&[true, false, true, true]);
        assert_eq!(
            one(Intrinsic::Any, std::slice::from_ref(&m), Type::I1),
            RtValue::bool(true)
        );
        assert_eq!(
            one(Intrinsic::All, std::slice::from_ref(&m), Type::I1),
            RtValue::bool(false)
        );
        assert_eq!(
            one(Intrinsic::Popcount, std::slice::from_ref(&m), Type::I32),
            RtValue::i32(3)
        );
        assert_eq!(
            one(Intrinsic::Ballot, &[m], Type::I32),
            RtValue::i32(0b1101)
        );
        let none = RtValue::mask(&[false, false]);
        assert_eq!(one(Intrinsic::Any, &[none], Type::I1), RtValue::bool(false));
        assert_eq!(
            one(Intrinsic::All, &[RtValue::bool(true)], Type::I1),
            RtValue::bool(true)
        );
    }

    #[test]
    fn reductions_fold_in_lane_order() {
        let v = RtValue::i32s(&[3, -7, 10, 2]);
        assert_eq!(
            one(Intrinsic::ReduceAdd, std::slice::from_ref(&v), Type::I32),
            RtValue::i32(8)
        );
        assert_eq!(
            one(Intrinsic::ReduceSMin, std::slice::from_ref(&v), Type::I32),
            RtValue::i32(-7)
        );
        assert_eq!(
            one(Intrinsic::ReduceUMax, &[v], Type::I32),
            RtValue::i32(-7)
        );
        let f = RtValue::f32s(&[1e8, 1.0, -1e8, 1.0]);
        assert_eq!(
            one(Intrinsic::ReduceFAdd, &[f], Type::F32),
            RtValue::f32(1.0)
        );
        let n = RtValue::f32s(&[f32::NAN, 2.0, -1.0]);
        assert_eq!(
            one(Intrinsic::ReduceFMin, &[n], Type::F32),
            RtValue::f32(-1.0)
        );
    }

    #[test]
    fn element_operations_check_lane_indices() {
        let v = RtValue::i32s(&[1, 2, 3, 4]);
        assert_eq!(
            one(Intrinsic::Extract, &[v.clone(), RtValue::i32(2)], Type::I32),
            RtValue::i32(3)
        );
        assert_eq!(
            call(
                Intrinsic::Extract,
                &[v.clone(), RtValue::i32(4)],
                Some(Type::I32)
            ),
            Err(ErrorKind::LaneIndex { index: 4, lanes: 4 })
        );
        assert!(matches!(
            call(
                Intrinsic::Extract,
                &[v.clone(), RtValue::i8(-1)],
                Some(Type::I32)
            ),
            Err(ErrorKind::LaneIndex { index: 255, .. })
        ));
        let ins = one(
            Intrinsic::Insert,
            &[v.clone(), RtValue::i32(9), RtValue::i64(0)],
            v.ty(),
        );
        assert_eq!(ins, RtValue::i32s(&[9, 2, 3, 4]));
        assert_eq!(
            one(Intrinsic::Broadcast, &[RtValue::i32(5)], v.ty()),
            RtValue::i32s(&[5; 4])
        );
        assert_eq!(call(Intrinsic::Barrier, &[], None), Ok(None));
    }

    #[test]
    fn shuffles_pick_from_the_concatenation() {
        let a = RtValue::i32s(&[1, 2, 3, 4]);
        let b = RtValue::i32s(&[5, 6, 7, 8]);
        let t2 = Type::vector(2, ScalarType::I32);
        assert_eq!(shuffle(&a, &b, &[7, 0], t2), Ok(RtValue::i32s(&[8, 1])));
        let t8 = Type::vector(8, ScalarType::I32);
        let r = shuffle(&a, &b, &[0, 4, 1, 5, 2, 6, 3, 7], t8).unwrap();
        assert_eq!(r, RtValue::i32s(&[1, 5, 2, 6, 3, 7, 4, 8]));
        assert_eq!(
            shuffle(&a, &b, &[8, 0], t2),
            Err(ErrorKind::LaneIndex { index: 8, lanes: 8 })
        );
        assert!(shuffle(&a, &b, &[0], t2).is_err());
    }

    #[test]
    fn math() {
        assert_eq!(
            one(Intrinsic::Abs, &[RtValue::i8(-128)], Type::I8),
            RtValue::i8(-128)
        );
        assert_eq!(
            one(Intrinsic::Ctlz, &[RtValue::i16(1)], Type::I16),
            RtValue::i16(15)
        );
        assert_eq!(
            one(Intrinsic::Ctlz, &[RtValue::i32(0)], Type::I32),
            RtValue::i32(32)
        );
        assert_eq!(
            one(Intrinsic::Cttz, &[RtValue::i8(0)], Type::I8),
            RtValue::i8(8)
        );
        assert_eq!(
            one(Intrinsic::Ctpop, &[RtValue::i8(-1)], Type::I8),
            RtValue::i8(8)
        );
        assert_eq!(
            one(Intrinsic::Round, &[RtValue::f32(2.5)], Type::F32),
            RtValue::f32(3.0)
        );
        assert_eq!(
            one(Intrinsic::Rint, &[RtValue::f32(2.5)], Type::F32),
            RtValue::f32(2.0)
        );
        assert_eq!(
            one(Intrinsic::Sqrt, &[RtValue::f64(-0.0)], Type::F64),
            RtValue::f64(-0.0)
        );
        let fma = [RtValue::f64(2.0), RtValue::f64(3.0), RtValue::f64(1.0)];
        assert_eq!(one(Intrinsic::Fma, &fma, Type::F64), RtValue::f64(7.0));
        // fmuladd fuses: (1 + ε)² - round((1 + ε)²) is the ε² the rounded product loses.
        let a = 1.0 + f32::EPSILON;
        let fused = [RtValue::f32(a), RtValue::f32(a), RtValue::f32(-(a * a))];
        let want = a.mul_add(a, -(a * a));
        assert_eq!(want, f32::EPSILON * f32::EPSILON);
        assert_eq!(
            one(Intrinsic::FMulAdd, &fused, Type::F32),
            RtValue::f32(want)
        );
        let cs = [RtValue::f32s(&[1.0, 2.0]), RtValue::f32s(&[-0.0, 5.0])];
        assert_eq!(
            one(Intrinsic::Copysign, &cs, cs[0].ty()),
            RtValue::f32s(&[-1.0, 2.0])
        );
        assert!(call(Intrinsic::Sqrt, &[RtValue::i32(4)], Some(Type::I32)).is_err());
    }
}
