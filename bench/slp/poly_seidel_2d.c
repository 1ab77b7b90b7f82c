/* PolyBench seidel-2d: an in-place nine-point stencil; each element reads the one just
 * written to its left, a dependence no vectorizer may break. */
#include "slp.h"
void KERNEL(float *restrict A, int m) {
  for (int i = 1; i < m - 1; i++)
    for (int j = 1; j < m - 1; j++)
      A[i * m + j] = (A[(i - 1) * m + j - 1] + A[(i - 1) * m + j] + A[(i - 1) * m + j + 1] +
                      A[i * m + j - 1] + A[i * m + j] + A[i * m + j + 1] +
                      A[(i + 1) * m + j - 1] + A[(i + 1) * m + j] + A[(i + 1) * m + j + 1]) /
                     9.0f;
}
#define SLP_REPS 10
#define SLP_CALL(fn, m) ((void (*)(float *, int))fn)(C, m)
#include "slp2d.h"
