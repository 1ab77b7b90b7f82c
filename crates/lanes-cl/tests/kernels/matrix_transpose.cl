// Matrix transpose through a __local tile (CC'12's MatrixTranspose). `in` has h rows of
// w floats, `out` w rows of h. A work-group of (lx, ly) work-items reads an ly x lx block
// into the tile (row-major, coalesced in x), waits at the barrier, and writes the
// transposed lx x ly block, work-item i = ly_id * lx + lx_id taking element (i / ly,
// i % ly) of it — so the tile works for non-square groups too. Groups up to 16 x 16.
#define TILE 16

__kernel void transpose_tiled(__global float *out, __global const float *in, int w, int h) {
  __local float tile[TILE][TILE + 1];
  int lx = get_local_id(0);
  int ly = get_local_id(1);
  int sx = get_local_size(0);
  int sy = get_local_size(1);
  int bx = get_group_id(0) * sx;
  int by = get_group_id(1) * sy;
  tile[ly][lx] = in[(by + ly) * w + bx + lx];
  barrier(CLK_LOCAL_MEM_FENCE);
  int i = ly * sx + lx;
  int r = i / sy;
  int c = i % sy;
  out[(bx + r) * h + by + c] = tile[c][r];
}
