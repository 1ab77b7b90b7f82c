//! Semantics of the address and memory instructions.
//!
//! - `ptradd` adds a signed byte offset (any integer width, sign-extended) to a pointer,
//!   wrapping; a vector base or offset gives a vector of pointers, the scalar side being
//!   used by every lane (how a uniform base with varying offsets becomes a gather address
//!   vector, PLDI'18 §7).
//! - `load`/`store` of a vector type access `lanes × size` contiguous bytes at one scalar
//!   address; `i1` lanes take one byte each; integers are little-endian.
//! - `masked_load`/`masked_store` access lane `i` at `ptr + i × size` and `gather`/
//!   `scatter` at their own `ptrs[i]` — *only* for lanes whose mask bit is set. An
//!   inactive lane's address is never checked, so an out-of-bounds or null address in an
//!   inactive lane is not an error: this is the property that makes linearized code with
//!   masked memory operations safe (PLDI'18 §3, §7), and the interpreter is what tests it.
//!   Scatter writes lanes in increasing order, so the highest active lane wins a collision
//!   (LLVM's `masked.scatter`). An explicit alignment of a masked load or store applies to
//!   its base pointer, and is checked only if some lane is active; of a gather or scatter,
//!   to each active lane's address.
//! - Atomics have sequential semantics (the interpreter runs one instance at a time) and
//!   require natural alignment; they return the old value.

use lanes_ir::{AtomicOp, BinaryOp, ScalarType, Type};

use crate::arith::{int_binary, malformed};
use crate::error::ErrorKind;
use crate::memory::{AccessKind, Memory};
use crate::value::{sext, RtValue};

/// `ptradd base, offset` with result type `out`.
pub fn ptradd(base: &RtValue, offset: &RtValue, out: Type) -> Result<RtValue, ErrorKind> {
    if !base.elem().is_ptr() || !offset.elem().is_int() || out.elem() != base.elem() {
        return Err(malformed(format!(
            "ptradd of {} and {} to {out}",
            base.ty(),
            offset.ty()
        )));
    }
    let n = out.lane_count() as usize;
    let fits = |v: &RtValue| !v.is_vector() || (out.is_vector() && v.lane_count() == n);
    if !fits(base) || !fits(offset) {
        return Err(malformed(format!(
            "ptradd of {} and {} to {out}",
            base.ty(),
            offset.ty()
        )));
    }
    let ow = offset.elem().bits();
    let lane = |v: &RtValue, i: usize| {
        if v.is_vector() {
            v.lanes()[i]
        } else {
            v.lanes()[0]
        }
    };
    let lanes = (0..n)
        .map(|i| lane(base, i).wrapping_add(sext(ow, lane(offset, i)) as u64))
        .collect();
    RtValue::from_lanes(out, lanes).ok_or_else(|| malformed("ptradd lanes"))
}

/// The address of a scalar pointer operand.
fn address(ptr: &RtValue) -> Result<u64, ErrorKind> {
    match (ptr.ty(), ptr.bits()) {
        (Type::Scalar(ScalarType::Ptr(_)), Some(bits)) => Ok(bits),
        _ => Err(malformed(format!("address operand of type {}", ptr.ty()))),
    }
}

/// Checks that `mask` is a mask (or `i1`) with as many lanes as `like`.
fn check_mask(mask: &RtValue, like: &RtValue) -> Result<(), ErrorKind> {
    if mask.elem() != ScalarType::I1 || mask.lane_count() != like.lane_count() {
        return Err(malformed(format!(
            "mask of type {} for {}",
            mask.ty(),
            like.ty()
        )));
    }
    Ok(())
}

/// Checks that `ptrs` holds one pointer per lane of `like`.
fn check_ptrs(ptrs: &RtValue, like: &RtValue) -> Result<(), ErrorKind> {
    if !ptrs.elem().is_ptr() || ptrs.lane_count() != like.lane_count() {
        return Err(malformed(format!(
            "address vector of type {} for {}",
            ptrs.ty(),
            like.ty()
        )));
    }
    Ok(())
}

/// `load` of type `ty`.
pub fn load(
    mem: &mut Memory,
    ptr: &RtValue,
    ty: Type,
    align: u32,
    lane: Option<u32>,
) -> Result<RtValue, ErrorKind> {
    Ok(mem.load(address(ptr)?, ty, align, lane)?)
}

