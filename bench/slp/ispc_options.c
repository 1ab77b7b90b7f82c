/* ispc-style options pricing (the sequential baseline of ispc's Black-Scholes example,
 * written from the formula): a call price per option, with logs, square roots and
 * exponentials and the cumulative normal by its polynomial approximation. */
#include <math.h>
#include "slp.h"
static inline float cnd(float x) {
  const float k = 1.0f / (1.0f + 0.2316419f * fabsf(x));
  const float w = 1.0f - 0.39894228f * expf(-0.5f * x * x) *
                             (k * (0.31938153f + k * (-0.356563782f + k * (1.781477937f +
                              k * (-1.821255978f + k * 1.330274429f)))));
  return x < 0.0f ? 1.0f - w : w;
}
void KERNEL(float *restrict price, const float *restrict spot, const float *restrict strike,
            const float *restrict t, float r, float v, int n) {
  for (int i = 0; i < n; i++) {
    float d1 = (logf(spot[i] / strike[i]) + (r + 0.5f * v * v) * t[i]) / (v * sqrtf(t[i]));
    float d2 = d1 - v * sqrtf(t[i]);
    price[i] = spot[i] * cnd(d1) - strike[i] * expf(-r * t[i]) * cnd(d2);
  }
}
#define SLP_REPS 40
#define SLP_CALL(fn, n)                                                                  \
  ((void (*)(float *, const float *, const float *, const float *, float, float, int))fn)( \
      a, spot, strike, tt, 0.02f, 0.3f, n)
#ifdef SLP_DRIVER
static float *spot, *strike, *tt;
#endif
#include "slp1d.h"
#ifdef SLP_DRIVER
__attribute__((constructor)) static void options_data(void) {
  spot = malloc(1 << 20 << 2); strike = malloc(1 << 20 << 2); tt = malloc(1 << 20 << 2);
  for (long i = 0; i < (1 << 20); i++) {
    spot[i] = 90.0f + 20.0f * (slp_rand() + 1.0f);
    strike[i] = 95.0f + 10.0f * (slp_rand() + 1.0f);
    tt[i] = 0.25f + (slp_rand() + 1.0f);
  }
}
#endif
