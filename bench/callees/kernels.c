/* Kernels that call a helper defined in the same file, each next to the same kernel with
 * the helper inlined by hand. The helpers are `noinline`, so that clang's inliner (which
 * runs before lanes sees the code) keeps the calls and lanes has to vectorize them. */

/* Collatz steps: a divergent loop inside the helper. */
__attribute__((noinline)) static int collatz_steps(int x) {
  int n = 0;
  while (x > 1 && n < 200) {
    x = (x & 1) ? 3 * x + 1 : x >> 1;
    n++;
  }
  return n;
}

void steps_call(int i, const int *in, int *out) { out[i] = collatz_steps(in[i]); }

void steps_inline(int i, const int *in, int *out) {
  int x = in[i], n = 0;
  while (x > 1 && n < 200) {
    x = (x & 1) ? 3 * x + 1 : x >> 1;
    n++;
  }
  out[i] = n;
}

/* A polynomial shading function called under a divergent branch (the masked variant). */
__attribute__((noinline)) static float shade(float x, float k) {
  float t = x * k;
  float p = ((0.25f * t + 0.5f) * t + 1.0f) * t + 2.0f;
  return p / (1.0f + t * t);
}

void shade_call(int i, const float *x, float *y, float k) {
  float v = x[i];
  y[i] = v > 0.0f ? shade(v, k) : -v;
}

void shade_inline(int i, const float *x, float *y, float k) {
  float v = x[i];
  if (v > 0.0f) {
    float t = v * k;
    float p = ((0.25f * t + 0.5f) * t + 1.0f) * t + 2.0f;
    y[i] = p / (1.0f + t * t);
  } else {
    y[i] = -v;
  }
}

/* A helper that reads and writes through pointers to the element (contiguous pointers in
 * the variant: vector loads and stores, not gathers). */
__attribute__((noinline)) static void axpy_at(const float *x, float *y, float a) {
  *y = a * *x + *y;
}

void axpy_call(int i, const float *x, float *y, float a) { axpy_at(&x[i], &y[i], a); }

void axpy_inline(int i, const float *x, float *y, float a) { y[i] = a * x[i] + y[i]; }
