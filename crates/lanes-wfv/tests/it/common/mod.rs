//! Shared harness: run a function and its control-flow-vectorized form (guards lowered to
//! their width-1 meaning) on the same inputs and compare result, memory and access trace.
#![allow(dead_code)]

pub mod twins;

use lanes_interp::{Access, Interpreter, Memory, RtValue, WorkItemContext};
use lanes_ir::generator::{GenParam, BUFFER_ALIGN};
use lanes_ir::verifier::verify_function;
use lanes_ir::{AddrSpace, FuncId, Function, Module, ScalarType};
use lanes_wfv::{lower_guards, prepare, Mode, Prepared};
use rand::rngs::SmallRng;
use rand::{Rng, RngCore, SeedableRng};

pub const FUEL: u64 = 2_000_000;

/// The kernels the vectorizer is tested on, sorted by file name: the project's corpus
/// (`kernels/` at the root, shared with the divergence analysis and the CLI) and the
/// vectorizer's own (`tests/kernels/`: what only widening needs, such as cross-lane
/// operations, volatile and atomic accesses and helper cycles). Each kernel lives in one
/// of the two.
pub fn kernel_files() -> Vec<std::path::PathBuf> {
    let own = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels");
    lanes_test_support::lir_files(&[lanes_test_support::kernels_dir(), own])
}

/// The path of kernel file `name`, in whichever of the two directories of
/// [`kernel_files`] holds it.
pub fn kernel_path(name: &str) -> std::path::PathBuf {
    kernel_files()
        .into_iter()
        .find(|p| p.file_name().is_some_and(|n| n == name))
        .unwrap_or_else(|| panic!("no kernel file {name}"))
}

pub use lanes_test_support::soak;

/// Result (or error text), final memory contents, access trace.
pub type Outcome = (Result<Option<RtValue>, String>, Vec<Vec<u8>>, Vec<Access>);

/// Runs `id` of `module` on `args` (buffers built by `alloc`); result, memory, trace.
/// The trace leaves out accesses to the function's own stack allocations: no one else
/// can see them, and laying private arrays out across lanes splits a wide access into
/// one per element (lanes-wfv `private_memory`); their contents are still compared, and
/// an access out of their bounds still faults.
pub fn run(
    module: &Module,
    id: FuncId,
    alloc: &dyn Fn(&mut Memory) -> Vec<RtValue>,
    item: &WorkItemContext,
) -> Outcome {
    let mut mem = Memory::new();
    let args = alloc(&mut mem);
    mem.enable_trace();
    let interp = Interpreter::new(module).fuel(FUEL).work_item(item.clone());
    let r = interp.call(id, &args, &mut mem).map_err(|e| e.to_string());
    let trace: Vec<Access> = mem
        .take_trace()
        .into_iter()
        .filter(|a| {
            mem.allocation(a.ptr)
                .is_none_or(|alloc| alloc.kind != lanes_interp::AllocKind::Stack)
        })
        .collect();
    let bytes = mem.allocations().map(|a| a.bytes().to_vec()).collect();
    (r, bytes, trace)
}

/// Verifies `func` in `module`, panicking with a readable message.
pub fn verify(module: &Module, func: &Function, what: &str) {
    if let Err(e) = verify_function(module, func) {
        panic!(
            "{what}: verifier: {e}\n{}",
            lanes_ir::write::function_to_string(module, func)
        );
    }
}

/// Prepares `id` (verifying after every pass) and returns the prepared form and a module
/// whose function `id` is the executable width-1 form.
pub fn prepared_module(
    module: &Module,
    id: FuncId,
    args: &lanes_analysis::shapes::ArgShapes,
    mode: Mode,
    what: &str,
) -> (Prepared, Module) {
    let mut check = |pass: &str, f: &Function| verify(module, f, &format!("{what} after {pass}"));
    let p = match prepare(module, id, args, mode, &mut check) {
        Ok(p) => p,
        Err(e) => panic!("{what}: {e}\n{}", lanes_ir::write::module_to_string(module)),
    };
    let mut exec = p.func.clone();
    lower_guards(&mut exec, &p.predication);
    verify(module, &exec, &format!("{what} after lower_guards"));
    let mut m = module.clone();
    *m.function_mut(id).expect("defined") = exec;
    (p, m)
}

/// Compares the original and transformed runs; returns false if the original faulted
/// (nothing to compare).
pub fn compare(
    original: &Module,
    transformed: &Module,
    id: FuncId,
    alloc: &dyn Fn(&mut Memory) -> Vec<RtValue>,
    item: &WorkItemContext,
    what: &str,
) -> bool {
    let (ra, ma, ta) = run(original, id, alloc, item);
    let Ok(va) = ra else {
        return false;
    };
    let (rb, mb, tb) = run(transformed, id, alloc, item);
    let vb = rb.unwrap_or_else(|e| {
        panic!(
            "{what}: transformed run failed: {e}\n{}",
            lanes_ir::write::module_to_string(transformed)
        )
    });
    let same = match (&va, &vb) {
        (Some(a), Some(b)) => a.same_as(b),
        (None, None) => true,
        _ => false,
    };
    assert!(
        same,
        "{what}: result {va:?} != {vb:?}\n{}",
        lanes_ir::write::module_to_string(transformed)
    );
    assert_eq!(
        ma,
        mb,
        "{what}: memory differs\n{}",
        lanes_ir::write::module_to_string(transformed)
    );
    assert_eq!(
        ta,
        tb,
        "{what}: access trace differs\n{}",
        lanes_ir::write::module_to_string(transformed)
    );
    true
}

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
        .expect("fits");
    RtValue::ptr_of(ScalarType::Ptr(AddrSpace::GLOBAL), ptr)
}
