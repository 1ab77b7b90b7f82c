//! The post-dominator tree against brute-force oracles on random CFGs, with and without
//! infinite loops.

use crate::common;

use common::{checks, random_function};

const CASES: u64 = 1500;

#[test]
fn post_dominators_match_oracle() {
    let (mut infinite, mut finite) = (0, 0);
    for seed in 0..CASES {
        let func = random_function(seed);
        match checks::check_post_dominators(&func) {
            Ok(true) => infinite += 1,
            Ok(false) => finite += 1,
            Err(msg) => checks::expect_ok(&format!("seed {seed}"), &func, Err(msg)),
        }
    }
    eprintln!("{infinite} functions with infinite loops, {finite} without");
    assert!(infinite >= 200, "only {infinite} cases with infinite loops");
    assert!(finite >= 200, "only {finite} cases without infinite loops");
}

/// At least 1,000 functions in which every block reaches an exit, where the tree must be
/// exactly the plain definition (checked inside `check_post_dominators`).
#[test]
fn post_dominators_match_plain_definition_without_infinite_loops() {
    let mut checked = 0;
    let mut seed = 1_000_000;
    while checked < 1000 {
        let func = random_function(seed);
        match checks::check_post_dominators(&func) {
            Ok(true) => {}
            Ok(false) => checked += 1,
            Err(msg) => checks::expect_ok(&format!("seed {seed}"), &func, Err(msg)),
        }
        seed += 1;
        assert!(seed < 1_100_000, "too few functions without infinite loops");
    }
}
