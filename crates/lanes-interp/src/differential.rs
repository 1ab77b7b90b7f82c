//! Differential runs: a function and a transformed version of it run on the same inputs,
//! and their result, memory and access trace compared.
//!
//! This is how every transformation in lanes is proven (ARCHITECTURE.md, "Testing"):
//! the vectorizer's control-flow passes, SuperVectorization's round trip through
//! Predicated SSA and its packing all use these helpers from their tests, so that what
//! "the same behaviour" means is written once. The trace makes a transform that adds,
//! drops or reorders an access (an inactive lane touching memory) fail even when the
//! final memory happens to agree.

use std::collections::BTreeSet;

use lanes_ir::{FuncId, Module};

use crate::memory::{Access, AllocKind, Memory};
use crate::{Interpreter, RtValue, WorkItemContext};

/// Result (or error text), final memory contents, access trace.
pub type Outcome = (Result<Option<RtValue>, String>, Vec<Vec<u8>>, Vec<Access>);

/// Runs `id` of `module` on `args` (buffers built by `alloc`) with `fuel` steps at most;
/// result, memory, trace. Stack allocations are left out of both: they are freed when
/// their function returns, no one else can see them, and laying private arrays out
/// across lanes splits a wide access into one per element (lanes-wfv `private_memory`);
/// an access out of their bounds still faults, and what the function computes from
/// their contents is compared through the result and the other memory.
pub fn run_traced(
    module: &Module,
    id: FuncId,
    alloc: &dyn Fn(&mut Memory) -> Vec<RtValue>,
    item: &WorkItemContext,
    fuel: u64,
) -> Outcome {
    let mut mem = Memory::new();
    let args = alloc(&mut mem);
    mem.enable_trace();
    let interp = Interpreter::new(module).fuel(fuel).work_item(item.clone());
    let r = interp.call(id, &args, &mut mem).map_err(|e| e.to_string());
    let trace: Vec<Access> = mem
        .take_trace()
        .into_iter()
        .filter(|a| {
            mem.allocation(a.ptr)
                .is_none_or(|alloc| alloc.kind != AllocKind::Stack)
        })
        .collect();
    // Stack memory is freed when its function returns (emptied, but still listed): how
    // many stack allocations a run made is no part of what it computed.
    let bytes = mem
        .allocations()
        .filter(|a| a.kind != AllocKind::Stack)
        .map(|a| a.bytes().to_vec())
        .collect();
    (r, bytes, trace)
}

/// How much of the access trace must agree.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TraceCheck {
    /// The same accesses in the same order (control-flow transforms keep each access).
    Sequence,
    /// The same bytes read and the same bytes written, in any grouping and order: for
    /// transforms that merge accesses into vector ones (SLP packing), which must still
    /// touch nothing the original did not — no inactive lane reads or writes.
    Footprint,
}

/// The bytes `trace` reads and writes, as sorted sets.
pub fn footprint(trace: &[Access]) -> (BTreeSet<u64>, BTreeSet<u64>) {
    let (mut reads, mut writes) = (BTreeSet::new(), BTreeSet::new());
    for a in trace {
        let set = if a.kind == crate::AccessKind::Write {
            &mut writes
        } else {
            &mut reads
        };
        set.extend(a.ptr..a.ptr + a.size);
    }
    (reads, writes)
}

/// Runs `id` in `original` and in `transformed` and panics, naming `what` and printing
/// the transformed module, where result, memory or trace (as `check` says) differ.
/// Returns false (nothing compared) if the original run failed, as a generated program
/// may (out of fuel, a fault).
pub fn compare_runs(
    original: &Module,
    transformed: &Module,
    id: FuncId,
    alloc: &dyn Fn(&mut Memory) -> Vec<RtValue>,
    item: &WorkItemContext,
    fuel: u64,
    what: &str,
) -> bool {
    compare_runs_checking(
        original,
        transformed,
        id,
        alloc,
        item,
        fuel,
        TraceCheck::Sequence,
        what,
    )
}

