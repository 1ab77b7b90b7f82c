//! Semantics of the conversion instructions.
//!
//! Conversions work lane by lane and keep the lane count, except `bitcast`, which keeps
//! the total number of bits (`opcodes.rs`, `CastOp`). The choices the IR fixes where
//! LLVM has undefined behaviour or poison, so that every input has one result:
//!
//! - `fptosi`/`fptoui` saturate at the target range and map NaN to 0 (LLVM's
//!   `llvm.fpto[su]i.sat`);
//! - `sext` of an `i1` gives 0 or -1, `sitofp` of `i1` true gives -1.0 (LLVM's reading of
//!   `i1` as signed);
//! - `bitcast` concatenates lanes with lane 0 in the least significant bits, which is
//!   LLVM's layout of vectors on little-endian targets, so `bitcast <8 x i1> to i8` packs
//!   a mask into bits and `<2 x i32>` ↔ `i64` agree with memory;
//! - `ptrtoint`/`inttoptr` are the identity on the 64-bit pointer encoding (truncated or
//!   zero-extended to the integer width), so they round-trip through `i64`.

use lanes_ir::{CastOp, ScalarType, Type};

use crate::arith::{malformed, map_lanes};
use crate::error::ErrorKind;
use crate::float::{to_sint_sat, to_uint_sat, Float};
use crate::value::{sext, width_mask, RtValue};

/// A conversion of `a` to type `to`.
pub fn cast(op: CastOp, a: &RtValue, to: Type) -> Result<RtValue, ErrorKind> {
    if op == CastOp::Bitcast {
        return bitcast(a, to);
    }
    if a.ty().lanes() != to.lanes() {
        return Err(malformed(format!(
            "`{op}` from {} to {} changes the lane count",
            a.ty(),
            to
        )));
    }
    let (from, dst) = (a.elem(), to.elem());
    let fw = from.bits();
    let ok = match op {
        CastOp::Trunc | CastOp::Zext | CastOp::Sext => from.is_int() && dst.is_int(),
        CastOp::FpTrunc | CastOp::FpExt => from.is_float() && dst.is_float(),
        CastOp::FpToSi | CastOp::FpToUi => from.is_float() && dst.is_int(),
        CastOp::SiToFp | CastOp::UiToFp => from.is_int() && dst.is_float(),
        CastOp::PtrToInt => from.is_ptr() && dst.is_int(),
        CastOp::IntToPtr => from.is_int() && dst.is_ptr(),
        CastOp::AddrSpaceCast => from.is_ptr() && dst.is_ptr(),
        CastOp::Bitcast => true,
    };
    if !ok {
        return Err(malformed(format!("`{op}` from {} to {to}", a.ty())));
    }
    map_lanes(a, to, |x| {
        Ok(match op {
            CastOp::Sext => sext(fw, x) as u64,
            CastOp::FpTrunc | CastOp::FpExt => float_to_float(from, dst, x),
            CastOp::FpToSi => with_float(
                from,
                x,
                |f| to_sint_sat(f, dst.bits()),
                |f| to_sint_sat(f, dst.bits()),
            ),
            CastOp::FpToUi => with_float(
                from,
                x,
                |f| to_uint_sat(f, dst.bits()),
                |f| to_uint_sat(f, dst.bits()),
            ),
            CastOp::SiToFp => signed_to_float(dst, sext(fw, x)),
            CastOp::UiToFp => unsigned_to_float(dst, x),
            // trunc, zext, ptrtoint, inttoptr, addrspacecast: the bits, re-masked.
            _ => x,
        })
    })
}

fn with_float(
    elem: ScalarType,
    x: u64,
    f32op: impl Fn(f32) -> u64,
    f64op: impl Fn(f64) -> u64,
) -> u64 {
    if elem == ScalarType::F32 {
        f32op(f32::from_lane(x))
    } else {
        f64op(f64::from_lane(x))
    }
}

fn float_to_float(from: ScalarType, to: ScalarType, x: u64) -> u64 {
    let v = with_float(from, x, |f| f64::from(f).to_bits(), |f| f.to_bits());
    let d = f64::from_bits(v);
    if to == ScalarType::F32 {
        (d as f32).to_lane()
    } else {
        d.to_lane()
    }
}

/// A signed integer converted (rounding to nearest) to float type `dst`.
fn signed_to_float(dst: ScalarType, v: i64) -> u64 {
    if dst == ScalarType::F32 {
        f32::from_i64(v).to_lane()
    } else {
        f64::from_i64(v).to_lane()
    }
}

/// An unsigned integer converted (rounding to nearest) to float type `dst`.
fn unsigned_to_float(dst: ScalarType, v: u64) -> u64 {
    if dst == ScalarType::F32 {
        f32::from_u64(v).to_lane()
    } else {
        f64::from_u64(v).to_lane()
    }
}

/// `bitcast`: reinterpret the concatenated lane bits (lane 0 least significant).
pub fn bitcast(a: &RtValue, to: Type) -> Result<RtValue, ErrorKind> {
    let fw = a.elem().bits() as usize;
    let tw = to.elem().bits() as usize;
    let total = fw * a.lane_count();
    if total != tw * to.lane_count() as usize {
        return Err(malformed(format!(
            "bitcast from {} to {to} changes the size",
            a.ty()
        )));
    }
    let mut words = vec![0u64; total.div_ceil(64)];
    for (i, &x) in a.lanes().iter().enumerate() {
        set_bits(&mut words, i * fw, fw, x);
    }
    let lanes = (0..to.lane_count() as usize)
        .map(|j| get_bits(&words, j * tw, tw))
        .collect();
    RtValue::from_lanes(to, lanes).ok_or_else(|| malformed("bitcast lane count"))
}

