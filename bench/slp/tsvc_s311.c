/* TSVC s311 (reduction): a sum, stored so that the result is observable. */
#include "slp.h"
void KERNEL(float *restrict out, const float *restrict a, int n) {
  float sum = 0.0f;
  for (int i = 0; i < n; i++) sum += a[i];
  out[0] += sum;
}
#define SLP_CALL(fn, n) ((void (*)(float *, const float *, int))fn)(b, c, n)
#include "slp1d.h"
