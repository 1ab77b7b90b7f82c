// int4 arithmetic, bitwise operators, comparisons (true is -1 per component), vector
// `?:`, select, any and all, one pair of vectors per work-item. out[8i + 0..8]:
//   0: x + y * 3 - (x >> 2)
//   1: (x & y) | (x ^ (1, 2, 3, 4))
//   2: x << (y & 7)
//   3: x / (y | 1), 4: x % (y | 1)
//   5: x < y                                   comparison masks
//   6: select(x, y, x > y)                     per component: the smaller
//   7: x > y ? x.wzyx : abs_diff(x, y) as int4 the vector conditional operator
// flags[i] = any(x > y) | all(x > -50) << 1 | any(x.xy == y.xy) << 2 | all(x.lo != 0) << 3
__kernel void int4_ops(__global const int4 *a, __global const int4 *b, __global int4 *out,
                       __global int *flags) {
  int i = get_global_id(0);
  int4 x = a[i];
  int4 y = b[i];
  __global int4 *o = out + 8 * i;
  o[0] = x + y * 3 - (x >> 2);
  o[1] = (x & y) | (x ^ (int4)(1, 2, 3, 4));
  o[2] = x << (y & 7);
  o[3] = x / (y | 1);
  o[4] = x % (y | 1);
  o[5] = x < y;
  o[6] = select(x, y, x > y);
  o[7] = x > y ? x.wzyx : as_int4(abs_diff(x, y));
  flags[i] = any(x > y) | all(x > -50) << 1 | any(x.xy == y.xy) << 2 | all(x.lo != 0) << 3;
}
