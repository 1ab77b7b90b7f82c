/* Timing helpers of the benchmark drivers: a monotonic clock in milliseconds and the
 * comparison qsort needs for medians. */
#ifndef LANES_BENCH_TIMING_H
#define LANES_BENCH_TIMING_H
#include <time.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *x, const void *y) {
  double d = *(const double *)x - *(const double *)y;
  return (d > 0) - (d < 0);
}
#endif
