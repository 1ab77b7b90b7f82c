// 8x8 block DCT-II of an image (CC'12's DCT): coefficient (u, v) of a block is
// sum over (x, y) of D[v][y] * in[y][x] * D[u][x], with D the orthonormal 8x8 DCT matrix
// the host passes (row-major, D[u][x] = c(u) cos((2x + 1) u pi / 16)).
//
// `dct_direct`: one coefficient per work-item, straight from global memory; any local
// size works.
__kernel void dct_direct(__global const float *in, __global float *out,
                         __global const float *dct, int w) {
  int gx = get_global_id(0);
  int gy = get_global_id(1);
  int u = gx & 7;
  int v = gy & 7;
  int bx = gx - u;
  int by = gy - v;
  float acc = 0.0f;
  for (int y = 0; y < 8; y++) {
    float row = 0.0f;
    for (int x = 0; x < 8; x++)
      row += in[(by + y) * w + bx + x] * dct[u * 8 + x];
    acc += dct[v * 8 + y] * row;
  }
  out[gy * w + gx] = acc;
}

// `dct_local`: the separable form through __local memory, for groups of whole blocks
// (local sizes multiples of 8): the group's pixels go to `tile`; after a barrier each
// work-item computes one column transform into `rows`, and after a second barrier one
// coefficient from its block's row of `rows`. Both tiles are __local pointer arguments
// of local_size(0) * local_size(1) floats.
__kernel void dct_local(__global const float *in, __global float *out,
                        __global const float *dct, int w, __local float *tile,
                        __local float *rows) {
  int gx = get_global_id(0);
  int gy = get_global_id(1);
  int lx = get_local_id(0);
  int ly = get_local_id(1);
  int sx = get_local_size(0);
  int u = lx & 7;
  int v = ly & 7;
  int bx = lx - u;
  int by = ly - v;
  tile[ly * sx + lx] = in[gy * w + gx];
  barrier(CLK_LOCAL_MEM_FENCE);
  float column = 0.0f;
  for (int y = 0; y < 8; y++)
    column += dct[v * 8 + y] * tile[(by + y) * sx + lx];
  rows[ly * sx + lx] = column;
  barrier(CLK_LOCAL_MEM_FENCE);
  float acc = 0.0f;
  for (int x = 0; x < 8; x++)
    acc += rows[ly * sx + bx + x] * dct[u * 8 + x];
  out[gy * w + gx] = acc;
}