/// [`compare_runs`] with the trace compared as `check` says.
#[allow(clippy::too_many_arguments)]
pub fn compare_runs_checking(
    original: &Module,
    transformed: &Module,
    id: FuncId,
    alloc: &dyn Fn(&mut Memory) -> Vec<RtValue>,
    item: &WorkItemContext,
    fuel: u64,
    check: TraceCheck,
    what: &str,
) -> bool {
    let (ra, ma, ta) = run_traced(original, id, alloc, item, fuel);
    let Ok(va) = ra else {
        return false;
    };
    let (rb, mb, tb) = run_traced(transformed, id, alloc, item, fuel);
    let text = || lanes_ir::write::module_to_string(transformed);
    let vb = rb.unwrap_or_else(|e| panic!("{what}: transformed run failed: {e}\n{}", text()));
    let same = match (&va, &vb) {
        (Some(a), Some(b)) => a.same_as(b),
        (None, None) => true,
        _ => false,
    };
    assert!(same, "{what}: result {va:?} != {vb:?}\n{}", text());
    assert!(ma == mb, "{what}: memory differs\n{}", text());
    match check {
        TraceCheck::Sequence => assert!(ta == tb, "{what}: access trace differs\n{}", text()),
        TraceCheck::Footprint => assert!(
            footprint(&ta) == footprint(&tb),
            "{what}: the bytes read or written differ\n{}",
            text()
        ),
    }
    true
}

/// Arguments for any function with scalar and pointer parameters, made so that typical
/// kernels run in bounds: integers in `0..24`, floats in `[-2, 2)`, and for each pointer a
/// buffer of `elems` 8-byte slots whose 4-byte words are alternately a small integer
/// (`0..32`, usable as an index) and zero. Private pointers get global buffers.
pub fn small_arguments(
    func: &lanes_ir::Function,
    elems: usize,
    seed: u64,
    mem: &mut Memory,
) -> Vec<RtValue> {
    use lanes_ir::{AddrSpace, ScalarType};
    let mut rng = Lcg(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    func.params
        .iter()
        .map(|p| {
            let ty = func.dfg.value_type(p.value);
            match ty.elem() {
                ScalarType::F32 => RtValue::f32(rng.unit() as f32 * 4.0 - 2.0),
                ScalarType::F64 => RtValue::f64(rng.unit() * 4.0 - 2.0),
                ScalarType::Ptr(space) => {
                    let bytes: Vec<u8> = (0..elems * 8)
                        .map(|i| if i % 4 == 0 { rng.below(32) as u8 } else { 0 })
                        .collect();
                    let space = if space == AddrSpace::PRIVATE {
                        AddrSpace::GLOBAL
                    } else {
                        space
                    };
                    let ptr = mem
                        .alloc_init(&bytes, 16, space, false)
                        .expect("a small buffer can be allocated");
                    RtValue::ptr_of(ty.elem(), ptr)
                }
                e => RtValue::int(e, rng.below(24) as i64),
            }
        })
        .collect()
}

/// A small deterministic generator, so that this module needs no random-number crate.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn unit(&mut self) -> f64 {
        self.next() as f64 / (1u64 << 31) as f64
    }
}

#[cfg(feature = "fuzzing")]
pub use generated::{generated_arguments, random_buffer};

#[cfg(feature = "fuzzing")]
mod generated {
    use lanes_ir::generator::{GenParam, BUFFER_ALIGN};
    use lanes_ir::{AddrSpace, ScalarType};
    use rand::rngs::SmallRng;
    use rand::{Rng, RngCore, SeedableRng};

    use crate::{Memory, RtValue};

    /// Random arguments for a generated function's parameters: small, medium or any
    /// integers, floats in [-4, 4), buffers of random bytes (allocated in `mem`).
    pub fn generated_arguments(params: &[GenParam], seed: u64, mem: &mut Memory) -> Vec<RtValue> {
        let mut rng = SmallRng::seed_from_u64(seed);
        params
            .iter()
            .map(|p| match p {
                GenParam::Int(t) => {
                    let x: i64 = match rng.gen_range(0..3) {
                        0 => rng.gen_range(-8..=8),
                        1 => rng.gen_range(-1000..=1000),
                        _ => rng.gen(),
                    };
                    RtValue::int(t.elem(), x)
                }
                GenParam::Float(t) => {
                    let x: f64 = rng.gen_range(-4.0..4.0);
                    if *t == lanes_ir::Type::F32 {
                        RtValue::f32(x as f32)
                    } else {
                        RtValue::f64(x)
                    }
                }
                GenParam::Buffer { .. } => random_buffer(p, &mut rng, mem),
            })
            .collect()
    }

    /// A global buffer of random bytes for generated parameter `p`, allocated in `mem`.
    pub fn random_buffer(p: &GenParam, rng: &mut SmallRng, mem: &mut Memory) -> RtValue {
        let mut bytes = vec![0; p.buffer_bytes() as usize];
        rng.fill_bytes(&mut bytes);
        let ptr = mem
            .alloc_init(&bytes, BUFFER_ALIGN, AddrSpace::GLOBAL, false)
            .expect("a generated buffer is small enough to allocate");
        RtValue::ptr_of(ScalarType::Ptr(AddrSpace::GLOBAL), ptr)
    }
}
