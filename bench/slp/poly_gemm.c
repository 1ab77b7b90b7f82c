/* PolyBench gemm: C = alpha·A·B + beta·C, in PolyBench's loop order (i, k, j), whose
 * innermost loop runs along rows of B and C. */
#include "slp.h"
void KERNEL(float *restrict C, const float *restrict A, const float *restrict B, float alpha,
            float beta, int m) {
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < m; j++) C[i * m + j] *= beta;
    for (int k = 0; k < m; k++)
      for (int j = 0; j < m; j++) C[i * m + j] += alpha * A[i * m + k] * B[k * m + j];
  }
}
#define SLP_REPS 2
#define SLP_CALL(fn, m)                                                                  \
  ((void (*)(float *, const float *, const float *, float, float, int))fn)(C, A, B0, 0.5f, \
                                                                            0.25f, m)
#include "slp2d.h"
