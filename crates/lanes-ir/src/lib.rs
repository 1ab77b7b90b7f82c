//! The lanes IR: a typed SSA IR for SIMD vectorization of divergent code.
//!
//! lanes implements partial control-flow linearization (PLDI'18), reconverging CFGs,
//! SuperVectorization (PLDI'22), OpenCL on CPUs (CC'12) and divergence analysis (PACT'11)
//! over one IR, designed after Cranelift's (`cranelift/codegen/src/ir`): typed entity
//! indices, a data-flow graph (what) separate from the layout (where), φ as instructions,
//! masks as `<N x i1>`, byte-addressed pointers with address spaces and `ptradd`, and no
//! aggregates. See `ARCHITECTURE.md` of the project for the whole design.
//!
//! - [`types`], [`entities`], [`opcodes`], [`flags`], [`memory_order`], [`instructions`]:
//!   the vocabulary;
//! - [`dfg`], [`layout`], [`function`], [`module`]: containers;
//! - [`graph`]: the one engine for depth-first orders, dominator trees and SCCs;
//! - [`builder`]: appending instructions; [`cursor`]: editing a function in place;
//! - [`write`](mod@write) and [`parser`]: the `.lir` text format;
//! - [`verifier`]: SSA dominance, types, φ/predecessor agreement, terminators;
//! - `generator` (feature `fuzzing`): random well-formed functions for differential tests.

pub mod branch_profile;
pub mod builder;
pub mod cursor;
pub mod dfg;
pub mod entities;
pub mod filetest;
pub mod flags;
pub mod function;
#[cfg(feature = "fuzzing")]
pub mod generator;
pub mod graph;
pub mod instructions;
pub mod layout;
pub mod memory_order;
pub mod module;
pub mod opcodes;
pub mod parser;
pub mod types;
pub mod verifier;
pub mod write;

pub use branch_profile::{BranchCounts, BranchProfile};
pub use builder::FuncBuilder;
pub use cursor::{CursorPosition, FuncCursor};
pub use dfg::{DataFlowGraph, ValueDef, ValueSubstitution};
pub use entities::{Block, FuncId, GlobalId, Inst, Value};
pub use flags::{FastMath, IntFlags};
pub use function::{
    AbiAttrs, FuncAbi, FuncAttrs, Function, LoopHint, LoopMd, Param, ParamAttrs, Shape, Signature,
};
pub use instructions::{alloca_slice, InstData};
pub use layout::Layout;
pub use memory_order::{Atomic, MemAccess, Ordering, SyncScope};
pub use module::{ExternFunc, FuncEntry, GlobalData, Module};
pub use opcodes::{
    AtomicOp, BinaryOp, CastOp, FloatCC, IntCC, Intrinsic, IntrinsicClass, UnaryOp, WorkItemQuery,
};
pub use parser::{parse_function, parse_module, ParseError};
pub use types::{AddrSpace, ScalarType, Type};

/// Re-exported so that users need not depend on `cranelift-entity` to index entities.
pub use cranelift_entity::EntityRef;
