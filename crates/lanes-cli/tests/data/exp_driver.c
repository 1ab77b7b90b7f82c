// Checks the kernels of exp_kernels.c, compiled by `lanes compile -fveclib=libmvec`,
// against the correctly rounded exponential `(float)exp((double)x)` (glibc's double `exp`
// is within 0.51 ulp of double, so this is the exact value rounded to float, but for
// double rounding within 2^-29 of a float rounding boundary). Every 61st float of
// [-104, 89] on both signs, the boundaries of overflow and of the subnormal range, and
// IEEE's special cases: the inline exponential must be within 1 ulp everywhere, exact on
// ±0, ±inf (+inf and +0) and NaN. The driver also stands between the kernels and
// libmvec's `expf` variants (it defines them and counts the calls): there must be none.
// Prints the worst error and the count of results more than 1 ulp away.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void k_exp(int, const float *, float *);
void k_exp_masked(int, const float *, float *);

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
FORWARD(_ZGVbN4v_expf, v4sf, "sse2")
FORWARD(_ZGVdN8v_expf, v8sf, "avx2")
FORWARD(_ZGVeN16v_expf, v16sf, "avx512f")

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
    k_exp_masked(n, in, out);
  else
    k_exp(n, in, out);
  for (int i = 0; i < n; i++) {
    float want = (float)exp((double)in[i]);
    if (masked && !(in[i] < 0.0f)) want = -7.0f;
    uint64_t u = ulps(out[i], want);
    // Special cases exact: zeros, infinities, NaN, and 1 for ±0.
    int special = in[i] == 0.0f || isinf(in[i]) || isnan(in[i]) || isinf(want) || want == 0.0f;
    if (special ? (u != 0 || memcmp(&out[i], &want, 4) != 0 && !isnan(want)) : u > 1) {
      if (bad < 10)
        printf("exp(%a) = %a, want %a (%llu ulp)\n", in[i], out[i], want, (unsigned long long)u);
      bad++;
    }
    if (!special && u > worst) {
      worst = u;
      worst_x = in[i];
    }
    checked++;
  }
}

int main(void) {
  int n = 0;
  // Every 61st float from +0 up to 89, and from -0 down to -104.
  for (int sign = 0; sign < 2; sign++)
    for (uint32_t bits = 0;; bits += 61) {
      float x;
      uint32_t b = bits | (sign ? 0x80000000u : 0);
      memcpy(&x, &b, 4);
      if (fabsf(x) > (sign ? 104.0f : 89.0f)) break;
      in[n++] = x;
      if (n == CHUNK) {
        check(n, 0);
        check(n, 1);
        n = 0;
      }
    }
  // Overflow and the subnormal range, densely; special values; odd trip counts.
  const float edges[] = {88.72283f, 88.72284f, 88.7f, 89.0f, 89.5f, 1e10f, INFINITY, -INFINITY,
                         NAN, -NAN, 0.0f, -0.0f, -87.33654f, -87.33655f, -103.27893f,
                         -103.97208f, -103.97209f, -104.0f, -1e10f, 1e-30f, -1e-30f, 1.0f};
  for (unsigned k = 0; k < sizeof edges / sizeof *edges; k++) in[n++] = edges[k];
  for (float x = -104.0f; x < -86.0f; x = nextafterf(x, 0.0f) + 1e-5f) in[n++ % CHUNK] = x;
  for (float x = 88.0f; x < 89.0f; x += 1e-5f) in[n++ % CHUNK] = x;
  if (n > CHUNK) n = CHUNK;
  for (int len = 0; len <= 67; len++) {
    check(len, 0);
    check(len, 1);
  }
  check(n, 0);
  check(n, 1);
  printf("exp: %llu checked, worst %llu ulp at %a, %llu mismatches\n",
         (unsigned long long)checked, (unsigned long long)worst, worst_x,
         (unsigned long long)bad);
  printf("library calls: %ld\n", library_calls);
  return bad != 0 || library_calls != 0;
}
