//! NDRange rules (OpenCL 1.2 `clEnqueueNDRangeKernel`) and the local size lanes picks
//! when the host leaves it open.

use crate::error::ClError;
use crate::group_context::GroupContext;

/// The most work-items a group may have (`CL_DEVICE_MAX_WORK_GROUP_SIZE`).
pub const MAX_GROUP_ITEMS: u64 = 4096;

/// The local size of dimension 0 lanes picks for `global` work-items: the largest divisor
/// up to 256 that is a multiple of the vector width (whole vectors, no masked tail), else
/// the largest divisor up to 256.
pub fn default_local_size(global: u64, width: u16) -> u64 {
    let top = global.min(256);
    let divisors = (1..=top).rev().filter(|&d| global.is_multiple_of(d));
    divisors
        .clone()
        .find(|d| d.is_multiple_of(u64::from(width)))
        .or_else(|| divisors.clone().next())
        .unwrap_or(1)
}

/// The context of the first group of launching `kernel` over `range`, after checking it.
pub fn group_context(
    kernel: &str,
    range: &super::NdRange,
    width: u16,
) -> Result<GroupContext, ClError> {
    let bad = |message: String| ClError::Range {
        kernel: kernel.to_string(),
        message,
    };
    let dims = range.global.len();
    if !(1..=3).contains(&dims) {
        return Err(bad(format!("{dims} dimensions; OpenCL allows 1 to 3")));
    }
    let three = |v: &[u64], fill: u64| {
        let mut out = [fill; 3];
        out[..v.len()].copy_from_slice(v);
        out
    };
    if let Some(d) = range.global.iter().position(|&g| g == 0) {
        return Err(bad(format!("the global size of dimension {d} is 0")));
    }
    let global = three(&range.global, 1);
    let local = match &range.local {
        Some(l) => {
            if l.len() != dims {
                return Err(bad(format!(
                    "{} local sizes for {dims} global dimensions",
                    l.len()
                )));
            }
            for d in 0..dims {
                if l[d] == 0 || global[d] % l[d] != 0 {
                    return Err(bad(format!(
                        "the local size {} of dimension {d} does not divide its global size {} (OpenCL 1.2 requires it to)",
                        l[d], global[d]
                    )));
                }
            }
            three(l, 1)
        }
        None => [default_local_size(global[0], width), 1, 1],
    };
    let items: u64 = local.iter().product();
    if items > MAX_GROUP_ITEMS {
        return Err(bad(format!(
            "{items} work-items per group; lanes allows at most {MAX_GROUP_ITEMS}"
        )));
    }
    let offset = match &range.offset {
        Some(o) if o.len() != dims => {
            return Err(bad(format!("{} offsets for {dims} dimensions", o.len())))
        }
        Some(o) => three(o, 0),
        None => [0; 3],
    };
    // Compiled kernels rely on ids and sizes below 2^31 (`int i = get_global_id(0)` is
    // exact; `crate::work_items`).
    for d in 0..3 {
        if global[d].saturating_add(offset[d]) > i32::MAX as u64 {
            return Err(bad(format!(
                "dimension {d} reaches work-item {}; lanes runs global ranges below 2^31 per dimension (split the launch with global offsets)",
                global[d].saturating_add(offset[d])
            )));
        }
    }
    Ok(GroupContext::new(dims as u32, global, local, offset))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NdRange;

    #[test]
    fn local_sizes_prefer_whole_vectors() {
        assert_eq!(default_local_size(1024, 8), 256);
        assert_eq!(default_local_size(200, 8), 200);
        assert_eq!(default_local_size(100, 8), 100);
        assert_eq!(default_local_size(7, 8), 7);
        assert_eq!(default_local_size(96 * 5, 16), 240);
    }

    #[test]
    fn ranges_follow_the_opencl_rules() {
        let ok = group_context("k", &NdRange::new(&[64, 4], &[16, 2]), 8).unwrap();
        assert_eq!(ok.num_groups, [4, 2, 1]);
        assert_eq!(ok.items, 32);
        let err = |r: NdRange| group_context("k", &r, 8).unwrap_err().to_string();
        assert!(err(NdRange::new(&[10], &[4])).contains("does not divide"));
        assert!(err(NdRange::new(&[0], &[1])).contains("is 0"));
        assert!(err(NdRange::new(&[8, 8], &[8])).contains("1 local sizes"));
        assert!(err(NdRange::new(&[8192], &[8192])).contains("at most"));
        assert!(err(NdRange::new(&[1, 1, 1, 1], &[1, 1, 1, 1])).contains("4 dimensions"));
        assert!(err(NdRange::new(&[1 << 31], &[1])).contains("below 2^31"));
    }
}
