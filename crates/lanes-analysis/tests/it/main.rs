//! The integration tests of `lanes-analysis`, one test binary (modules below, one per concern):
//! the CFG analyses and the shape/divergence analysis: property tests against brute-force oracles, golden filetests, scaling and edge cases.
//!
//! One binary per crate links once per change instead of once per file; run one module
//! with `cargo test -p lanes-analysis --test it <module>::`.

mod common;

mod cfg_dominators;
mod control_dependence;
mod edge_cases;
mod filetests;
mod generated;
mod large;
mod liveness;
mod loops;
mod post_dominators;
mod shapes_divergence;
mod shapes_filetests;
mod shapes_no_wrap;
mod shapes_transfer;
mod walk_budget;
