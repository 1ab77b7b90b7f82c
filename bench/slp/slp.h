/* Shared by the kernels of `lanes bench slp`: each kernel file defines one function
 * named KERNEL (the harness builds it three times under three names: clang -O3 with its
 * vectorizers, clang -O3 without them, lanes --slp) and, under SLP_DRIVER, its data:
 * slp_setup(n) fills inputs from a fixed seed, slp_clear(n) resets outputs,
 * slp_sweep(fn, n) runs one build over the data, slp_checksum(n) sums the outputs. */
#ifndef LANES_BENCH_SLP_H
#define LANES_BENCH_SLP_H
#ifndef KERNEL
#define KERNEL kernel
#endif
#ifdef SLP_DRIVER
#include <stdlib.h>
#include <string.h>
/* A fixed, portable pseudo-random sequence. */
static unsigned slp_state = 12345u;
static float slp_rand(void) {
  slp_state = slp_state * 1103515245u + 12345u;
  return (float)((slp_state >> 8) & 0xffff) / 65536.0f * 2.0f - 1.0f;
}
static double slp_sum_f(const float *a, long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += a[i] * (double)((i % 7) + 1);
  return s;
}
#endif
#endif
