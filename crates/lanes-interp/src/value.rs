//! Runtime values of the interpreter.
//!
//! lanes IR has no aggregates (ARCHITECTURE.md, "The IR"): a value is a scalar or a
//! fixed-length vector of one element type. The interpreter therefore represents every
//! value the same way, as its [`Type`] plus one raw bit pattern per lane (a scalar has one
//! lane). Raw bits rather than typed Rust numbers keep the semantics exact and total:
//! integers are stored zero-extended and masked to their width (signedness is a property
//! of the operation, as in LLVM), floats as their IEEE bits (so NaN payloads and `-0.0`
//! survive copies), `i1` as 0 or 1, pointers as the 64-bit encoding of
//! [`crate::memory`]. Lane-wise semantics (vector mode) and per-thread semantics (the later
//! SIMT mode) then share one code path per operation.
//!
//! `Display` prints values in the literal style of `.lir` and of run lines: `42`, `-1`,
//! `1.5`, `nan`, `true`, `<1, 2, 3, 4>`, and pointers as `null` or `&a3+16` (allocation 3,
//! byte offset 16), so that a pointer can never be mistaken for an integer.

use core::fmt;

use lanes_ir::{ScalarType, Type};

use crate::memory::pointer::decode_ptr;

/// The mask selecting the low `bits` bits of a `u64`.
pub fn width_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Brings raw bits into the canonical form of a lane of `elem`: masked to its width.
pub fn normalize(elem: ScalarType, bits: u64) -> u64 {
    bits & width_mask(elem.bits())
}

/// Sign-extends the low `width` bits of `bits` to an `i64`.
pub fn sext(width: u32, bits: u64) -> i64 {
    if width == 0 || width >= 64 {
        return bits as i64;
    }
    let shift = 64 - width;
    ((bits << shift) as i64) >> shift
}

/// A runtime value: a type and one canonical bit pattern per lane.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RtValue {
    ty: Type,
    lanes: Vec<u64>,
}

impl RtValue {
    /// A scalar of `elem` from raw bits (masked to the width).
    pub fn from_bits(elem: ScalarType, bits: u64) -> RtValue {
        RtValue {
            ty: Type::Scalar(elem),
            lanes: vec![normalize(elem, bits)],
        }
    }

    /// A value of `ty` from one raw bit pattern per lane (masked). `None` if the number of
    /// lanes does not match the type.
    pub fn from_lanes(ty: Type, lanes: Vec<u64>) -> Option<RtValue> {
        if lanes.len() != ty.lane_count() as usize || ty.lane_count() == 0 {
            return None;
        }
        let elem = ty.elem();
        let lanes = lanes.into_iter().map(|b| normalize(elem, b)).collect();
        Some(RtValue { ty, lanes })
    }

    /// `ty` with every lane holding `bits` (a scalar if `ty` is one).
    pub fn splat(ty: Type, bits: u64) -> RtValue {
        let bits = normalize(ty.elem(), bits);
        RtValue {
            ty,
            lanes: vec![bits; ty.lane_count() as usize],
        }
    }

    /// A vector `<n x elem>` of the given lane bits; `None` if there are no lanes or more
    /// than `u16::MAX`.
    pub fn vector(elem: ScalarType, lanes: &[u64]) -> Option<RtValue> {
        let n = u16::try_from(lanes.len()).ok().filter(|&n| n > 0)?;
        RtValue::from_lanes(Type::Vector(n, elem), lanes.to_vec())
    }

    /// An integer scalar of `elem` from a signed value (truncated to the width).
    pub fn int(elem: ScalarType, x: i64) -> RtValue {
        RtValue::from_bits(elem, x as u64)
    }

    pub fn bool(b: bool) -> RtValue {
        RtValue::from_bits(ScalarType::I1, u64::from(b))
    }

    pub fn i8(x: i8) -> RtValue {
        RtValue::int(ScalarType::I8, x.into())
    }

