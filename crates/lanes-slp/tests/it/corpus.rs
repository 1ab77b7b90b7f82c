//! Hand-written code through Predicated SSA and back: the project's kernel corpus
//! (`kernels/*.lir`) and the C corpus (`corpus/c/*.c`, imported with clang-19 at -O2 and
//! at -O0). Every function with a body converts, verifies, lowers to a function that
//! verifies, and computes what the original computes on inputs drawn for it; so does
//! the function SLP-vectorized.

use std::path::PathBuf;

use lanes_interp::differential::{
    compare_runs, compare_runs_checking, small_arguments, TraceCheck,
};
use lanes_interp::{Memory, WorkItemContext};
use lanes_ir::verifier::verify_function;
use lanes_ir::Module;
use lanes_slp::{lower, pssa_to_string, supervectorize, to_pssa, verify_pssa, SlpOptions};

const FUEL: u64 = 5_000_000;

/// Round-trips every function of `module`; returns (functions, runs compared).
fn check_module(name: &str, module: &Module) -> (usize, usize) {
    let (mut functions, mut compared) = (0, 0);
    for (id, f) in module.functions() {
        if f.layout.num_blocks() == 0 {
            continue;
        }
        let what = format!("{name} @{}", f.name);
        let pssa = to_pssa(f).unwrap_or_else(|e| panic!("{what}: {e}"));
        verify_pssa(&pssa).unwrap_or_else(|e| panic!("{what}: {e}"));
        let text = pssa_to_string(module, &pssa);
        let lowered = lower(&pssa);
        if let Err(e) = verify_function(module, &lowered) {
            panic!("{what}: lowered: {e}\n{text}");
        }
        let mut t = module.clone();
        *t.function_mut(id).expect("defined") = lowered;
        // And packed: whatever the packer finds must keep the meaning too.
        let (packed, report) = supervectorize(f, &SlpOptions::default())
            .unwrap_or_else(|e| panic!("{what}: packing: {e}"));
        if let Err(e) = verify_function(module, &packed) {
            panic!("{what}: packed: {e}");
        }
        let mut p = module.clone();
        *p.function_mut(id).expect("defined") = packed;
        functions += 1;
        for seed in 0..6 {
            let alloc = |mem: &mut Memory| small_arguments(f, 1024, seed, mem);
            let item = WorkItemContext::one_dim(0, seed % 8, 8, 1);
            let what = format!("{what} seed {seed}\n{text}");
            if compare_runs(module, &t, id, &alloc, &item, FUEL, &what) {
                compared += 1;
            }
            if report.packs > 0 {
                let what = format!("{what} packed {report:?}");
                compare_runs_checking(
                    module,
                    &p,
                    id,
                    &alloc,
                    &item,
                    FUEL,
                    TraceCheck::Footprint,
                    &what,
                );
            }
        }
    }
    (functions, compared)
}

#[test]
fn kernel_corpus_keeps_its_meaning_through_predicated_ssa() {
    let files = lanes_test_support::lir_files(&[lanes_test_support::kernels_dir()]);
    let (mut functions, mut compared) = (0, 0);
    for p in &files {
        let text = std::fs::read_to_string(p).expect("readable");
        let m = lanes_ir::parse_module(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let (f, c) = check_module(&p.display().to_string(), &m);
        functions += f;
        compared += c;
    }
    eprintln!(
        "{} files, {functions} functions, {compared} runs compared",
        files.len()
    );
    assert!(
        functions >= 25 && compared >= 3 * functions,
        "{functions} {compared}"
    );
}

#[test]
fn c_corpus_keeps_its_meaning_through_predicated_ssa() {
    let dir = lanes_test_support::workspace_root().join("corpus/c");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus/c")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    files.sort();
    let (mut functions, mut compared) = (0, 0);
    for opt in ["2", "0"] {
        let clang = lanes_llvm::clang::ClangOptions {
            opt: Some(opt.into()),
            ..Default::default()
        };
        for p in &files {
            let m = lanes_llvm::driver::import_file(p, &clang)
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let (f, c) = check_module(&format!("{} -O{opt}", p.display()), &m);
            functions += f;
            compared += c;
        }
    }
    eprintln!("{functions} functions, {compared} runs compared");
    assert!(
        functions >= 100 && compared >= 2 * functions,
        "{functions} {compared}"
    );
}
