//! Typed entity references of the lanes IR.
//!
//! As in Cranelift (`cranelift/codegen/src/ir/entities.rs`), every object of a function is
//! named by a dense `u32` index wrapped in its own type, so that a `Block` can never be
//! confused with a `Value`, and side tables are `SecondaryMap`s instead of hash maps. The
//! `Display` form of each entity is its spelling in the text format (`block3`, `v7`,
//! `@name` for module-level items is printed by the module printer).

use cranelift_entity::entity_impl;

/// A basic block.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block(u32);
entity_impl!(Block, "block");

/// An instruction. Each instruction has at most one result value.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Inst(u32);
entity_impl!(Inst, "inst");

/// An SSA value: a function parameter or the result of an instruction.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(u32);
entity_impl!(Value, "v");

/// A function of a module, defined or only declared.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(u32);
entity_impl!(FuncId, "func");

/// A global variable of a module.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalId(u32);
entity_impl!(GlobalId, "global");