    pub fn i16(x: i16) -> RtValue {
        RtValue::int(ScalarType::I16, x.into())
    }

    pub fn i32(x: i32) -> RtValue {
        RtValue::int(ScalarType::I32, x.into())
    }

    pub fn i64(x: i64) -> RtValue {
        RtValue::int(ScalarType::I64, x)
    }

    pub fn f32(x: f32) -> RtValue {
        RtValue::from_bits(ScalarType::F32, x.to_bits().into())
    }

    pub fn f64(x: f64) -> RtValue {
        RtValue::from_bits(ScalarType::F64, x.to_bits())
    }

    /// A private-space pointer with the given encoding.
    pub fn ptr(bits: u64) -> RtValue {
        RtValue::from_bits(ScalarType::Ptr(lanes_ir::AddrSpace::PRIVATE), bits)
    }

    /// A pointer of type `ty` (any address space) with the given encoding.
    pub fn ptr_of(ty: ScalarType, bits: u64) -> RtValue {
        RtValue::from_bits(ty, bits)
    }

    /// A vector of `i32` lanes.
    pub fn i32s(xs: &[i32]) -> RtValue {
        let lanes: Vec<u64> = xs.iter().map(|&x| x as u32 as u64).collect();
        RtValue::vector(ScalarType::I32, &lanes).unwrap_or_else(|| RtValue::i32(0))
    }

    /// A vector of `f32` lanes.
    pub fn f32s(xs: &[f32]) -> RtValue {
        let lanes: Vec<u64> = xs.iter().map(|x| x.to_bits().into()).collect();
        RtValue::vector(ScalarType::F32, &lanes).unwrap_or_else(|| RtValue::f32(0.0))
    }

    /// A mask `<n x i1>`.
    pub fn mask(bits: &[bool]) -> RtValue {
        let lanes: Vec<u64> = bits.iter().map(|&b| u64::from(b)).collect();
        RtValue::vector(ScalarType::I1, &lanes).unwrap_or_else(|| RtValue::bool(false))
    }

    /// Combines scalars of one element type into a vector; `None` if they disagree.
    pub fn from_scalars(values: &[RtValue]) -> Option<RtValue> {
        let elem = values.first()?.ty.elem();
        if values.iter().any(|v| v.ty != Type::Scalar(elem)) {
            return None;
        }
        let lanes: Vec<u64> = values.iter().map(|v| v.lanes[0]).collect();
        RtValue::vector(elem, &lanes)
    }

    pub fn ty(&self) -> Type {
        self.ty
    }

    pub fn elem(&self) -> ScalarType {
        self.ty.elem()
    }

    pub fn is_vector(&self) -> bool {
        self.ty.is_vector()
    }

    /// Number of lanes (1 for a scalar).
    pub fn lane_count(&self) -> usize {
        self.lanes.len()
    }

    /// The raw bits of every lane.
    pub fn lanes(&self) -> &[u64] {
        &self.lanes
    }

    /// The raw bits of lane `i`.
    pub fn lane_bits(&self, i: usize) -> Option<u64> {
        self.lanes.get(i).copied()
    }

    /// Lane `i` as a scalar value.
    pub fn lane(&self, i: usize) -> Option<RtValue> {
        let bits = self.lane_bits(i)?;
        Some(RtValue {
            ty: Type::Scalar(self.elem()),
            lanes: vec![bits],
        })
    }

    /// The bits of a scalar (`None` for vectors).
    pub fn bits(&self) -> Option<u64> {
        if self.is_vector() {
            None
        } else {
            self.lanes.first().copied()
        }
    }

    /// A scalar integer, sign-extended from its width.
    pub fn as_i64(&self) -> Option<i64> {
        let b = self.bits()?;
        (self.elem().is_int() || self.elem().is_ptr()).then(|| sext(self.elem().bits(), b))
    }

