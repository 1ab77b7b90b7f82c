//! Semantics of the arithmetic, bitwise, comparison and select instructions.
//!
//! Every operation is defined lane by lane on raw bits (see [`crate::value`]), so a
//! scalar is the one-lane case of a vector and the vector mode needs nothing extra.
//! The definitions are total, as the IR documents them (`opcodes.rs`), so that no input
//! can make the interpreter panic:
//!
//! - `add`/`sub`/`mul`/`ineg` wrap modulo 2^width;
//! - the integer flags (`nsw`, `nuw`, `exact`, `disjoint`, `nneg`) are ignored: where one
//!   fails, LLVM's result is poison and any value is a permitted outcome, and the
//!   interpreter gives the one the operation without the flag computes (the wrapped sum,
//!   the truncated quotient, …). It does not report the failure, and a transformed program
//!   may legitimately compute another value for that lane (`lanes_ir::flags`), so tests
//!   that compare runs state flags only where they hold;
//! - `sdiv`/`udiv`/`srem`/`urem` trap on a zero divisor, and `sdiv`/`srem` also on
//!   `MIN / -1` (whose quotient does not fit) — traps are errors, not values;
//! - shifts take the amount modulo the bit width (so `i1` shifts are the identity);
//! - `fmin`/`fmax` are IEEE minNum/maxNum ([`crate::float::min_num`]);
//! - float compares are LLVM's: ordered conditions are false and unordered ones true when
//!   either operand is NaN;
//! - `select` with an `i1` picks a whole value, with a mask it blends lane by lane.

use lanes_ir::{BinaryOp, FloatCC, IntCC, ScalarType, Type, UnaryOp};

use crate::error::ErrorKind;
use crate::float::{max_num, min_num, Float};
use crate::value::{sext, width_mask, RtValue};

pub(crate) fn malformed(msg: impl Into<String>) -> ErrorKind {
    ErrorKind::Malformed(msg.into())
}

/// Applies `f` lane-wise to two values of the same type, producing `out`.
pub(crate) fn zip_lanes(
    a: &RtValue,
    b: &RtValue,
    out: Type,
    mut f: impl FnMut(u64, u64) -> Result<u64, ErrorKind>,
) -> Result<RtValue, ErrorKind> {
    if a.ty() != b.ty() {
        return Err(malformed(format!(
            "operand types differ: {} and {}",
            a.ty(),
            b.ty()
        )));
    }
    let lanes = a
        .lanes()
        .iter()
        .zip(b.lanes())
        .map(|(&x, &y)| f(x, y))
        .collect::<Result<Vec<_>, _>>()?;
    RtValue::from_lanes(out, lanes).ok_or_else(|| malformed("lane count mismatch"))
}

/// Applies `f` lane-wise to one value, producing `out`.
pub(crate) fn map_lanes(
    a: &RtValue,
    out: Type,
    mut f: impl FnMut(u64) -> Result<u64, ErrorKind>,
) -> Result<RtValue, ErrorKind> {
    let lanes = a
        .lanes()
        .iter()
        .map(|&x| f(x))
        .collect::<Result<Vec<_>, _>>()?;
    RtValue::from_lanes(out, lanes).ok_or_else(|| malformed("lane count mismatch"))
}

/// One lane of an integer binary operation on `width`-bit operands.
pub fn int_binary(op: BinaryOp, width: u32, x: u64, y: u64) -> Result<u64, ErrorKind> {
    let (sx, sy) = (sext(width, x), sext(width, y));
    let min = sext(width, 1u64 << width.saturating_sub(1).min(63));
    let amount = y % u64::from(width.max(1));
    let r = match op {
        BinaryOp::Add => x.wrapping_add(y),
        BinaryOp::Sub => x.wrapping_sub(y),
        BinaryOp::Mul => x.wrapping_mul(y),
        BinaryOp::UDiv | BinaryOp::URem | BinaryOp::SDiv | BinaryOp::SRem if y == 0 => {
            return Err(ErrorKind::DivisionByZero)
        }
        BinaryOp::SDiv | BinaryOp::SRem if sx == min && sy == -1 => {
            return Err(ErrorKind::DivisionOverflow)
        }
        BinaryOp::UDiv => x / y,
        BinaryOp::URem => x % y,
        BinaryOp::SDiv => sx.wrapping_div(sy) as u64,
        BinaryOp::SRem => sx.wrapping_rem(sy) as u64,
        BinaryOp::And => x & y,
        BinaryOp::Or => x | y,
        BinaryOp::Xor => x ^ y,
        BinaryOp::Shl => x << amount,
        BinaryOp::LShr => x >> amount,
        BinaryOp::AShr => (sx >> amount) as u64,
        BinaryOp::SMin => {
            if sx <= sy {
                x
            } else {
                y
            }
        }
        BinaryOp::SMax => {
            if sx >= sy {
                x
            } else {
                y
            }
        }
        BinaryOp::UMin => x.min(y),
        BinaryOp::UMax => x.max(y),
        _ => return Err(malformed(format!("`{op}` is not an integer operation"))),
    };
    Ok(r & width_mask(width))
}

