// Stream compaction with atomics on __local and __global memory: each work-group
// appends its inputs above `threshold` to a __local list through a __local counter
// (atomic_inc), reserves room for the list in the output with one atomic_add on a global
// counter, and copies the list there. The order of the output is unspecified; the host
// compares it as a set. Each group also reports its count, and the group's maximum via
// atomic_max on __local memory.
__kernel void compact(__global const int *in, int threshold, __global int *out,
                      __global int *total, __global int *group_counts,
                      __global int *group_max, __local int *list) {
  __local int count;
  __local int base;
  __local int biggest;
  int lid = get_local_id(0);
  if (lid == 0) {
    count = 0;
    biggest = INT_MIN;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  int v = in[get_global_id(0)];
  atomic_max(&biggest, v);
  if (v > threshold)
    list[atomic_inc(&count)] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    base = atomic_add(total, count);
    group_counts[get_group_id(0)] = count;
    group_max[get_group_id(0)] = biggest;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = lid; i < count; i += get_local_size(0))
    out[base + i] = list[i];
}
