/* The timing driver of `lanes bench wfv`, linked with one kernel's data functions
 * (its file built with -DWFV_DRIVER), its reference loop, every lanes build of it, and
 * the table of builds the harness generates (wfv_count, wfv_names, wfv_fns; the
 * reference first). `driver N RUNS`: sets up N instances, runs each build once and prints
 * `check NAME CHECKSUM`, then times RUNS sweeps of each build in rotating order and prints
 * `kernel NAME MEDIAN_MS CHECKSUM` (bench/common/timing.h). `driver N 0 FILE` instead
 * writes the kernel's arguments for N instances to FILE (wfv_dump) and stops. */
#include <stdio.h>
#include <stdlib.h>
#include "../common/timing.h"

extern const int wfv_count;
extern const char *const wfv_names[];
extern void *const wfv_fns[];
void wfv_setup(long n);
void wfv_clear(long n);
void wfv_sweep(void *fn, long n);
double wfv_checksum(long n);
void wfv_dump(FILE *f, long n);

static long instances;

static double run(int k, double *sum) {
  wfv_clear(instances);
  double t0 = now_ms();
  wfv_sweep(wfv_fns[k], instances);
  double ms = now_ms() - t0;
  *sum = wfv_checksum(instances);
  return ms;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: driver INSTANCES RUNS\n");
    return 2;
  }
  instances = atol(argv[1]);
  int runs = atoi(argv[2]);
  wfv_setup(instances);
  if (argc > 3) {
    FILE *f = fopen(argv[3], "w");
    if (!f) {
      perror(argv[3]);
      return 1;
    }
    wfv_dump(f, instances);
    return fclose(f) == 0 ? 0 : 1;
  }
  if (runs < 1) runs = 1;
  if (runs > 16) runs = 16;
  for (int k = 0; k < wfv_count; k++) {
    wfv_clear(instances);
    wfv_sweep(wfv_fns[k], instances);
    printf("check %s %.17g\n", wfv_names[k], wfv_checksum(instances));
  }
  fflush(stdout);
  report_rotating(wfv_count, runs, wfv_names, run);
  return 0;
}
