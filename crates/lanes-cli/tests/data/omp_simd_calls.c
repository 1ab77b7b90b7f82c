/* `#pragma omp simd` loops that call helpers clang does not inline (`noinline`): lanes
 * vectorizes each helper with the loop body for the argument shapes at the call, masked
 * where the call is under a branch; recursive helpers stay one call per lane. NAME(f)
 * renames the entry points for the clang-19 reference build. */
#ifndef NAME
#define NAME(f) f
#endif
#define HELPER static __attribute__((noinline))

/* A divergent loop in the helper. */
HELPER int steps(int x) {
  int n = 0;
  while (x > 1 && n < 100) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    n++;
  }
  return n;
}

/* Stores through a pointer to the element (linear pointer arguments), under a branch. */
HELPER void bump(int *p, int by) { *p += by; }

/* A helper calling a helper. */
HELPER float poly(float x) { return (0.5f * x + 1.0f) * x - 2.0f; }
HELPER float shade(float x, float k) { return x > 0.0f ? poly(x * k) : -poly(-x); }

/* Recursion: per lane. */
HELPER int depth(int x) { return x <= 1 ? 0 : 1 + depth(x / 3) + depth(x / 5); }
HELPER int odd(int x);
HELPER int even(int x) { return x == 0 ? 1 : odd(x - 1); }
HELPER int odd(int x) { return x == 0 ? 0 : even(x - 1); }

void NAME(call_steps)(const int *in, int *out, int n) {
#pragma omp simd
  for (int i = 0; i < n; i++)
    out[i] = steps(in[i]);
}

void NAME(call_bump)(const int *in, int *out, int n) {
#pragma omp simd
  for (int i = 0; i < n; i++)
    if (in[i] & 1)
      bump(&out[i], in[i]);
}

void NAME(call_shade)(const float *x, float *y, float k, int n) {
#pragma omp simd
  for (int i = 0; i < n; i++)
    y[i] = x[i] != 0.0f ? shade(x[i], k) : 1.0f;
}

void NAME(call_recursive)(const int *in, int *out, int n) {
#pragma omp simd
  for (int i = 0; i < n; i++)
    out[i] = depth(in[i]) + even(in[i] & 15);
}
