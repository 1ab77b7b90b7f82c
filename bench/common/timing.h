/* Timing helpers of the benchmark drivers: a monotonic clock in milliseconds, and the
 * rotating schedule every driver reports with. */
#ifndef LANES_BENCH_TIMING_H
#define LANES_BENCH_TIMING_H
#include <stdio.h>
#include <stdlib.h>
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
/* Runs kernel k = 0..kernels-1 `runs` times each, taking turns in an order that rotates
 * from run to run (each kernel in each position equally often), through `run(k, &sum)`,
 * which returns milliseconds and sets a checksum; prints `kernel NAME MS CHECKSUM` with
 * each kernel's median. Any number of kernels (a wfv kernel with every build at two
 * widths has more than 16) and runs. */
static void report_rotating(int kernels, int runs, const char *const *names,
                            double (*run)(int k, double *sum)) {
  double *ms = malloc(sizeof(double) * (size_t)kernels * (size_t)runs);
  double *sums = malloc(sizeof(double) * (size_t)kernels);
  if (!ms || !sums) {
    fprintf(stderr, "report_rotating: out of memory\n");
    exit(1);
  }
  for (int r = 0; r < runs; r++)
    for (int j = 0; j < kernels; j++) {
      int k = (r + j) % kernels;
      ms[k * runs + r] = run(k, &sums[k]);
    }
  for (int k = 0; k < kernels; k++) {
    qsort(ms + k * runs, runs, sizeof(double), cmp_double);
    printf("kernel %s %.4f %.9g\n", names[k], ms[k * runs + runs / 2], sums[k]);
  }
  free(ms);
  free(sums);
}
#endif
