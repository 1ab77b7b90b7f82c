//! Integration tests of lanes-slp: Predicated SSA's conversion, verifier, printer and
//! lowering, proven by differential runs against the original functions.

mod coiterate;
mod corpus;
mod filetests;
mod generated;
mod generated_nested;
mod generated_slp;
mod packed_run;
mod packing;
mod paper;
mod regressions;
mod target_cost;
