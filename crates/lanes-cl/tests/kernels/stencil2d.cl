// One Jacobi step of a 5-point stencil on a w x h grid (the 2-D NDRange): interior
// points get c0 * centre + c1 * (sum of the four neighbours), boundary points are copied
// (an early return on a condition that is uniform in dimension 1 only at the first and
// last rows). The host ping-pongs two buffers over several steps.
__kernel void stencil5(__global const float *in, __global float *out, float c0, float c1) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  int w = get_global_size(0);
  int h = get_global_size(1);
  int i = y * w + x;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
    out[i] = in[i];
    return;
  }
  float neighbours = (in[i - 1] + in[i + 1]) + (in[i - w] + in[i + w]);
  out[i] = c0 * in[i] + c1 * neighbours;
}
