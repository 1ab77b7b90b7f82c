// Integer builtins (OpenCL 1.2 §6.12.3) on a pair of 32-bit words per work-item, read
// as signed or unsigned as each builtin needs; out[16i + k] is:
//   0 mul_hi(int, int)          1 mul_hi(uint, uint)        2 rotate(uint, uint)
//   3 rotate(uchar, uchar)      4 clz(uint)                 5 popcount(uint)
//   6 add_sat(int, int)         7 add_sat(uchar, uchar)     8 sub_sat(int, int)
//   9 abs_diff(int, int)       10 abs(int)                 11 hadd(int, int)
//  12 rhadd(uint, uint)        13 mul24 of the low 24 bits, sign-extended
//  14 upsample(short, ushort)  15 mad_sat(int, int, int) with c = a ^ b
__kernel void integer_builtins(__global const uint *as, __global const uint *bs,
                               __global uint *out) {
  int i = get_global_id(0);
  uint a = as[i];
  uint b = bs[i];
  int sa = (int)a;
  int sb = (int)b;
  __global uint *o = out + 16 * i;
  o[0] = (uint)mul_hi(sa, sb);
  o[1] = mul_hi(a, b);
  o[2] = rotate(a, b);
  o[3] = rotate((uchar)a, (uchar)b);
  o[4] = clz(a);
  o[5] = popcount(a);
  o[6] = (uint)add_sat(sa, sb);
  o[7] = add_sat((uchar)a, (uchar)b);
  o[8] = (uint)sub_sat(sa, sb);
  o[9] = abs_diff(sa, sb);
  o[10] = abs(sa);
  o[11] = (uint)hadd(sa, sb);
  o[12] = rhadd(a, b);
  o[13] = (uint)mul24((int)(a << 8) >> 8, (int)(b << 8) >> 8);
  o[14] = (uint)upsample((short)(a >> 16), (ushort)b);
  o[15] = (uint)mad_sat(sa, sb, (int)(a ^ b));
}
