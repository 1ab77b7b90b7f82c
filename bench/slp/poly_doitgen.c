/* PolyBench doitgen, one slice: each row of A replaced by its product with C4, summed
 * along s for every p (PolyBench's loop order r, q, p, s; here one r). */
#include "slp.h"
void KERNEL(float *restrict A, const float *restrict C4, float *restrict sum, int m) {
  for (int q = 0; q < m; q++) {
    for (int p = 0; p < m; p++) {
      sum[p] = 0.0f;
      for (int s = 0; s < m; s++) sum[p] += A[q * m + s] * C4[s * m + p];
    }
    for (int p = 0; p < m; p++) A[q * m + p] = sum[p];
  }
}
#define SLP_REPS 1
#define SLP_CALL(fn, m) ((void (*)(float *, const float *, float *, int))fn)(C, B0, tmp, m)
#include "slp2d.h"
