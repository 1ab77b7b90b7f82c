/* The peer of bench/boscc.rs: the cascade as a plain loop over the instances, compiled
 * by clang-19 -O3 -march=native (LLVM's vectorizers on). */
#include "kernels.c"

void ref_cascade(long n, const float *x, const float *y, float *out, float cut) {
  for (long i = 0; i < n; i++) cascade_off(i, x, y, out, cut);
}
