/* TSVC s1115 (loop nest): aa[i][j] = aa[i][j] * cc[j][i] + bb[i][j], the inner loop
 * over rows of aa and bb and down a column of cc. The n elements are a square. */
#include "slp.h"
void KERNEL(float *restrict aa, const float *restrict bb, const float *restrict cc, int m) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) aa[i * m + j] = aa[i * m + j] * cc[j * m + i] + bb[i * m + j];
}
#define SLP_REPS 40
#define SLP_CALL(fn, n)                                                                  \
  ((void (*)(float *, const float *, const float *, int))fn)(a, b0, c, slp_side(n))
#ifdef SLP_DRIVER
static int slp_side(long n) {
  int m = 1;
  while ((long)(m + 1) * (m + 1) <= n) m++;
  return m;
}
#endif
#include "slp1d.h"
