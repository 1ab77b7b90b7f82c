/* PolyBench atax: y = Aᵀ(A·x), a reduction along each row, then an update along it. */
#include "slp.h"
void KERNEL(const float *restrict A, const float *restrict x, float *restrict y,
            float *restrict tmp, int m) {
  for (int i = 0; i < m; i++) y[i] = 0.0f;
  for (int i = 0; i < m; i++) {
    float t = 0.0f;
    for (int j = 0; j < m; j++) t += A[i * m + j] * x[j];
    tmp[i] = t;
    for (int j = 0; j < m; j++) y[j] += A[i * m + j] * t;
  }
}
#define SLP_REPS 20
#define SLP_CALL(fn, m)                                                                  \
  ((void (*)(const float *, const float *, float *, float *, int))fn)(A, x, y, tmp, m)
#include "slp2d.h"
