//! The encoding of interpreter pointers: a plain 64-bit integer whose high [`ID_BITS`]
//! bits name the allocation (from 1; 0 is "no allocation", so `null` is unallocated) and
//! whose low [`OFFSET_BITS`] bits are the byte offset, so that `ptrtoint`/`inttoptr`
//! round-trip and pointer arithmetic is integer arithmetic (see the module above for why
//! memory is made of allocations). Values (`crate::value`) print pointers by this
//! encoding; memory resolves them by it.

/// Bits of a pointer holding the byte offset.
pub const OFFSET_BITS: u32 = 40;
/// Bits of a pointer holding the allocation id.
pub const ID_BITS: u32 = 64 - OFFSET_BITS;
pub(crate) const OFFSET_MASK: u64 = (1 << OFFSET_BITS) - 1;
/// Allocation ids from here up name functions (`func_addr`), not memory: a function
/// pointer is never a data address, so an access through one is an error, and a call
/// through a data pointer is one too.
pub const FUNC_ID_BASE: u32 = 1 << (ID_BITS - 1);
pub(crate) const MAX_ID: u32 = FUNC_ID_BASE - 1;

/// The pointer `func_addr` gives function number `index` of the module.
pub fn func_ptr(index: usize) -> u64 {
    encode_ptr(FUNC_ID_BASE.saturating_add(index as u32), 0)
}

/// The function number a pointer made by [`func_ptr`] names.
pub fn ptr_func(ptr: u64) -> Option<usize> {
    let (id, offset) = decode_ptr(ptr);
    (id >= FUNC_ID_BASE && offset == 0).then(|| (id - FUNC_ID_BASE) as usize)
}

/// The pointer to byte `offset` of allocation `id`.
pub fn encode_ptr(id: u32, offset: u64) -> u64 {
    (u64::from(id) << OFFSET_BITS) | (offset & OFFSET_MASK)
}

/// The allocation id and byte offset a pointer encodes.
pub fn decode_ptr(ptr: u64) -> (u32, u64) {
    ((ptr >> OFFSET_BITS) as u32, ptr & OFFSET_MASK)
}