/// One lane of a float binary operation.
pub fn float_binary<F: Float>(op: BinaryOp, x: F, y: F) -> Result<F, ErrorKind> {
    Ok(match op {
        BinaryOp::FAdd => x + y,
        BinaryOp::FSub => x - y,
        BinaryOp::FMul => x * y,
        BinaryOp::FDiv => x / y,
        BinaryOp::FRem => x % y,
        BinaryOp::FMin => min_num(x, y),
        BinaryOp::FMax => max_num(x, y),
        _ => return Err(malformed(format!("`{op}` is not a float operation"))),
    })
}

fn float_lanes<F: Float>(
    a: &RtValue,
    b: &RtValue,
    f: impl Fn(F, F) -> Result<F, ErrorKind>,
) -> Result<RtValue, ErrorKind> {
    zip_lanes(a, b, a.ty(), |x, y| {
        Ok(f(F::from_lane(x), F::from_lane(y))?.to_lane())
    })
}

/// A binary instruction.
pub fn binary(op: BinaryOp, a: &RtValue, b: &RtValue) -> Result<RtValue, ErrorKind> {
    let elem = a.elem();
    if op.is_float() {
        match elem {
            ScalarType::F32 => float_lanes::<f32>(a, b, |x, y| float_binary(op, x, y)),
            ScalarType::F64 => float_lanes::<f64>(a, b, |x, y| float_binary(op, x, y)),
            _ => Err(malformed(format!("`{op}` on {}", a.ty()))),
        }
    } else if elem.is_int() {
        zip_lanes(a, b, a.ty(), |x, y| int_binary(op, elem.bits(), x, y))
    } else {
        Err(malformed(format!("`{op}` on {}", a.ty())))
    }
}

/// A unary instruction.
pub fn unary(op: UnaryOp, a: &RtValue) -> Result<RtValue, ErrorKind> {
    let elem = a.elem();
    let w = elem.bits();
    match op {
        UnaryOp::Copy | UnaryOp::Freeze => Ok(a.clone()),
        UnaryOp::Ineg if elem.is_int() => map_lanes(a, a.ty(), |x| Ok(x.wrapping_neg())),
        UnaryOp::Not if elem.is_int() => map_lanes(a, a.ty(), |x| Ok(!x)),
        UnaryOp::Fneg if elem.is_float() => map_lanes(a, a.ty(), |x| Ok(x ^ (1u64 << (w - 1)))),
        _ => Err(malformed(format!("`{op}` on {}", a.ty()))),
    }
}

/// One lane of an integer comparison.
pub fn int_compare(cond: IntCC, width: u32, x: u64, y: u64) -> bool {
    let (sx, sy) = (sext(width, x), sext(width, y));
    match cond {
        IntCC::Eq => x == y,
        IntCC::Ne => x != y,
        IntCC::Slt => sx < sy,
        IntCC::Sle => sx <= sy,
        IntCC::Sgt => sx > sy,
        IntCC::Sge => sx >= sy,
        IntCC::Ult => x < y,
        IntCC::Ule => x <= y,
        IntCC::Ugt => x > y,
        IntCC::Uge => x >= y,
    }
}

/// One lane of a float comparison.
pub fn float_compare<F: Float>(cond: FloatCC, x: F, y: F) -> bool {
    let uno = x.is_nan() || y.is_nan();
    match cond {
        FloatCC::Oeq => !uno && x == y,
        FloatCC::One => !uno && x != y,
        FloatCC::Olt => !uno && x < y,
        FloatCC::Ole => !uno && x <= y,
        FloatCC::Ogt => !uno && x > y,
        FloatCC::Oge => !uno && x >= y,
        FloatCC::Ord => !uno,
        FloatCC::Uno => uno,
        FloatCC::Ueq => uno || x == y,
        FloatCC::Une => uno || x != y,
        FloatCC::Ult => uno || x < y,
        FloatCC::Ule => uno || x <= y,
        FloatCC::Ugt => uno || x > y,
        FloatCC::Uge => uno || x >= y,
    }
}

/// `icmp` on integers or pointers.
pub fn icmp(cond: IntCC, a: &RtValue, b: &RtValue) -> Result<RtValue, ErrorKind> {
    let elem = a.elem();
    if !(elem.is_int() || elem.is_ptr()) {
        return Err(malformed(format!("icmp on {}", a.ty())));
    }
    let w = elem.bits();
    zip_lanes(a, b, a.ty().as_bool(), |x, y| {
        Ok(u64::from(int_compare(cond, w, x, y)))
    })
}

