// `expf` and `logf` on float vectors: under -fveclib=libmvec, with fused multiply-add,
// lanes computes them inline (lanes-llvm `export::exp`, `export::log`). Driven by
// exp_log_driver.c.
#include <math.h>

void k_exp(int n, const float *x, float *out) {
#pragma omp simd
  for (int i = 0; i < n; i++) out[i] = expf(x[i]);
}

// Under a divergent branch: the masked lanes keep their value.
void k_exp_masked(int n, const float *x, float *out) {
#pragma omp simd
  for (int i = 0; i < n; i++)
    if (x[i] < 0.0f) out[i] = expf(x[i]);
}

void k_log(int n, const float *x, float *out) {
#pragma omp simd
  for (int i = 0; i < n; i++) out[i] = logf(x[i]);
}

void k_log_masked(int n, const float *x, float *out) {
#pragma omp simd
  for (int i = 0; i < n; i++)
    if (x[i] < 1.0f) out[i] = logf(x[i]);
}
