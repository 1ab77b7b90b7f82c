/* The timing driver of `lanes bench slp`, linked with one kernel's data functions (its
 * file built with -DSLP_DRIVER), its three builds, and the table of builds the harness
 * generates (slp_count, slp_names, slp_fns; clang -O3 first). `driver N RUNS`: sets up
 * N elements, runs each build once and prints `check NAME CHECKSUM`, then times RUNS
 * sweeps of each build in rotating order and prints `kernel NAME MEDIAN_MS CHECKSUM`. */
#include <stdio.h>
#include <stdlib.h>
#include "../common/timing.h"

extern const int slp_count;
extern const char *const slp_names[];
extern void *const slp_fns[];
void slp_setup(long n);
void slp_clear(long n);
void slp_sweep(void *fn, long n);
double slp_checksum(long n);

static long size;

static double run(int k, double *sum) {
  slp_clear(size);
  double t0 = now_ms();
  slp_sweep(slp_fns[k], size);
  double ms = now_ms() - t0;
  *sum = slp_checksum(size);
  return ms;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: driver SIZE RUNS\n");
    return 2;
  }
  size = atol(argv[1]);
  int runs = atoi(argv[2]);
  if (runs < 1) runs = 1;
  if (runs > 16) runs = 16;
  slp_setup(size);
  for (int k = 0; k < slp_count; k++) {
    slp_clear(size);
    slp_sweep(slp_fns[k], size);
    printf("check %s %.17g\n", slp_names[k], slp_checksum(size));
  }
  fflush(stdout);
  report_rotating(slp_count, runs, slp_names, run);
  return 0;
}
