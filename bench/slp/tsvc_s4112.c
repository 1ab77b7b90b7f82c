/* TSVC s4112 (indirect addressing): a[i] += b[ip[i]] * s. */
#include "slp.h"
void KERNEL(float *restrict a, const float *restrict b, const int *restrict ip, float s, int n) {
  for (int i = 0; i < n; i++) a[i] += b[ip[i]] * s;
}
#define SLP_CALL(fn, n)                                                                  \
  ((void (*)(float *, const float *, const int *, float, int))fn)(a, b, ip, 0.5f, n)
#include "slp1d.h"
