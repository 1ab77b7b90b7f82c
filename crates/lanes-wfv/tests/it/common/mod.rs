//! Shared harness: run a function and its control-flow-vectorized form (guards lowered to
//! their width-1 meaning) on the same inputs and compare result, memory and access trace.
#![allow(dead_code)]

pub mod twins;

use lanes_interp::{Memory, RtValue, WorkItemContext};
use lanes_ir::verifier::verify_function;
use lanes_ir::{FuncId, Function, Module};
use lanes_wfv::{lower_guards, prepare, Mode, Prepared};

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

pub use lanes_interp::differential::{generated_arguments, random_buffer, Outcome};

/// Runs `id` of `module` on `args` (buffers built by `alloc`); result, memory, trace
/// ([`lanes_interp::differential::run_traced`] with this suite's fuel).
pub fn run(
    module: &Module,
    id: FuncId,
    alloc: &dyn Fn(&mut Memory) -> Vec<RtValue>,
    item: &WorkItemContext,
) -> Outcome {
    lanes_interp::differential::run_traced(module, id, alloc, item, FUEL)
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
    lanes_interp::differential::compare_runs(original, transformed, id, alloc, item, FUEL, what)
}
