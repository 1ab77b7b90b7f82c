//! Zeroed byte storage that starts on a given power-of-two boundary: global buffers
//! ([`crate::host::Buffer`]) and each thread's `__local` memory and live-value buffers
//! ([`crate::executor`]).
//!
//! **Why.** A work-item vector of 16 `float`s is one 64-byte access; when its base is not
//! 64-byte aligned, every such load or store touches two cache lines, which costs a
//! memory-bound kernel much of its speed (a large `Vec` from the system allocator starts
//! 16 bytes into a page). OpenCL devices promise an alignment for buffers
//! (`CL_DEVICE_MEM_BASE_ADDR_ALIGN`, 1024 bits on pocl's CPU device); lanes gives the same
//! 128 bytes, so that work-groups whose first item is a multiple of the width start on a
//! line.

/// `len` zero bytes starting at a multiple of `ALIGN`.
pub struct AlignedBytes {
    words: Vec<u64>,
    /// Bytes from the allocation's start to the aligned start (below `ALIGN`).
    offset: usize,
}

/// Alignment of global buffers, in bytes.
pub const BUFFER_ALIGN: usize = 128;

impl AlignedBytes {
    /// `len` zero bytes at a multiple of `align` (a power of two, at least 8). Written,
    /// not `calloc`ed: the pages exist when the storage does, as an OpenCL
    /// implementation's buffers do, so that a kernel's time does not include faulting in
    /// its output's pages.
    // `vec![0; n]` would `calloc` the pages (above).
    #[allow(clippy::slow_vector_initialization)]
    pub fn new(len: usize, align: usize) -> AlignedBytes {
        debug_assert!(align.is_power_of_two() && align >= 8);
        let n = len.div_ceil(8) + align / 8;
        let mut words = Vec::with_capacity(n);
        words.resize(n, 0u64);
        let addr = words.as_ptr() as usize;
        let offset = addr.next_multiple_of(align) - addr;
        AlignedBytes { words, offset }
    }

    /// The aligned start.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        // SAFETY: `offset` is below the alignment, whose bytes were allocated on top of
        // the requested length.
        unsafe { self.words.as_mut_ptr().cast::<u8>().add(self.offset) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_aligned_and_zeroed() {
        for (len, align) in [(0, 64), (1, 128), (4096 + 3, 128), (1 << 20, 128), (24, 8)] {
            let mut b = AlignedBytes::new(len, align);
            let p = b.as_mut_ptr();
            assert_eq!(p as usize % align, 0, "{len} bytes at {align}");
            // SAFETY: `len` bytes are allocated from `p`.
            let bytes = unsafe { std::slice::from_raw_parts(p, len) };
            assert!(bytes.iter().all(|&x| x == 0));
        }
    }
}
