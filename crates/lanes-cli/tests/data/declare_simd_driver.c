/* Driver for tests/declare_simd.rs: calls the `declare simd` functions of
   declare_simd_kernels.c (compiled by `lanes compile -fopenmp-simd`) in `omp simd` loops
   and their SSE, AVX2 and AVX-512 vector variants directly (as far as the host has them), and compares with the reference
   scalar functions (the same source compiled by clang-19, renamed ref_*). Prints the
   number of mismatches. */
#include <stdio.h>

#pragma omp declare simd uniform(s)
float branchy(float x, float s);
#pragma omp declare simd
int collatz(int n);
float ref_branchy(float x, float s);
int ref_collatz(int n);

typedef float f16 __attribute__((vector_size(64)));
typedef int i16 __attribute__((vector_size(64)));
typedef float f8 __attribute__((vector_size(32)));
typedef int i8 __attribute__((vector_size(32)));
typedef float f4 __attribute__((vector_size(16)));
typedef int i4 __attribute__((vector_size(16)));
f16 _ZGVeN16vu_branchy(f16 x, float s);
i16 _ZGVeN16v_collatz(i16 n);
f8 _ZGVdN8vu_branchy(f8 x, float s);
i8 _ZGVdN8v_collatz(i8 n);
f4 _ZGVbN4vu_branchy(f4 x, float s);
i4 _ZGVbN4v_collatz(i4 n);

#define N 203
static float xs[N], ys[N];
static int ns[N], ks[N];

int main(void) {
  int bad = 0;
  for (int i = 0; i < N; i++) {
    xs[i] = (float)((i * 37) % 41) - 20.5f;
    ns[i] = 1 + (i * 7919) % 1000;
  }
#pragma omp simd
  for (int i = 0; i < N; i++) {
    ys[i] = branchy(xs[i], 1.5f);
    ks[i] = collatz(ns[i]);
  }
  for (int i = 0; i < N; i++)
    bad += ys[i] != ref_branchy(xs[i], 1.5f) || ks[i] != ref_collatz(ns[i]);
  for (int b = 0; b + 16 <= N; b += 16) {
    f16 x; i16 n;
    f8 x8; i8 n8;
    f4 x4; i4 n4;
    for (int l = 0; l < 16; l++) { x[l] = xs[b + l]; n[l] = ns[b + l]; }
    for (int l = 0; l < 8; l++) { x8[l] = xs[b + l]; n8[l] = ns[b + l]; }
    for (int l = 0; l < 4; l++) { x4[l] = xs[b + l]; n4[l] = ns[b + l]; }
#ifdef __AVX512F__
    f16 y = _ZGVeN16vu_branchy(x, -0.25f);
    i16 k = _ZGVeN16v_collatz(n);
    for (int l = 0; l < 16; l++)
      bad += y[l] != ref_branchy(xs[b + l], -0.25f) || k[l] != ref_collatz(ns[b + l]);
#endif
#ifdef __AVX2__
    f8 y8 = _ZGVdN8vu_branchy(x8, 3.0f);
    i8 k8 = _ZGVdN8v_collatz(n8);
    for (int l = 0; l < 8; l++)
      bad += y8[l] != ref_branchy(xs[b + l], 3.0f) || k8[l] != ref_collatz(ns[b + l]);
#endif
    f4 y4 = _ZGVbN4vu_branchy(x4, 0.5f);
    i4 k4 = _ZGVbN4v_collatz(n4);
    for (int l = 0; l < 4; l++)
      bad += y4[l] != ref_branchy(xs[b + l], 0.5f) || k4[l] != ref_collatz(ns[b + l]);
  }
  printf("mismatches %d\n", bad);
  return bad != 0;
}
