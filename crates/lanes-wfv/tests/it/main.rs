//! The integration tests of `lanes-wfv`, one test binary (modules below, one per concern):
//! the vectorizer: every pass verified and differentially tested (width 1 and widened, interpreter and native), golden filetests.
//!
//! One binary per crate links once per change instead of once per file; run one module
//! with `cargo test -p lanes-wfv --test it <module>::`.

mod common;

mod branch_fusion;
mod branch_profile;
mod chunks;
mod common_subexpressions;
mod filetests;
mod generated;
mod index_division;
mod irreducible;
mod kernels;
mod lanes_h;
mod native;
mod nonempty_masks;
mod outer_loop;
mod outer_loop_generated;
mod passes;
mod private_memory;
mod reconverge;
mod widen;
mod widen_facts;
mod widen_generated;
mod widen_no_wrap;
mod widen_simt;
mod widths;
