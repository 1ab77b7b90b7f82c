//! Interpreter errors.
//!
//! The interpreter must report every fault of the program it runs (out-of-bounds or
//! unallocated accesses, division by zero, exhausted fuel) as a value, never a panic, and say *where*: a differential test that finds the vectorized
//! function faulting where the scalar one did not needs the instruction to start from.
//! An [`InterpError`] is therefore an [`ErrorKind`] plus the [`Location`] of the faulting
//! instruction (function, block, the instruction and its printed text) and the chain of
//! call sites that led there. Its message reads
//!
//! ```text
//! in @f, block2: v7: i32 = load v5 align 4: out-of-bounds read of 4 bytes at offset 16 of a 16-byte allocation
//! ```
//!
//! Every kind has a short stable [`ErrorKind::code`] (`division by zero`, `out-of-bounds`,
//! …) that run lines use to state an expected trap.

use core::fmt;

use lanes_ir::{Block, Inst, Value};

use crate::memory::MemError;

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    /// A memory fault: out of bounds, unallocated, dangling, read-only, misaligned.
    #[error(transparent)]
    Memory(#[from] MemError),
    /// Integer division or remainder by zero.
    #[error("integer division by zero")]
    DivisionByZero,
    /// `sdiv`/`srem` of the minimum value by -1.
    #[error("signed division overflow (MIN / -1)")]
    DivisionOverflow,
    /// The instruction budget ran out.
    #[error("out of fuel after {0} instructions")]
    OutOfFuel(u64),
    /// An `unreachable` instruction was executed.
    #[error("executed unreachable")]
    Unreachable,
    /// The call depth limit was exceeded.
    #[error("call depth limit of {0} exceeded")]
    StackOverflow(usize),
    /// The arguments of a call do not match the callee's signature.
    #[error("bad argument: {0}")]
    BadArgument(String),
    /// A call to a declared function the interpreter does not implement.
    #[error("call to unknown external function @{0}")]
    UnknownExternal(String),
    /// A lane index (extract, insert, shuffle) out of range.
    #[error("lane index {index} out of range for {lanes} lanes")]
    LaneIndex { index: u64, lanes: usize },
    /// A value read before any definition executed (only in unverified IR).
    #[error("value {0} used before it was defined")]
    UndefinedValue(Value),
    /// A call by name of a function the module lacks.
    #[error("no function @{0} in the module")]
    NoSuchFunction(String),
    /// IR the verifier would reject: wrong operand types, missing terminator, …
    #[error("malformed IR: {0}")]
    Malformed(String),
}

impl ErrorKind {
    /// A short stable name of the kind, as run lines spell an expected trap.
    pub fn code(&self) -> &'static str {
        match self {
            ErrorKind::Memory(m) => match m {
                MemError::OutOfBounds { .. } => "out-of-bounds",
                MemError::Unallocated { .. } => "unallocated",
                MemError::Dangling { .. } => "dangling",
                MemError::ReadOnly { .. } => "read-only",
                MemError::Misaligned { .. } => "misaligned",
                MemError::OutOfMemory { .. } => "out of memory",
                MemError::BadAlign(_) | MemError::Globals(_) => "bad allocation",
            },
            ErrorKind::DivisionByZero => "division by zero",
            ErrorKind::DivisionOverflow => "division overflow",
            ErrorKind::OutOfFuel(_) => "out of fuel",
            ErrorKind::Unreachable => "unreachable",
            ErrorKind::StackOverflow(_) => "stack overflow",
            ErrorKind::BadArgument(_) => "bad argument",
            ErrorKind::UnknownExternal(_) => "unknown external",
            ErrorKind::LaneIndex { .. } => "lane index",
            ErrorKind::UndefinedValue(_) => "undefined value",
            ErrorKind::NoSuchFunction(_) => "no such function",
            ErrorKind::Malformed(_) => "malformed",
        }
    }

    /// Is this a fault of the program on its inputs (as opposed to malformed IR or a
    /// misuse of the interpreter)? Differential tests compare traps of this kind.
    pub fn is_trap(&self) -> bool {
        !matches!(
            self,
            ErrorKind::Malformed(_)
                | ErrorKind::BadArgument(_)
                | ErrorKind::NoSuchFunction(_)
                | ErrorKind::UndefinedValue(_)
        )
    }
}

/// Where an error happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The function's name.
    pub func: String,
    pub block: Option<Block>,
    pub inst: Option<Inst>,
    /// The instruction as printed (`v7: i32 = load v5 align 4`), or empty.
    pub text: String,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("in ")?;
        lanes_ir::write::write_name(f, &self.func)?;
        if let Some(block) = self.block {
            write!(f, ", {block}")?;
        }
        if !self.text.is_empty() {
            write!(f, ": {}", self.text)?;
        }
        Ok(())
    }
}

/// An error with its location and call stack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterpError {
    pub kind: ErrorKind,
    /// The faulting instruction, if the error concerns one.
    pub location: Option<Location>,
    /// The call sites that led to `location`, innermost first.
    pub callers: Vec<Location>,
}

impl InterpError {
    /// An error without a location (bad arguments to the top-level call, …).
    pub fn bare(kind: ErrorKind) -> Self {
        InterpError {
            kind,
            location: None,
            callers: Vec::new(),
        }
    }

    /// The short code of the kind (see [`ErrorKind::code`]).
    pub fn code(&self) -> &'static str {
        self.kind.code()
    }
}

impl From<ErrorKind> for InterpError {
    fn from(kind: ErrorKind) -> Self {
        InterpError::bare(kind)
    }
}

impl fmt::Display for InterpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(loc) = &self.location {
            write!(f, "{loc}: ")?;
        }
        write!(f, "{}", self.kind)?;
        for caller in &self.callers {
            write!(f, "\n  called {caller}")?;
        }
        Ok(())
    }
}

impl std::error::Error for InterpError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::AccessKind;
    use lanes_ir::EntityRef;

    #[test]
    fn message_names_function_block_and_instruction() {
        let e = InterpError {
            kind: MemError::OutOfBounds {
                kind: AccessKind::Read,
                size: 4,
                offset: 16,
                alloc_size: 16,
            }
            .into(),
            location: Some(Location {
                func: "f".into(),
                block: Some(Block::new(2)),
                inst: Some(Inst::new(7)),
                text: "v7: i32 = load v5 align 4".into(),
            }),
            callers: vec![Location {
                func: "main".into(),
                block: Some(Block::new(0)),
                inst: None,
                text: "call @f()".into(),
            }],
        };
        assert_eq!(
            e.to_string(),
            "in @f, block2: v7: i32 = load v5 align 4: out-of-bounds read of 4 bytes at offset 16 \
             of a 16-byte allocation\n  called in @main, block0: call @f()"
        );
        assert_eq!(e.code(), "out-of-bounds");
        assert!(e.kind.is_trap());
        assert!(!ErrorKind::Malformed("x".into()).is_trap());
    }
}
