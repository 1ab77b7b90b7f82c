// Barriers under control flow that is uniform within each work-group, as OpenCL
// requires: an `if` on a kernel argument and the group id, and a loop whose trip count
// depends on an argument and the group id. Groups take different paths and counts.
__kernel void uniform_barrier(__global const int *in, __global int *out, __local int *tile,
                              int mode, int rounds) {
  int lid = get_local_id(0);
  int ls = get_local_size(0);
  int g = get_group_id(0);
  int v = in[get_global_id(0)];
  if (mode != 0 && g % 2 == 0) {
    tile[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    v = tile[ls - 1 - lid] - tile[(lid + 1) % ls];
    barrier(CLK_LOCAL_MEM_FENCE);
  } else {
    v = -v;
  }
  for (int r = 0; r < rounds + g % 3; r++) {
    tile[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    v += tile[(lid + r + 1) % ls];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[get_global_id(0)] = v;
}
