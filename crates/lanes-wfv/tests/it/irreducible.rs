//! Irreducible control flow (cycles with several entries): partial linearization and full
//! if-conversion cannot order such a cycle, so `prepare` declines it with an error naming
//! the function and the blocks entering the cycle — never a panic — on generated programs
//! that have such cycles, in both modes. Programs whose cycles the generator left
//! reducible still go through and keep their width-1 meaning.

use crate::common;

use arbitrary::Unstructured;
use lanes_interp::{Memory, WorkItemContext};
use lanes_ir::generator::{generate, GenConfig, Generated};
use lanes_ir::Shape;
use lanes_wfv::{prepare, Mode, WfvError};

/// Generated program `seed`, which may jump into loop bodies, with alternately varying
/// and uniform parameters.
fn program(seed: u64) -> (Generated, Vec<Option<(Shape, u32)>>) {
    let cfg = GenConfig {
        max_blocks: 14,
        max_insts_per_block: 4,
        irreducible: true,
        work_items: true,
        max_trip_count: 4,
        max_trip_product: 16,
        ..GenConfig::default()
    };
    let bytes = lanes_test_support::seeded_bytes(seed ^ 0x1bb, 4096);
    let g = generate(&mut Unstructured::new(&bytes), &cfg).expect("generation never fails");
    let shapes = (0..g.params.len())
        .map(|k| {
            let shape = if k % 2 == 0 {
                Shape::Varying
            } else {
                Shape::Uniform
            };
            Some((shape, 0))
        })
        .collect();
    (g, shapes)
}

#[test]
fn irreducible_cycles_are_declined_with_their_entries_never_a_panic() {
    let (mut declined, mut compared) = (0, 0);
    for seed in 0..300u64 {
        let (g, shapes) = program(seed);
        let func = g.module.function(g.func).expect("generated with a body");
        for mode in [Mode::PARTIAL, Mode::FULL] {
            let what = format!("seed {seed} {mode:?}");
            match prepare(&g.module, g.func, &shapes, mode, &mut |_, _| {}) {
                Err(e @ WfvError::Irreducible { .. }) => {
                    let WfvError::Irreducible {
                        func: f, entries, ..
                    } = &e
                    else {
                        continue;
                    };
                    assert_eq!(f, &func.name, "{what}");
                    assert!(entries.len() >= 2, "{what}: {e}");
                    assert!(
                        entries.iter().all(|&b| func.layout.is_block_inserted(b)),
                        "{what}: {e}"
                    );
                    let text = e.to_string();
                    assert!(text.contains("irreducible") && text.contains(&entries[0].to_string()));
                    declined += 1;
                }
                Err(e) => panic!("{what}: {e}"),
                Ok(_) => {
                    let (_, m) = common::prepared_module(&g.module, g.func, &shapes, mode, &what);
                    let alloc =
                        |mem: &mut Memory| common::generated_arguments(&g.params, seed, mem);
                    let item = WorkItemContext::one_dim(0, seed % 4, 8, 1);
                    if common::compare(&g.module, &m, g.func, &alloc, &item, &what) {
                        compared += 1;
                    }
                }
            }
        }
    }
    eprintln!("irreducible: {declined} declined, {compared} compared");
    assert!(declined > 50, "too few irreducible programs: {declined}");
    assert!(
        compared > 50,
        "too few reducible programs compared: {compared}"
    );
}

/// The same programs through the reconverging transform and its lowering to masks, under
/// every block order and empty-mask skip policy: every one is vectorized, irreducible or
/// not, and keeps its width-1 meaning (result, memory, exact access sequence).
#[test]
fn irreducible_cycles_reconverge_and_keep_their_meaning() {
    let (mut irreducible, mut compared) = (0, 0);
    let orders = lanes_wfv::reconverge::BlockOrder::ALL;
    let skips = lanes_wfv::reconverge::SkipEmpty::ALL;
    for seed in 0..1200u64 {
        let (g, shapes) = program(seed);
        let func = g.module.function(g.func).expect("generated with a body");
        let analyses = lanes_analysis::FunctionAnalyses::with_function(
            func,
            lanes_analysis::AnalysisSet::LOOPS,
        );
        irreducible += usize::from(!analyses.loops().is_reducible());
        let mode = Mode::reconverge(orders[(seed % 4) as usize])
            .with_skip_empty(skips[(seed / 4 % 3) as usize]);
        let what = format!("seed {seed} {mode:?}");
        let (_, m) = common::prepared_module(&g.module, g.func, &shapes, mode, &what);
        for round in 0..2 {
            let alloc =
                |mem: &mut Memory| common::generated_arguments(&g.params, seed + round, mem);
            let item = WorkItemContext::one_dim(0, (seed + round) % 4, 8, 1);
            if common::compare(&g.module, &m, g.func, &alloc, &item, &what) {
                compared += 1;
            }
        }
    }
    eprintln!(
        "irreducible, reconverged: {irreducible} irreducible programs, {compared} runs compared"
    );
    assert!(
        irreducible > 200,
        "too few irreducible programs: {irreducible}"
    );
    assert!(compared > 1500, "too few runs compared: {compared}");
}