    /// A scalar integer or pointer, zero-extended.
    pub fn as_u64(&self) -> Option<u64> {
        let b = self.bits()?;
        (self.elem().is_int() || self.elem().is_ptr()).then_some(b)
    }

    pub fn as_bool(&self) -> Option<bool> {
        (self.ty == Type::I1).then(|| self.lanes[0] != 0)
    }

    pub fn as_f32(&self) -> Option<f32> {
        (self.ty == Type::F32).then(|| f32::from_bits(self.lanes[0] as u32))
    }

    pub fn as_f64(&self) -> Option<f64> {
        (self.ty == Type::F64).then(|| f64::from_bits(self.lanes[0]))
    }

    /// Every lane as a signed integer (sign-extended from the element width).
    pub fn lanes_i64(&self) -> Vec<i64> {
        let w = self.elem().bits();
        self.lanes.iter().map(|&b| sext(w, b)).collect()
    }

    /// Every lane as an `f32` (meaningful for `f32` elements only).
    pub fn lanes_f32(&self) -> Vec<f32> {
        self.lanes
            .iter()
            .map(|&b| f32::from_bits(b as u32))
            .collect()
    }

    /// Every lane as an `f64` (meaningful for `f64` elements only).
    pub fn lanes_f64(&self) -> Vec<f64> {
        self.lanes.iter().map(|&b| f64::from_bits(b)).collect()
    }

    /// The in-memory representation: lanes packed in order, each little-endian, `i1` as
    /// one byte (0 or 1), pointers as 8 bytes.
    pub fn to_le_bytes(&self) -> Vec<u8> {
        let size = self.elem().bytes() as usize;
        let mut out = Vec::with_capacity(size * self.lanes.len());
        for &bits in &self.lanes {
            out.extend_from_slice(&bits.to_le_bytes()[..size]);
        }
        out
    }

    /// Reads a value of `ty` from its in-memory representation; `None` if `bytes` has the
    /// wrong length. An `i1` byte reads as its low bit (as `trunc` would).
    pub fn from_le_bytes(ty: Type, bytes: &[u8]) -> Option<RtValue> {
        let size = ty.elem().bytes() as usize;
        if bytes.len() != size * ty.lane_count() as usize {
            return None;
        }
        let lanes = bytes
            .chunks_exact(size)
            .map(|chunk| {
                let mut buf = [0u8; 8];
                buf[..size].copy_from_slice(chunk);
                u64::from_le_bytes(buf)
            })
            .collect();
        RtValue::from_lanes(ty, lanes)
    }

    /// Lane-wise equality where any NaN equals any NaN (bit equality otherwise, so
    /// `-0.0 != 0.0`): the comparison run lines and differential tests want.
    pub fn same_as(&self, other: &RtValue) -> bool {
        self.ty == other.ty
            && self
                .lanes
                .iter()
                .zip(&other.lanes)
                .all(|(&a, &b)| a == b || (is_nan(self.elem(), a) && is_nan(self.elem(), b)))
    }
}

/// Is `bits` a NaN of float type `elem`?
pub fn is_nan(elem: ScalarType, bits: u64) -> bool {
    match elem {
        ScalarType::F32 => f32::from_bits(bits as u32).is_nan(),
        ScalarType::F64 => f64::from_bits(bits).is_nan(),
        _ => false,
    }
}

/// Writes one lane of `elem` in literal style.
pub fn fmt_lane(f: &mut dyn fmt::Write, elem: ScalarType, bits: u64) -> fmt::Result {
    match elem {
        ScalarType::I1 => f.write_str(if bits & 1 != 0 { "true" } else { "false" }),
        ScalarType::F32 => fmt_float(f, f64::from(f32::from_bits(bits as u32)), || {
            format!("{:?}", f32::from_bits(bits as u32))
        }),
        ScalarType::F64 => fmt_float(f, f64::from_bits(bits), || {
            format!("{:?}", f64::from_bits(bits))
        }),
        ScalarType::Ptr(_) => {
            if bits == 0 {
                return f.write_str("null");
            }
            let (id, offset) = decode_ptr(bits);
            if offset == 0 {
                write!(f, "&a{id}")
            } else {
                write!(f, "&a{id}+{offset}")
            }
        }
        int => write!(f, "{}", sext(int.bits(), bits)),
    }
}

