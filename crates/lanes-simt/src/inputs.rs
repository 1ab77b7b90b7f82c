//! Per-lane inputs of a SIMT run from one set of arguments and their shapes.
//!
//! The lanes of a SIMT group are the SIMD *instances* of PLDI'18 §2.3: instance `i`
//! receives argument values that agree with the argument shapes the analysis assumed.
//! Given the arguments of lane 0 (as bound by [`lanes_interp::harness::bind_args`]) and a shape
//! per parameter:
//!
//! - `uniform`: every lane gets the same value;
//! - `contiguous` / `strided(n)`: lane `i` gets `base + i·n` (integers wrap; pointers move
//!   `i·n` bytes; floats add `i·n`);
//! - `varying`: a caller-supplied function picks each lane's value; for pointers to the
//!   start of an allocation each lane gets its own copy of the buffer.
//!
//! Each lane's [`ExecContext`] makes it work-item `group·W + i` of a one-dimensional range
//! whose work-groups are W items wide (so `local_id 0` is `i`), lane `i` of `W`.

use lanes_ir::{ScalarType, Shape, Type};

use crate::LaneInput;
use lanes_interp::context::{ExecContext, WorkItemContext};
use lanes_interp::memory::{MemError, Memory};
use lanes_interp::value::{normalize, RtValue};

/// `base + k` for lane arithmetic of a value (lane by lane for vectors).
fn offset(base: &RtValue, k: i64) -> RtValue {
    let elem = base.elem();
    let lanes: Vec<u64> = base
        .lanes()
        .iter()
        .map(|&bits| match elem {
            ScalarType::F32 => u64::from((f32::from_bits(bits as u32) + k as f32).to_bits()),
            ScalarType::F64 => (f64::from_bits(bits) + k as f64).to_bits(),
            e => normalize(e, bits.wrapping_add(k as u64)),
        })
        .collect();
    RtValue::from_lanes(base.ty(), lanes).unwrap_or_else(|| base.clone())
}

/// Gives lane `lane` its own copy of the allocation `ptr` points to the start of, or
/// `None` if `ptr` is not such a pointer.
fn copy_buffer(mem: &mut Memory, ptr: u64) -> Result<Option<u64>, MemError> {
    let Some(a) = mem.allocation(ptr) else {
        return Ok(None);
    };
    if a.base() != ptr || a.freed {
        return Ok(None);
    }
    let (bytes, align, space, ro) = (a.bytes().to_vec(), a.align, a.space, a.read_only);
    mem.alloc_init(&bytes, align, space, ro).map(Some)
}

/// The work-item context of lane `lane` of a group of `width` lanes in work-group `group`.
pub fn lane_exec(group: u64, lane: usize, width: usize) -> ExecContext {
    ExecContext {
        work_item: WorkItemContext::one_dim(group, lane as u64, width as u64, group + 1),
        lane: lane as u32,
        num_lanes: width as u32,
    }
}

/// Builds `width` lanes from lane 0's `base` arguments and the parameters' `shapes`
/// (`None`: uniform). `vary(lane, param, base)` gives a varying scalar argument's value in
/// `lane` ≥ 1.
pub fn lane_inputs(
    base: &[RtValue],
    shapes: &[Option<Shape>],
    width: usize,
    group: u64,
    mem: &mut Memory,
    vary: &mut dyn FnMut(usize, usize, &RtValue) -> RtValue,
) -> Result<Vec<LaneInput>, MemError> {
    let mut out = Vec::with_capacity(width);
    for lane in 0..width {
        let mut args = Vec::with_capacity(base.len());
        for (p, b) in base.iter().enumerate() {
            let shape = shapes.get(p).copied().flatten().unwrap_or(Shape::Uniform);
            let i = lane as i64;
            let v = match shape {
                _ if lane == 0 => b.clone(),
                Shape::Uniform => b.clone(),
                Shape::Contiguous => offset(b, i),
                Shape::Strided(n) => offset(b, i.wrapping_mul(n)),
                Shape::Varying => match (b.ty(), b.bits()) {
                    (Type::Scalar(ScalarType::Ptr(s)), Some(ptr)) => match copy_buffer(mem, ptr)? {
                        Some(copy) => RtValue::ptr_of(ScalarType::Ptr(s), copy),
                        None => vary(lane, p, b),
                    },
                    _ => vary(lane, p, b),
                },
            };
            args.push(v);
        }
        out.push(LaneInput {
            args,
            exec: lane_exec(group, lane, width),
        });
    }
    Ok(out)
}
