/* TSVC s1161 (control flow): the two sides of a branch store to different arrays. */
#include "slp.h"
void KERNEL(float *restrict a, float *restrict b, const float *restrict c,
            const float *restrict d, const float *restrict e, int n) {
  for (int i = 0; i < n; i++) {
    if (c[i] < 0.0f)
      b[i] = a[i] + d[i] * d[i];
    else
      a[i] = c[i] + d[i] * e[i];
  }
}
#define SLP_CALL(fn, n)                                                                  \
  ((void (*)(float *, float *, const float *, const float *, const float *, int))fn)(     \
      a, b, c, d, e, n)
#include "slp1d.h"
