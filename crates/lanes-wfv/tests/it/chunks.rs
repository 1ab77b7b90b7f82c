//! Splitting functions into pieces for the code generator (`lanes_wfv::chunks`) keeps
//! their meaning: generated programs, as generated and after partial linearization (the
//! long straight-line form the split is for), are split into pieces of a few instructions
//! and run on the interpreter beside the original: the same result, memory and sequence
//! of accesses to non-stack memory (the pieces' buffer is stack memory of the caller).

use crate::common;

use arbitrary::Unstructured;
use lanes_interp::{Memory, WorkItemContext};
use lanes_ir::generator::{generate, GenConfig, Generated};
use lanes_ir::{Module, Shape};
use lanes_wfv::chunks::split_into_chunks;
use lanes_wfv::Mode;

fn config() -> GenConfig {
    GenConfig {
        max_blocks: 16,
        max_insts_per_block: 5,
        max_loop_depth: 1,
        calls: true,
        max_trip_count: 4,
        max_trip_product: 16,
        ..GenConfig::default()
    }
}

/// Splits `id` of a copy of `module` into pieces of `chunk` instructions, verifies every
/// function, and compares two runs with the original; whether it was split.
fn split_and_compare(g: &Generated, module: &Module, chunk: usize, seed: u64, what: &str) -> bool {
    let id = g.func;
    let mut split = module.clone();
    let pieces = split_into_chunks(&mut split, id, chunk).len();
    for (_, entry) in split.funcs.iter() {
        if let Some(f) = entry.body() {
            common::verify(&split, f, &format!("{what}: after the split"));
        }
    }
    for round in 0..2u64 {
        let alloc =
            |mem: &mut Memory| common::generated_arguments(&g.params, seed * 5 + round, mem);
        let item = WorkItemContext::one_dim(0, round, 8, 1);
        common::compare(
            module,
            &split,
            id,
            &alloc,
            &item,
            &format!("{what} round {round}"),
        );
    }
    pieces > 0
}

#[test]
fn pieces_keep_the_meaning_of_generated_functions() {
    let cfg = config();
    let n = 1500 * common::soak();
    let (mut split_plain, mut split_linear) = (0, 0);
    for seed in 0..n {
        let bytes = lanes_test_support::seeded_bytes(seed, 4096);
        let g = generate(&mut Unstructured::new(&bytes), &cfg).expect("generation never fails");
        let chunk = 1 + (seed % 6) as usize;
        let what = format!("seed {seed} chunk {chunk}");
        if split_and_compare(&g, &g.module, chunk, seed, &what) {
            split_plain += 1;
        }
        // Partially linearized, every branch divergent (width-1 form).
        let shapes = vec![Some((Shape::Varying, 0)); g.params.len()];
        let (_, linear) = common::prepared_module(&g.module, g.func, &shapes, Mode::PARTIAL, &what);
        if split_and_compare(&g, &linear, chunk, seed, &format!("{what} linearized")) {
            split_linear += 1;
        }
    }
    eprintln!("{n} programs: {split_plain} split as generated, {split_linear} after linearization");
    assert!(
        split_plain * 4 > n && split_linear * 2 > n,
        "too few functions were split: {split_plain} and {split_linear} of {n}"
    );
}
