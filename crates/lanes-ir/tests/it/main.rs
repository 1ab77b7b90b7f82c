//! The integration tests of `lanes-ir`, one test binary (modules below, one per concern):
//! the IR: parser errors, verifier, text round trip and the program generator.
//!
//! One binary per crate links once per change instead of once per file; run one module
//! with `cargo test -p lanes-ir --test it <module>::`.

mod common;

#[cfg(feature = "fuzzing")]
mod generator;
mod parse_errors;
#[cfg(feature = "fuzzing")]
mod roundtrip;
mod verifier;
mod verifier_filetests;
