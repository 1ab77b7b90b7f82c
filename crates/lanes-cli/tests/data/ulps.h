// For the drivers of lanes' vector math tests (veclib_driver.c, powi_driver.c,
// exp_log_driver.c): units in the last place between two floats, the vector types of
// libmvec's variants, and a seeded uniform generator (seed LANES_TEST_SEED, which a
// driver may define before including this).
#ifndef LANES_TEST_ULPS_H
#define LANES_TEST_ULPS_H
#include <math.h>
#include <stdint.h>
#include <string.h>

typedef float v4sf __attribute__((vector_size(16)));
typedef float v8sf __attribute__((vector_size(32)));
typedef float v16sf __attribute__((vector_size(64)));

static inline int64_t key(float f) {
  int32_t i;
  memcpy(&i, &f, 4);
  return i < 0 ? -(int64_t)(i & 0x7fffffff) : i;
}
// Units in the last place between a and b; 0 for two NaNs, huge for one NaN or a zero or
// infinity of the other sign.
static inline uint64_t ulps(float a, float b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
  if ((a == 0 && b == 0) || (isinf(a) && isinf(b))) return signbit(a) == signbit(b) ? 0 : UINT64_MAX;
  int64_t d = key(a) - key(b);
  return d < 0 ? -d : d;
}

#ifndef LANES_TEST_SEED
#define LANES_TEST_SEED 0x2545f4914f6cdd1du
#endif
static uint64_t rng = LANES_TEST_SEED;
// A uniform double in [lo, hi) (xorshift64).
static inline double uniform(double lo, double hi) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}
#endif
