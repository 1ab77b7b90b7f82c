// Arrays in the __constant address space declared at program scope, and a __constant
// pointer argument.
//
// `crc32_words`: the CRC-32 (IEEE, reflected) of each work-item's run of 32-bit words
// (little-endian bytes), a nibble at a time through a 16-entry __constant table; the
// loop over the words has a per-work-item trip count.
__constant uint crc_nibbles[16] = {
    0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu, 0x76dc4190u, 0x6b6b51f4u,
    0x4db26158u, 0x5005713cu, 0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu,
    0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu};

__kernel void crc32_words(__global const uint *words, __global const int *starts,
                          __global uint *crcs) {
  int i = get_global_id(0);
  uint c = 0xffffffffu;
  for (int w = starts[i]; w < starts[i + 1]; w++) {
    uint word = words[w];
    for (int byte = 0; byte < 4; byte++) {
      c ^= (word >> (8 * byte)) & 0xffu;
      c = (c >> 4) ^ crc_nibbles[c & 15u];
      c = (c >> 4) ^ crc_nibbles[c & 15u];
    }
  }
  crcs[i] = ~c;
}

// `fir5`: a 5-tap binomial filter from a __constant table with clamped ends, plus a bias
// from a __constant argument indexed by a __constant int2 table of (modulus, shift).
__constant float taps[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
__constant int2 bias_index[2] = {(int2)(4, 0), (int2)(3, 4)};

__kernel void fir5(__global const float *in, __global float *out, __constant float *bias,
                   int n, int which) {
  int i = get_global_id(0);
  if (i >= n)
    return;
  float acc = 0.0f;
  for (int k = 0; k < 5; k++)
    acc += taps[k] * in[clamp(i + k - 2, 0, n - 1)];
  int2 m = bias_index[which];
  out[i] = acc + bias[i % m.x + m.y];
}
