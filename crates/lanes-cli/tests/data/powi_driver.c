// Checks the kernels of powi_kernels.c, compiled by `lanes compile -fveclib=libmvec`,
// against the correctly rounded power: `(float)pow((double)x, n)` (glibc's double `pow`
// is within 0.52 ulp of double, so this is the float power rounded once more). Integer
// exponents up to 2^24 in magnitude must be within 1 ulp of it (lanes promises 0.51 ulp
// of the exact power below 2^16, 0.75 up to 2^24), and IEEE's special cases (±0, ±inf, NaN, ±1, subnormals, overflow,
// underflow) exact, signs of zero and infinity included; larger exponents and real ones
// take libmvec's powf, within 4 ulp. Trip counts 0…67 check vector tails: lanes past n
// stay untouched. Prints the worst error and the mismatches per kernel.
//
// The driver also stands between the kernels and libmvec's `powf` variants (it defines
// them, counts each call and forwards it to libmvec): with small integer exponents in
// every lane the kernels must make no library call, with real exponents they must.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ulps.h"

#define N 4096
#define SENTINEL 12345.0f

void k_powi_varying(int, const float *, const int *, float *);
void k_powi_uniform(int, const float *, int, float *);
void k_powi_unsigned(int, const float *, const unsigned *, float *);
void k_powi_constants(int, const float *, float *, float *);
void k_powf_real(int, const float *, const float *, float *);

static long library_calls;
#define FORWARD(name, type, isa)                                             \
  __attribute__((target(isa))) type name(type x, type y) {                   \
    static type (*library)(type, type);                                      \
    if (!library) library = (type(*)(type, type))dlsym(RTLD_NEXT, #name);    \
    library_calls++;                                                         \
    return library(x, y);                                                    \
  }
FORWARD(_ZGVbN4vv_powf, v4sf, "sse2")
FORWARD(_ZGVdN8vv_powf, v8sf, "avx2")
FORWARD(_ZGVeN16vv_powf, v16sf, "avx512f")

static float exact(float x, double n) { return (float)pow((double)x, n); }

static const float special[] = {0.0f,  -0.0f,  INFINITY, -INFINITY, NAN,     1.0f,    -1.0f,
                                2.0f,  -2.0f,  0.5f,     -0.5f,     1e-45f,  -1e-45f, 1.2e-38f,
                                3e38f, -3e38f, 1.0001f,  0.9999f,   -1.001f, 10.0f,   -0.1f};
#define NSPECIAL (int)(sizeof special / sizeof special[0])

static float x[N], y[N], out[N], out2[N];
static int e[N];
static unsigned u[N];
static long mismatches;

// Compares out[0..n) with want(i) within tol ulp (0 for special inputs) and checks the
// sentinel past n.
#define CHECK(name, n, tol_of, want_expr, out_arr)                                       \
  do {                                                                                   \
    uint64_t worst = 0;                                                                  \
    long bad = 0;                                                                        \
    for (int i = 0; i < (n); i++) {                                                      \
      float want = (want_expr);                                                          \
      uint64_t d = ulps((out_arr)[i], want);                                             \
      if (d > worst && d != UINT64_MAX) worst = d;                                       \
      if (d > (uint64_t)(tol_of)) {                                                      \
        if (bad++ < 5)                                                                   \
          printf("  %s: n=%d i=%d x=%a got %a want %a\n", name, n, i, (double)x[i],     \
                 (double)(out_arr)[i], (double)want);                                    \
      }                                                                                  \
    }                                                                                    \
    if ((n) < N && (out_arr)[n] != SENTINEL) {                                           \
      printf("  %s: wrote past n=%d\n", name, n);                                        \
      bad++;                                                                             \
    }                                                                                    \
    mismatches += bad;                                                                   \
    if ((n) == N) printf("%s: worst %llu ulp, %ld mismatches\n", name, (unsigned long long)worst, bad); \
  } while (0)

static void fill(int n) {
  for (int i = 0; i < N; i++) out[i] = out2[i] = SENTINEL;
  for (int i = 0; i < n; i++) {
    int k = i % 8;
    x[i] = k < 3   ? (float)uniform(0.5, 2.0)
           : k < 5 ? (float)uniform(-3.0, 3.0)
           : k < 7 ? (float)uniform(1e-3, 1e3)
                   : special[i % NSPECIAL];
    e[i] = i % 61 == 0 ? (i % 2 ? 16777216 + 3 : -16777219) : (int)uniform(-60.0, 61.0);
    u[i] = i % 67 == 0 ? 4000000000u : (unsigned)uniform(0.0, 61.0);
    y[i] = (float)uniform(-20.0, 20.0);
  }
}

// Integer exponents within 2^24 are inline: within 1 ulp of the rounded exact power, and
// exact for IEEE's special bases (±0, ±inf, NaN, ±1). Larger ones go to libmvec (4 ulp).
static int tol_int(int i, double n) {
  if (fabs(n) > 16777216.0) return 4;
  float b = x[i];
  return b == 0 || isinf(b) || isnan(b) || fabsf(b) == 1 ? 0 : 1;
}

int main(void) {
  for (int n = 0; n <= N; n = n < 67 ? n + 1 : n < N ? N : N + 1) {
    fill(n);
    k_powi_varying(n, x, e, out);
    CHECK("powi_varying", n, tol_int(i, e[i]), exact(x[i], (double)(float)e[i]), out);
    fill(n);
    // A uniform exponent takes scalar control (powi.rs); its bits must be those of the
    // same exponent in every lane of the varying kernel.
    static const int uniform_exps[] = {37, -29, 0, 1, -1, 300, -16777219};
    int uniform_e = uniform_exps[n % 7];
    k_powi_uniform(n, x, uniform_e, out);
    CHECK("powi_uniform", n, tol_int(i, uniform_e), exact(x[i], (double)(float)uniform_e), out);
    for (int i = 0; i < n; i++) e[i] = uniform_e;
    k_powi_varying(n, x, e, out2);
    if (memcmp(out, out2, sizeof(float) * n) != 0) {
      printf("  powi_uniform: n=%d e=%d differs from the varying path\n", n, uniform_e);
      mismatches++;
    }
    fill(n);
    k_powi_unsigned(n, x, u, out);
    CHECK("powi_unsigned", n, tol_int(i, (double)(float)u[i]), exact(x[i], (double)(float)u[i]), out);
    fill(n);
    k_powi_constants(n, x, out, out2);
    CHECK("powi_seventh", n, tol_int(i, 7), exact(x[i], 7.0), out);
    CHECK("powi_minus_third", n, tol_int(i, -3), exact(x[i], -3.0), out2);
    fill(n);
    k_powf_real(n, x, y, out);
    CHECK("powf_real", n, 4, exact(x[i], y[i]), out);
  }
  // Library calls: none for small integer exponents, some for real ones.
  fill(N);
  for (int i = 0; i < N; i++) e[i] = i % 121 - 60;
  library_calls = 0;
  k_powi_varying(N, x, e, out);
  k_powi_uniform(N, x, -29, out);
  k_powi_constants(N, x, out, out2);
  long integer_calls = library_calls;
  library_calls = 0;
  k_powf_real(N, x, y, out);
  long real_calls = library_calls;
  printf("library calls: %ld for integer exponents, %ld for real ones\n", integer_calls,
         real_calls);
  if (integer_calls != 0 || real_calls == 0) mismatches++;
  printf("powi: %ld mismatches\n", mismatches);
  return mismatches != 0;
}
