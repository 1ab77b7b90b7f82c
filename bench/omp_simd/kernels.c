// Benchmark kernels for `lanes compile` on parallel loops (PLDI'18 §7) against
// clang-19 -O3 -march=native -fopenmp-simd on the same source (bench/omp_simd.rs).
// Every loop is marked `#pragma omp simd`; several hold divergent inner loops, which
// LLVM's loop vectorizer does not take. The last two call libm, which both compilers
// map to glibc's libmvec (`-fveclib=libmvec -fno-math-errno` on both sides).
#include <math.h>

void saxpy(int n, float a, const float *x, float *y) {
#pragma omp simd
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}

float dot(int n, const float *x, const float *y) {
  float s = 0;
#pragma omp simd reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += x[i] * y[i];
  return s;
}

int count_above(int n, const float *x, float t) {
  int c = 0;
#pragma omp simd reduction(+ : c)
  for (int i = 0; i < n; i++)
    c += x[i] > t;
  return c;
}

void halve_until(int n, float *y, float lo) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    float v = y[i];
    while (v > lo)
      v = v * 0.5f;
    y[i] = v;
  }
}

void mandel(int w, int h, float x0, float y0, float dx, float dy, int max_iter, int *out) {
  for (int py = 0; py < h; py++) {
#pragma omp simd
    for (int px = 0; px < w; px++) {
      float cr = x0 + px * dx, ci = y0 + py * dy;
      float zr = 0, zi = 0;
      int it = 0;
      while (it < max_iter) {
        float zr2 = zr * zr, zi2 = zi * zi;
        if (zr2 + zi2 > 4.0f)
          break;
        zi = 2.0f * zr * zi + ci;
        zr = zr2 - zi2 + cr;
        it++;
      }
      out[py * w + px] = it;
    }
  }
}

void lower_bounds(int n, const int *queries, const int *table, int len, int *pos) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    int q = queries[i], lo = 0, hi = len;
    while (lo < hi) {
      int mid = (lo + hi) >> 1;
      if (table[mid] < q)
        lo = mid + 1;
      else
        hi = mid;
    }
    pos[i] = lo;
  }
}

void collatz_steps(int n, const int *x, int *steps) {
#pragma omp simd
  for (int i = 0; i < n; i++) {
    unsigned v = (unsigned)x[i];
    int s = 0;
    while (v > 1) {
      v = (v & 1) ? 3 * v + 1 : v >> 1;
      s++;
    }
    steps[i] = s;
  }
}

// Transcendental math: a damped sine (float) and a log-cosine product (double).
void gauss_sin(int n, const float *x, float *y) {
#pragma omp simd
  for (int i = 0; i < n; i++)
    y[i] = expf(-x[i] * x[i]) * sinf(x[i]);
}

void log_cos(int n, const double *x, double *y) {
#pragma omp simd
  for (int i = 0; i < n; i++)
    y[i] = log(1.0 + x[i] * x[i]) * cos(x[i]);
}
