// Checks the kernels of log_kernels.c, compiled by `lanes compile -fveclib=libmvec`,
// against the correctly rounded logarithm `(float)log((double)x)`: every 61st positive
// float from the least subnormal to the largest finite one, the neighbourhood of 1, and
// IEEE's special cases. The inline logarithm must be within 1 ulp everywhere, exact on
// ±0 (-inf), negative numbers (NaN), +inf, NaN and 1 (+0). The driver also stands
// between the kernels and libmvec's `logf` variants (it defines them and counts the
// calls): there must be none. Prints the worst error and the count of results more
// than 1 ulp away.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void k_log(int, const float *, float *);
void k_log_masked(int, const float *, float *);

static long library_calls;
typedef float v4sf __attribute__((vector_size(16)));
typedef float v8sf __attribute__((vector_size(32)));
typedef float v16sf __attribute__((vector_size(64)));
#define FORWARD(name, type, isa)                                             \
  __attribute__((target(isa))) type name(type x) {                           \
    static type (*library)(type);                                            \
    if (!library) library = (type(*)(type))dlsym(RTLD_NEXT, #name);          \
    library_calls++;                                                         \
    return library(x);                                                       \
  }
FORWARD(_ZGVbN4v_logf, v4sf, "sse2")
FORWARD(_ZGVdN8v_logf, v8sf, "avx2")
FORWARD(_ZGVeN16v_logf, v16sf, "avx512f")

static int64_t key(float f) {
  int32_t i;
  memcpy(&i, &f, 4);
  return i < 0 ? -(int64_t)(i & 0x7fffffff) : i;
}
static uint64_t ulps(float a, float b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
  int64_t d = key(a) - key(b);
  return (uint64_t)(d < 0 ? -d : d);
}

enum { CHUNK = 1 << 16 };
static float in[CHUNK], out[CHUNK];
static uint64_t worst, bad, checked;
static float worst_x;

static void check(int n, int masked) {
  for (int i = 0; i < n; i++) out[i] = -7.0f;
  if (masked)
    k_log_masked(n, in, out);
  else
    k_log(n, in, out);
  for (int i = 0; i < n; i++) {
    float want = (float)log((double)in[i]);
    if (masked && !(in[i] < 1.0f)) want = -7.0f;
    uint64_t u = ulps(out[i], want);
    int special = !(in[i] > 0.0f) || isinf(in[i]) || in[i] == 1.0f;
    if (special ? (u != 0 || (!isnan(want) && memcmp(&out[i], &want, 4) != 0)) : u > 1) {
      if (bad < 10)
        printf("log(%a) = %a, want %a (%llu ulp)\n", in[i], out[i], want, (unsigned long long)u);
      bad++;
    }
    if (!special && u > worst) {
      worst = u;
      worst_x = in[i];
    }
    checked++;
  }
}

static int n;
static void push(float x) {
  in[n++] = x;
  if (n == CHUNK) {
    check(n, 0);
    check(n, 1);
    n = 0;
  }
}

int main(void) {
  for (uint32_t bits = 1; bits < 0x7f800000u; bits += 61) {
    float x;
    memcpy(&x, &bits, 4);
    push(x);
  }
  // Around 1, where the result is small, every float.
  for (float x = 0.999f; x < 1.001f; x = nextafterf(x, 2.0f)) push(x);
  const float specials[] = {0.0f, -0.0f, -1.0f, -1e-40f, -INFINITY, INFINITY, NAN, -NAN,
                            1.0f, 1e-45f, 1.17549435e-38f, 3.4028235e38f, 2.0f, 0.5f};
  for (unsigned k = 0; k < sizeof specials / sizeof *specials; k++) push(specials[k]);
  for (int len = 0; len <= 67; len++) {
    check(len, 0);
    check(len, 1);
  }
  check(n, 0);
  check(n, 1);
  printf("log: %llu checked, worst %llu ulp at %a, %llu mismatches\n",
         (unsigned long long)checked, (unsigned long long)worst, worst_x,
         (unsigned long long)bad);
  printf("library calls: %ld\n", library_calls);
  return bad != 0 || library_calls != 0;
}
