/* PolyBench covariance: the mean of each column of the data (sums down columns), the
 * data centred, then the upper triangle of the covariance matrix, each entry a sum
 * down two columns. Data in C, covariance in B, means in y. */
#include "slp.h"
void KERNEL(float *restrict data, float *restrict cov, float *restrict mean, int m) {
  float n = (float)m;
  for (int j = 0; j < m; j++) {
    mean[j] = 0.0f;
    for (int i = 0; i < m; i++) mean[j] += data[i * m + j];
    mean[j] /= n;
  }
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) data[i * m + j] -= mean[j];
  for (int i = 0; i < m; i++)
    for (int j = i; j < m; j++) {
      float c = 0.0f;
      for (int k = 0; k < m; k++) c += data[k * m + i] * data[k * m + j];
      c /= n - 1.0f;
      cov[i * m + j] = c;
      cov[j * m + i] = c;
    }
}
#define SLP_REPS 1
#define SLP_CALL(fn, m) ((void (*)(float *, float *, float *, int))fn)(C, B, y, m)
#include "slp2d.h"
