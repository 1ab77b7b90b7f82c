//! Generated programs (loops nested two deep with several exits, φs, memory, calls,
//! floats, work-item queries) through Predicated SSA and back: the lowered function
//! verifies and computes the original's result, memory and access sequence.

use arbitrary::Unstructured;
use lanes_interp::differential::{
    compare_runs, compare_runs_checking, generated_arguments, TraceCheck,
};
use lanes_interp::{Memory, WorkItemContext};
use lanes_ir::generator::{generate, GenConfig, Generated};
use lanes_ir::verifier::verify_function;
use lanes_ir::write::module_to_string;
use lanes_slp::{lower, pssa_to_string, to_pssa, verify_pssa, Item, SlpError};

const FUEL: u64 = 2_000_000;

fn config(irreducible: bool) -> GenConfig {
    GenConfig {
        max_blocks: 14,
        max_insts_per_block: 4,
        max_loop_depth: 3,
        work_items: true,
        calls: true,
        floats: true,
        typed_stack: true,
        irreducible,
        max_trip_count: 4,
        max_trip_product: 24,
        ..GenConfig::default()
    }
}

fn generated(seed: u64, cfg: &GenConfig) -> Generated {
    let bytes = lanes_test_support::seeded_bytes(seed, 4096);
    generate(&mut Unstructured::new(&bytes), cfg).expect("generation never fails")
}

#[derive(Default, Debug)]
struct Counts {
    programs: usize,
    compared: usize,
    loops: usize,
    nested_loops: usize,
    gated_phis: usize,
    predicated: usize,
    packs: usize,
}

/// Converts, verifies, prints and lowers program `seed`; compares two runs.
fn round_trip(seed: u64, cfg: &GenConfig, counts: &mut Counts) -> Result<(), SlpError> {
    let g = generated(seed, cfg);
    let func = g.module.function(g.func).expect("generated with a body");
    let pssa = to_pssa(func)?;
    let what = format!("seed {seed}");
    if let Err(e) = verify_pssa(&pssa) {
        panic!("{what}: {e}\n{}", pssa_to_string(&g.module, &pssa));
    }
    let text = pssa_to_string(&g.module, &pssa);
    counts.programs += 1;
    counts.loops += pssa.loops.len();
    counts.nested_loops += pssa.loops.values().filter(|l| l.parent.is_some()).count();
    counts.gated_phis += pssa.gates.len();
    counts.predicated += pssa
        .walk()
        .iter()
        .filter(|(_, i)| pssa.pred_of(*i) != pssa.preds.always())
        .count();
    let lowered = lower(&pssa);
    if let Err(e) = verify_function(&g.module, &lowered) {
        panic!(
            "{what}: lowered function: {e}\n{text}\n{}",
            lanes_ir::write::function_to_string(&g.module, &lowered)
        );
    }
    let mut m = g.module.clone();
    *m.function_mut(g.func).expect("defined") = lowered;
    let (packed, report) = lanes_slp::supervectorize(func, &lanes_slp::SlpOptions::default())?;
    if let Err(e) = verify_function(&g.module, &packed) {
        panic!("{what}: packed function: {e}");
    }
    counts.packs += report.packs;
    let mut p = g.module.clone();
    *p.function_mut(g.func).expect("defined") = packed;
    for round in 0..2u64 {
        let alloc = |mem: &mut Memory| generated_arguments(&g.params, seed * 7 + round, mem);
        let item = WorkItemContext::one_dim(0, round + seed % 4, 8, 1);
        let what = format!(
            "{what} round {round}\n{text}\noriginal:\n{}",
            module_to_string(&g.module)
        );
        if compare_runs(&g.module, &m, g.func, &alloc, &item, FUEL, &what) {
            counts.compared += 1;
        }
        if report.packs > 0 {
            let what = format!("{what}\npacked: {report:?}");
            compare_runs_checking(
                &g.module,
                &p,
                g.func,
                &alloc,
                &item,
                FUEL,
                TraceCheck::Footprint,
                &what,
            );
        }
    }
    Ok(())
}

#[test]
fn generated_programs_keep_their_meaning_through_predicated_ssa() {
    let cfg = config(false);
    let mut counts = Counts::default();
    let n = 3000 * lanes_test_support::soak();
    for seed in 0..n {
        if let Err(e) = round_trip(seed, &cfg, &mut counts) {
            panic!("seed {seed}: {e}");
        }
    }
    eprintln!("{counts:?}");
    assert_eq!(counts.programs as u64, n);
    assert!(
        counts.compared as u64 > n,
        "too few comparable runs: {counts:?}"
    );
    // The programs exercise what the conversion is about.
    assert!(
        counts.nested_loops > 100 && counts.gated_phis > 1000,
        "{counts:?}"
    );
    assert!(counts.predicated > 1000, "{counts:?}");
}

#[test]
fn irreducible_programs_are_declined_with_their_cycle() {
    let cfg = config(true);
    let (mut declined, mut counts) = (0, Counts::default());
    for seed in 0..600 * lanes_test_support::soak() {
        match round_trip(seed, &cfg, &mut counts) {
            Ok(()) => {}
            Err(SlpError::Normalize(e @ lanes_wfv::WfvError::Irreducible { .. })) => {
                assert!(e.to_string().contains("irreducible control flow"), "{e}");
                declined += 1;
            }
            Err(e) => panic!("seed {seed}: {e}"),
        }
    }
    eprintln!("{declined} declined, {counts:?}");
    assert!(
        declined > 20 && counts.compared > 200,
        "{declined} {counts:?}"
    );
}

#[test]
fn every_item_of_a_walk_is_placed_once_when_lowered() {
    // The walk is the verifier's and the lowering's view of the item tree: each
    // instruction once, loops before their items.
    let g = generated(11, &config(false));
    let pssa = to_pssa(g.module.function(g.func).expect("body")).expect("converts");
    let walk = pssa.walk();
    let mut seen = std::collections::HashSet::new();
    for (parent, item) in &walk {
        assert!(seen.insert(*item), "{item:?} twice");
        if let Some(p) = parent {
            assert!(seen.contains(&Item::Loop(*p)), "{item:?} before its loop");
        }
    }
    assert_eq!(
        pssa.num_insts(),
        walk.iter()
            .filter(|(_, i)| matches!(i, Item::Inst(_)))
            .count()
    );
}
