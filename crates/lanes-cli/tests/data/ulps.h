// Units in the last place between two floats, for the drivers of lanes' inline vector
// math (powi_driver.c, exp_log_driver.c), and the vector types of libmvec's variants.
#ifndef LANES_TEST_ULPS_H
#define LANES_TEST_ULPS_H
#include <math.h>
#include <stdint.h>
#include <string.h>

typedef float v4sf __attribute__((vector_size(16)));
typedef float v8sf __attribute__((vector_size(32)));
typedef float v16sf __attribute__((vector_size(64)));

static int64_t key(float f) {
  int32_t i;
  memcpy(&i, &f, 4);
  return i < 0 ? -(int64_t)(i & 0x7fffffff) : i;
}
// Units in the last place between a and b; 0 for two NaNs, huge for one NaN or a zero or
// infinity of the other sign.
static uint64_t ulps(float a, float b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
  if ((a == 0 && b == 0) || (isinf(a) && isinf(b))) return signbit(a) == signbit(b) ? 0 : UINT64_MAX;
  int64_t d = key(a) - key(b);
  return d < 0 ? -d : d;
}
#endif
