/* Divergent arithmetic with two similar sides, for bench/fusion.rs (PACT'11 §IV-A,
 * Fig. 10): each side runs the same sequence of products, quotients and a square root on
 * different operands, and the branch on x[i] > y[i] goes either way about half the time,
 * so under linearization both sides run for almost every vector of lanes. Branch fusion
 * runs the common sequence once with selected operands. Two copies of one body, one per
 * `lanes vectorize --branch-fusion` setting. */
#include <math.h>

#define TWIN(name)                                                                       \
  void name(long i, const float *x, const float *y, float *out) {                        \
    float a = x[i], b = y[i], r;                                                         \
    if (a > b) {                                                                         \
      float t = a * b + 1.5f;                                                            \
      float u = sqrtf(t * t + a);                                                        \
      float v = u / (t + 2.0f);                                                          \
      float w = v * a - b / (u + 1.0f);                                                  \
      r = w * w + v / (a + 1.0f);                                                        \
    } else {                                                                             \
      float t = b * a + 0.5f;                                                            \
      float u = sqrtf(t * t + b);                                                        \
      float v = u / (t + 3.0f);                                                          \
      float w = v * b - a / (u + 2.0f);                                                  \
      r = w * w - v / (b + 2.0f);                                                        \
    }                                                                                    \
    out[i] = r;                                                                          \
  }

TWIN(twin_off)
TWIN(twin_auto)
