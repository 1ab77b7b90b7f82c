// A 2-D kernel over the rows of an RGBA image stored with a row pitch (pixels per row,
// at least the width; the padding must stay untouched): each work-item converts its pixel
// and its two row neighbours (clamped at the row's ends) to 8-bit luma with integer
// weights, and writes the [1 2 1] / 4 horizontal blur of the luma. Uses uchar4 loads,
// convert_int4 and a dot product written out on vector components.
int luma(uchar4 px) {
  int4 c = convert_int4(px);
  return (77 * c.x + 150 * c.y + 29 * c.z + 128) >> 8;
}

__kernel void blur_luma_rows(__global const uchar4 *rgba, __global uchar *out, int pitch) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  int w = get_global_size(0);
  __global const uchar4 *row = rgba + y * pitch;
  int left = luma(row[max(x - 1, 0)]);
  int centre = luma(row[x]);
  int right = luma(row[min(x + 1, w - 1)]);
  out[y * pitch + x] = (uchar)((left + 2 * centre + right + 2) >> 2);
}
