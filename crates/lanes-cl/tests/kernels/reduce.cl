// Reductions through a __local tree with a barrier in a loop.
//
// Each work-item first folds a strided slice of the input (i = global id, + global size,
// ...: a loop whose trip count differs by one between work-items when the global size
// does not divide n), then the group folds its work-items' values in __local memory. The
// tree halves the number of active values, rounding up, each step, so it is correct for
// any local size, not only powers of two.

__kernel void reduce_sum(__global const int *in, uint n, __global int *group_sums,
                         __local int *scratch) {
  uint lid = get_local_id(0);
  uint ls = get_local_size(0);
  int acc = 0;
  for (uint i = get_global_id(0); i < n; i += get_global_size(0))
    acc += in[i];
  scratch[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint active = ls; active > 1;) {
    uint upper = (active + 1) / 2;
    if (lid + upper < active)
      scratch[lid] += scratch[lid + upper];
    barrier(CLK_LOCAL_MEM_FENCE);
    active = upper;
  }
  if (lid == 0)
    group_sums[get_group_id(0)] = scratch[0];
}

// The minimum and maximum of floats, with two __local arrays and fmin/fmax (exact, so
// the result does not depend on the order of the tree).
__kernel void reduce_min_max(__global const float *in, uint n, __global float2 *group_min_max,
                             __local float *mins, __local float *maxs) {
  uint lid = get_local_id(0);
  uint ls = get_local_size(0);
  float lo = INFINITY;
  float hi = -INFINITY;
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) {
    lo = fmin(lo, in[i]);
    hi = fmax(hi, in[i]);
  }
  mins[lid] = lo;
  maxs[lid] = hi;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint active = ls; active > 1;) {
    uint upper = (active + 1) / 2;
    if (lid + upper < active) {
      mins[lid] = fmin(mins[lid], mins[lid + upper]);
      maxs[lid] = fmax(maxs[lid], maxs[lid + upper]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    active = upper;
  }
  if (lid == 0)
    group_min_max[get_group_id(0)] = (float2)(mins[0], maxs[0]);
}
