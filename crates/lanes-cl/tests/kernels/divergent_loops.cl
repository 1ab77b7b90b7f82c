// A loop whose trip count differs between the work-items of one vector: the number of
// Collatz steps from start + gid to 1 (a while loop with a data-dependent body and
// exit), capped at `cap`.
__kernel void collatz(__global int *steps, uint start, int cap) {
  uint n = start + get_global_id(0);
  int s = 0;
  while (n != 1 && s < cap) {
    n = (n & 1) ? 3 * n + 1 : n / 2;
    s++;
  }
  steps[get_global_id(0)] = s;
}
