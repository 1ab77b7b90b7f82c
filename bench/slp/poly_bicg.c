/* PolyBench bicg: s = Aᵀ·r and q = A·p in one sweep over A's rows. Each q[i] is a
 * floating-point sum along the row; each s[j] collects one update per row. */
#include "slp.h"
void KERNEL(const float *restrict A, const float *restrict r, const float *restrict p,
            float *restrict s, float *restrict q, int m) {
  for (int i = 0; i < m; i++) s[i] = 0.0f;
  for (int i = 0; i < m; i++) {
    q[i] = 0.0f;
    for (int j = 0; j < m; j++) {
      s[j] += r[i] * A[i * m + j];
      q[i] += A[i * m + j] * p[j];
    }
  }
}
#define SLP_REPS 8
#define SLP_CALL(fn, m)                                                                  \
  ((void (*)(const float *, const float *, const float *, float *, float *, int))fn)(     \
      A, x, x, y, tmp, m)
#include "slp2d.h"
