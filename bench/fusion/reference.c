/* The peer of bench/fusion.rs: the kernel as a plain loop over the instances, compiled
 * by clang-19 -O3 -march=native (LLVM's vectorizers on). */
#include "kernels.c"

void ref_twin(long n, const float *x, const float *y, float *out) {
  for (long i = 0; i < n; i++) twin_off(i, x, y, out);
}
