//! SuperVectorization (Chen, Mendis, Amarasinghe, PLDI'22: "All You Need Is
//! Superword-Level Parallelism: Systematic Control-Flow Vectorization with SLP").
//!
//! SLP vectorization packs isomorphic, independent instructions into vector
//! instructions; the paper generalizes it across basic blocks and loops by working on
//! *Predicated SSA* (§3.1), where a function is a list of instructions and loops, each
//! with a control predicate, so that moving code between blocks or loops is reordering a
//! list. This crate holds that representation:
//!
//! - [`predicate`]: hash-consed control predicates (Fig. 6);
//! - [`pssa`]: items, μ-nodes, gated φs and loops (Fig. 4);
//! - [`convert`]: a CFG in SSA form to Predicated SSA, with predicates from
//!   post-dominance frontiers (Fig. 8);
//! - [`lower`](mod@lower) with its block builder: back to a CFG (§3.5, Fig. 12);
//! - [`verify`] and [`write`](mod@write): the invariants and the text form;
//! - [`address`] and [`dependence`]: adjacency and loop-independent dependence (§4.2);
//! - [`cost`] and [`target_cost`]: what a tree of packs saves (§4.3), priced by counting
//!   registers or by LLVM's cost model of the target;
//! - [`cse`]: what the copies of a merged loop compute alike, computed once;
//! - [`packing`]: bottom-up SLP packs across predicates (§3.2),
//!   seeded by adjacent stores and by the μ-nodes of merged loop copies, grown (in
//!   `grow`) through instructions, loads, gated φs and μ-nodes;
//! - [`codegen`]: scheduling and vector items, masked where predicates differ, vector
//!   μ-nodes for packed loop-carried values (§3.4, Fig. 11);
//! - [`unroll`]: counted loops unrolled into a main loop and a remainder (§4.1);
//! - [`supervectorize()`]: the pass, function in, function out.
//!
//! [`round_trip`] converts and lowers without changing anything: the differential tests
//! run it on generated programs and the C corpus, so that every later transform starts
//! from a conversion and lowering known to keep a function's meaning.

pub mod address;
mod block_builder;
mod clone;
pub mod codegen;
pub mod coiterate;
pub mod convert;
pub mod cost;
pub mod cse;
pub mod dependence;
mod error;
mod grow;
mod items;
pub mod lower;
pub mod pack_tree;
pub mod packing;
pub mod predicate;
pub mod pssa;
pub mod reduction;
pub mod schedule;
mod substitute;
pub mod supervectorize;
pub mod target_cost;
pub mod unroll;
pub mod verify;
pub mod write;

pub use convert::to_pssa;
pub use error::SlpError;
pub use lower::lower;
pub use predicate::{Pred, PredData, PredPool};
pub use pssa::{Item, LoopData, LoopId, Mu, Pssa};
pub use supervectorize::{
    supervectorize, supervectorize_pssa, supervectorize_with, SlpOptions, SlpReport,
};
pub use verify::verify_pssa;
pub use write::{pssa_to_string, write_pssa};

use lanes_ir::Function;

/// `func` converted to Predicated SSA, verified, and lowered back to a CFG.
pub fn round_trip(func: &Function) -> Result<Function, SlpError> {
    let pssa = to_pssa(func)?;
    verify_pssa(&pssa)?;
    Ok(lower(&pssa))
}
