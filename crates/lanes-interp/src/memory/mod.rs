//! Byte-addressed, bounds-checked memory made of separate allocations.
//!
//! The interpreter is the oracle of the differential tests (ARCHITECTURE.md, "Testing"):
//! a vectorized function must compute what the scalar one computes *and* must not touch
//! memory the scalar one would not touch. A flat byte array could not tell an
//! out-of-bounds access from a lucky in-bounds one, so memory is a set of allocations
//! (stack slots from `alloca`, module globals, buffers made by a test harness), each with
//! its size, alignment, address space, a read-only flag (constant globals) and a freed
//! flag (stack slots of returned frames). Every access is checked against its allocation;
//! a violation is a [`MemError`], never a panic.
//!
//! A pointer is a plain 64-bit integer, so that `ptrtoint`/`inttoptr` round-trip and
//! pointer arithmetic is integer arithmetic. Its encoding names its allocation: the
//! allocation id (from 1; 0 means "no allocation", so `null` is unallocated) in the high
//! [`ID_BITS`] bits and the byte offset in the low [`OFFSET_BITS`] bits. Every allocation
//! thus starts at a multiple of 2^40, which makes alignment checks depend on the offset
//! alone. Offsets past the end are reported precisely; only an offset that overflows
//! 2^40 could alias a neighbouring allocation, which no allocation size the interpreter
//! accepts ([`Memory::limit`]) comes close to.
//!
//! Accesses by the program can be traced ([`Memory::enable_trace`]), each with the lane
//! that made it, so tests can prove that inactive lanes never touch memory.

use lanes_ir::{AddrSpace, Module, Type};

use crate::value::RtValue;

mod fault;
pub(crate) mod pointer;

pub use fault::{Access, AccessKind, MemError};
pub use pointer::{decode_ptr, encode_ptr, func_ptr, ptr_func, FUNC_ID_BASE, ID_BITS, OFFSET_BITS};
pub(crate) use pointer::{MAX_ID, OFFSET_MASK};

/// Where an allocation came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocKind {
    /// An `alloca` of a function activation; freed when the function returns.
    Stack,
    /// A module global.
    Global,
    /// Made by the caller of the interpreter (a test harness or the CLI).
    Buffer,
}

/// One allocation.
#[derive(Clone, Debug)]
pub struct Allocation {
    pub id: u32,
    pub size: u64,
    pub align: u32,
    pub space: AddrSpace,
    pub read_only: bool,
    pub freed: bool,
    pub kind: AllocKind,
    bytes: Vec<u8>,
}

impl Allocation {
    /// The pointer to the first byte.
    pub fn base(&self) -> u64 {
        encode_ptr(self.id, 0)
    }

    /// The contents (empty once freed).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// The default cap on live allocated bytes.
pub const DEFAULT_LIMIT: u64 = 256 << 20;

/// A set of allocations, the module globals placed in it, an optional access trace, and
/// the program's standard output (what `printf`, `puts` and `putchar` write: the state of
/// the machine outside the call frames).
#[derive(Clone, Debug)]
pub struct Memory {
    allocs: Vec<Allocation>,
    stdout: Vec<u8>,
    live: u64,
    limit: u64,
    check_align: bool,
    globals: Option<Vec<u64>>,
    trace: Option<Vec<Access>>,
    reads: u64,
    writes: u64,
}

impl Default for Memory {
    fn default() -> Self {
        Memory::new()
    }
}

impl Memory {
    /// Empty memory with the default limit; explicit alignments are checked.
    pub fn new() -> Self {
        Memory {
            allocs: Vec::new(),
            stdout: Vec::new(),
            live: 0,
            limit: DEFAULT_LIMIT,
            check_align: true,
            globals: None,
            trace: None,
            reads: 0,
            writes: 0,
        }
    }

    /// Appends to the program's standard output.
    pub fn write_stdout(&mut self, bytes: &[u8]) {
        self.stdout.extend_from_slice(bytes);
    }

    /// The program's standard output so far, emptied.
    pub fn take_stdout(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.stdout)
    }

    /// The bytes of the NUL-terminated string at `ptr` (without the NUL), each byte
    /// bounds-checked like a load.
    pub fn read_c_string(&self, ptr: u64) -> Result<Vec<u8>, MemError> {
        let mut out = Vec::new();
        loop {
            let b = self.read_bytes(ptr.wrapping_add(out.len() as u64), 1)?[0];
            if b == 0 {
                return Ok(out);
            }
            out.push(b);
        }
    }

