/* A nab-like if-cascade (PLDI'18 §6, Fig. 12): most instances leave at the first test,
 * and of the rest few take the heavy side (transcendentals), so under partial
 * linearization the heavy region usually runs with an all-false mask unless a BOSCC
 * gadget skips it. */
#include <math.h>
#include "wfv.h"

void KERNEL(long i, const float *x, const float *y, float *out, float cut) {
  float r = x[i] * x[i] + y[i] * y[i];
  float e = 0.0f;
  if (r > cut) {
    out[i] = 0.0f;
    return;
  }
  float s = sqrtf(r) + 1.0f;
  float t = 1.0f / s;
  if (t < 0.02f) {
    e = t * 3.0f;
  } else {
    float u = t * t * t + s * 0.5f;
    float v = u * u - t * 1.5f + sinf(u);
    float w = v * 0.25f + cosf(v) * u;
    e = w * w + u * v - t;
    if (e > 5.0f) e = logf(e) * w;
  }
  out[i] = e;
}

#ifdef WFV_REFERENCE
void wfv_reference(long n, const float *x, const float *y, float *out, float cut) {
  for (long i = 0; i < n; i++) KERNEL(i, x, y, out, cut);
}
#endif

#ifdef WFV_DRIVER
#include <stdlib.h>
#include <string.h>
typedef void (*launcher)(long, const float *, const float *, float *, float);
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
void wfv_sweep(void *fn, long n) { ((launcher)fn)(n, x, y, out, 9.0f); }
void wfv_dump(FILE *f, long n) {
  wfv_dump_buffer(f, x, sizeof(float) * n);
  wfv_dump_buffer(f, y, sizeof(float) * n);
  wfv_dump_buffer(f, out, sizeof(float) * n);
  wfv_dump_float(f, 9.0f);
}
double wfv_checksum(long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += out[i];
  return s;
}
#endif
