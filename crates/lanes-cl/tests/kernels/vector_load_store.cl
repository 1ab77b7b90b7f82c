// vloadn / vstoren at unaligned addresses, 3-element vectors and saturating conversions.
// Work-item i:
//   - loads float4 v = vload4(i, src + 1) (offset by one float: not 16-byte aligned);
//   - stores convert_int4_sat(v) (round toward zero, saturating, NaN to 0) with
//     vstore4(_, i, ints + 2), and convert_int4_sat_rte(v) at (_, i, rounded + 1);
//   - stores convert_uchar4_sat(convert_int4_sat(v)) with vstore4 into `bytes`;
//   - loads a float3 with vload3(i, src), stores its reversal times 2 with vstore3 into
//     `threes`, and convert_float2(vload2(i, ints_in)) with vstore2 into `pairs`.
__kernel void vload_convert(__global const float *src, __global const int *ints_in,
                            __global int *ints, __global int *rounded, __global uchar *bytes,
                            __global float *threes, __global float *pairs) {
  int i = get_global_id(0);
  float4 v = vload4(i, src + 1);
  int4 t = convert_int4_sat(v);
  vstore4(t, i, ints + 2);
  vstore4(convert_int4_sat_rte(v), i, rounded + 1);
  vstore4(convert_uchar4_sat(t), i, bytes);
  float3 w = vload3(i, src);
  vstore3(w.zyx * 2.0f, i, threes);
  vstore2(convert_float2(vload2(i, ints_in)), i, pairs);
}
