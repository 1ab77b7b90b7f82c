//! What an executing instance can observe about itself: work-item ids and sizes, and its
//! lane within a SIMD group.
//!
//! OpenCL's `get_global_id(d)` and friends (CC'12 §2) and RV's `rv_lane_id`/`rv_num_lanes`
//! (PLDI'18 §2) are the only instructions whose results depend on *which* instance runs,
//! so the drivers supply them through an [`ExecContext`]: the scalar driver runs one
//! instance (by default work-item 0 of a one-item range, lane 0 of 1), a work-group
//! launcher sets the ids per instance, and the later SIMT driver sets `lane` per thread.
//! Queries of a dimension above 2 answer as OpenCL does: 0 for ids and offsets, 1 for
//! sizes.

use lanes_ir::{Type, WorkItemQuery};

use crate::arith::malformed;
use crate::error::ErrorKind;
use crate::value::RtValue;

/// Work-item ids and sizes per dimension (x, y, z).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkItemContext {
    pub global_id: [u64; 3],
    pub local_id: [u64; 3],
    pub group_id: [u64; 3],
    pub global_size: [u64; 3],
    pub local_size: [u64; 3],
    pub num_groups: [u64; 3],
    pub global_offset: [u64; 3],
}

impl Default for WorkItemContext {
    /// Work-item 0 of a range of one item in one group.
    fn default() -> Self {
        WorkItemContext {
            global_id: [0; 3],
            local_id: [0; 3],
            group_id: [0; 3],
            global_size: [1; 3],
            local_size: [1; 3],
            num_groups: [1; 3],
            global_offset: [0; 3],
        }
    }
}

impl WorkItemContext {
    /// The item with local id `local` in group `group` of a 1-D range of `groups` groups of
    /// `local_size` items: global id `group * local_size + local`.
    pub fn one_dim(group: u64, local: u64, local_size: u64, groups: u64) -> Self {
        let mut c = WorkItemContext::default();
        c.local_id[0] = local;
        c.group_id[0] = group;
        c.local_size[0] = local_size;
        c.num_groups[0] = groups;
        c.global_size[0] = local_size.wrapping_mul(groups);
        c.global_id[0] = group.wrapping_mul(local_size).wrapping_add(local);
        c
    }

    /// The answer to `query` for dimension `dim`.
    pub fn query(&self, query: WorkItemQuery, dim: u8) -> u64 {
        let d = usize::from(dim);
        let pick = |a: &[u64; 3], default: u64| a.get(d).copied().unwrap_or(default);
        match query {
            WorkItemQuery::GlobalId => pick(&self.global_id, 0),
            WorkItemQuery::LocalId => pick(&self.local_id, 0),
            WorkItemQuery::GroupId => pick(&self.group_id, 0),
            WorkItemQuery::GlobalSize => pick(&self.global_size, 1),
            WorkItemQuery::LocalSize => pick(&self.local_size, 1),
            WorkItemQuery::NumGroups => pick(&self.num_groups, 1),
            WorkItemQuery::GlobalOffset => pick(&self.global_offset, 0),
        }
    }
}

/// Everything an instance observes about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecContext {
    pub work_item: WorkItemContext,
    /// The answer of a scalar `lane_id` (the SIMT thread index; 0 when run alone).
    pub lane: u32,
    /// The answer of a scalar `num_lanes` (the SIMT width; 1 when run alone).
    pub num_lanes: u32,
}

impl Default for ExecContext {
    fn default() -> Self {
        ExecContext {
            work_item: WorkItemContext::default(),
            lane: 0,
            num_lanes: 1,
        }
    }
}

/// A work-item query with result type `ty`: an integer scalar, or a vector, which gets
/// the (uniform) answer in every lane, like a constant.
pub fn work_item(
    cx: &ExecContext,
    query: WorkItemQuery,
    dim: u8,
    ty: Type,
) -> Result<RtValue, ErrorKind> {
    if !ty.is_int() {
        return Err(malformed(format!("`{query}` with result type {ty}")));
    }
    Ok(RtValue::splat(ty, cx.work_item.query(query, dim)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_high_dimensions() {
        let cx = ExecContext::default();
        let q = |query, dim| {
            work_item(&cx, query, dim, Type::I64)
                .unwrap()
                .as_u64()
                .unwrap()
        };
        assert_eq!(q(WorkItemQuery::GlobalId, 0), 0);
        assert_eq!(q(WorkItemQuery::GlobalSize, 0), 1);
        assert_eq!(q(WorkItemQuery::LocalSize, 7), 1);
        assert_eq!(q(WorkItemQuery::GroupId, 3), 0);
        let c = WorkItemContext::one_dim(2, 5, 8, 4);
        assert_eq!(c.query(WorkItemQuery::GlobalId, 0), 21);
        assert_eq!(c.query(WorkItemQuery::GlobalSize, 0), 32);
        assert!(work_item(&cx, WorkItemQuery::GlobalId, 0, Type::F32).is_err());
        let wide = ExecContext {
            work_item: c,
            ..ExecContext::default()
        };
        let v = work_item(&wide, WorkItemQuery::LocalId, 0, Type::I32).unwrap();
        assert_eq!(v, RtValue::i32(5));
    }
}
