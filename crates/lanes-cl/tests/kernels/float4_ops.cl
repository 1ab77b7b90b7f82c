// float4 arithmetic, swizzles and geometric builtins, one pair of vectors per work-item.
// out[8i + 0..8] receive, in order:
//   0: x.wzyx * 2 + y.xxyy - (1, 2, 3, 4)      swizzles in arithmetic
//   1: (x.lo, y.hi)                            .lo / .hi halves
//   2: (x.even, y.odd)                         .even / .odd
//   3: z with z.xy = x.zw, z.zw = y.yx, then z.s3 += 1   swizzled stores
//   4: normalize(x)
//   5: (cross(x.xyz, y.xyz), dot(x, y))
//   6: fmax(x, y) - fmin(x, y.s3210) * 0.5     component-wise builtins, scalar widening
//   7: (length(x), distance(x, y), dot(x.xy, y.zw), length(x.xyz))
__kernel void float4_ops(__global const float4 *a, __global const float4 *b,
                         __global float4 *out) {
  int i = get_global_id(0);
  float4 x = a[i];
  float4 y = b[i];
  __global float4 *o = out + 8 * i;
  o[0] = x.wzyx * 2.0f + y.xxyy - (float4)(1.0f, 2.0f, 3.0f, 4.0f);
  o[1] = (float4)(x.lo, y.hi);
  o[2] = (float4)(x.even, y.odd);
  float4 z;
  z.xy = x.zw;
  z.zw = y.yx;
  z.s3 += 1.0f;
  o[3] = z;
  o[4] = normalize(x);
  o[5] = (float4)(cross(x.xyz, y.xyz), dot(x, y));
  o[6] = fmax(x, y) - fmin(x, y.s3210) * 0.5f;
  o[7] = (float4)(length(x), distance(x, y), dot(x.xy, y.zw), length(x.xyz));
}
