// Integer powers of float vectors (`powf(x, (float)n)`): under -fveclib=libmvec lanes
// computes them inline by binary powering in double precision; `k_powf_real` has a
// non-integer exponent and stays a libmvec call. Driven by powi_driver.c.
#include <math.h>

void k_powi_varying(int n, const float *x, const int *e, float *out) {
#pragma omp simd
  for (int i = 0; i < n; i++) out[i] = powf(x[i], (float)e[i]);
}

void k_powi_uniform(int n, const float *x, int e, float *out) {
#pragma omp simd
  for (int i = 0; i < n; i++) out[i] = powf(x[i], (float)e);
}

void k_powi_unsigned(int n, const float *x, const unsigned *e, float *out) {
#pragma omp simd
  for (int i = 0; i < n; i++) out[i] = powf(x[i], (float)e[i]);
}

void k_powi_constants(int n, const float *x, float *seventh, float *minus_third) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    seventh[i] = powf(x[i], 7.0f);
    minus_third[i] = powf(x[i], -3.0f);
  }
}

void k_powf_real(int n, const float *x, const float *y, float *out) {
#pragma omp simd
  for (int i = 0; i < n; i++) out[i] = powf(x[i], y[i]);
}
