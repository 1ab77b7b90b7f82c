/* PolyBench jacobi-2d: one time step of a five-point stencil and the copy back. */
#include "slp.h"
void KERNEL(float *restrict A, float *restrict B, int m) {
  for (int i = 1; i < m - 1; i++)
    for (int j = 1; j < m - 1; j++)
      B[i * m + j] = 0.2f * (A[i * m + j] + A[i * m + j - 1] + A[i * m + j + 1] +
                             A[(i + 1) * m + j] + A[(i - 1) * m + j]);
  for (int i = 1; i < m - 1; i++)
    for (int j = 1; j < m - 1; j++)
      A[i * m + j] = 0.2f * (B[i * m + j] + B[i * m + j - 1] + B[i * m + j + 1] +
                             B[(i + 1) * m + j] + B[(i - 1) * m + j]);
}
#define SLP_REPS 20
#define SLP_CALL(fn, m) ((void (*)(float *, float *, int))fn)(C, B, m)
#include "slp2d.h"
