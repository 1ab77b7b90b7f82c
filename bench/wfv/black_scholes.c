/* Black-Scholes option pricing: the cumulative normal distribution's sign test is a
 * short divergent branch around straight-line transcendental arithmetic. */
#include <math.h>
#include "wfv.h"

static inline float cnd(float d) {
  float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
  float poly =
      k * (0.31938153f + k * (-0.356563782f + k * (1.781477937f + k * (-1.821255978f + k * 1.330274429f))));
  float w = 1.0f - 0.3989422804f * expf(-0.5f * d * d) * poly;
  if (d < 0.0f) w = 1.0f - w;
  return w;
}

void KERNEL(long i, const float *spot, const float *strike, const float *years, float *call,
            float *put, float rate, float vol) {
  float s = spot[i], x = strike[i], t = years[i];
  float sq = sqrtf(t);
  float d1 = (logf(s / x) + (rate + 0.5f * vol * vol) * t) / (vol * sq);
  float d2 = d1 - vol * sq;
  float e = x * expf(-rate * t);
  call[i] = s * cnd(d1) - e * cnd(d2);
  put[i] = e * (1.0f - cnd(d2)) - s * (1.0f - cnd(d1));
}

#ifdef WFV_REFERENCE
void wfv_reference(long n, const float *spot, const float *strike, const float *years,
                   float *call, float *put, float rate, float vol) {
  for (long i = 0; i < n; i++) KERNEL(i, spot, strike, years, call, put, rate, vol);
}
#endif

#ifdef WFV_DRIVER
#include <stdlib.h>
#include <string.h>
typedef void (*launcher)(long, const float *, const float *, const float *, float *, float *,
                         float, float);
static float *spot, *strike, *years, *call, *put;

void wfv_setup(long n) {
  float **arrays[] = {&spot, &strike, &years, &call, &put};
  for (int k = 0; k < 5; k++) *arrays[k] = malloc(sizeof(float) * n);
  for (long i = 0; i < n; i++) {
    spot[i] = wfv_uniform(5.0f, 30.0f);
    strike[i] = wfv_uniform(1.0f, 100.0f);
    years[i] = wfv_uniform(0.25f, 10.0f);
  }
}
void wfv_clear(long n) {
  memset(call, 0, sizeof(float) * n);
  memset(put, 0, sizeof(float) * n);
}
void wfv_sweep(void *fn, long n) { ((launcher)fn)(n, spot, strike, years, call, put, 0.02f, 0.3f); }
void wfv_dump(FILE *f, long n) {
  const float *arrays[] = {spot, strike, years, call, put};
  for (int k = 0; k < 5; k++) wfv_dump_buffer(f, arrays[k], sizeof(float) * n);
  wfv_dump_float(f, 0.02f);
  wfv_dump_float(f, 0.3f);
}
double wfv_checksum(long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += call[i] + 0.5 * put[i];
  return s;
}
#endif
