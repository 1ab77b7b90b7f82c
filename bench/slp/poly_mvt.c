/* PolyBench mvt: x1 += A·y1 and x2 += Aᵀ·y2. Each x[i] is a sum along j: a
 * floating-point reduction per row, which LLVM's loop vectorizer leaves scalar without
 * -ffast-math; vectorizing the outer loop packs sixteen independent sums, each in its
 * own order — along columns of A (contiguous across i) for x2, along rows for x1. */
#include "slp.h"
void KERNEL(float *restrict x1, float *restrict x2, const float *restrict A,
            const float *restrict y1, const float *restrict y2, int m) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) x1[i] += A[i * m + j] * y1[j];
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) x2[i] += A[j * m + i] * y2[j];
}
#define SLP_REPS 8
#define SLP_CALL(fn, m)                                                                  \
  ((void (*)(float *, float *, const float *, const float *, const float *, int))fn)(     \
      y, tmp, A, x, x, m)
#include "slp2d.h"
