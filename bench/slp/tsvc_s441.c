/* TSVC s441 (control flow): an if / else-if / else chain with a different product each. */
#include "slp.h"
void KERNEL(float *restrict a, const float *restrict b, const float *restrict c,
            const float *restrict d, int n) {
  for (int i = 0; i < n; i++) {
    if (d[i] < -0.3f)
      a[i] += b[i] * c[i];
    else if (d[i] < 0.3f)
      a[i] += b[i] * b[i];
    else
      a[i] += c[i] * c[i];
  }
}
#define SLP_CALL(fn, n)                                                                  \
  ((void (*)(float *, const float *, const float *, const float *, int))fn)(a, b, c, d, n)
#include "slp1d.h"
