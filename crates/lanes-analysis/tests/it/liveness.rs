//! SSA liveness against a per-value path search on random SSA functions.

use crate::common;

use common::{checks, run_cases};

#[test]
fn liveness_matches_path_search() {
    run_cases(1500, checks::check_liveness);
}
