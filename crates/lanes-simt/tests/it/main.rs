//! The integration tests of `lanes-simt`, one test binary (modules below, one per concern):
//! the SIMT profiler: soundness against the interpreter, precision on the kernel corpus, the driver.
//!
//! One binary per crate links once per change instead of once per file; run one module
//! with `cargo test -p lanes-simt --test it <module>::`.

mod simt_driver;
mod simt_precision;
mod simt_soundness;
