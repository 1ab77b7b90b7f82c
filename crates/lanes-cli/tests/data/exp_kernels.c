// `expf` on float vectors: under -fveclib=libmvec, with fused multiply-add, lanes computes
// it inline (lanes-llvm `export::exp`). Driven by exp_driver.c.
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
