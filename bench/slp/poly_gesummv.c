/* PolyBench gesummv: y = α·A·x + β·B·x, two floating-point sums along each row. */
#include "slp.h"
void KERNEL(const float *restrict A, const float *restrict B, const float *restrict x,
            float *restrict y, float *restrict tmp, float alpha, float beta, int m) {
  for (int i = 0; i < m; i++) {
    tmp[i] = 0.0f;
    y[i] = 0.0f;
    for (int j = 0; j < m; j++) {
      tmp[i] += A[i * m + j] * x[j];
      y[i] += B[i * m + j] * x[j];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
}
#define SLP_REPS 8
#define SLP_CALL(fn, m)                                                                  \
  ((void (*)(const float *, const float *, const float *, float *, float *, float, float, \
             int))fn)(A, B0, x, y, tmp, 1.5f, 1.25f, m)
#include "slp2d.h"
