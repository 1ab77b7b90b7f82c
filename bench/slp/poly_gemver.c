/* PolyBench gemver: a rank-2 update of A, then x = x + β·Aᵀ·y (sums down A's columns),
 * x += z, and w = α·A·x (sums along its rows). Vectors u1, v1, u2, v2, z share x's
 * storage here; w is tmp. */
#include "slp.h"
void KERNEL(float *restrict A, const float *restrict u, const float *restrict v,
            float *restrict xs, const float *restrict ys, float *restrict w, float alpha,
            float beta, int m) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) A[i * m + j] += u[i] * v[j] + v[i] * u[j];
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) xs[i] += beta * A[j * m + i] * ys[j];
  for (int i = 0; i < m; i++) xs[i] += u[i];
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) w[i] += alpha * A[i * m + j] * xs[j];
}
#define SLP_REPS 4
#define SLP_CALL(fn, m)                                                                  \
  ((void (*)(float *, const float *, const float *, float *, const float *, float *,     \
             float, float, int))fn)(C, x, x, y, x, tmp, 0.5f, 0.25f, m)
#include "slp2d.h"
