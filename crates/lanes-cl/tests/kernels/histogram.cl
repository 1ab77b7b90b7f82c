// 256-bin histogram of bytes (CC'12's Histogram): each work-group counts its items'
// bytes in a __local histogram with atomic_inc, then merges it into the global one with
// atomic_add. Work-item g counts bytes g * per_item .. g * per_item + per_item - 1 that
// are below n. Clearing and merging loop over the bins with the local size as stride, so
// any local size works.
#define BINS 256

__kernel void histogram256(__global const uchar *data, uint n, uint per_item,
                           __global uint *hist) {
  __local uint bins[BINS];
  uint lid = get_local_id(0);
  uint ls = get_local_size(0);
  for (uint b = lid; b < BINS; b += ls)
    bins[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint start = get_global_id(0) * per_item;
  for (uint i = 0; i < per_item; i++) {
    uint at = start + i;
    if (at < n)
      atomic_inc(&bins[data[at]]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint b = lid; b < BINS; b += ls) {
    uint count = bins[b];
    if (count != 0)
      atomic_add(&hist[b], count);
  }
}
