// A 7-point Laplacian over a 3-D NDRange: out = 6 * centre - (sum of the six
// neighbours), with coordinates clamped to the grid (so every point has six neighbours).
// Work-items of one vector share y and z; only x varies across lanes.
__kernel void laplace7(__global const int *in, __global int *out) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  int z = get_global_id(2);
  int nx = get_global_size(0);
  int ny = get_global_size(1);
  int nz = get_global_size(2);
#define AT(X, Y, Z) in[((clamp((Z), 0, nz - 1) * ny) + clamp((Y), 0, ny - 1)) * nx + clamp((X), 0, nx - 1)]
  int sum = AT(x - 1, y, z) + AT(x + 1, y, z) + AT(x, y - 1, z) + AT(x, y + 1, z) +
            AT(x, y, z - 1) + AT(x, y, z + 1);
  out[(z * ny + y) * nx + x] = 6 * AT(x, y, z) - sum;
#undef AT
}
