//! Memory through its public API: pointer encoding, bounds, alignment, limits, tracing.

use lanes_interp::memory::{decode_ptr, encode_ptr, OFFSET_BITS};
use lanes_interp::{Access, AccessKind, MemError, Memory, RtValue};
use lanes_ir::{AddrSpace, ScalarType, Type};
#[test]
fn pointers_encode_allocation_and_offset() {
    let p = encode_ptr(7, 123);
    assert_eq!(decode_ptr(p), (7, 123));
    assert_eq!(decode_ptr(0), (0, 0));
    assert_eq!(decode_ptr(p.wrapping_sub(124)), (6, (1 << OFFSET_BITS) - 1));
}

#[test]
fn accesses_are_checked() {
    let mut m = Memory::new();
    let p = m.alloc(16, 4, AddrSpace::GLOBAL).unwrap();
    m.store(p + 12, &RtValue::i32(-5), 4, None).unwrap();
    assert_eq!(
        m.load(p + 12, Type::I32, 4, None).unwrap(),
        RtValue::i32(-5)
    );
    let e = m.load(p + 16, Type::I32, 4, None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "out-of-bounds read of 4 bytes at offset 16 of a 16-byte allocation"
    );
    assert!(m.load(p + 13, Type::I8, 0, None).is_ok());
    assert!(matches!(
        m.load(p + 2, Type::I32, 4, None),
        Err(MemError::Misaligned { .. })
    ));
    m.set_check_alignment(false);
    assert!(m.load(p + 2, Type::I32, 4, None).is_ok());
    assert!(matches!(
        m.load(0, Type::I8, 0, None),
        Err(MemError::Unallocated { .. })
    ));
    let far = encode_ptr(99, 0);
    assert!(matches!(
        m.read_bytes(far, 1),
        Err(MemError::Unallocated { .. })
    ));
    let below = p.wrapping_sub(1);
    assert!(m.load(below, Type::I8, 0, None).is_err());
    assert_eq!(m.access_counts(), (3, 1));
}

#[test]
fn limit_and_alignment_validation() {
    let mut m = Memory::new();
    m.set_limit(100);
    assert!(m.alloc(64, 8, AddrSpace::PRIVATE).is_ok());
    assert!(matches!(
        m.alloc(64, 8, AddrSpace::PRIVATE),
        Err(MemError::OutOfMemory { .. })
    ));
    assert!(matches!(
        m.alloc(1, 3, AddrSpace::PRIVATE),
        Err(MemError::BadAlign(3))
    ));
}

#[test]
fn trace_records_lanes() {
    let mut m = Memory::new();
    let p = m
        .alloc_values(
            &[RtValue::f32(1.0), RtValue::f32(2.0)],
            4,
            AddrSpace::GLOBAL,
        )
        .unwrap();
    m.enable_trace();
    m.load(p + 4, Type::F32, 4, Some(1)).unwrap();
    let t = m.take_trace();
    assert_eq!(
        t,
        vec![Access {
            kind: AccessKind::Read,
            ptr: p + 4,
            size: 4,
            lane: Some(1)
        }]
    );
    let arr = m.read_array(p, ScalarType::F32, 2).unwrap();
    assert_eq!(arr[1], RtValue::f32(2.0));
    assert!(m.take_trace().is_empty(), "harness reads are not traced");
}
