//! IEEE-754 helpers shared by the arithmetic, cast, intrinsic and libm code.
//!
//! `f32` operations must be computed in single precision (not via `f64` and a rounding
//! afterwards, which double-rounds), so every float operation is written once, generic over
//! the [`Float`] trait implemented by `f32` and `f64`, and dispatched on the element type.
//! The trait also fixes the semantics the IR documents where IEEE or Rust leave a choice:
//!
//! - `fmin`/`fmax` are IEEE 754-2008 minNum/maxNum (a NaN operand yields the other
//!   operand), with `-0.0 < +0.0` so the result is deterministic;
//! - float → int conversions saturate and map NaN to 0 (LLVM's `fptosi.sat`), which is
//!   what Rust's `as` does for 64-bit targets; narrower targets clamp afterwards.

use core::ops::{Add, Div, Mul, Neg, Rem, Sub};

/// The operations the interpreter needs of a float type.
pub trait Float:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + Neg<Output = Self>
{
    fn from_lane(bits: u64) -> Self;
    fn to_lane(self) -> u64;
    fn is_nan(self) -> bool;
    fn is_sign_negative(self) -> bool;
    fn from_i64(x: i64) -> Self;
    fn from_u64(x: u64) -> Self;
    /// Truncates toward zero, saturating at the `i64` range, NaN → 0.
    fn to_i64_sat(self) -> i64;
    /// Truncates toward zero, saturating at the `u64` range, NaN → 0.
    fn to_u64_sat(self) -> u64;
    fn to_f64(self) -> f64;
    fn from_f64(x: f64) -> Self;
    fn sqrt(self) -> Self;
    fn abs(self) -> Self;
    fn floor(self) -> Self;
    fn ceil(self) -> Self;
    fn trunc(self) -> Self;
    fn round(self) -> Self;
    fn rint(self) -> Self;
    fn exp(self) -> Self;
    fn exp2(self) -> Self;
    fn ln(self) -> Self;
    fn log2(self) -> Self;
    fn log10(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tan(self) -> Self;
    fn asin(self) -> Self;
    fn acos(self) -> Self;
    fn atan(self) -> Self;
    fn sinh(self) -> Self;
    fn cosh(self) -> Self;
    fn tanh(self) -> Self;
    fn cbrt(self) -> Self;
    fn exp_m1(self) -> Self;
    fn ln_1p(self) -> Self;
    fn powf(self, y: Self) -> Self;
    fn atan2(self, y: Self) -> Self;
    fn copysign(self, y: Self) -> Self;
    fn hypot(self, y: Self) -> Self;
    fn mul_add(self, y: Self, z: Self) -> Self;
}

macro_rules! impl_float {
    ($t:ty, $bits:ty) => {
        impl Float for $t {
            fn from_lane(bits: u64) -> Self {
                <$t>::from_bits(bits as $bits)
            }
            fn to_lane(self) -> u64 {
                self.to_bits() as u64
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn is_sign_negative(self) -> bool {
                <$t>::is_sign_negative(self)
            }
            fn from_i64(x: i64) -> Self {
                x as $t
            }
            fn from_u64(x: u64) -> Self {
                x as $t
            }
            fn to_i64_sat(self) -> i64 {
                self as i64
            }
            fn to_u64_sat(self) -> u64 {
                self as u64
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            fn floor(self) -> Self {
                <$t>::floor(self)
            }
            fn ceil(self) -> Self {
                <$t>::ceil(self)
            }
            fn trunc(self) -> Self {
                <$t>::trunc(self)
            }
            fn round(self) -> Self {
                <$t>::round(self)
            }
            fn rint(self) -> Self {
                <$t>::round_ties_even(self)
            }
            fn exp(self) -> Self {
                <$t>::exp(self)
            }
            fn exp2(self) -> Self {
                <$t>::exp2(self)
            }
            fn ln(self) -> Self {
                <$t>::ln(self)
            }
            fn log2(self) -> Self {
                <$t>::log2(self)
            }
            fn log10(self) -> Self {
                <$t>::log10(self)
            }
            fn sin(self) -> Self {
                <$t>::sin(self)
            }
            fn cos(self) -> Self {
                <$t>::cos(self)
            }
            fn tan(self) -> Self {
                <$t>::tan(self)
            }
            fn asin(self) -> Self {
                <$t>::asin(self)
            }
            fn acos(self) -> Self {
                <$t>::acos(self)
            }
            fn atan(self) -> Self {
                <$t>::atan(self)
            }
            fn sinh(self) -> Self {
                <$t>::sinh(self)
            }
            fn cosh(self) -> Self {
                <$t>::cosh(self)
            }
            fn tanh(self) -> Self {
                <$t>::tanh(self)
            }
            fn cbrt(self) -> Self {
                <$t>::cbrt(self)
            }
            fn exp_m1(self) -> Self {
                <$t>::exp_m1(self)
            }
            fn ln_1p(self) -> Self {
                <$t>::ln_1p(self)
            }
            fn powf(self, y: Self) -> Self {
                <$t>::powf(self, y)
            }
            fn atan2(self, y: Self) -> Self {
                <$t>::atan2(self, y)
            }
            fn copysign(self, y: Self) -> Self {
                <$t>::copysign(self, y)
            }
            fn hypot(self, y: Self) -> Self {
                <$t>::hypot(self, y)
            }
            fn mul_add(self, y: Self, z: Self) -> Self {
                <$t>::mul_add(self, y, z)
            }
        }
    };
}

impl_float!(f32, u32);
impl_float!(f64, u64);

/// IEEE minNum with `-0.0 < +0.0`.
pub fn min_num<F: Float>(x: F, y: F) -> F {
    if x.is_nan() {
        return y;
    }
    if y.is_nan() {
        return x;
    }
    // Equal operands differ at most in the sign of zero: prefer -0.0.
    if x < y || (x == y && x.is_sign_negative()) {
        x
    } else {
        y
    }
}

/// IEEE maxNum with `-0.0 < +0.0`.
pub fn max_num<F: Float>(x: F, y: F) -> F {
    if x.is_nan() {
        return y;
    }
    if y.is_nan() {
        return x;
    }
    // Equal operands differ at most in the sign of zero: prefer +0.0.
    if y > x || (y == x && x.is_sign_negative()) {
        y
    } else {
        x
    }
}

/// Float → signed integer of `width` bits: truncation toward zero, saturating, NaN → 0.
/// Returns the raw (unmasked) two's-complement bits.
pub fn to_sint_sat<F: Float>(x: F, width: u32) -> u64 {
    let v = x.to_i64_sat();
    if width >= 64 {
        return v as u64;
    }
    let max = (1i64 << (width - 1)) - 1;
    let min = -(1i64 << (width - 1));
    v.clamp(min, max) as u64
}

/// Float → unsigned integer of `width` bits: truncation toward zero, saturating, NaN → 0.
pub fn to_uint_sat<F: Float>(x: F, width: u32) -> u64 {
    let v = x.to_u64_sat();
    if width >= 64 {
        return v;
    }
    v.min((1u64 << width) - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_max_num_handle_nan_and_signed_zero() {
        assert_eq!(min_num(f32::NAN, 1.0), 1.0);
        assert_eq!(max_num(2.0, f64::NAN), 2.0);
        assert!(min_num(f32::NAN, f32::NAN).is_nan());
        assert!(min_num(0.0f32, -0.0).is_sign_negative());
        assert!(min_num(-0.0f32, 0.0).is_sign_negative());
        assert!(!max_num(0.0f64, -0.0).is_sign_negative());
        assert!(!max_num(-0.0f64, 0.0).is_sign_negative());
        assert_eq!(min_num(-3.0f64, 2.0), -3.0);
    }

    #[test]
    fn saturating_conversions() {
        assert_eq!(to_sint_sat(1e10f32, 32), i32::MAX as u64);
        assert_eq!(to_sint_sat(-1e10f32, 32) as i64, i64::from(i32::MIN));
        assert_eq!(to_sint_sat(f64::NAN, 16), 0);
        assert_eq!(to_sint_sat(-2.7f64, 8) as i64, -2);
        assert_eq!(to_sint_sat(-5.0f64, 1) as i64, -1);
        assert_eq!(to_sint_sat(0.9f64, 1), 0);
        assert_eq!(to_uint_sat(-1.0f32, 8), 0);
        assert_eq!(to_uint_sat(300.0f32, 8), 255);
        assert_eq!(to_uint_sat(f64::INFINITY, 64), u64::MAX);
        assert_eq!(to_uint_sat(f64::NAN, 64), 0);
    }
}