    /// Caps the live allocated bytes (allocations beyond fail with `OutOfMemory`).
    pub fn set_limit(&mut self, bytes: u64) {
        self.limit = bytes.min(OFFSET_MASK);
    }

    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Whether an access with an explicit alignment (`align 4`) at an address that is not
    /// a multiple of it faults. On by default: such an access states a false fact that a
    /// code generator would act on. Accesses with alignment 0 ("natural") are never
    /// checked.
    pub fn set_check_alignment(&mut self, on: bool) {
        self.check_align = on;
    }

    /// Allocates `size` zeroed bytes for the harness.
    pub fn alloc(&mut self, size: u64, align: u32, space: AddrSpace) -> Result<u64, MemError> {
        self.alloc_kind(size, align, space, AllocKind::Buffer, false, None)
    }

    /// Allocates a buffer holding `bytes`, optionally read-only.
    pub fn alloc_init(
        &mut self,
        bytes: &[u8],
        align: u32,
        space: AddrSpace,
        read_only: bool,
    ) -> Result<u64, MemError> {
        let size = bytes.len() as u64;
        self.alloc_kind(
            size,
            align,
            space,
            AllocKind::Buffer,
            read_only,
            Some(bytes),
        )
    }

    /// Allocates a buffer holding `values` (all of one type) back to back.
    pub fn alloc_values(
        &mut self,
        values: &[RtValue],
        align: u32,
        space: AddrSpace,
    ) -> Result<u64, MemError> {
        let bytes: Vec<u8> = values.iter().flat_map(RtValue::to_le_bytes).collect();
        self.alloc_init(&bytes, align, space, false)
    }

    /// A stack slot for `alloca` (zero-filled, so runs are deterministic).
    pub fn alloc_stack(&mut self, size: u64, align: u32) -> Result<u64, MemError> {
        self.alloc_kind(
            size,
            align,
            AddrSpace::PRIVATE,
            AllocKind::Stack,
            false,
            None,
        )
    }

    fn alloc_kind(
        &mut self,
        size: u64,
        align: u32,
        space: AddrSpace,
        kind: AllocKind,
        read_only: bool,
        init: Option<&[u8]>,
    ) -> Result<u64, MemError> {
        if align != 0 && !align.is_power_of_two() {
            return Err(MemError::BadAlign(align));
        }
        let fits = self
            .live
            .checked_add(size)
            .is_some_and(|total| total <= self.limit);
        let id = u32::try_from(self.allocs.len() + 1)
            .ok()
            .filter(|&id| id <= MAX_ID);
        let (true, Some(id)) = (fits, id) else {
            return Err(MemError::OutOfMemory {
                size,
                live: self.live,
                limit: self.limit,
            });
        };
        let bytes = match init {
            Some(b) => b.to_vec(),
            None => vec![0; size as usize],
        };
        self.live += size;
        self.allocs.push(Allocation {
            id,
            size,
            align: align.max(1),
            space,
            read_only,
            freed: false,
            kind,
            bytes,
        });
        Ok(encode_ptr(id, 0))
    }

    /// Makes the allocation `ptr` points into read-only (or writable again).
    pub fn set_read_only(&mut self, ptr: u64, read_only: bool) {
        let (id, _) = decode_ptr(ptr);
        if let Some(a) = self.allocs.get_mut((id as usize).wrapping_sub(1)) {
            a.read_only = read_only;
        }
    }

    /// Frees a stack slot: later accesses through pointers into it are `Dangling`.
    pub fn free_stack(&mut self, ptr: u64) {
        let (id, _) = decode_ptr(ptr);
        let index = (id as usize).wrapping_sub(1);
        if let Some(a) = self.allocs.get_mut(index).filter(|a| !a.freed) {
            a.freed = true;
            a.bytes = Vec::new();
            self.live -= a.size;
        }
    }

    /// The allocation a pointer points into (by id; the offset may be out of bounds).
    pub fn allocation(&self, ptr: u64) -> Option<&Allocation> {
        let (id, _) = decode_ptr(ptr);
        let index = (id as usize).checked_sub(1)?;
        self.allocs.get(index)
    }

    /// All allocations ever made, in order.
    pub fn allocations(&self) -> impl Iterator<Item = &Allocation> {
        self.allocs.iter()
    }

