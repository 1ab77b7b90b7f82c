/* A nab-like if-cascade (PLDI'18 §6, Fig. 12) for bench/boscc.rs: most instances leave
 * at the first test, and of the rest few take the heavy side, so under partial
 * linearization the heavy region usually runs with an all-false mask unless a BOSCC
 * gadget skips it. Three copies of one body, one per `lanes vectorize --boscc` setting. */
#include <math.h>

#define CASCADE(name)                                                                    \
  void name(long i, const float *x, const float *y, float *out, float cut) {             \
    float r = x[i] * x[i] + y[i] * y[i];                                                 \
    float e = 0.0f;                                                                      \
    if (r > cut) {                                                                       \
      out[i] = 0.0f;                                                                     \
      return;                                                                            \
    }                                                                                    \
    float s = sqrtf(r) + 1.0f;                                                           \
    float t = 1.0f / s;                                                                  \
    if (t < 0.02f) {                                                                     \
      e = t * 3.0f;                                                                      \
    } else {                                                                             \
      float u = t * t * t + s * 0.5f;                                                    \
      float v = u * u - t * 1.5f + sinf(u);                                              \
      float w = v * 0.25f + cosf(v) * u;                                                 \
      e = w * w + u * v - t;                                                             \
      if (e > 5.0f)                                                                      \
        e = logf(e) * w;                                                                 \
    }                                                                                    \
    out[i] = e;                                                                          \
  }

CASCADE(cascade_off)
CASCADE(cascade_auto)
CASCADE(cascade_all)
