//! Every oracle check over functions of the project's program generator
//! (`lanes_ir::generator`): reducible loop nests with several exits and latches,
//! unstructured forward branches, and, with `irreducible`, side entries into loops.

use crate::common;

use common::checks::{self, LoopStats};
use common::with_bytes;
use lanes_analysis::{ControlFlowGraph, DominatorTree, LoopForest};
use lanes_ir::generator::{generate, GenConfig, Generated};

const CASES: u64 = 1200;

fn generated(seed: u64) -> Generated {
    let cfg = GenConfig {
        irreducible: seed % 3 == 2,
        ..GenConfig::default()
    };
    with_bytes(seed, |u| generate(u, &cfg)).expect("generation never fails")
}

#[test]
fn analyses_match_oracles_on_generated_functions() {
    let mut stats = LoopStats::default();
    let mut irreducible = 0;
    for seed in 0..CASES {
        let g = generated(seed);
        for (_, func) in g.module.functions() {
            let name = format!("generated seed {seed} @{}", func.name);
            checks::expect_ok(&name, func, checks::check_cfg(func));
            checks::expect_ok(&name, func, checks::check_dominators(func));
            checks::expect_ok(&name, func, checks::check_post_dominators(func).map(|_| ()));
            checks::expect_ok(&name, func, checks::check_control_dependence(func));
            checks::expect_ok(&name, func, checks::check_loops(func, &mut stats));
            checks::expect_ok(&name, func, checks::check_liveness(func));
        }
        // The generator computes irreducibility itself; the loop forest must agree.
        let main = g
            .module
            .function(g.func)
            .expect("the main function is defined");
        let cfg = ControlFlowGraph::with_function(main);
        let forest = LoopForest::with_cfg(&cfg, &DominatorTree::with_function(main, &cfg));
        assert_eq!(
            !forest.is_reducible(),
            g.info.irreducible,
            "seed {seed}: irreducibility"
        );
        irreducible += usize::from(g.info.irreducible);
    }
    eprintln!("{CASES} generated modules: {stats:?}, {irreducible} irreducible");
    assert!(stats.nested >= 100, "{stats:?}");
    assert!(
        irreducible >= 50,
        "only {irreducible} irreducible functions"
    );
}