    /// Bytes currently allocated.
    pub fn live_bytes(&self) -> u64 {
        self.live
    }

    /// Checks an access and returns the allocation index and offset.
    fn check(
        &self,
        kind: AccessKind,
        ptr: u64,
        size: u64,
        align: u32,
    ) -> Result<(usize, usize), MemError> {
        let (id, offset) = decode_ptr(ptr);
        let Some(a) = (id as usize)
            .checked_sub(1)
            .and_then(|i| self.allocs.get(i))
        else {
            return Err(MemError::Unallocated { kind, size, ptr });
        };
        if a.freed {
            return Err(MemError::Dangling { kind, size, id });
        }
        if offset.checked_add(size).is_none_or(|end| end > a.size) {
            return Err(MemError::OutOfBounds {
                kind,
                size,
                offset,
                alloc_size: a.size,
            });
        }
        if kind == AccessKind::Write && a.read_only {
            return Err(MemError::ReadOnly { size, id });
        }
        self.check_alignment(kind, ptr, size, align)?;
        Ok((id as usize - 1, offset as usize))
    }

    /// Checks only the alignment of an access of `size` bytes at `ptr` (for masked
    /// accesses, whose alignment concerns the base pointer while the lanes are checked
    /// one by one).
    pub fn check_alignment(
        &self,
        kind: AccessKind,
        ptr: u64,
        size: u64,
        align: u32,
    ) -> Result<(), MemError> {
        let (_, offset) = decode_ptr(ptr);
        if self.check_align && align > 1 && offset % u64::from(align) != 0 {
            return Err(MemError::Misaligned {
                kind,
                size,
                offset,
                align,
            });
        }
        Ok(())
    }

    fn record(&mut self, kind: AccessKind, ptr: u64, size: u64, lane: Option<u32>) {
        match kind {
            AccessKind::Read => self.reads += 1,
            AccessKind::Write => self.writes += 1,
            AccessKind::Speculative => {}
        }
        if let Some(trace) = &mut self.trace {
            trace.push(Access {
                kind,
                ptr,
                size,
                lane,
            });
        }
    }

    /// A program load of `ty` (traced, alignment-checked).
    pub fn load(
        &mut self,
        ptr: u64,
        ty: Type,
        align: u32,
        lane: Option<u32>,
    ) -> Result<RtValue, MemError> {
        let size = u64::from(ty.bytes());
        let (index, offset) = self.check(AccessKind::Read, ptr, size, align)?;
        self.record(AccessKind::Read, ptr, size, lane);
        let bytes = &self.allocs[index].bytes[offset..offset + size as usize];
        Ok(RtValue::from_le_bytes(ty, bytes).unwrap_or_else(|| RtValue::splat(ty, 0)))
    }

    /// A speculative read of `ty` at `ptr`: the bytes inside a live allocation, zero for
    /// the others; traced as [`AccessKind::Speculative`], never a fault.
    pub fn speculative_read(&mut self, ptr: u64, ty: Type, lane: Option<u32>) -> RtValue {
        let size = u64::from(ty.bytes());
        self.record(AccessKind::Speculative, ptr, size, lane);
        let bytes: Vec<u8> = (0..size)
            .map(|k| {
                let at = ptr.wrapping_add(k);
                self.check(AccessKind::Read, at, 1, 0)
                    .map_or(0, |(index, offset)| self.allocs[index].bytes[offset])
            })
            .collect();
        RtValue::from_le_bytes(ty, &bytes).unwrap_or_else(|| RtValue::splat(ty, 0))
    }

    /// A program store (traced, alignment-checked).
    pub fn store(
        &mut self,
        ptr: u64,
        value: &RtValue,
        align: u32,
        lane: Option<u32>,
    ) -> Result<(), MemError> {
        let bytes = value.to_le_bytes();
        let size = bytes.len() as u64;
        let (index, offset) = self.check(AccessKind::Write, ptr, size, align)?;
        self.record(AccessKind::Write, ptr, size, lane);
        self.allocs[index].bytes[offset..offset + bytes.len()].copy_from_slice(&bytes);
        Ok(())
    }

    /// Harness read of `len` bytes (bounds-checked, not traced).
    pub fn read_bytes(&self, ptr: u64, len: u64) -> Result<Vec<u8>, MemError> {
        let (index, offset) = self.check(AccessKind::Read, ptr, len, 0)?;
        Ok(self.allocs[index].bytes[offset..offset + len as usize].to_vec())
    }

