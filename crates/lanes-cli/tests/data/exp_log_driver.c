// Checks the kernels of exp_log_kernels.c, compiled by `lanes compile -fveclib=libmvec`,
// against the correctly rounded functions `(float)exp((double)x)` and
// `(float)log((double)x)` (glibc's double functions are within 0.51 ulp of double, so
// these are the exact values rounded to float, but for double rounding within 2^-29 of a
// float rounding boundary):
// - exp: every 61st float of [-104, 89] on both signs, densely the edges of overflow and
//   of the subnormal range, and IEEE's special cases;
// - log: every 61st positive float from the least subnormal to the largest finite one,
//   every float around 1, and the special cases.
// Both must be within 1 ulp everywhere and exact on the special cases (exp: ±0 → 1,
// +inf, -inf → +0, NaN, overflow to +inf, underflow to +0; log: ±0 → -inf, negative →
// NaN, +inf, NaN, 1 → +0), masked lanes untouched. The driver also stands between the
// kernels and libmvec's `expf`/`logf` variants (it defines them and counts the calls):
// there must be none. Prints, per function, the worst error and the count of results
// more than 1 ulp away.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

#include "ulps.h"

void k_exp(int, const float *, float *);
void k_exp_masked(int, const float *, float *);
void k_log(int, const float *, float *);
void k_log_masked(int, const float *, float *);

static long library_calls;
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
FORWARD(_ZGVbN4v_logf, v4sf, "sse2")
FORWARD(_ZGVdN8v_logf, v8sf, "avx2")
FORWARD(_ZGVeN16v_logf, v16sf, "avx512f")

typedef void (*kernel)(int, const float *, float *);
struct function {
  const char *name;
  kernel plain, masked;
  double (*exact)(double);
  float masked_below;  // the masked kernel computes where x < this
  int (*special)(float x, float want);
  uint64_t worst, bad, checked;
  float worst_x;
};

static int exp_special(float x, float want) {
  return x == 0.0f || isinf(x) || isnan(x) || isinf(want) || want == 0.0f;
}
static int log_special(float x, float want) {
  (void)want;
  return !(x > 0.0f) || isinf(x) || x == 1.0f;
}

enum { CHUNK = 1 << 16 };
static float in[CHUNK], out[CHUNK];
static int n;

static void check(struct function *fn, int len, int masked) {
  for (int i = 0; i < len; i++) out[i] = -7.0f;
  (masked ? fn->masked : fn->plain)(len, in, out);
  for (int i = 0; i < len; i++) {
    float want = (float)fn->exact((double)in[i]);
    if (masked && !(in[i] < fn->masked_below)) want = -7.0f;
    uint64_t u = ulps(out[i], want);
    int special = fn->special(in[i], want);
    if (special ? u != 0 : u > 1) {
      if (fn->bad < 10)
        printf("%s(%a) = %a, want %a (%llu ulp)\n", fn->name, in[i], out[i], want,
               (unsigned long long)u);
      fn->bad++;
    }
    if (!special && u > fn->worst) {
      fn->worst = u;
      fn->worst_x = in[i];
    }
    fn->checked++;
  }
}

static void push(struct function *fn, float x) {
  in[n++] = x;
  if (n == CHUNK) {
    check(fn, n, 0);
    check(fn, n, 1);
    n = 0;
  }
}

static void finish(struct function *fn) {
  for (int len = 0; len <= 67 && len <= n; len++) {
    check(fn, len, 0);
    check(fn, len, 1);
  }
  check(fn, n, 0);
  check(fn, n, 1);
  n = 0;
  printf("%s: %llu checked, worst %llu ulp at %a, %llu mismatches\n", fn->name,
         (unsigned long long)fn->checked, (unsigned long long)fn->worst, fn->worst_x,
         (unsigned long long)fn->bad);
}

int main(void) {
  struct function e = {"exp", k_exp, k_exp_masked, exp, 0.0f, exp_special, 0, 0, 0, 0};
  for (int sign = 0; sign < 2; sign++)
    for (uint32_t bits = 0;; bits += 61) {
      float x;
      uint32_t b = bits | (sign ? 0x80000000u : 0);
      memcpy(&x, &b, 4);
      if (fabsf(x) > (sign ? 104.0f : 89.0f)) break;
      push(&e, x);
    }
  const float exp_edges[] = {88.72283f, 88.72284f, 88.7f, 89.0f, 89.5f, 1e10f, INFINITY,
                             -INFINITY, NAN, -NAN, 0.0f, -0.0f, -87.33654f, -87.33655f,
                             -103.27893f, -103.97208f, -103.97209f, -104.0f, -1e10f,
                             1e-30f, -1e-30f, 1.0f};
  for (unsigned k = 0; k < sizeof exp_edges / sizeof *exp_edges; k++) push(&e, exp_edges[k]);
  for (float x = -104.0f; x < -86.0f; x += 1e-4f) push(&e, x);
  for (float x = 88.0f; x < 89.0f; x += 1e-5f) push(&e, x);
  finish(&e);

  struct function l = {"log", k_log, k_log_masked, log, 1.0f, log_special, 0, 0, 0, 0};
  for (uint32_t bits = 1; bits < 0x7f800000u; bits += 61) {
    float x;
    memcpy(&x, &bits, 4);
    push(&l, x);
  }
  for (float x = 0.999f; x < 1.001f; x = nextafterf(x, 2.0f)) push(&l, x);
  const float log_specials[] = {0.0f, -0.0f, -1.0f, -1e-40f, -INFINITY, INFINITY, NAN, -NAN,
                                1.0f, 1e-45f, 1.17549435e-38f, 3.4028235e38f, 2.0f, 0.5f};
  for (unsigned k = 0; k < sizeof log_specials / sizeof *log_specials; k++)
    push(&l, log_specials[k]);
  finish(&l);

  printf("library calls: %ld\n", library_calls);
  return e.bad != 0 || l.bad != 0 || library_calls != 0;
}
