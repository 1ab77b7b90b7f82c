//! The work-group context: what the executor tells a kernel about the work-group it runs.
//!
//! CC'12 §2.2 removes the overhead of the runtime's callbacks (`get_group_id()` and
//! friends) by handing their values to the kernel wrapper: the values fixed for the
//! whole launch or group (sizes, offsets, the group's id) are read from this record by
//! the compiled code, once, as uniform values; the local ids are the wrapper's loop
//! counters ([`crate::work_items`]). The generated code reads fields by the byte offsets
//! below, so the layout is fixed (`repr(C)`, one 64-bit word per field).

/// Word index of each field, as the generated code addresses it (`ctx + 8 * index`).
pub mod field {
    pub const GLOBAL_OFFSET: usize = 0;
    pub const LOCAL_SIZE: usize = 3;
    pub const GLOBAL_SIZE: usize = 6;
    pub const NUM_GROUPS: usize = 9;
    pub const GROUP_ID: usize = 12;
    pub const WORK_DIM: usize = 15;
    /// The group's `__local` memory.
    pub const LOCAL_MEMORY: usize = 16;
    /// Work-items in the group (the product of the local sizes).
    pub const ITEMS: usize = 17;
}

/// The context of one work-group (field docs: OpenCL's work-item functions of the same
/// name).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct GroupContext {
    pub global_offset: [u64; 3],
    pub local_size: [u64; 3],
    pub global_size: [u64; 3],
    pub num_groups: [u64; 3],
    pub group_id: [u64; 3],
    pub work_dim: u64,
    pub local_memory: *mut u8,
    pub items: u64,
}

// SAFETY: `local_memory` is the group's own memory, used by the one thread running the
// group; the context is copied, never shared, between threads.
unsafe impl Send for GroupContext {}
unsafe impl Sync for GroupContext {}

impl GroupContext {
    /// The context of the first group of a launch of `global` work-items in groups of
    /// `local` (both three-dimensional, unused dimensions 1) at `offset`.
    pub fn new(work_dim: u32, global: [u64; 3], local: [u64; 3], offset: [u64; 3]) -> Self {
        GroupContext {
            global_offset: offset,
            local_size: local,
            global_size: global,
            num_groups: [0, 1, 2].map(|d| global[d] / local[d].max(1)),
            group_id: [0; 3],
            work_dim: u64::from(work_dim),
            local_memory: std::ptr::null_mut(),
            items: local.iter().product(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_indices_match_the_layout() {
        let c = GroupContext::new(2, [64, 8, 1], [16, 2, 1], [0; 3]);
        let base = std::ptr::addr_of!(c) as usize;
        let at = |p: *const u8| (p as usize - base) / 8;
        assert_eq!(
            at(std::ptr::addr_of!(c.local_size).cast()),
            field::LOCAL_SIZE
        );
        assert_eq!(at(std::ptr::addr_of!(c.group_id).cast()), field::GROUP_ID);
        assert_eq!(at(std::ptr::addr_of!(c.work_dim).cast()), field::WORK_DIM);
        assert_eq!(
            at(std::ptr::addr_of!(c.local_memory).cast()),
            field::LOCAL_MEMORY
        );
        assert_eq!(at(std::ptr::addr_of!(c.items).cast()), field::ITEMS);
        assert_eq!(c.num_groups, [4, 4, 1]);
        assert_eq!(c.items, 32);
    }
}
