//! The reference interpreter of lanes IR.
//!
//! lanes proves its transformations by differential testing (ARCHITECTURE.md, "Testing"):
//! the scalar function run once per instance must compute what the vectorized function
//! computes, and inactive lanes must never touch memory or trap. This crate is the oracle
//! those tests trust, so its semantics are total and explicit:
//!
//! - [`value`]: runtime values as typed raw bits per lane;
//! - [`memory`]: separate, bounds-checked allocations behind 64-bit pointers, with an
//!   access trace;
//! - [`arith`], [`cast`], [`intrinsics`], [`mem_ops`], [`externals`], [`context`]: what
//!   each instruction computes, scalar and lane-wise;
//! - [`eval`]: the per-instruction evaluator shared by all drivers;
//! - [`interp`]: the scalar (and vector) driver with fuel, call depth limit and parallel φs;
//! - [`error`]: every fault as an [`InterpError`] naming the instruction — never a panic;
//! - [`runline`] and [`harness`]: the `; run:` directive syntax of filetests, also the
//!   argument syntax of `lanes interp`, and its execution.

pub mod arith;
pub mod cast;
pub mod context;
pub mod differential;
pub mod error;
pub mod eval;
pub mod externals;
pub mod float;
pub mod harness;
pub mod interp;
pub mod intrinsics;
pub mod mem_ops;
pub mod memory;
pub mod runline;
pub mod stdio;
pub mod value;

pub use context::{ExecContext, WorkItemContext};
pub use error::{ErrorKind, InterpError, Location};
pub use eval::{eval_inst, Effect, EvalCtx, Operands};
pub use harness::{bind_args, run_line, BoundArgs, BoundBuffer, HarnessError};
pub use interp::{Interpreter, RunStats, DEFAULT_FUEL, DEFAULT_MAX_DEPTH};
pub use memory::{Access, AccessKind, AllocKind, Allocation, MemError, Memory};
pub use runline::{parse_arg, parse_args, parse_run_line, ArgSpec, RunLine, RunLineError};
pub use value::RtValue;
