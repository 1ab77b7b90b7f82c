//! CFG facts and the dominator tree against brute-force oracles on random CFGs.

use crate::common;

use common::{checks, random_function, run_cases};
use lanes_ir::Module;

const CASES: u64 = 1500;

/// The random functions whose entry block has no predecessors (the verifier's rule) are
/// well-formed SSA; the builder's dominance bookkeeping is thereby checked too.
#[test]
fn random_functions_are_verified_ssa() {
    let mut verified = 0;
    for seed in 0..CASES {
        let func = random_function(seed);
        let entry = func.entry_block().expect("random functions have blocks");
        if func
            .layout
            .blocks()
            .any(|b| func.successors(b).contains(&entry))
        {
            continue;
        }
        let mut module = Module::new();
        module.define(func);
        if let Err(errors) = lanes_ir::verifier::verify_module(&module) {
            let text = lanes_ir::write::module_to_string(&module);
            panic!("seed {seed}: {errors}\n{text}");
        }
        verified += 1;
    }
    assert!(
        verified >= 1000,
        "only {verified} functions without entry predecessors"
    );
}

#[test]
fn cfg_matches_oracle() {
    run_cases(CASES, checks::check_cfg);
}

#[test]
fn dominators_match_oracle() {
    run_cases(CASES, checks::check_dominators);
}
