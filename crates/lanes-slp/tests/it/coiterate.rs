//! Loop fusion and co-iteration (PLDI'22 §3.3): sibling loops merged into one, proven by
//! running the merged function against the original (same result, memory and bytes read
//! and written — the order of accesses changes, which independence allows) on C
//! (`tests/data/loops.c`) and on generated programs.

use arbitrary::Unstructured;
use lanes_interp::differential::{
    compare_runs_checking, generated_arguments, small_arguments, TraceCheck,
};
use lanes_interp::{Memory, WorkItemContext};
use lanes_ir::generator::{generate, GenConfig};
use lanes_ir::verifier::verify_function;
use lanes_ir::{FuncId, Module};
use lanes_slp::coiterate::{merge_loops, Merge};
use lanes_slp::{lower, pssa_to_string, to_pssa, verify_pssa, Item, LoopId, Pssa};

/// The loops of the function's own list, in order.
/// The loops of the function's own list, in order.
pub(crate) fn top_loops(p: &Pssa) -> Vec<LoopId> {
    p.items
        .iter()
        .filter_map(|&i| match i {
            Item::Loop(l) => Some(l),
            Item::Inst(_) => None,
        })
        .collect()
}

/// Merges the function's top-level loops (all of them, or the first two), checks the
/// result, and compares runs; the merge made, if any.
fn merge_and_check(
    m: &Module,
    id: FuncId,
    what: &str,
    runs: u64,
    args: &dyn Fn(u64, &mut Memory) -> Vec<lanes_interp::RtValue>,
) -> Option<Merge> {
    let f = m.function(id).expect("body");
    let mut p = to_pssa(f).unwrap_or_else(|e| panic!("{what}: {e}"));
    let loops = top_loops(&p);
    let (_, how) = merge_loops(&mut p, &loops)?;
    if let Err(e) = verify_pssa(&p) {
        panic!("{what}: {e}\n{}", pssa_to_string(m, &p));
    }
    let text = pssa_to_string(m, &p);
    let lowered = lower(&p);
    if let Err(e) = verify_function(m, &lowered) {
        panic!("{what}: lowered: {e}\n{text}");
    }
    let mut t = m.clone();
    *t.function_mut(id).expect("defined") = lowered;
    for seed in 0..runs {
        let alloc = |mem: &mut Memory| args(seed, mem);
        let item = WorkItemContext::one_dim(0, 0, 1, 1);
        let what = format!("{what} ({how:?}) seed {seed}\n{text}");
        compare_runs_checking(
            m,
            &t,
            id,
            &alloc,
            &item,
            2_000_000,
            TraceCheck::Footprint,
            &what,
        );
    }
    Some(how)
}

#[test]
fn sibling_loops_in_c_are_fused_or_coiterated_and_keep_their_meaning() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/loops.c");
    let m = lanes_llvm::driver::import_file(&path, &Default::default()).expect("imports");
    for (name, want) in [
        ("two_searches", Some(Merge::CoIterated)),
        ("same_trips", Some(Merge::Fused)),
        ("two_sums", Some(Merge::CoIterated)),
        ("dependent", None),
        ("guarded", Some(Merge::CoIterated)),
    ] {
        let id = m.func_by_name(name).expect("defined");
        let f = m.function(id).expect("body");
        let got = merge_and_check(&m, id, name, 40, &|seed, mem| {
            small_arguments(f, 256, seed, mem)
        });
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn the_searches_of_figure_2_share_one_loop_with_active_flags() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/loops.c");
    let m = lanes_llvm::driver::import_file(&path, &Default::default()).expect("imports");
    let f = m
        .function(m.func_by_name("two_searches").expect("defined"))
        .expect("body");
    let mut p = to_pssa(f).expect("converts");
    let loops = top_loops(&p);
    assert_eq!(loops.len(), 2);
    let (merged, how) = merge_loops(&mut p, &loops).expect("independent");
    assert_eq!(how, Merge::CoIterated);
    assert_eq!(top_loops(&p), vec![merged]);
    let d = &p.loops[merged];
    // Two μ-nodes per search (its counter and its flag) and the held live-outs.
    assert!(d.mus.len() >= 4, "{}", pssa_to_string(&m, &p));
    // It goes on while either search does.
    assert!(
        matches!(p.preds.data(d.cont), lanes_slp::PredData::Or(_)),
        "{}",
        pssa_to_string(&m, &p)
    );
}

#[test]
fn generated_sibling_loops_keep_their_meaning_when_merged() {
    let cfg = GenConfig {
        max_blocks: 14,
        max_insts_per_block: 4,
        max_loop_depth: 2,
        max_trip_count: 4,
        max_trip_product: 16,
        ..GenConfig::default()
    };
    let (mut fused, mut coiterated, mut programs) = (0, 0, 0);
    for seed in 0..3000 * lanes_test_support::soak() {
        let bytes = lanes_test_support::seeded_bytes(seed, 4096);
        let g = generate(&mut Unstructured::new(&bytes), &cfg).expect("generation never fails");
        programs += 1;
        let params = g.params.clone();
        match merge_and_check(&g.module, g.func, &format!("seed {seed}"), 2, &|s, mem| {
            generated_arguments(&params, seed * 7 + s, mem)
        }) {
            Some(Merge::Fused) => fused += 1,
            Some(Merge::CoIterated) => coiterated += 1,
            None => {}
        }
    }
    eprintln!("{programs} programs: {fused} fused, {coiterated} co-iterated");
    assert!(coiterated > 50, "{fused} fused, {coiterated} co-iterated");
}
