//! Programs that once broke SuperVectorization, each saying what it was: C reduced
//! (cvise) from what found it (`tests/data/regressions/*.c`), whose every function
//! imports and either is SuperVectorized to a function that verifies or is declined with
//! an error — never a panic; and lanes IR that once lowered wrongly
//! (`tests/data/regressions/*.lir`), which keeps its meaning through Predicated SSA and
//! back.

use lanes_ir::verifier::verify_function;
use lanes_slp::{supervectorize, SlpOptions};

#[test]
fn reduced_programs_go_through_supervectorization() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/regressions");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("regressions")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let mut functions = 0;
    for path in &files {
        let m = lanes_llvm::driver::import_file(path, &Default::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (_, f) in m.functions() {
            if f.layout.num_blocks() == 0 {
                continue;
            }
            functions += 1;
            for bits in [128, 256, 512] {
                if let Ok((v, _)) = supervectorize(
                    f,
                    &SlpOptions {
                        register_bits: bits,
                    },
                ) {
                    if let Err(e) = verify_function(&m, &v) {
                        panic!("{} @{}: {e}", path.display(), f.name);
                    }
                }
            }
        }
    }
    assert!(functions >= files.len(), "{functions} functions");
}

/// Programs that once lowered wrongly (`tests/data/regressions/*.lir`, generated or
/// written to a soak failure's shape, each saying what it was): each function through
/// Predicated SSA and back — with its top-level loops merged first where the file says
/// `; merge:` — computes what it did (result, memory, accesses) on many inputs.
#[test]
fn lowered_regressions_keep_their_meaning() {
    use lanes_interp::differential::{compare_runs, small_arguments};
    use lanes_interp::{Memory, WorkItemContext};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/regressions");
    let files = lanes_test_support::lir_files(&[dir]);
    assert!(files.len() >= 2, "{files:?}");
    let mut compared = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable");
        let m = lanes_ir::parse_module(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (id, f) in m.functions() {
            if f.layout.num_blocks() == 0 {
                continue;
            }
            let mut p = lanes_slp::to_pssa(f).expect("converts");
            if text.lines().any(|l| l.starts_with("; merge:")) {
                let loops = crate::coiterate::top_loops(&p);
                let _ = lanes_slp::coiterate::merge_loops(&mut p, &loops);
            }
            let lowered = lanes_slp::lower(&p);
            verify_function(&m, &lowered)
                .unwrap_or_else(|e| panic!("{} @{}: {e}", path.display(), f.name));
            let mut t = m.clone();
            *t.function_mut(id).expect("defined") = lowered;
            for seed in 0..200 {
                let alloc = |mem: &mut Memory| small_arguments(f, 64, seed, mem);
                let item = WorkItemContext::one_dim(0, 0, 1, 1);
                let what = format!("{} @{} seed {seed}", path.display(), f.name);
                if compare_runs(&m, &t, id, &alloc, &item, 2_000_000, &what) {
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 200, "{compared} runs compared");
}