/// `store value, ptr`.
pub fn store(
    mem: &mut Memory,
    value: &RtValue,
    ptr: &RtValue,
    align: u32,
    lane: Option<u32>,
) -> Result<(), ErrorKind> {
    Ok(mem.store(address(ptr)?, value, align, lane)?)
}

fn active_lanes(mask: &RtValue) -> impl Iterator<Item = usize> + '_ {
    mask.lanes()
        .iter()
        .enumerate()
        .filter(|(_, &b)| b != 0)
        .map(|(i, _)| i)
}

fn lane_addr(base: u64, i: usize, elem: ScalarType) -> u64 {
    base.wrapping_add((i as u64).wrapping_mul(u64::from(elem.bytes())))
}

/// `masked_load ptr, mask, passthru`.
pub fn masked_load(
    mem: &mut Memory,
    ptr: &RtValue,
    mask: &RtValue,
    passthru: &RtValue,
    align: u32,
) -> Result<RtValue, ErrorKind> {
    check_mask(mask, passthru)?;
    let base = address(ptr)?;
    let elem = passthru.elem();
    let mut lanes = passthru.lanes().to_vec();
    if active_lanes(mask).next().is_some() {
        mem.check_alignment(
            AccessKind::Read,
            base,
            u64::from(passthru.ty().bytes()),
            align,
        )?;
    }
    for i in active_lanes(mask) {
        let v = mem.load(
            lane_addr(base, i, elem),
            Type::Scalar(elem),
            0,
            Some(i as u32),
        )?;
        lanes[i] = v.lanes()[0];
    }
    RtValue::from_lanes(passthru.ty(), lanes).ok_or_else(|| malformed("masked_load lanes"))
}

/// `masked_store value, ptr, mask`.
pub fn masked_store(
    mem: &mut Memory,
    value: &RtValue,
    ptr: &RtValue,
    mask: &RtValue,
    align: u32,
) -> Result<(), ErrorKind> {
    check_mask(mask, value)?;
    let base = address(ptr)?;
    let elem = value.elem();
    if active_lanes(mask).next().is_some() {
        mem.check_alignment(
            AccessKind::Write,
            base,
            u64::from(value.ty().bytes()),
            align,
        )?;
    }
    for i in active_lanes(mask) {
        let lane = RtValue::from_bits(elem, value.lanes()[i]);
        mem.store(lane_addr(base, i, elem), &lane, 0, Some(i as u32))?;
    }
    Ok(())
}

/// `gather ptrs, mask, passthru`.
pub fn gather(
    mem: &mut Memory,
    ptrs: &RtValue,
    mask: &RtValue,
    passthru: &RtValue,
    align: u32,
) -> Result<RtValue, ErrorKind> {
    check_mask(mask, passthru)?;
    check_ptrs(ptrs, passthru)?;
    let elem = passthru.elem();
    let mut lanes = passthru.lanes().to_vec();
    for i in active_lanes(mask) {
        let v = mem.load(ptrs.lanes()[i], Type::Scalar(elem), align, Some(i as u32))?;
        lanes[i] = v.lanes()[0];
    }
    RtValue::from_lanes(passthru.ty(), lanes).ok_or_else(|| malformed("gather lanes"))
}

/// `speculative_load ptr, mask` of type `ty`: the active lanes, from `ptr + i × size`
/// (scalar `ptr`) or `ptrs[i]`; bytes outside every live allocation read as zero and the
/// reads are traced as [`AccessKind::Speculative`], never as the program's own.
pub fn speculative_load(
    mem: &mut Memory,
    ptr: &RtValue,
    mask: &RtValue,
    ty: Type,
) -> Result<RtValue, ErrorKind> {
    let like = RtValue::splat(ty, 0);
    check_mask(mask, &like)?;
    let elem = ty.elem();
    let addr = |i: usize| -> Result<u64, ErrorKind> {
        if ptr.is_vector() {
            check_ptrs(ptr, &like)?;
            Ok(ptr.lanes()[i])
        } else {
            Ok(lane_addr(address(ptr)?, i, elem))
        }
    };
    let mut lanes = like.lanes().to_vec();
    for i in active_lanes(mask) {
        let lane = if ty.is_vector() { Some(i as u32) } else { None };
        let v = mem.speculative_read(addr(i)?, Type::Scalar(elem), lane);
        lanes[i] = v.lanes()[0];
    }
    RtValue::from_lanes(ty, lanes).ok_or_else(|| malformed("speculative_load lanes"))
}

