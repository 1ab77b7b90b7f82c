/* TSVC s000 (linear dependence testing, no dependence): a[i] = b[i] + 1. */
#include "slp.h"
void KERNEL(float *restrict a, const float *restrict b, int n) {
  for (int i = 0; i < n; i++) a[i] = b[i] + 1.0f;
}
#define SLP_CALL(fn, n) ((void (*)(float *, const float *, int))fn)(a, b, n)
#include "slp1d.h"
