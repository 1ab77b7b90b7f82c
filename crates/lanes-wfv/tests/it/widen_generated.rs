//! Widening of generated programs, against the lanes run one by one ([`differential`]):
//! random programs in every mode (partial linearization with and without BOSCC gadgets,
//! full if-conversion, branch fusion on twin-sided diamonds), the reconverging transform
//! under every block order and empty-mask skip policy, irreducible cycles, and programs
//! whose divergent `break`s leave through their latch; at W = 4, 8 and 16, some under
//! entry masks.

use crate::common;
use crate::widen::{differential, lane_mask, ArgGen, Tally, WIDTHS};

use arbitrary::Unstructured;
use lanes_ir::generator::{generate, GenConfig, Generated};
use lanes_ir::Shape;
use lanes_wfv::Mode;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

#[test]
fn generated_programs_widened_equal_lanes_run_one_by_one() {
    // LANES_SEED=n runs only program n (to debug a failure).
    let only: Option<u64> = std::env::var("LANES_SEED")
        .ok()
        .and_then(|s| s.parse().ok());
    let tally =
        generated_programs((0..5000 * common::soak()).filter(|&s| only.is_none_or(|o| o == s)));
    eprintln!("generated: {tally:?}");
    assert!(only.is_some() || tally.compared > 9_000, "{tally:?}");
    assert!(
        only.is_some() || tally.lane_width_masks > 4_000,
        "{tally:?}"
    );
    // Calls of the generated helper with lane-varying arguments call its vector variant.
    assert!(only.is_some() || tally.callee_variants > 1_000, "{tally:?}");
    // Branch fusion merged pairs in the twin-sided programs, at every width.
    assert!(only.is_some() || tally.fused > 3 * tally.twins, "{tally:?}");
    // Typed stack arrays were laid out element-major across lanes, at every width.
    assert!(only.is_some() || tally.interleaved > 1_000, "{tally:?}");
    // Gathers over runs of lanes were tested at run time and loaded once per run.
    assert!(only.is_some() || tally.run_loads > 40, "{tally:?}");
    // Divergent breaks left through their latches, at every width.
    assert!(only.is_some() || tally.latch_breaks > 0, "{tally:?}");
}

/// The reconverging mode of program `seed`: each block order, and within each each
/// empty-mask skip policy, in turn.
fn reconverging_mode(seed: u64) -> Mode {
    let orders = lanes_wfv::reconverge::BlockOrder::ALL;
    let skips = lanes_wfv::reconverge::SkipEmpty::ALL;
    Mode::reconverge(orders[(seed % 4) as usize]).with_skip_empty(skips[(seed / 4 % 3) as usize])
}

/// The reconverging transform under each block order and empty-mask skip policy (by
/// seed), then its lowering to masks, widened at 4, 8 and 16 lanes (and under entry
/// masks), against the lanes run one by one.
#[test]
fn reconverged_programs_widened_equal_lanes_run_one_by_one() {
    let n = 800 * common::soak();
    let seeds = (90_000..90_000 + n).filter(|s| s % 5 != 4);
    let tally = generated_programs_in(seeds, Some(&reconverging_mode), false);
    eprintln!("reconverged: {tally:?}");
    assert!(tally.compared > 1_500, "{tally:?}");
}

/// Programs with irreducible cycles (jumps into loop bodies, entered by divergent and by
/// uniform branches), which partial linearization declines: through the reconverging
/// transform and its lowering to masks under every order and skip policy, widened at 4, 8
/// and 16 lanes, against the lanes run one by one.
#[test]
fn irreducible_programs_widened_equal_lanes_run_one_by_one() {
    let n = 400 * common::soak();
    let seeds = (95_000..95_000 + n).filter(|s| s % 5 != 4);
    let tally = generated_programs_in(seeds, Some(&reconverging_mode), true);
    eprintln!("irreducible, reconverged: {tally:?}");
    assert!(tally.compared > 700, "{tally:?}");
    assert!(
        tally.irreducible > 60,
        "too few irreducible programs: {tally:?}"
    );
}

/// Seeds soak runs once failed on: 15528 had a uniform loop nested in a divergent one
/// whose blocks got no mask (a loop header's predicate must come from the enclosing
/// loop's header).
#[test]
fn generated_regressions() {
    let tally = generated_programs_in([15528u64].into_iter(), None, false);
    assert!(tally.compared >= 3, "{tally:?}");
}

/// Generated programs whose divergent `break`s leave through their latch
/// ([`lanes_wfv::latch_breaks`]; about one program in 240), found among the first 40,000
/// seeds past 200,000, widened at 4, 8 and 16 lanes with and without BOSCC gadgets,
/// against the lanes run one by one.
#[test]
fn programs_whose_breaks_leave_through_the_latch_widened_equal_lanes_run_one_by_one() {
    let mut tally = Tally::default();
    let mut programs = 0;
    for seed in 200_000..240_000 * common::soak() {
        let Program { g, shapes, gens } = generated_program(seed, false, &mut Tally::default());
        let folded = lanes_wfv::prepare(&g.module, g.func, &shapes, Mode::PARTIAL, &mut |_, _| {})
            .is_ok_and(|p| p.latch_breaks > 0);
        if !folded {
            continue;
        }
        programs += 1;
        let mode = if seed % 2 == 0 {
            Mode::PARTIAL
        } else {
            Mode::boscc(lanes_wfv::BosccPolicy::All)
        };
        for w in WIDTHS {
            let what = format!("latch breaks: gen seed {seed} {mode:?} W={w}");
            differential(
                &g.module, g.func, &shapes, &gens, mode, w, seed, None, &mut tally, &what,
            );
        }
    }
    eprintln!("{programs} programs with breaks through the latch: {tally:?}");
    assert!(
        programs >= 100,
        "too few programs with breaks through the latch: {programs}"
    );
    assert!(tally.latch_breaks >= 3 * programs, "{tally:?}");
    assert!(tally.compared > 2 * programs, "{tally:?}");
}

