//! Control dependence and post-dominance frontiers against their definitions on random
//! CFGs.

use crate::common;

use common::{checks, run_cases};

#[test]
fn control_dependence_matches_definition() {
    run_cases(1500, checks::check_control_dependence);
}
