// One step of an all-pairs N-body simulation (CC'12's NBody). Each work-item integrates
// one body; the group stages the positions of local_size bodies at a time in a __local
// tile (a __local float4 pointer argument) between two barriers, so every work-item runs
// the same loops. Positions carry the mass in w; eps2 softens close encounters.
__kernel void nbody_step(__global const float4 *pos, __global const float4 *vel,
                         __global float4 *new_pos, __global float4 *new_vel,
                         __local float4 *tile, int n, float dt, float eps2) {
  int gid = get_global_id(0);
  int lid = get_local_id(0);
  int ls = get_local_size(0);
  float4 p = pos[gid];
  float3 acc = (float3)(0.0f, 0.0f, 0.0f);
  for (int base = 0; base < n; base += ls) {
    tile[lid] = pos[base + lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < ls; j++) {
      float4 q = tile[j];
      float3 d = q.xyz - p.xyz;
      float r2 = dot(d, d) + eps2;
      float inv = rsqrt(r2);
      float s = q.w * inv * inv * inv;
      acc += s * d;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  float4 v = vel[gid];
  v.xyz += acc * dt;
  p.xyz += v.xyz * dt;
  new_pos[gid] = p;
  new_vel[gid] = v;
}
