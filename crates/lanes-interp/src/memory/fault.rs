//! What can go wrong with a memory access, and the record of one access.
//!
//! A fault names the kind of access, its size and where it went relative to its
//! allocation, so that an interpreter error reads like a sanitizer report ("out-of-bounds
//! read of 4 bytes at offset 16 of a 16-byte allocation") and a differential test can
//! tell a vectorizer's stray lane from a genuine bug of the program.

use core::fmt;

/// Read or write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    Read,
    Write,
    /// A read that speculation makes (`speculative_load`): it may fall outside every
    /// object, so it is never a fault, and it is not one of the program's reads.
    Speculative,
}

impl fmt::Display for AccessKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
            AccessKind::Speculative => "speculative read",
        })
    }
}

/// One access by the program, as recorded by the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub kind: AccessKind,
    pub ptr: u64,
    pub size: u64,
    /// The lane (or SIMT thread) that made the access; `None` for a whole-vector access.
    pub lane: Option<u32>,
}

/// A memory fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MemError {
    #[error(
        "out-of-bounds {kind} of {size} bytes at offset {offset} of a {alloc_size}-byte allocation"
    )]
    OutOfBounds {
        kind: AccessKind,
        size: u64,
        offset: u64,
        alloc_size: u64,
    },
    #[error("{kind} of {size} bytes at unallocated address {ptr:#x}{}", if *ptr == 0 { " (null)" } else { "" })]
    Unallocated {
        kind: AccessKind,
        size: u64,
        ptr: u64,
    },
    #[error("{kind} of {size} bytes through a dangling pointer into freed stack allocation a{id}")]
    Dangling {
        kind: AccessKind,
        size: u64,
        id: u32,
    },
    #[error("write of {size} bytes to read-only allocation a{id}")]
    ReadOnly { size: u64, id: u32 },
    #[error("misaligned {kind} of {size} bytes at offset {offset}: alignment {align} required")]
    Misaligned {
        kind: AccessKind,
        size: u64,
        offset: u64,
        align: u32,
    },
    #[error("out of memory: cannot allocate {size} more bytes ({live} live, limit {limit})")]
    OutOfMemory { size: u64, live: u64, limit: u64 },
    #[error("invalid alignment {0}: must be a power of two")]
    BadAlign(u32),
    #[error("cannot place globals: {0}")]
    Globals(String),
}
