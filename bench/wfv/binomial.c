/* Binomial option pricing (Cox-Ross-Rubinstein, as in ISPC's `options` example): each
 * instance fills a private array with the put's payoffs at expiry and folds it back to the
 * present one step at a time. The index into the array is the same in every instance, so
 * with the array laid out element-major across lanes every access is one vector load or
 * store; one copy per lane would make each a gather or scatter. */
#include <math.h>
#include "wfv.h"

enum { BINOMIAL_STEPS = 63 };

void KERNEL(long i, const float *spot, const float *strike, const float *years, float *put,
            float rate, float vol) {
  float s = spot[i], x = strike[i], t = years[i];
  float v[BINOMIAL_STEPS + 1];
  float dt = t / BINOMIAL_STEPS;
  float up = expf(vol * sqrtf(dt)), down = 1.0f / up;
  float growth = expf(rate * dt);
  float p_up = (growth - down) / (up - down);
  for (int j = 0; j <= BINOMIAL_STEPS; j++)
    v[j] = fmaxf(0.0f, x - s * powf(up, (float)(2 * j - BINOMIAL_STEPS)));
  for (int step = BINOMIAL_STEPS - 1; step >= 0; step--)
    for (int j = 0; j <= step; j++) v[j] = ((1.0f - p_up) * v[j] + p_up * v[j + 1]) / growth;
  put[i] = v[0];
}

#ifdef WFV_REFERENCE
void wfv_reference(long n, const float *spot, const float *strike, const float *years,
                   float *put, float rate, float vol) {
  for (long i = 0; i < n; i++) KERNEL(i, spot, strike, years, put, rate, vol);
}
#endif

#ifdef WFV_DRIVER
#include <stdlib.h>
#include <string.h>
typedef void (*launcher)(long, const float *, const float *, const float *, float *, float,
                         float);
static float *spot, *strike, *years, *put;

void wfv_setup(long n) {
  float **arrays[] = {&spot, &strike, &years, &put};
  for (int k = 0; k < 4; k++) *arrays[k] = malloc(sizeof(float) * n);
  for (long i = 0; i < n; i++) {
    spot[i] = wfv_uniform(5.0f, 30.0f);
    strike[i] = wfv_uniform(1.0f, 100.0f);
    years[i] = wfv_uniform(0.25f, 10.0f);
  }
}
void wfv_clear(long n) { memset(put, 0, sizeof(float) * n); }
void wfv_sweep(void *fn, long n) { ((launcher)fn)(n, spot, strike, years, put, 0.02f, 0.3f); }
void wfv_dump(FILE *f, long n) {
  const float *arrays[] = {spot, strike, years, put};
  for (int k = 0; k < 4; k++) wfv_dump_buffer(f, arrays[k], sizeof(float) * n);
  wfv_dump_float(f, 0.02f);
  wfv_dump_float(f, 0.3f);
}
double wfv_checksum(long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += put[i];
  return s;
}
#endif
