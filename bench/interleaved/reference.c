/* The peer of bench/interleaved.rs: the kernels as loops compiled by clang-19 -O3
 * -march=native (LLVM's loop vectorizer forms interleaved groups of its own). */
#include "kernels.c"

void ref_norm3(int n, const float *p, float *out) {
  for (int i = 0; i < n; i++) norm3(i, p, out);
}
void ref_cmul(int n, const float *a, const float *b, float *c) {
  for (int i = 0; i < n; i++) cmul(i, a, b, c);
}
