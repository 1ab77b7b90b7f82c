//! Programs that once broke SuperVectorization, reduced (cvise) from what found them
//! (`tests/data/regressions/*.c`, each saying what it was): every function imports,
//! and SuperVectorization either gives a function that verifies or declines with an
//! error — never a panic.

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
