// `#pragma omp simd` loops calling libm, for `lanes compile -fveclib=libmvec` (see
// tests/veclib.rs): one kernel per function, so the driver measures each one's error.
#include <math.h>

#define UNARY(T, F)                                                        \
  void k_##F(int n, const T *restrict x, T *restrict y) {                  \
    _Pragma("omp simd") for (int i = 0; i < n; i++) y[i] = F(x[i]);        \
  }
#define BINARY(T, F)                                                       \
  void k_##F(int n, const T *restrict x, const T *restrict z,              \
             T *restrict y) {                                              \
    _Pragma("omp simd") for (int i = 0; i < n; i++) y[i] = F(x[i], z[i]);  \
  }

UNARY(float, sinf)
UNARY(float, cosf)
UNARY(float, expf)
UNARY(float, logf)
UNARY(float, tanf)
BINARY(float, powf)
BINARY(float, atan2f)
UNARY(double, sin)
UNARY(double, cos)
UNARY(double, exp)
UNARY(double, log)
BINARY(double, pow)

// Math inside divergent control flow: the calls run under a mask.
void k_mixed(int n, const float *restrict x, float *restrict y) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    float v = x[i];
    y[i] = v > 0.0f ? expf(-v * v) * sinf(v) : logf(1.0f - v);
  }
}
