/* `#pragma omp declare simd` functions for tests/declare_simd.rs: a divergent branch, a
   divergent loop (Collatz steps), and one with a linear parameter (not supported by
   lanes: its variants are noted, not emitted). */

#pragma omp declare simd uniform(s)
float branchy(float x, float s) {
  if (x > 0.0f)
    return x * s + 1.0f;
  return -x - s;
}

#pragma omp declare simd
int collatz(int n) {
  int k = 0;
  while (n > 1 && k < 1000) {
    n = (n & 1) ? 3 * n + 1 : n / 2;
    k++;
  }
  return k;
}

#pragma omp declare simd linear(i) uniform(base)
int offset(int i, int base) { return base + 2 * i; }

/* A store through a uniform pointer at a varying index: a masked variant must not store
   for a masked-off lane. */
#pragma omp declare simd uniform(out)
int store_scaled(int *out, int i, int x) {
  out[i] = 3 * x + 1;
  return x - i;
}
