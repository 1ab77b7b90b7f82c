//! The integration tests of `lanes-interp`, one test binary (modules below, one per concern):
//! the interpreter: filetests with `; run:` lines, the memory model, robustness on generated programs and the driver.
//!
//! One binary per crate links once per change instead of once per file; run one module
//! with `cargo test -p lanes-interp --test it <module>::`.

mod driver;
mod filetests;
mod generated_run;
mod memory;
mod robustness;
mod runline;
