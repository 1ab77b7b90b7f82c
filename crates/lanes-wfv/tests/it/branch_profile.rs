//! Empty-mask skips decided by a branch profile (`lanes_ir::BranchProfile`), the
//! reconverging lowering's profile-guided option: the decisions follow the counts, and
//! whatever they are, the lowered and widened function computes what the lanes run one
//! by one compute.

use crate::widen::{differential, Tally, WIDTHS};
use crate::widen_generated::{generated_program, Program};

use lanes_ir::{BranchCounts, BranchProfile, Function, InstData};
use lanes_wfv::reconverge::{BlockOrder, SkipEmpty};
use lanes_wfv::Mode;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// A profile of `func` that gives each `brif` a share of waves with no thread on each
/// side drawn from `rates` (never, rarely, half the time, always).
fn random_profile(func: &Function, width: u32, rng: &mut SmallRng) -> BranchProfile {
    let rates = [0u64, 3, 50, 100];
    let mut profile = BranchProfile {
        width,
        ..BranchProfile::default()
    };
    for block in func.layout.blocks() {
        let Some(last) = func.layout.last_inst(block) else {
            continue;
        };
        if matches!(func.dfg.inst(last), InstData::Brif { .. }) {
            let counts = BranchCounts {
                executions: 100,
                none_to_then: rates[rng.gen_range(0..4)],
                none_to_else: rates[rng.gen_range(0..4)],
                mispredicted_then: rng.gen_range(0..30),
                mispredicted_else: rng.gen_range(0..30),
            };
            profile.branches.insert(last, counts);
        }
    }
    profile
}

/// The skips the lowering keeps for `func` of `module` in `mode`.
fn skips(
    module: &lanes_ir::Module,
    id: lanes_ir::FuncId,
    shapes: &[Option<(lanes_ir::Shape, u32)>],
    mode: Mode,
) -> Option<usize> {
    lanes_wfv::prepare(module, id, shapes, mode, &mut |_, _| {})
        .ok()
        .map(|p| p.boscc)
}

/// Generated programs, each with random profiles: the reconverging lowering under
/// `auto` takes the profile's word where it has one, and the result widened at 4, 8 and
/// 16 lanes equals the lanes run one by one.
#[test]
fn profiled_skips_widened_equal_lanes_run_one_by_one() {
    let mut tally = Tally::default();
    let (mut changed, mut programs) = (0, 0);
    let n = 600 * crate::common::soak();
    for seed in (97_000..97_000 + n).filter(|s| s % 5 != 4) {
        let Program {
            mut g,
            shapes,
            gens,
        } = generated_program(seed, seed % 3 == 0, &mut Tally::default());
        let order = BlockOrder::ALL[(seed % 4) as usize];
        let mode = Mode::reconverge(order).with_skip_empty(SkipEmpty::Auto);
        let Some(unprofiled) = skips(&g.module, g.func, &shapes, mode) else {
            continue;
        };
        let mut rng = SmallRng::seed_from_u64(seed);
        let profile = random_profile(g.function(), 8, &mut rng);
        if profile.branches.is_empty() {
            continue;
        }
        programs += 1;
        g.module
            .function_mut(g.func)
            .expect("generated with a body")
            .branch_profile = Some(profile);
        changed += usize::from(skips(&g.module, g.func, &shapes, mode) != Some(unprofiled));
        for w in WIDTHS {
            let what = format!("profiled skips: gen seed {seed} {mode:?} W={w}");
            differential(
                &g.module, g.func, &shapes, &gens, mode, w, seed, None, &mut tally, &what,
            );
        }
    }
    eprintln!("profiled: {programs} programs, {changed} with other skips; {tally:?}");
    assert!(tally.compared > 600, "{tally:?}");
    // The profiles decide: a profile the lowering ignored would change nothing.
    assert!(changed * 10 > programs, "{changed} of {programs}");
}
