//! The integration tests of `lanes-llvm`, one test binary (modules below, one per concern):
//! the LLVM bridge: import/export round trips, golden export filetests, the C corpus, flags and the JIT against the interpreter.
//!
//! One binary per crate links once per change instead of once per file; run one module
//! with `cargo test -p lanes-llvm --test it <module>::`.

mod common;

mod corpus;
mod export_import;
mod filetests;
mod flags_round_trip;
mod fmuladd;
mod import_export;
mod inrange_conversions;
mod int_flags;
mod intrinsics_seen;
mod jit_vs_interp;
mod memory_model;
mod odd_width_ints;
mod spelled_intrinsics;
