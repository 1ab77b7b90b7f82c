// C = A * B (A: m x k, B: k x n, row-major) with square __local tiles: a group of
// (t, t) work-items computes a t x t block of C, stepping through k in tiles of t; each
// step loads one tile of A and one of B, waits at a barrier, accumulates, and waits again
// before the next load. Tiles up to 16 x 16.
#define MAX_TILE 16

__kernel void matmul_tiled(__global const float *a, __global const float *b, __global float *c,
                           int m, int n, int k) {
  __local float at[MAX_TILE][MAX_TILE];
  __local float bt[MAX_TILE][MAX_TILE];
  int tx = get_local_id(0);
  int ty = get_local_id(1);
  int t = get_local_size(0);
  int col = get_global_id(0);
  int row = get_global_id(1);
  float acc = 0.0f;
  for (int base = 0; base < k; base += t) {
    at[ty][tx] = a[row * k + base + tx];
    bt[ty][tx] = b[(base + ty) * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < t; j++)
      acc += at[ty][j] * bt[j][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  c[row * n + col] = acc;
}
