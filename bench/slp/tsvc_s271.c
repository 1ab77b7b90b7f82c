/* TSVC s271 (control flow): a statement under a condition per element. */
#include "slp.h"
void KERNEL(float *restrict a, const float *restrict b, const float *restrict c, int n) {
  for (int i = 0; i < n; i++)
    if (b[i] > 0.0f) a[i] += b[i] * c[i];
}
#define SLP_CALL(fn, n) ((void (*)(float *, const float *, const float *, int))fn)(a, b, c, n)
#include "slp1d.h"
