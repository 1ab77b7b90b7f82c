/* Divergent arithmetic with two similar sides (PACT'11 §IV-A, Fig. 10): the branch on
 * x[i] > y[i] goes either way about half the time and each side runs the same sequence
 * of products, quotients and a square root on different operands, which branch fusion
 * runs once with selected operands. */
#include <math.h>
#include "wfv.h"

void KERNEL(long i, const float *x, const float *y, float *out) {
  float a = x[i], b = y[i], r;
  if (a > b) {
    float t = a * b + 1.5f;
    float u = sqrtf(t * t + a);
    float v = u / (t + 2.0f);
    float w = v * a - b / (u + 1.0f);
    r = w * w + v / (a + 1.0f);
  } else {
    float t = b * a + 0.5f;
    float u = sqrtf(t * t + b);
    float v = u / (t + 3.0f);
    float w = v * b - a / (u + 2.0f);
    r = w * w - v / (b + 2.0f);
  }
  out[i] = r;
}

#ifdef WFV_REFERENCE
void wfv_reference(long n, const float *x, const float *y, float *out) {
  for (long i = 0; i < n; i++) KERNEL(i, x, y, out);
}
#endif

#ifdef WFV_DRIVER
#include <stdlib.h>
#include <string.h>
typedef void (*launcher)(long, const float *, const float *, float *);
static float *x, *y, *out;

void wfv_setup(long n) {
  x = malloc(sizeof(float) * n);
  y = malloc(sizeof(float) * n);
  out = malloc(sizeof(float) * n);
  for (long i = 0; i < n; i++) {
    x[i] = wfv_uniform(0.0f, 20.0f);
    y[i] = wfv_uniform(0.0f, 20.0f);
  }
}
void wfv_clear(long n) { memset(out, 0, sizeof(float) * n); }
void wfv_sweep(void *fn, long n) { ((launcher)fn)(n, x, y, out); }
void wfv_dump(FILE *f, long n) {
  wfv_dump_buffer(f, x, sizeof(float) * n);
  wfv_dump_buffer(f, y, sizeof(float) * n);
  wfv_dump_buffer(f, out, sizeof(float) * n);
}
double wfv_checksum(long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += out[i];
  return s;
}
#endif