fn set_bits(words: &mut [u64], pos: usize, width: usize, x: u64) {
    let (wi, off) = (pos / 64, pos % 64);
    words[wi] |= x << off;
    if off + width > 64 {
        words[wi + 1] |= x >> (64 - off);
    }
}

fn get_bits(words: &[u64], pos: usize, width: usize) -> u64 {
    let (wi, off) = (pos / 64, pos % 64);
    let mut v = words[wi] >> off;
    if off + width > 64 {
        v |= words[wi + 1] << (64 - off);
    }
    v & width_mask(width as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanes_ir::AddrSpace;

    #[test]
    fn integer_extensions_on_vectors() {
        let v = RtValue::vector(ScalarType::I8, &[0xff, 0x7f, 0x80, 1]).unwrap();
        let to = Type::vector(4, ScalarType::I32);
        assert_eq!(
            cast(CastOp::Sext, &v, to),
            Ok(RtValue::i32s(&[-1, 127, -128, 1]))
        );
        assert_eq!(
            cast(CastOp::Zext, &v, to),
            Ok(RtValue::i32s(&[255, 127, 128, 1]))
        );
        let w = RtValue::i32s(&[0x1234, -1, 256, 255]);
        let t = cast(CastOp::Trunc, &w, Type::vector(4, ScalarType::I8)).unwrap();
        assert_eq!(t.lanes_i64(), vec![0x34, -1, 0, -1]);
        assert_eq!(
            cast(CastOp::Sext, &RtValue::bool(true), Type::I32),
            Ok(RtValue::i32(-1))
        );
        assert!(
            cast(CastOp::Sext, &v, Type::I32).is_err(),
            "lane count must be kept"
        );
    }

    #[test]
    fn float_int_conversions_saturate() {
        let v = RtValue::f32s(&[f32::NAN, 1e20, -1e20, -3.9]);
        let to = Type::vector(4, ScalarType::I32);
        assert_eq!(
            cast(CastOp::FpToSi, &v, to),
            Ok(RtValue::i32s(&[0, i32::MAX, i32::MIN, -3]))
        );
        let u = cast(CastOp::FpToUi, &v, to).unwrap();
        assert_eq!(u, RtValue::i32s(&[0, -1, 0, 0]));
        assert_eq!(
            cast(CastOp::SiToFp, &RtValue::bool(true), Type::F32),
            Ok(RtValue::f32(-1.0))
        );
        assert_eq!(
            cast(CastOp::UiToFp, &RtValue::i8(-1), Type::F64),
            Ok(RtValue::f64(255.0))
        );
        let big = RtValue::i64(i64::MAX);
        assert_eq!(
            cast(CastOp::SiToFp, &big, Type::F32),
            Ok(RtValue::f32(9.223372e18))
        );
        assert_eq!(
            cast(CastOp::FpTrunc, &RtValue::f64(1e300), Type::F32),
            Ok(RtValue::f32(f32::INFINITY))
        );
        assert_eq!(
            cast(CastOp::FpExt, &RtValue::f32(-0.0), Type::F64),
            Ok(RtValue::f64(-0.0))
        );
    }

    #[test]
    fn bitcast_between_vectors_and_scalars() {
        let v = RtValue::i32s(&[1, 2]);
        let s = cast(CastOp::Bitcast, &v, Type::I64).unwrap();
        assert_eq!(s, RtValue::i64(0x2_0000_0001));
        assert_eq!(cast(CastOp::Bitcast, &s, v.ty()), Ok(v));
        let m = RtValue::mask(&[true, false, true, true, false, false, false, true]);
        assert_eq!(
            cast(CastOp::Bitcast, &m, Type::I8),
            Ok(RtValue::i8(0b1000_1101u8 as i8))
        );
        let f = cast(CastOp::Bitcast, &RtValue::f32(1.0), Type::I32).unwrap();
        assert_eq!(f, RtValue::i32(0x3f80_0000));
        let mixed = RtValue::vector(ScalarType::I16, &[0xaaaa, 0xbbbb, 0xcccc]).unwrap();
        let back = cast(CastOp::Bitcast, &mixed, Type::vector(6, ScalarType::I8)).unwrap();
        assert_eq!(back.lanes(), &[0xaa, 0xaa, 0xbb, 0xbb, 0xcc, 0xcc]);
        assert!(cast(CastOp::Bitcast, &RtValue::i32(0), Type::I64).is_err());
    }

    #[test]
    fn pointer_casts_round_trip() {
        let p = RtValue::ptr(0x0000_0300_0000_0010);
        let i = cast(CastOp::PtrToInt, &p, Type::I64).unwrap();
        assert_eq!(cast(CastOp::IntToPtr, &i, Type::PTR), Ok(p.clone()));
        let g = cast(CastOp::AddrSpaceCast, &p, Type::ptr(AddrSpace::GLOBAL)).unwrap();
        assert_eq!(g.bits(), p.bits());
        assert!(cast(CastOp::PtrToInt, &RtValue::i64(0), Type::I64).is_err());
    }
}
