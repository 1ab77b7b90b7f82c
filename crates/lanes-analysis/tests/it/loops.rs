//! The loop forest and irreducible regions against brute-force oracles on random CFGs.

use crate::common;

use common::checks::{self, LoopStats};
use common::random_function;

#[test]
fn loop_forest_matches_oracle() {
    let mut stats = LoopStats::default();
    let mut irreducible_functions = 0;
    for seed in 0..1500 {
        let func = random_function(seed);
        let before = stats.irreducible;
        let result = checks::check_loops(&func, &mut stats);
        checks::expect_ok(&format!("seed {seed}"), &func, result);
        irreducible_functions += usize::from(stats.irreducible > before);
    }
    eprintln!("{stats:?}, {irreducible_functions} irreducible functions");
    assert!(stats.loops >= 1000, "{stats:?}");
    assert!(stats.nested >= 200, "{stats:?}");
    assert!(
        irreducible_functions >= 100,
        "{irreducible_functions} irreducible functions"
    );
}
