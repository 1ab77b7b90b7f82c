/* Timing driver of bench/interleaved.rs: `driver N REPS` runs each kernel REPS times over
 * N elements, taking turns in rotating order within each of RUNS runs; prints per kernel
 * `kernel NAME MS CHECKSUM` (median milliseconds, a checksum of the output). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/timing.h"

void norm3_spmd(int n, const float *p, float *out);
void norm3_gather_spmd(int n, int s, const float *p, float *out);
void ref_norm3(int n, const float *p, float *out);
void cmul_spmd(int n, const float *a, const float *b, float *c);
void cmul_gather_spmd(int n, int s, const float *a, const float *b, float *c);
void ref_cmul(int n, const float *a, const float *b, float *c);

enum { RUNS = 9, KERNELS = 6 };
static const char *names[KERNELS] = {"norm3/lanes",        "norm3/lanes-gather", "norm3/clang",
                                     "cmul/lanes",         "cmul/lanes-gather",  "cmul/clang"};
static float *p, *a, *b, *out, *c;
static int n, reps;

static double run(int k, double *sum) {
  memset(out, 0, sizeof(float) * n);
  memset(c, 0, sizeof(float) * 2 * n);
  double t0 = now_ms();
  for (int r = 0; r < reps; r++) {
    switch (k) {
    case 0: norm3_spmd(n, p, out); break;
    case 1: norm3_gather_spmd(n, 3, p, out); break;
    case 2: ref_norm3(n, p, out); break;
    case 3: cmul_spmd(n, a, b, c); break;
    case 4: cmul_gather_spmd(n, 2, a, b, c); break;
    default: ref_cmul(n, a, b, c); break;
    }
  }
  double ms = now_ms() - t0;
  double s = 0;
  if (k < 3)
    for (int i = 0; i < n; i++) s += out[i];
  else
    for (int i = 0; i < 2 * n; i++) s += c[i];
  *sum = s;
  return ms;
}

int main(int argc, char **argv) {
  n = argc > 1 ? atoi(argv[1]) : 1 << 14;
  reps = argc > 2 ? atoi(argv[2]) : 1000;
  p = aligned_alloc(64, sizeof(float) * 3 * n);
  a = aligned_alloc(64, sizeof(float) * 2 * n);
  b = aligned_alloc(64, sizeof(float) * 2 * n);
  c = aligned_alloc(64, sizeof(float) * 2 * n);
  out = aligned_alloc(64, sizeof(float) * n);
  unsigned seed = 7;
  for (int i = 0; i < 3 * n; i++) {
    seed = seed * 1103515245u + 12345u;
    p[i] = (float)((int)(seed >> 9) % 2001 - 1000) * 0.001f;
  }
  for (int i = 0; i < 2 * n; i++) {
    seed = seed * 1103515245u + 12345u;
    a[i] = (float)((int)(seed >> 9) % 2001 - 1000) * 0.001f;
    b[i] = (float)(i % 17) * 0.125f - 1.0f;
  }
  report_rotating(KERNELS, RUNS, names, run);
  return 0;
}