/// `scatter value, ptrs, mask`.
pub fn scatter(
    mem: &mut Memory,
    value: &RtValue,
    ptrs: &RtValue,
    mask: &RtValue,
    align: u32,
) -> Result<(), ErrorKind> {
    check_mask(mask, value)?;
    check_ptrs(ptrs, value)?;
    let elem = value.elem();
    for i in active_lanes(mask) {
        let lane = RtValue::from_bits(elem, value.lanes()[i]);
        mem.store(ptrs.lanes()[i], &lane, align, Some(i as u32))?;
    }
    Ok(())
}

/// `atomic_rmw op ptr, value`: returns the old value.
pub fn atomic_rmw(
    mem: &mut Memory,
    op: AtomicOp,
    ptr: &RtValue,
    value: &RtValue,
    lane: Option<u32>,
) -> Result<RtValue, ErrorKind> {
    let elem = value.elem();
    let int_ok = elem.is_int() || op == AtomicOp::Xchg;
    if value.is_vector() || !int_ok {
        return Err(malformed(format!("atomic_rmw {op} on {}", value.ty())));
    }
    let addr = address(ptr)?;
    let natural = elem.bytes();
    let old = mem.load(addr, value.ty(), natural, lane)?;
    let (x, y) = (old.lanes()[0], value.lanes()[0]);
    let w = elem.bits();
    let new = match op {
        AtomicOp::Xchg => y,
        AtomicOp::Add => int_binary(BinaryOp::Add, w, x, y)?,
        AtomicOp::Sub => int_binary(BinaryOp::Sub, w, x, y)?,
        AtomicOp::And => int_binary(BinaryOp::And, w, x, y)?,
        AtomicOp::Or => int_binary(BinaryOp::Or, w, x, y)?,
        AtomicOp::Xor => int_binary(BinaryOp::Xor, w, x, y)?,
        AtomicOp::SMin => int_binary(BinaryOp::SMin, w, x, y)?,
        AtomicOp::SMax => int_binary(BinaryOp::SMax, w, x, y)?,
        AtomicOp::UMin => int_binary(BinaryOp::UMin, w, x, y)?,
        AtomicOp::UMax => int_binary(BinaryOp::UMax, w, x, y)?,
    };
    mem.store(addr, &RtValue::from_bits(elem, new), natural, lane)?;
    Ok(old)
}

