// Two __local pointer arguments of different sizes and element types (`small`: one int
// per work-item; `big`: three float2 per work-item) next to a __local array declared in
// the kernel (`fixed`, 8 ints): each work-item fills its slots of all three, and after a
// barrier reads other work-items' slots, so any overlap of the three regions, or a size
// mix-up, shows in the result.
__kernel void local_args(__global const int *in, __global int *out, __local int *small,
                         __local float2 *big) {
  __local int fixed[8];
  int lid = get_local_id(0);
  int ls = get_local_size(0);
  int g = get_group_id(0);
  int v = in[get_global_id(0)];
  small[lid] = v;
  for (int k = 0; k < 3; k++)
    big[3 * lid + k] = (float2)((float)(v + k), (float)(-v * k));
  if (lid < 8)
    fixed[lid] = lid * lid + g;
  barrier(CLK_LOCAL_MEM_FENCE);
  int partner = ls - 1 - lid;
  float2 b = big[3 * partner + lid % 3];
  out[get_global_id(0)] =
      small[(lid + 1) % ls] * 1000 + (int)b.x + (int)b.y * 7 + fixed[lid % min(8, ls)] * 100000;
}
