/* Timing driver of bench/fusion.rs: `driver N REPS` runs the kernel on N instances REPS
 * times per run for lanes' two builds (--branch-fusion off, auto) and clang's, in
 * rotating order within RUNS runs; prints `kernel NAME MS CHECKSUM` per build. Inputs:
 * x and y uniform in [0, 20), so the branch goes either way about half the time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/timing.h"

typedef void (*twin)(long, const float *, const float *, float *);
void twin_off_spmd(long, const float *, const float *, float *);
void twin_auto_spmd(long, const float *, const float *, float *);
void ref_twin(long, const float *, const float *, float *);

enum { RUNS = 9, KERNELS = 3 };
static const char *names[KERNELS] = {"twin/off", "twin/auto", "twin/clang"};
static const twin builds[KERNELS] = {twin_off_spmd, twin_auto_spmd, ref_twin};
static float *x, *y, *out;
static long n;
static int reps;

static double run(int k, double *sum) {
  memset(out, 0, sizeof(float) * n);
  double t0 = now_ms();
  for (int r = 0; r < reps; r++) builds[k](n, x, y, out);
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
  unsigned seed = 7;
#define RAND() (seed = seed * 1103515245u + 12345u, seed >> 8)
  for (long i = 0; i < n; i++) {
    x[i] = (float)(RAND() % 2000) / 100.0f;
    y[i] = (float)(RAND() % 2000) / 100.0f;
  }
  report_rotating(KERNELS, RUNS, names, run);
  return 0;
}
