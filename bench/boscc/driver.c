/* Timing driver of bench/boscc.rs: `driver N REPS` runs the cascade N instances REPS
 * times per run for lanes' three builds (--boscc off, auto, all) and clang's, in rotating
 * order within RUNS runs; prints `kernel NAME MS CHECKSUM` per build. Inputs: points in
 * [0, 20)², of which about 2% are inside the cut radius. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/timing.h"

typedef void (*cascade)(long, const float *, const float *, float *, float);
void cascade_off_spmd(long, const float *, const float *, float *, float);
void cascade_auto_spmd(long, const float *, const float *, float *, float);
void cascade_all_spmd(long, const float *, const float *, float *, float);
void ref_cascade(long, const float *, const float *, float *, float);

enum { RUNS = 9, KERNELS = 4 };
static const char *names[KERNELS] = {"cascade/off", "cascade/auto", "cascade/all",
                                     "cascade/clang"};
static const cascade builds[KERNELS] = {cascade_off_spmd, cascade_auto_spmd, cascade_all_spmd,
                                        ref_cascade};
static float *x, *y, *out;
static long n;
static int reps;

static double run(int k, double *sum) {
  memset(out, 0, sizeof(float) * n);
  double t0 = now_ms();
  for (int r = 0; r < reps; r++) builds[k](n, x, y, out, 9.0f);
  double ms = now_ms() - t0;
  double s = 0;
  for (long i = 0; i < n; i++) s += out[i];
  *sum = s;
  return ms;
}

int main(int argc, char **argv) {
  n = argc > 1 ? atol(argv[1]) : 1 << 20;
  reps = argc > 2 ? atoi(argv[2]) : 4;
  x = malloc(sizeof(float) * n);
  y = malloc(sizeof(float) * n);
  out = malloc(sizeof(float) * n);
  unsigned seed = 1;
#define RAND() (seed = seed * 1103515245u + 12345u, seed >> 8)
  for (long i = 0; i < n; i++) {
    x[i] = (float)(RAND() % 2000) / 100.0f;
    y[i] = (float)(RAND() % 2000) / 100.0f;
  }
  report_rotating(KERNELS, RUNS, names, run);
  return 0;
}
