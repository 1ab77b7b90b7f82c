// Nested loops with per-work-item trip counts: an outer loop of gid % 7 + 1 trips
// around an inner one of (in[gid] + i) & 15 trips, with `continue` skipping odd values
// and `break` leaving the inner loop early when a running sum passes a limit. (clang's
// induction-variable simplification narrows the inner bound's counter to an `i4`.)
__kernel void nested(__global const int *in, __global int *out, int limit) {
  int gid = get_global_id(0);
  int v = in[gid];
  int total = 0;
  for (int i = 0; i < gid % 7 + 1; i++) {
    int inner = (v + i) & 15;
    for (int j = 0; j < inner; j++) {
      if ((j + v) & 1)
        continue;
      total += j * (i + 1);
      if (total > limit)
        break;
    }
    total ^= i;
  }
  out[gid] = total;
}
