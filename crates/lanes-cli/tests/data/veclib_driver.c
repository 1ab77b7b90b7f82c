// Compares the kernels of veclib_kernels.c, compiled by `lanes compile -fveclib=libmvec`
// (calls to glibc's libmvec), with scalar libm on the same inputs: random values over
// each function's interesting range, special values (±0, ±inf, NaN, subnormals, huge
// arguments), and trip counts 0…67 (vector tails; lanes past n must stay untouched).
// A result mismatches when it is more than MAX_ULP units in the last place from libm's
// (glibc documents libmvec as accurate to 4 ulp; `mixed` multiplies two such results, so
// it gets MAX_ULP_PRODUCT), or when exactly one of the two is NaN. Prints the worst error per function and the
// total number of mismatches.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LANES_TEST_SEED 0x9e3779b97f4a7c15u
#include "ulps.h"

#define MAX_ULP 4
#define MAX_ULP_PRODUCT 9
#define N 65536
#define SENTINEL 12345.0

void k_sinf(int, const float *, float *);
void k_cosf(int, const float *, float *);
void k_expf(int, const float *, float *);
void k_logf(int, const float *, float *);
void k_tanf(int, const float *, float *);
void k_powf(int, const float *, const float *, float *);
void k_atan2f(int, const float *, const float *, float *);
void k_sin(int, const double *, double *);
void k_cos(int, const double *, double *);
void k_exp(int, const double *, double *);
void k_log(int, const double *, double *);
void k_pow(int, const double *, const double *, double *);
void k_mixed(int, const float *, float *);

static float mixed(float v) { return v > 0.0f ? expf(-v * v) * sinf(v) : logf(1.0f - v); }

// Distance in ulp between two floats of the same sign class (monotone integer map).
static int64_t key_f(float f) {
  int32_t i;
  memcpy(&i, &f, 4);
  return i < 0 ? -(int64_t)(i & 0x7fffffff) : i;
}
static int64_t key_d(double f) {
  int64_t i;
  memcpy(&i, &f, 8);
  return i < 0 ? -(i & 0x7fffffffffffffff) : i;
}
static uint64_t ulps_f(float a, float b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
  int64_t d = key_f(a) - key_f(b);
  return d < 0 ? -d : d;
}
static uint64_t ulps_d(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
  int64_t d = key_d(a) - key_d(b);
  return (uint64_t)(d < 0 ? -d : d);
}

static long mismatches = 0;
static const float special_f[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-45f, -1e-40f,
                                  1e-38f, 1.0f, -1.0f, 0.5f, 88.7f, -103.9f, 1e30f, -1e30f,
                                  3.14159265f, 1.5707964f, 1e6f, 12345.678f};
static const double special_d[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 5e-324, -1e-310,
                                   1e-300, 1.0, -1.0, 0.5, 709.7, -745.0, 1e300, -1e300,
                                   3.141592653589793, 1.5707963267948966, 1e15, 12345.678};
#define NSPECIAL (int)(sizeof special_f / sizeof special_f[0])

static float xf[N + 16], zf[N + 16], yf[N + 16];
static double xd[N + 16], zd[N + 16], yd[N + 16];

// Fills x (and z) with `n` inputs: specials first, then uniform in [lo, hi).
static void fill_f(float *x, double lo, double hi) {
  for (int i = 0; i < N; i++) x[i] = i < NSPECIAL ? special_f[i] : (float)uniform(lo, hi);
}
static void fill_d(double *x, double lo, double hi) {
  for (int i = 0; i < N; i++) x[i] = i < NSPECIAL ? special_d[i] : uniform(lo, hi);
}

#define CHECK(T, SUF, NAME, TOL, REF, CALL)                                             \
  do {                                                                                  \
    uint64_t worst = 0;                                                                 \
    long bad = 0;                                                                       \
    for (int n = 0; n <= 67 || n == N; n = n < 67 ? n + 1 : (n == 67 ? N : N + 1)) {    \
      for (int i = 0; i < N + 16; i++) y##SUF[i] = (T)SENTINEL;                         \
      CALL;                                                                             \
      for (int i = 0; i < N + 16; i++) {                                                \
        if (i >= n) {                                                                   \
          bad += y##SUF[i] != (T)SENTINEL;                                              \
          if (i > n + 16) break;                                                        \
          continue;                                                                     \
        }                                                                               \
        T want = REF;                                                                   \
        uint64_t u = ulps_##SUF(y##SUF[i], want);                                       \
        if (u > worst) worst = u;                                                       \
        if (u > TOL) {                                                                  \
          if (bad < 3)                                                                  \
            printf("  %s(%a) = %a, libm %a\n", NAME, (double)x##SUF[i],                 \
                   (double)y##SUF[i], (double)want);                                    \
          bad++;                                                                        \
        }                                                                               \
      }                                                                                 \
    }                                                                                   \
    printf("%s: max %llu ulp, %ld mismatches\n", NAME, (unsigned long long)worst, bad); \
    mismatches += bad;                                                                  \
  } while (0)

#define UN_F(F, LO, HI)                                                                 \
  fill_f(xf, LO, HI);                                                                   \
  CHECK(float, f, #F, MAX_ULP, F(xf[i]), k_##F(n, xf, yf))
#define BIN_F(F, LO, HI, ZLO, ZHI)                                                      \
  fill_f(xf, LO, HI);                                                                   \
  fill_f(zf, ZLO, ZHI);                                                                 \
  CHECK(float, f, #F, MAX_ULP, F(xf[i], zf[i]), k_##F(n, xf, zf, yf))
#define UN_D(F, LO, HI)                                                                 \
  fill_d(xd, LO, HI);                                                                   \
  CHECK(double, d, #F, MAX_ULP, F(xd[i]), k_##F(n, xd, yd))
#define BIN_D(F, LO, HI, ZLO, ZHI)                                                      \
  fill_d(xd, LO, HI);                                                                   \
  fill_d(zd, ZLO, ZHI);                                                                 \
  CHECK(double, d, #F, MAX_ULP, F(xd[i], zd[i]), k_##F(n, xd, zd, yd))

int main(void) {
  UN_F(sinf, -100.0, 100.0);
  UN_F(cosf, -100.0, 100.0);
  UN_F(expf, -90.0, 90.0);
  UN_F(logf, 0.0, 1e6);
  UN_F(tanf, -10.0, 10.0);
  BIN_F(powf, 0.0, 50.0, -20.0, 20.0);
  BIN_F(atan2f, -10.0, 10.0, -10.0, 10.0);
  UN_D(sin, -100.0, 100.0);
  UN_D(cos, -100.0, 100.0);
  UN_D(exp, -720.0, 720.0);
  UN_D(log, 0.0, 1e6);
  BIN_D(pow, 0.0, 50.0, -100.0, 100.0);
  fill_f(xf, -5.0, 5.0);
  CHECK(float, f, "mixed", MAX_ULP_PRODUCT, mixed(xf[i]), k_mixed(n, xf, yf));
  printf("veclib: %ld mismatches (tolerance %d ulp, %d for products)\n", mismatches, MAX_ULP,
         MAX_ULP_PRODUCT);
  return mismatches != 0;
}