fn generated_programs(seeds: impl Iterator<Item = u64>) -> Tally {
    generated_programs_in(seeds, None, false)
}

/// A generated program with its argument shapes and argument generators.
pub(crate) struct Program {
    pub(crate) g: Generated,
    pub(crate) shapes: Vec<Option<(Shape, u32)>>,
    pub(crate) gens: Vec<ArgGen>,
}

/// Generated program `seed` (with irreducible cycles if `irreducible`), its argument
/// shapes and generators, drawn as [`generated_programs_in`] draws them; `tally` counts
/// its twin-sided diamonds and irreducible cycles.
pub(crate) fn generated_program(seed: u64, irreducible: bool, tally: &mut Tally) -> Program {
    let cfg = GenConfig {
        max_blocks: if irreducible { 14 } else { 10 },
        irreducible,
        max_insts_per_block: 4,
        max_loop_depth: 2,
        // Helpers (vectorized with the main function) may query the work item too.
        work_items: !seed.is_multiple_of(3),
        // Every fourth program with typed stack arrays, laid out across lanes.
        typed_stack: seed % 4 == 1,
        // Every seventh with buffer indices held over runs (`x & -8`, `x >> 2`), which
        // the global id makes addresses repeating over runs of lanes.
        run_indices: seed % 7 == 3,
        max_trip_count: 4,
        max_trip_product: 16,
        ..GenConfig::default()
    };
    let bytes = lanes_test_support::seeded_bytes(seed, 4096);
    let mut g: Generated = generate(&mut Unstructured::new(&bytes), &cfg).unwrap();
    let mut rng = SmallRng::seed_from_u64(seed ^ 0xabc);
    // Every fifth program gets twin-sided diamonds, which branch fusion merges.
    if seed % 5 == 4 {
        let f = g
            .module
            .function_mut(g.func)
            .expect("generated with a body");
        tally.twins += crate::common::twins::twin_sides(f, None, &mut rng);
    }
    let f = g.function();
    let analyses =
        lanes_analysis::FunctionAnalyses::with_function(f, lanes_analysis::AnalysisSet::LOOPS);
    tally.irreducible += usize::from(!analyses.loops().is_reducible());
    let mut gens = Vec::new();
    let mut shapes = Vec::new();
    for (p, gp) in f.params.iter().zip(&g.params) {
        let ty = f.dfg.value_type(p.value);
        // Buffers are mostly per lane: shared ones make most stores data races.
        let is_buf = matches!(gp, lanes_ir::generator::GenParam::Buffer { .. });
        let uniform = rng.gen_bool(if is_buf { 0.2 } else { 0.5 });
        shapes.push(Some((
            if uniform {
                Shape::Uniform
            } else {
                Shape::Varying
            },
            0,
        )));
        gens.push(match gp {
            lanes_ir::generator::GenParam::Int(t) => ArgGen::Int(*t, uniform),
            lanes_ir::generator::GenParam::Float(t) => ArgGen::Float(*t, uniform),
            lanes_ir::generator::GenParam::Buffer { .. } => {
                ArgGen::Buf(ty.elem(), gp.buffer_bytes() as usize, uniform)
            }
        });
    }
    Program { g, shapes, gens }
}

/// [`generated_programs`], every program in `only_mode` if given (then without twins),
/// with irreducible cycles if `irreducible`.
fn generated_programs_in(
    seeds: impl Iterator<Item = u64>,
    only_mode: Option<&dyn Fn(u64) -> Mode>,
    irreducible: bool,
) -> Tally {
    let mut tally = Tally::default();
    for seed in seeds {
        let Program { g, shapes, gens } = generated_program(seed, irreducible, &mut tally);
        let twins = seed % 5 == 4;
        let mode = match seed % 3 {
            // Every other partial program with BOSCC gadgets where they pay.
            0 if seed % 2 == 1 => Mode::boscc(lanes_wfv::BosccPolicy::Auto),
            0 => Mode::PARTIAL,
            1 => Mode::FULL,
            _ => Mode::boscc(lanes_wfv::BosccPolicy::All),
        };
        let mode = if twins {
            mode.with_fusion(lanes_wfv::FusionPolicy::All)
        } else {
            mode
        };
        let mode = match only_mode {
            Some(pick) => pick(seed),
            None => mode,
        };
        for w in WIDTHS {
            let what = format!("gen seed {seed} {mode:?} W={w}");
            differential(
                &g.module, g.func, &shapes, &gens, mode, w, seed, None, &mut tally, &what,
            );
        }
        // Every fourth program also with an entry mask (remainder lanes off).
        if seed % 4 == 0 {
            let w = WIDTHS[(seed / 4 % 3) as usize];
            let m = lane_mask(w, seed);
            let what = format!("gen seed {seed} {mode:?} W={w} mask {m:?}");
            differential(
                &g.module,
                g.func,
                &shapes,
                &gens,
                mode,
                w,
                seed,
                Some(&m),
                &mut tally,
                &what,
            );
        }
    }
    tally
}
