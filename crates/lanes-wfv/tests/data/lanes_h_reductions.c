/* lanes.h's cross-lane reductions and scan in an SPMD function, for
 * tests/it/lanes_h.rs: over all active lanes, and in a divergent branch, where only the
 * lanes that took it take part. */
#include <lanes.h>

void reduce(int i, const int *a, const unsigned *u, int *o, unsigned *uo) {
  int x = a[i];
  o[8 * i + 0] = lanes_reduce_add(x);
  o[8 * i + 1] = lanes_reduce_min(x);
  o[8 * i + 2] = lanes_reduce_max(x);
  o[8 * i + 3] = lanes_exclusive_scan_add(x);
  o[8 * i + 4] = 0;
  o[8 * i + 5] = 0;
  o[8 * i + 6] = lanes_broadcast(x);
  o[8 * i + 7] = lanes_extract(x, lanes_num_lanes() - 1);
  if (x % 3 != 0) {
    o[8 * i + 4] = lanes_reduce_add(x);
    o[8 * i + 5] = lanes_exclusive_scan_add(x);
  }
  uo[2 * i] = lanes_reduce_and(u[i]);
  uo[2 * i + 1] = lanes_reduce_or(u[i]);
}