/// `atomic_cas ptr, expected, replacement`: stores if the old value equals `expected`
/// (bitwise), returns the old value.
pub fn atomic_cas(
    mem: &mut Memory,
    ptr: &RtValue,
    expected: &RtValue,
    replacement: &RtValue,
    lane: Option<u32>,
) -> Result<RtValue, ErrorKind> {
    if expected.ty() != replacement.ty() || expected.is_vector() {
        return Err(malformed(format!(
            "atomic_cas of {} and {}",
            expected.ty(),
            replacement.ty()
        )));
    }
    let addr = address(ptr)?;
    let natural = expected.elem().bytes();
    let old = mem.load(addr, expected.ty(), natural, lane)?;
    if old == *expected {
        mem.store(addr, replacement, natural, lane)?;
    }
    Ok(old)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemError;
    use lanes_ir::AddrSpace;

    fn buffer(mem: &mut Memory, xs: &[i32]) -> RtValue {
        let vals: Vec<RtValue> = xs.iter().map(|&x| RtValue::i32(x)).collect();
        RtValue::ptr(mem.alloc_values(&vals, 16, AddrSpace::PRIVATE).unwrap())
    }

    #[test]
    fn ptradd_splats_the_scalar_side() {
        let p = RtValue::ptr(0x100);
        let offs = RtValue::i32s(&[0, 4, -4, 8]);
        let out = Type::vector(4, ScalarType::Ptr(AddrSpace::PRIVATE));
        let v = ptradd(&p, &offs, out).unwrap();
        assert_eq!(v.lanes(), &[0x100, 0x104, 0xfc, 0x108]);
        let s = ptradd(&p, &RtValue::i8(-1), Type::PTR).unwrap();
        assert_eq!(s.bits(), Some(0xff));
        assert!(ptradd(&p, &offs, Type::PTR).is_err());
    }

    #[test]
    fn masked_load_skips_inactive_out_of_bounds_lanes() {
        let mut mem = Memory::new();
        let p = buffer(&mut mem, &[10, 20, 30]);
        let pass = RtValue::i32s(&[-1, -1, -1, -1]);
        let mask = RtValue::mask(&[true, false, true, false]);
        mem.enable_trace();
        let v = masked_load(&mut mem, &p, &mask, &pass, 4).unwrap();
        assert_eq!(v, RtValue::i32s(&[10, -1, 30, -1]));
        let lanes: Vec<_> = mem.take_trace().iter().map(|a| a.lane).collect();
        assert_eq!(lanes, vec![Some(0), Some(2)]);
        let all = RtValue::mask(&[true; 4]);
        let e = masked_load(&mut mem, &p, &all, &pass, 4).unwrap_err();
        assert!(matches!(
            e,
            ErrorKind::Memory(MemError::OutOfBounds { offset: 12, .. })
        ));
        let none = RtValue::mask(&[false; 4]);
        let null = RtValue::ptr(0);
        assert_eq!(
            masked_load(&mut mem, &null, &none, &pass, 4),
            Ok(pass.clone())
        );
        assert!(
            mem.take_trace().len() == 3,
            "only the three in-bounds lanes were read"
        );
    }

    #[test]
    fn gather_and_scatter_touch_only_active_lanes() {
        let mut mem = Memory::new();
        let p = buffer(&mut mem, &[1, 2, 3, 4]);
        let base = p.bits().unwrap();
        let ptr_ty = ScalarType::Ptr(AddrSpace::PRIVATE);
        let ptrs = RtValue::vector(ptr_ty, &[base + 12, 0, base, base + 400]).unwrap();
        let mask = RtValue::mask(&[true, false, true, false]);
        let pass = RtValue::i32s(&[0; 4]);
        let g = gather(&mut mem, &ptrs, &mask, &pass, 4).unwrap();
        assert_eq!(g, RtValue::i32s(&[4, 0, 1, 0]));
        let val = RtValue::i32s(&[7, 8, 9, 10]);
        scatter(&mut mem, &val, &ptrs, &mask, 4).unwrap();
        let back = mem.read_array(base, ScalarType::I32, 4).unwrap();
        assert_eq!(back, [9, 2, 3, 7].map(RtValue::i32).to_vec());
        let dup = RtValue::vector(ptr_ty, &[base, base, base, base]).unwrap();
        scatter(
            &mut mem,
            &val,
            &dup,
            &RtValue::mask(&[true, true, true, false]),
            4,
        )
        .unwrap();
        assert_eq!(
            mem.read_value(base, Type::I32).unwrap(),
            RtValue::i32(9),
            "last lane wins"
        );
        let all = RtValue::mask(&[true; 4]);
        assert!(gather(&mut mem, &ptrs, &all, &pass, 4).is_err());
    }

    #[test]
    fn atomics_return_the_old_value() {
        let mut mem = Memory::new();
        let p = buffer(&mut mem, &[5]);
        let old = atomic_rmw(&mut mem, AtomicOp::Add, &p, &RtValue::i32(3), None).unwrap();
        assert_eq!(old, RtValue::i32(5));
        let old = atomic_rmw(&mut mem, AtomicOp::SMin, &p, &RtValue::i32(-2), None).unwrap();
        assert_eq!(old, RtValue::i32(8));
        let old = atomic_cas(&mut mem, &p, &RtValue::i32(0), &RtValue::i32(1), None).unwrap();
        assert_eq!(old, RtValue::i32(-2));
        let old = atomic_cas(&mut mem, &p, &RtValue::i32(-2), &RtValue::i32(1), None).unwrap();
        assert_eq!(old, RtValue::i32(-2));
        assert_eq!(
            mem.read_value(p.bits().unwrap(), Type::I32).unwrap(),
            RtValue::i32(1)
        );
        let odd = RtValue::ptr(p.bits().unwrap() + 1);
        assert!(atomic_rmw(&mut mem, AtomicOp::Add, &odd, &RtValue::i16(1), None).is_err());
    }
}
