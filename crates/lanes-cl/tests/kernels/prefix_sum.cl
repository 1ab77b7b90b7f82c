// Work-efficient exclusive scan (Blelloch) per work-group, then a pass adding each
// segment's offset.
//
// `scan_groups`: the group scans its segment of 2 * local size ints in __local memory,
// padded with zeros to p, the next power of two (the host passes p and a scratch of p
// ints), so the up-sweep and down-sweep trees work for any local size. Both sweeps are
// loops with a barrier per level; inside each level every work-item loops over the nodes
// it owns (more than one when a level is wider than the group). The segment's total goes
// to `group_sums`.
__kernel void scan_groups(__global const int *in, __global int *out, __global int *group_sums,
                          __local int *tmp, uint p) {
  uint lid = get_local_id(0);
  uint ls = get_local_size(0);
  uint seg = 2 * ls;
  uint base = get_group_id(0) * seg;
  for (uint i = lid; i < p; i += ls)
    tmp[i] = i < seg ? in[base + i] : 0;
  uint offset = 1;
  for (uint d = p >> 1; d > 0; d >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = lid; k < d; k += ls) {
      uint a = offset * (2 * k + 1) - 1;
      uint b = offset * (2 * k + 2) - 1;
      tmp[b] += tmp[a];
    }
    offset <<= 1;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    group_sums[get_group_id(0)] = tmp[p - 1];
    tmp[p - 1] = 0;
  }
  for (uint d = 1; d < p; d <<= 1) {
    offset >>= 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = lid; k < d; k += ls) {
      uint a = offset * (2 * k + 1) - 1;
      uint b = offset * (2 * k + 2) - 1;
      int t = tmp[a];
      tmp[a] = tmp[b];
      tmp[b] += t;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = lid; i < seg; i += ls)
    out[base + i] = tmp[i];
}

// `add_offsets`: element i of the scan gets the exclusive prefix of the segment totals.
__kernel void add_offsets(__global int *out, __global const int *segment_offsets, uint seg) {
  uint i = get_global_id(0);
  out[i] += segment_offsets[i / seg];
}
