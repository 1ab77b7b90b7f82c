/* Timing driver of bench/callees.rs: `driver N REPS` runs each kernel REPS times over N
 * elements, all kernels taking turns in rotating order within each of RUNS runs; prints
 * per kernel `kernel NAME MS CHECKSUM` (median milliseconds, a checksum of the output). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/timing.h"

#define KERNEL(f, ...) void f##_spmd(__VA_ARGS__); void ref_##f(__VA_ARGS__);
KERNEL(steps_call, int n, const int *in, int *out)
KERNEL(steps_inline, int n, const int *in, int *out)
KERNEL(shade_call, int n, const float *x, float *y, float k)
KERNEL(shade_inline, int n, const float *x, float *y, float k)
KERNEL(axpy_call, int n, const float *x, float *y, float a)
KERNEL(axpy_inline, int n, const float *x, float *y, float a)

enum { RUNS = 9, KERNELS = 12 };
static const char *names[KERNELS] = {
    "steps_call/lanes", "steps_inline/lanes", "shade_call/lanes", "shade_inline/lanes",
    "axpy_call/lanes",  "axpy_inline/lanes",  "steps_call/clang", "steps_inline/clang",
    "shade_call/clang", "shade_inline/clang", "axpy_call/clang",  "axpy_inline/clang"};
static int *in, *out;
static float *x, *y, *y0;
static int n, reps;

static void once(int k) {
  switch (k) {
  case 0: steps_call_spmd(n, in, out); break;
  case 1: steps_inline_spmd(n, in, out); break;
  case 2: shade_call_spmd(n, x, y, 0.75f); break;
  case 3: shade_inline_spmd(n, x, y, 0.75f); break;
  case 4: axpy_call_spmd(n, x, y, 0.999f); break;
  case 5: axpy_inline_spmd(n, x, y, 0.999f); break;
  case 6: ref_steps_call(n, in, out); break;
  case 7: ref_steps_inline(n, in, out); break;
  case 8: ref_shade_call(n, x, y, 0.75f); break;
  case 9: ref_shade_inline(n, x, y, 0.75f); break;
  case 10: ref_axpy_call(n, x, y, 0.999f); break;
  default: ref_axpy_inline(n, x, y, 0.999f); break;
  }
}

/* Kernels 0, 1, 6, 7 write `out`; the others `y` (reset before each run). */
static double run(int k, double *sum) {
  memcpy(y, y0, sizeof(float) * n);
  memset(out, 0, sizeof(int) * n);
  int steps = k % 6 < 2;
  /* The Collatz kernels do ~100 times the work per element. */
  int r_max = steps ? (reps + 99) / 100 : reps;
  double t0 = now_ms();
  for (int r = 0; r < r_max; r++) once(k);
  double ms = now_ms() - t0;
  double s = 0;
  for (int i = 0; i < n; i++) s += steps ? (double)out[i] : (double)y[i];
  *sum = s;
  return ms;
}

int main(int argc, char **argv) {
  n = argc > 1 ? atoi(argv[1]) : 1 << 14;
  reps = argc > 2 ? atoi(argv[2]) : 1000;
  in = aligned_alloc(64, sizeof(int) * n);
  out = aligned_alloc(64, sizeof(int) * n);
  x = aligned_alloc(64, sizeof(float) * n);
  y = aligned_alloc(64, sizeof(float) * n);
  y0 = aligned_alloc(64, sizeof(float) * n);
  unsigned seed = 12345;
  for (int i = 0; i < n; i++) {
    seed = seed * 1103515245u + 12345u;
    in[i] = 1 + (int)((seed >> 8) % 5000);
    x[i] = (float)((int)((seed >> 4) % 2001) - 1000) * 0.001f;
    y0[i] = (float)(i % 13) * 0.5f;
  }
  report_rotating(KERNELS, RUNS, names, run);
  return 0;
}
