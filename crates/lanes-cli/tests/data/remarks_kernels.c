/* Code lanes cannot make plain vector code of, one construct per line, for the remarks
 * test (tests/it/vectorize.rs): an indirect load, strided stores, an atomic, a call of a
 * recursive helper. The line numbers are part of the test. */
static __attribute__((noinline)) int depth(int x) { return x <= 1 ? 0 : 1 + depth(x / 3) + depth(x / 5); }
void k(int i, const int *idx, const float *x, float *y, int *count) {
  float v = x[idx[i]];
  y[2 * i] = v;
  if (v > 0.0f)
    __atomic_fetch_add(count, 1, __ATOMIC_RELAXED);
  y[2 * i + 1] = (float)depth(idx[i]);
}

/* The same constructs in an omp simd loop (lanes compile). */
void loop(const int *idx, const float *x, float *y, int n) {
#pragma omp simd
  for (int i = 0; i < n; i++)
    y[i] = x[idx[i]] + (float)depth(i);
}