fn fmt_float(f: &mut dyn fmt::Write, x: f64, text: impl Fn() -> String) -> fmt::Result {
    if x.is_nan() {
        f.write_str("nan")
    } else if x.is_infinite() {
        f.write_str(if x > 0.0 { "inf" } else { "-inf" })
    } else {
        f.write_str(&text())
    }
}

impl fmt::Display for RtValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let elem = self.elem();
        if !self.is_vector() {
            return fmt_lane(f, elem, self.lanes[0]);
        }
        f.write_str("<")?;
        for (i, &bits) in self.lanes.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            fmt_lane(f, elem, bits)?;
        }
        f.write_str(">")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::encode_ptr;

    #[test]
    fn display_in_literal_style() {
        assert_eq!(RtValue::i32(42).to_string(), "42");
        assert_eq!(RtValue::i8(-1).to_string(), "-1");
        assert_eq!(RtValue::f32(1.5).to_string(), "1.5");
        assert_eq!(RtValue::f64(-0.0).to_string(), "-0.0");
        assert_eq!(RtValue::f32(f32::NAN).to_string(), "nan");
        assert_eq!(RtValue::f64(f64::NEG_INFINITY).to_string(), "-inf");
        assert_eq!(RtValue::bool(true).to_string(), "true");
        assert_eq!(RtValue::i32s(&[1, 2, 3, 4]).to_string(), "<1, 2, 3, 4>");
        assert_eq!(RtValue::ptr(0).to_string(), "null");
        assert_eq!(RtValue::ptr(encode_ptr(3, 16)).to_string(), "&a3+16");
        assert_eq!(RtValue::mask(&[true, false]).to_string(), "<true, false>");
    }

    #[test]
    fn lanes_are_normalized_and_sign_extended_on_demand() {
        let v = RtValue::int(ScalarType::I8, 0x1ff);
        assert_eq!(v.bits(), Some(0xff));
        assert_eq!(v.as_i64(), Some(-1));
        assert_eq!(v.as_u64(), Some(255));
        assert_eq!(sext(1, 1), -1);
        assert_eq!(sext(64, u64::MAX), -1);
        assert_eq!(RtValue::from_lanes(Type::I32, vec![1, 2]), None);
    }

    #[test]
    fn memory_representation_round_trips() {
        let v = RtValue::i32s(&[1, -2, 3, 0x7fff_ffff]);
        let bytes = v.to_le_bytes();
        assert_eq!(&bytes[4..8], &[0xfe, 0xff, 0xff, 0xff]);
        assert_eq!(RtValue::from_le_bytes(v.ty(), &bytes), Some(v));
        let m = RtValue::mask(&[true, false, true]);
        assert_eq!(m.to_le_bytes(), vec![1, 0, 1]);
        assert_eq!(
            RtValue::from_le_bytes(Type::I1, &[3]),
            Some(RtValue::bool(true))
        );
        assert_eq!(RtValue::from_le_bytes(Type::I32, &[0; 3]), None);
    }

    #[test]
    fn same_as_treats_nans_alike_but_not_signed_zeros() {
        let nan1 = RtValue::f32(f32::NAN);
        let nan2 = RtValue::from_bits(ScalarType::F32, 0x7fc0_0001);
        assert!(nan1.same_as(&nan2));
        assert_ne!(nan1, nan2);
        assert!(!RtValue::f32(0.0).same_as(&RtValue::f32(-0.0)));
        assert!(!RtValue::i32(1).same_as(&RtValue::i64(1)));
    }
}