/// `fcmp` on floats.
pub fn fcmp(cond: FloatCC, a: &RtValue, b: &RtValue) -> Result<RtValue, ErrorKind> {
    let out = a.ty().as_bool();
    match a.elem() {
        ScalarType::F32 => zip_lanes(a, b, out, |x, y| {
            Ok(u64::from(float_compare(
                cond,
                f32::from_lane(x),
                f32::from_lane(y),
            )))
        }),
        ScalarType::F64 => zip_lanes(a, b, out, |x, y| {
            Ok(u64::from(float_compare(
                cond,
                f64::from_lane(x),
                f64::from_lane(y),
            )))
        }),
        _ => Err(malformed(format!("fcmp on {}", a.ty()))),
    }
}

/// `select cond, a, b`: whole-value with an `i1`, lane-wise with a mask.
pub fn select(cond: &RtValue, a: &RtValue, b: &RtValue) -> Result<RtValue, ErrorKind> {
    if a.ty() != b.ty() {
        return Err(malformed(format!(
            "select arms differ: {} and {}",
            a.ty(),
            b.ty()
        )));
    }
    match cond.ty() {
        Type::Scalar(ScalarType::I1) => Ok(if cond.lanes()[0] != 0 {
            a.clone()
        } else {
            b.clone()
        }),
        Type::Vector(n, ScalarType::I1) if a.ty().lanes() == Some(n) => {
            let lanes = (0..usize::from(n))
                .map(|i| {
                    if cond.lanes()[i] != 0 {
                        a.lanes()[i]
                    } else {
                        b.lanes()[i]
                    }
                })
                .collect();
            RtValue::from_lanes(a.ty(), lanes).ok_or_else(|| malformed("lane count mismatch"))
        }
        other => Err(malformed(format!(
            "select condition of type {other} for {}",
            a.ty()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bin(op: BinaryOp, a: RtValue, b: RtValue) -> Result<RtValue, ErrorKind> {
        binary(op, &a, &b)
    }

    #[test]
    fn shifts_take_the_amount_modulo_the_width() {
        assert_eq!(
            bin(BinaryOp::Shl, RtValue::i32(1), RtValue::i32(33)),
            Ok(RtValue::i32(2))
        );
        assert_eq!(
            bin(BinaryOp::Shl, RtValue::i8(1), RtValue::i8(-1)),
            Ok(RtValue::i8(-128))
        );
        assert_eq!(
            bin(BinaryOp::AShr, RtValue::i8(-128), RtValue::i8(7)),
            Ok(RtValue::i8(-1))
        );
        assert_eq!(
            bin(BinaryOp::LShr, RtValue::i8(-128), RtValue::i8(7)),
            Ok(RtValue::i8(1))
        );
        assert_eq!(
            bin(BinaryOp::LShr, RtValue::i64(-1), RtValue::i64(64)),
            Ok(RtValue::i64(-1))
        );
        assert_eq!(
            bin(BinaryOp::Shl, RtValue::bool(true), RtValue::bool(true)),
            Ok(RtValue::bool(true))
        );
    }

    #[test]
    fn division_traps_and_wraps() {
        assert_eq!(
            bin(BinaryOp::SDiv, RtValue::i32(7), RtValue::i32(0)),
            Err(ErrorKind::DivisionByZero)
        );
        assert_eq!(
            bin(BinaryOp::URem, RtValue::i32(7), RtValue::i32(0)),
            Err(ErrorKind::DivisionByZero)
        );
        assert_eq!(
            bin(BinaryOp::SDiv, RtValue::i32(i32::MIN), RtValue::i32(-1)),
            Err(ErrorKind::DivisionOverflow)
        );
        assert_eq!(
            bin(BinaryOp::SRem, RtValue::i64(i64::MIN), RtValue::i64(-1)),
            Err(ErrorKind::DivisionOverflow)
        );
        assert_eq!(
            bin(BinaryOp::UDiv, RtValue::i32(i32::MIN), RtValue::i32(-1)),
            Ok(RtValue::i32(0))
        );
        assert_eq!(
            bin(BinaryOp::SDiv, RtValue::i8(-7), RtValue::i8(2)),
            Ok(RtValue::i8(-3))
        );
        assert_eq!(
            bin(BinaryOp::SRem, RtValue::i8(-7), RtValue::i8(2)),
            Ok(RtValue::i8(-1))
        );
        assert_eq!(
            bin(BinaryOp::URem, RtValue::i8(-7), RtValue::i8(2)),
            Ok(RtValue::i8(1))
        );
        assert_eq!(
            bin(BinaryOp::Add, RtValue::i8(127), RtValue::i8(1)),
            Ok(RtValue::i8(-128))
        );
        assert_eq!(
            bin(BinaryOp::Mul, RtValue::i16(300), RtValue::i16(300)),
            Ok(RtValue::i16(24464))
        );
    }

    #[test]
    fn i1_arithmetic_is_modulo_two() {
        let (t, f) = (RtValue::bool(true), RtValue::bool(false));
        assert_eq!(bin(BinaryOp::Add, t.clone(), t.clone()), Ok(f.clone()));
        assert_eq!(bin(BinaryOp::Xor, t.clone(), f.clone()), Ok(t.clone()));
        assert_eq!(
            bin(BinaryOp::SMin, t.clone(), f.clone()),
            Ok(t.clone()),
            "true is -1 signed"
        );
        assert_eq!(bin(BinaryOp::UMin, t.clone(), f.clone()), Ok(f.clone()));
        assert_eq!(
            bin(BinaryOp::SDiv, t.clone(), t.clone()),
            Err(ErrorKind::DivisionOverflow)
        );
        assert_eq!(bin(BinaryOp::SDiv, f.clone(), t.clone()), Ok(f.clone()));
        assert_eq!(unary(UnaryOp::Not, &t), Ok(f.clone()));
        assert_eq!(unary(UnaryOp::Ineg, &t), Ok(t));
    }

    #[test]
    fn fmin_fmax_and_signed_zero() {
        let nan = RtValue::f32(f32::NAN);
        assert_eq!(
            bin(BinaryOp::FMin, nan.clone(), RtValue::f32(2.0)),
            Ok(RtValue::f32(2.0))
        );
        assert_eq!(
            bin(BinaryOp::FMax, RtValue::f32(2.0), nan),
            Ok(RtValue::f32(2.0))
        );
        assert_eq!(
            bin(BinaryOp::FMin, RtValue::f64(0.0), RtValue::f64(-0.0)),
            Ok(RtValue::f64(-0.0))
        );
        assert_eq!(
            bin(BinaryOp::FAdd, RtValue::f64(-0.0), RtValue::f64(-0.0)),
            Ok(RtValue::f64(-0.0))
        );
        assert_eq!(
            bin(BinaryOp::FAdd, RtValue::f64(-0.0), RtValue::f64(0.0)),
            Ok(RtValue::f64(0.0))
        );
        assert_eq!(
            unary(UnaryOp::Fneg, &RtValue::f32(0.0)),
            Ok(RtValue::f32(-0.0))
        );
        assert_eq!(
            bin(BinaryOp::FRem, RtValue::f64(-7.5), RtValue::f64(2.0)),
            Ok(RtValue::f64(-1.5))
        );
    }

    #[test]
    fn nan_compares_ordered_and_unordered() {
        let (nan, one) = (RtValue::f32(f32::NAN), RtValue::f32(1.0));
        let t = |c| fcmp(c, &nan, &one).unwrap().as_bool().unwrap();
        assert!(!t(FloatCC::Oeq) && !t(FloatCC::One) && !t(FloatCC::Olt) && !t(FloatCC::Ord));
        assert!(t(FloatCC::Ueq) && t(FloatCC::Une) && t(FloatCC::Ult) && t(FloatCC::Uno));
        let z = fcmp(FloatCC::Oeq, &RtValue::f64(0.0), &RtValue::f64(-0.0)).unwrap();
        assert_eq!(z, RtValue::bool(true));
        let ones = fcmp(FloatCC::One, &one, &RtValue::f32(2.0)).unwrap();
        assert_eq!(ones, RtValue::bool(true));
    }

    #[test]
    fn vector_ops_are_lane_wise() {
        let a = RtValue::i32s(&[1, -2, 3, i32::MIN]);
        let b = RtValue::i32s(&[1, 2, -3, -1]);
        assert_eq!(
            binary(BinaryOp::SMax, &a, &b),
            Ok(RtValue::i32s(&[1, 2, 3, -1]))
        );
        assert_eq!(
            binary(BinaryOp::SDiv, &a, &b),
            Err(ErrorKind::DivisionOverflow)
        );
        let m = icmp(IntCC::Slt, &a, &b).unwrap();
        assert_eq!(m, RtValue::mask(&[false, true, false, true]));
        assert_eq!(
            select(&m, &a, &b),
            Ok(RtValue::i32s(&[1, -2, -3, i32::MIN]))
        );
        assert_eq!(select(&RtValue::bool(false), &a, &b), Ok(b.clone()));
        assert!(binary(BinaryOp::Add, &a, &RtValue::i32(1)).is_err());
        assert!(select(&RtValue::mask(&[true]), &a, &b).is_err());
        assert_eq!(
            icmp(IntCC::Ult, &RtValue::ptr(1), &RtValue::ptr(u64::MAX)),
            Ok(RtValue::bool(true))
        );
    }
}