    /// Harness write (bounds- and read-only-checked, not traced).
    pub fn write_bytes(&mut self, ptr: u64, bytes: &[u8]) -> Result<(), MemError> {
        let (index, offset) = self.check(AccessKind::Write, ptr, bytes.len() as u64, 0)?;
        self.allocs[index].bytes[offset..offset + bytes.len()].copy_from_slice(bytes);
        Ok(())
    }

    /// Harness read of a typed value (not traced).
    pub fn read_value(&self, ptr: u64, ty: Type) -> Result<RtValue, MemError> {
        let bytes = self.read_bytes(ptr, u64::from(ty.bytes()))?;
        Ok(RtValue::from_le_bytes(ty, &bytes).unwrap_or_else(|| RtValue::splat(ty, 0)))
    }

    /// Harness write of a typed value (not traced).
    pub fn write_value(&mut self, ptr: u64, value: &RtValue) -> Result<(), MemError> {
        self.write_bytes(ptr, &value.to_le_bytes())
    }

    /// Harness read of `n` consecutive scalars of type `elem`.
    pub fn read_array(
        &self,
        ptr: u64,
        elem: lanes_ir::ScalarType,
        n: u64,
    ) -> Result<Vec<RtValue>, MemError> {
        let size = u64::from(elem.bytes());
        let len = size.saturating_mul(n);
        let bytes = self.read_bytes(ptr, len)?;
        Ok(bytes
            .chunks_exact(size as usize)
            .filter_map(|c| RtValue::from_le_bytes(Type::Scalar(elem), c))
            .collect())
    }

    /// Places and initializes the globals of `module`, once per memory. A memory belongs
    /// to one module: calling this again with a module of a different global count fails.
    pub fn init_globals(&mut self, module: &Module) -> Result<(), MemError> {
        if let Some(g) = &self.globals {
            if g.len() == module.globals.len() {
                return Ok(());
            }
            return Err(MemError::Globals(format!(
                "memory holds {} globals but the module has {}",
                g.len(),
                module.globals.len()
            )));
        }
        let mut ptrs = Vec::with_capacity(module.globals.len());
        for g in module.globals.values() {
            if let Some(b) = &g.init {
                if b.len() as u64 != g.size {
                    return Err(MemError::Globals(format!(
                        "@{} has {} initializer bytes for size {}",
                        g.name,
                        b.len(),
                        g.size
                    )));
                }
            }
            let init = g.init.as_deref();
            let ptr = self
                .alloc_kind(
                    g.size,
                    g.align,
                    g.space,
                    AllocKind::Global,
                    g.constant,
                    init,
                )
                .map_err(|e| MemError::Globals(format!("@{}: {e}", g.name)))?;
            ptrs.push(ptr);
        }
        self.globals = Some(ptrs);
        Ok(())
    }

    /// The address of global number `index` of the module, once placed.
    pub fn global_ptr(&self, index: usize) -> Option<u64> {
        self.globals.as_ref()?.get(index).copied()
    }

    /// Starts recording every program access (clearing an earlier trace).
    pub fn enable_trace(&mut self) {
        self.trace = Some(Vec::new());
    }

    /// The recorded accesses so far (tracing stays on).
    pub fn take_trace(&mut self) -> Vec<Access> {
        self.trace.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Program reads and writes so far (counted whether or not tracing is on).
    pub fn access_counts(&self) -> (u64, u64) {
        (self.reads, self.writes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_and_freed_allocations_fault() {
        let mut m = Memory::new();
        let c = m
            .alloc_init(&[1, 2, 3, 4], 4, AddrSpace::CONSTANT, true)
            .unwrap();
        assert_eq!(m.read_bytes(c, 4).unwrap(), vec![1, 2, 3, 4]);
        assert!(matches!(
            m.store(c, &RtValue::i8(0), 1, None),
            Err(MemError::ReadOnly { .. })
        ));
        let s = m.alloc_stack(8, 8).unwrap();
        m.store(s, &RtValue::i64(1), 8, None).unwrap();
        let live = m.live_bytes();
        m.free_stack(s);
        assert_eq!(m.live_bytes(), live - 8);
        assert!(matches!(
            m.load(s, Type::I64, 8, None),
            Err(MemError::Dangling { .. })
        ));
    }
}
