// A 3x3 box sum over a 2-D NDRange through a __local tile with a one-pixel halo: the
// group's (sx + 2) x (sy + 2) pixels (coordinates clamped to the image) are loaded
// cooperatively, each work-item looping over the tile with the group size as stride
// (so the trip counts differ between work-items), then, after a barrier, each work-item
// sums its 3x3 neighbourhood from the tile. The tile is a __local pointer argument of
// (sx + 2) * (sy + 2) ints.
__kernel void box_sum3x3(__global const int *in, __global int *out, __local int *tile) {
  int w = get_global_size(0);
  int h = get_global_size(1);
  int sx = get_local_size(0);
  int sy = get_local_size(1);
  int tw = sx + 2;
  int x0 = get_group_id(0) * sx - 1;
  int y0 = get_group_id(1) * sy - 1;
  int lid = get_local_id(1) * sx + get_local_id(0);
  for (int i = lid; i < tw * (sy + 2); i += sx * sy) {
    int gx = clamp(x0 + i % tw, 0, w - 1);
    int gy = clamp(y0 + i / tw, 0, h - 1);
    tile[i] = in[gy * w + gx];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  int lx = get_local_id(0) + 1;
  int ly = get_local_id(1) + 1;
  int sum = 0;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++)
      sum += tile[(ly + dy) * tw + lx + dx];
  out[get_global_id(1) * w + get_global_id(0)] = sum;
}
